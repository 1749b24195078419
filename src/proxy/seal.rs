//! The seam between the proxy and the session engine: deciding a call (which
//! reserves its index), completing it with what happened, and the links that are
//! durable as a result, released in index order.
//!
//! This is a thin stand-in over the core chain API (`Sealer`, `UnsealedLink`) and
//! `scope::Session`, kept behind one small interface so that the shared live engine
//! can take its place without the proxy changing.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use toolreplay_core::canonical;
use toolreplay_core::chain::{Sealer, UnsealedLink, Verdict};
use toolreplay_core::finding::{Finding, finding_message};
use toolreplay_core::json::{self, Value};
use toolreplay_core::scope::{Scope, Session, SessionState};
use toolreplay_core::sealed;
use toolreplay_core::transcript::Links;

use crate::error::describe_io;

/// How a call ended, as its record's response says it.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// The server answered: the response in the shape `import --from mcp` gives.
    Result(Value),
    /// Denied before it ran: the policy's findings, and the proxy's own reasons.
    Denied {
        /// What the policy found.
        findings: Vec<Finding>,
        /// The proxy's own reasons (an unpinned tool, an id already in flight).
        refusals: Vec<String>,
    },
    /// No result within the call timeout; the server was told to cancel.
    TimedOut {
        /// The timeout, in milliseconds.
        after_ms: u64,
    },
    /// Cancelled by the client.
    Cancelled {
        /// The client's reason, if it gave one.
        reason: Option<String>,
    },
    /// The session ended, or the server died, before the call had a result.
    NoResult {
        /// Why.
        reason: String,
    },
}

/// The decision on one call.
#[derive(Debug)]
pub struct Decided {
    /// The call's index.
    pub index: u64,
    /// The findings that deny it; none when it is allowed.
    pub findings: Vec<Finding>,
}

/// The sealed session file and the decisions of the session.
#[derive(Debug)]
pub struct Recorder {
    path: PathBuf,
    scope: Scope,
    state: SessionState,
    /// Why no call can be decided: the file did not verify, or a write failed.
    broken: Option<String>,
    file: Option<File>,
    sealer: Sealer,
    /// The index of the next link to write.
    next_link: u64,
    /// Links completed before an earlier call, waiting for it.
    waiting: BTreeMap<u64, UnsealedLink>,
    durable: bool,
}

