//! The seam between the proxy and the live engine (`toolreplay_core::live`):
//! deciding a call (which reserves its index), completing it with its outcome, and
//! appending the links that are then ready, durably, before anything moves on. Each
//! operation says which indices' links it made durable, in order.
//!
//! The session file's handling here (open and verify, append, fsync) is a small
//! stand-in for the binary's shared live module, kept behind this one interface.

use std::fs::{File, OpenOptions};
use std::io::{BufReader, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

use toolreplay_core::chain::Verdict;
use toolreplay_core::finding::Finding;
use toolreplay_core::json::Value;
pub use toolreplay_core::live::Outcome;
use toolreplay_core::live::{Live, Ready};
use toolreplay_core::scope::Scope;
use toolreplay_core::sealed;
use toolreplay_core::transcript::Links;

use crate::error::describe_io;

/// The decision on one call.
#[derive(Debug)]
pub struct Decided {
    /// The call's index.
    pub index: u64,
    /// The findings that deny it; none when it is allowed. A denied call is
    /// complete at once.
    pub findings: Vec<Finding>,
    /// The indices whose links are now durable.
    pub durable: Range<u64>,
}

/// The sealed session file and the live session.
#[derive(Debug)]
pub struct Recorder<'s> {
    path: PathBuf,
    live: Live<'s>,
    /// Why no call can be decided: the file did not verify, or a write failed.
    broken: Option<String>,
    file: Option<File>,
    durable: bool,
}

/// The response of a call the proxy itself refused though the policy allows it
/// (an unpinned tool, an id already in flight):
/// `{"toolreplay": {"outcome": "refused", "reasons": [R, ...]}}`.
pub fn refused_response(reasons: &[String]) -> Value {
    let reasons = reasons.iter().map(|why| Value::Str(why.clone())).collect();
    Value::Object(vec![(
        "toolreplay".to_owned(),
        Value::Object(vec![
            ("outcome".to_owned(), Value::Str("refused".to_owned())),
            ("reasons".to_owned(), Value::Array(reasons)),
        ]),
    )])
}

impl<'s> Recorder<'s> {
    /// Opens the session file `path` (created when missing) to append to, after
    /// checking its chain; a file that does not verify makes a recorder that refuses
    /// every call and never writes. `durable`: fsync each write.
    pub fn open(path: &Path, scope: &'s Scope, durable: bool) -> Recorder<'s> {
        let mut recorder = Recorder {
            path: path.to_owned(),
            live: Live::new(scope),
            broken: None,
            file: None,
            durable,
        };
        if let Err(why) = recorder.resume() {
            recorder.broken = Some(why);
        }
        recorder
    }

    fn resume(&mut self) -> Result<(), String> {
        let shown = self.path.display().to_string();
        let io = |err: std::io::Error| format!("{shown}: {}", describe_io(&err));
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(&self.path)
            .map_err(io)?;
        if !file.metadata().map_err(io)?.is_file() {
            return Err(format!("the session file {shown} is not a regular file"));
        }
        let checked = sealed::check_reader(BufReader::new(&file), None)
            .map_err(|err| format!("{shown}: {err}"))?;
        if let Verdict::Broken { position, .. } = checked.verdict {
            return Err(format!(
                "the session file {shown} does not verify (first broken link: index {position}); no call is appended to a broken chain"
            ));
        }
        // Every earlier call counts, as `scope` counts it.
        let reread = File::open(&self.path).map_err(io)?;
        for item in Links::new(BufReader::new(reread)) {
            let (_, link) = item.map_err(|err| format!("{shown}: {err}"))?;
            self.live
                .take_sealed(&link)
                .map_err(|err| format!("{shown}: {err}"))?;
        }
        self.file = Some(file);
        Ok(())
    }

    /// Why every call is refused, if it is.
    pub fn broken(&self) -> Option<&str> {
        self.broken.as_deref()
    }

    /// The agent named by the scope.
    pub fn agent(&self) -> &str {
        &self.live.scope().agent
    }

    /// Decides the next call; `Err` says why no call can be decided (the call is
    /// refused, unrecorded).
    pub fn decide(&mut self, tool: &str, args: &Value) -> Result<Decided, String> {
        if let Some(why) = &self.broken {
            return Err(why.clone());
        }
        let before = self.live.sealed();
        let (decision, ready) = self.live.decide(None, tool, args);
        self.write(&ready)?;
        Ok(Decided {
            index: decision.index,
            findings: decision.findings,
            durable: before..self.live.sealed(),
        })
    }

    /// Completes call `index` with `outcome`: the findings of the response
    /// detectors on it, and the indices whose links are now durable.
    pub fn complete(
        &mut self,
        index: u64,
        outcome: Outcome,
    ) -> Result<(Vec<Finding>, Range<u64>), String> {
        if let Some(why) = &self.broken {
            return Err(why.clone());
        }
        let before = self.live.sealed();
        let (found, ready) = self
            .live
            .complete(index, outcome)
            .map_err(|err| err.to_string())?;
        self.write(&ready)?;
        Ok((found, before..self.live.sealed()))
    }

    fn write(&mut self, ready: &Ready) -> Result<(), String> {
        if ready.is_empty() {
            return Ok(());
        }
        let Some(file) = self.file.as_mut() else {
            return Err("the session file is not open".to_owned());
        };
        let written = file.write_all(&ready.lines).and_then(|()| {
            if self.durable {
                file.sync_data()
            } else {
                Ok(())
            }
        });
        written.map_err(|err| {
            let why = format!(
                "cannot write the session file {}: {}",
                self.path.display(),
                describe_io(&err)
            );
            // The session's state is past the file now: nothing more is appended.
            self.broken = Some(why.clone());
            why
        })
    }
}
