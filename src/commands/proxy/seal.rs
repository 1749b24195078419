//! The seam between the proxy and the live engine: deciding a call (which reserves
//! its index), completing it with its outcome, and appending the links then ready to
//! the session file (`crate::live::SessionFile`: locked for the whole session,
//! appended with fdatasync) before anything moves on. Each operation says which
//! indices' links it made durable, in order.

use std::ops::Range;
use std::path::Path;

use toolreplay_core::Finding;
pub(super) use toolreplay_core::LiveOutcome as Outcome;
use toolreplay_core::Ready;
use toolreplay_core::Scope;
use toolreplay_core::Value;

use crate::error::Error;
use crate::live::{Options, SessionFile};

/// The decision on one call.
#[derive(Debug)]
pub(super) struct Decided {
    /// The call's index.
    pub index: u64,
    /// The findings that deny it; none when it is allowed. A denied call is
    /// complete at once.
    pub findings: Vec<Finding>,
    /// The indices whose links are now durable.
    pub durable: Range<u64>,
}

/// The session file and the live session.
#[derive(Debug)]
pub(super) struct Recorder<'s> {
    scope: &'s Scope,
    session: Option<SessionFile<'s>>,
    /// Why no call can be decided: the file could not be opened, did not verify,
    /// or a write failed.
    broken: Option<String>,
}

/// The response of a call the proxy itself refused though the policy allows it
/// (an unpinned tool, an id already in flight):
/// `{"toolreplay": {"outcome": "refused", "reasons": [R, ...]}}`.
pub(super) fn refused_response(reasons: &[String]) -> Value {
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
    /// Opens and locks the session file `path` (created when missing) for calls
    /// decided by `scope`, read from a scope file whose digest is `policy`; a file
    /// that cannot be opened or does not verify makes a recorder that refuses every
    /// call and never writes. `durable`: fsync each append.
    pub(super) fn open(path: &Path, scope: &'s Scope, policy: &str, durable: bool) -> Recorder<'s> {
        match SessionFile::open(path, scope, policy, Options { durable }) {
            Ok(mut session) => {
                // A relative `root` is read from the current directory, as `scope`
                // reads it after the fact without a session context.
                let here = std::env::current_dir()
                    .ok()
                    .and_then(|dir| dir.to_str().map(str::to_owned));
                session.live().set_context(toolreplay_core::PathContext {
                    project: here,
                    ..Default::default()
                });
                Recorder {
                    scope,
                    session: Some(session),
                    broken: None,
                }
            }
            Err(err) => Recorder {
                scope,
                session: None,
                broken: Some(err.to_string()),
            },
        }
    }

    /// Saves the session's state beside the file and lets the lock go; every call
    /// must be complete.
    pub(super) fn close(self) -> Result<(), Error> {
        match (self.session, self.broken) {
            (Some(session), None) => session.save(),
            _ => Ok(()),
        }
    }

    /// Why every call is refused, if it is.
    pub(super) fn broken(&self) -> Option<&str> {
        self.broken.as_deref()
    }

    /// The agent named by the scope.
    pub(super) fn agent(&self) -> &str {
        &self.scope.agent
    }

    fn session(&mut self) -> Result<&mut SessionFile<'s>, Error> {
        if let Some(why) = &self.broken {
            return Err(Error::Unrecorded(why.clone()));
        }
        self.session
            .as_mut()
            .ok_or_else(|| Error::Unrecorded("the session file is not open".to_owned()))
    }

    /// Decides the next call; `Err` says why no call can be decided (the call is
    /// refused, unrecorded).
    pub(super) fn decide(&mut self, tool: &str, args: &Value) -> Result<Decided, Error> {
        let session = self.session()?;
        let before = session.live().sealed();
        let (decision, ready) = session.live().decide(None, tool, args);
        self.write(&ready)?;
        let durable = before..self.sealed();
        Ok(Decided {
            index: decision.index,
            findings: decision.findings,
            durable,
        })
    }

    /// Completes call `index` with `outcome`: the findings of the response
    /// detectors on it, and the indices whose links are now durable.
    pub(super) fn complete(
        &mut self,
        index: u64,
        outcome: Outcome,
    ) -> Result<(Vec<Finding>, Range<u64>), Error> {
        let session = self.session()?;
        let before = session.live().sealed();
        let (found, ready) = session.live().complete(index, outcome)?;
        self.write(&ready)?;
        Ok((found, before..self.sealed()))
    }

    /// Gives call `index`, complete but waiting for an earlier call's link,
    /// `outcome` in place of the one it had (a call cancelled while its result
    /// waited).
    pub(super) fn amend(&mut self, index: u64, outcome: Outcome) -> Result<(), Error> {
        let session = self.session()?;
        session
            .live()
            .amend(index, outcome)
            .map_err(|err| Error::Unrecorded(err.to_string()))
    }

    /// Records the late `outcome` of call `of` (to `tool` with `args`), which was
    /// sealed without it (timed out, or the session ended): a new record, decided
    /// as every call is, `{"toolreplay": {"of": M, "outcome": "late", "response":
    /// R}}`. Gives its index and the indices now durable.
    pub(super) fn record_late(
        &mut self,
        tool: &str,
        args: &Value,
        of: u64,
        outcome: Outcome,
    ) -> Result<(u64, Range<u64>), Error> {
        let session = self.session()?;
        let before = session.live().sealed();
        let late = Outcome::Late {
            of,
            outcome: Box::new(outcome),
        };
        let (decision, _, ready) = session.live().record(None, tool, args, late);
        self.write(&ready)?;
        Ok((decision.index, before..self.sealed()))
    }

    fn sealed(&mut self) -> u64 {
        self.session
            .as_mut()
            .map_or(0, |session| session.live().sealed())
    }

    fn write(&mut self, ready: &Ready) -> Result<(), Error> {
        let session = self.session()?;
        session.write(ready).inspect_err(|err| {
            // The engine is past the file now: nothing more is appended.
            self.broken = Some(err.to_string());
        })
    }
}