impl Recorder {
    /// Opens the session file `path` (created when missing) to append to, after
    /// checking its chain; a file that does not verify makes a recorder that refuses
    /// every call. `durable`: fsync each write.
    pub fn open(path: &Path, scope: Scope, durable: bool) -> Recorder {
        let mut recorder = Recorder {
            path: path.to_owned(),
            scope,
            state: SessionState::default(),
            broken: None,
            file: None,
            sealer: Sealer::new(),
            next_link: 0,
            waiting: BTreeMap::new(),
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
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(&self.path)
            .map_err(io)?;
        let checked = sealed::check_reader(BufReader::new(&file), None)
            .map_err(|err| format!("{shown}: {err}"))?;
        let head = match checked.verdict {
            Verdict::Intact { head, .. } => head,
            Verdict::Broken { position, .. } => {
                return Err(format!(
                    "{shown} does not verify (first broken link: index {position}): no call is appended to a broken chain"
                ));
            }
        };
        // Every earlier call counts, as `scope` counts it.
        file.seek(SeekFrom::Start(0)).map_err(io)?;
        let mut session = Session::new(&self.scope);
        for item in Links::new(BufReader::new(&file)) {
            let (_, link) = item.map_err(|err| format!("{shown}: {err}"))?;
            let args = std::str::from_utf8(&link.args)
                .ok()
                .and_then(|text| json::parse(text).ok())
                .unwrap_or(Value::Object(Vec::new()));
            session.decide(&link.tool, &args);
        }
        self.next_link = session.next_index();
        self.state = session.into_state();
        self.sealer = Sealer::after(&head);
        self.file = Some(file);
        Ok(())
    }

    /// The agent named by the scope.
    pub fn agent(&self) -> &str {
        &self.scope.agent
    }

    /// Decides the next call; `Err` says why no call can be decided (and the call
    /// is refused, unrecorded).
    pub fn decide(&mut self, tool: &str, args: &Value) -> Result<Decided, String> {
        if let Some(why) = &self.broken {
            return Err(why.clone());
        }
        let mut session = Session::resume(&self.scope, std::mem::take(&mut self.state));
        let decision = session.decide(tool, args);
        self.state = session.into_state();
        Ok(Decided {
            index: decision.index,
            findings: decision.findings,
        })
    }

    /// What the detectors find in `response`, the response of call `index`.
    pub fn check_response(
        &self,
        index: u64,
        tool: &str,
        args: &Value,
        response: &Value,
    ) -> Vec<Finding> {
        Session::resume(&self.scope, SessionState::default())
            .check_response(index, tool, args, response)
    }

    /// Completes call `index` (decided to `tool` with `args`): its link is written
    /// once every earlier call's is. Gives the indices whose links are now durable,
    /// in order.
    pub fn complete(
        &mut self,
        index: u64,
        tool: &str,
        args: &Value,
        outcome: &Outcome,
    ) -> Result<Vec<u64>, String> {
        if let Some(why) = &self.broken {
            return Err(why.clone());
        }
        let response = response(outcome, &self.scope.agent);
        let link = UnsealedLink::new(
            &index.to_string(),
            tool,
            &canonical::encode(args),
            &canonical::encode(&response),
        );
        self.waiting.insert(index, link);
        let mut released = Vec::new();
        let mut out = Vec::new();
        while let Some(mut link) = self.waiting.remove(&self.next_link) {
            self.sealer.seal_link(&mut link);
            out.extend_from_slice(link.as_ref());
            released.push(self.next_link);
            self.next_link += 1;
        }
        if out.is_empty() {
            return Ok(released);
        }
        let Some(file) = self.file.as_mut() else {
            return Err("the session file is not open".to_owned());
        };
        let written = file.write_all(&out).and_then(|()| {
            if self.durable {
                file.sync_data()
            } else {
                Ok(())
            }
        });
        match written {
            Ok(()) => Ok(released),
            Err(err) => {
                let why = format!(
                    "cannot write the session file {}: {}",
                    self.path.display(),
                    describe_io(&err)
                );
                self.broken = Some(why.clone());
                Err(why)
            }
        }
    }
}

fn object(members: Vec<(&str, Value)>) -> Value {
    let mut members: Vec<(String, Value)> = members
        .into_iter()
        .map(|(key, value)| (key.to_owned(), value))
        .collect();
    members.sort_by(|a, b| a.0.cmp(&b.0));
    Value::Object(members)
}

/// The record's response for `outcome`.
pub fn response(outcome: &Outcome, agent: &str) -> Value {
    let text = |s: &str| Value::Str(s.to_owned());
    let toolreplay = |members| object(vec![("toolreplay", object(members))]);
    match outcome {
        Outcome::Result(response) => response.clone(),
        Outcome::Denied { findings, refusals } => {
            let findings = findings
                .iter()
                .map(|finding| {
                    object(vec![
                        ("kind", text(finding.kind.name())),
                        ("message", text(&finding_message(finding, agent))),
                    ])
                })
                .collect();
            let mut members = vec![
                ("outcome", text("denied")),
                ("findings", Value::Array(findings)),
            ];
            if !refusals.is_empty() {
                let refusals = refusals.iter().map(|why| text(why)).collect();
                members.push(("refusals", Value::Array(refusals)));
            }
            toolreplay(members)
        }
        Outcome::TimedOut { after_ms } => toolreplay(vec![
            ("outcome", text("timed-out")),
            ("after_ms", Value::Int(after_ms.to_string().into())),
        ]),
        Outcome::Cancelled { reason } => toolreplay(vec![
            ("outcome", text("cancelled")),
            ("reason", reason.as_deref().map_or(Value::Null, text)),
        ]),
        Outcome::NoResult { reason } => object(vec![
            ("no_result", Value::Bool(true)),
            (
                "toolreplay",
                object(vec![
                    ("outcome", text("no-result")),
                    ("reason", text(reason)),
                ]),
            ),
        ]),
    }
}
