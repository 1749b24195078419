//! The seam between the proxy and the live engine: deciding a call (which reserves
//! its index), completing it with its outcome, and appending the links then ready to
//! the session file (`crate::live::SessionFile`: locked for the whole session).
//! Appends are flushed to stable storage in groups: [`Recorder::sync`] makes every
//! link appended since the last one durable with one fdatasync, and says which
//! indices that made durable; nothing may move on before.

use std::ops::Range;
use std::path::Path;

use toolreplay_core::CallMeta;
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
    /// The indices whose links are now durable: none, until [`Recorder::sync`].
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
    /// With `--otlp`: where each block of links appended goes, to become spans.
    spans: Option<std::sync::mpsc::Sender<Ready>>,
    /// How many links are durable (the rest of the sealed ones are appended and
    /// wait for [`Recorder::sync`]).
    synced: u64,
    /// How many flushes [`Recorder::sync`] made.
    syncs: u64,
}

/// What the call ids file beside the seal keeps of a `tools/call` request with the
/// JSON-RPC id `id` (a string, or an integer's digits; `null` for none) made in
/// the protocol revision `revision`.
pub(super) fn call_ids(id: &Value, revision: Option<&str>) -> CallMeta {
    let jsonrpc_id = match id {
        Value::Str(text) => Some(text.clone()),
        Value::Int(digits) => Some(digits.to_string()),
        _ => None,
    };
    CallMeta {
        jsonrpc_id,
        protocol_version: revision.map(str::to_owned),
        ..CallMeta::default()
    }
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
                let synced = session.live().sealed();
                Recorder {
                    scope,
                    session: Some(session),
                    broken: None,
                    spans: None,
                    synced,
                    syncs: 0,
                }
            }
            Err(err) => Recorder {
                scope,
                session: None,
                spans: None,
                broken: Some(err.to_string()),
                synced: 0,
                syncs: 0,
            },
        }
    }

    /// Saves the session's state beside the file and lets the lock go; every call
    /// must be complete.
    pub(super) fn close(mut self) -> Result<(), Error> {
        if self.broken.is_none() {
            self.sync()?;
        }
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

    /// Decides the next call, of which the client's request says `call` (its id,
    /// the protocol version: kept beside the seal, [`call_ids`]); `Err` says why no
    /// call can be decided (the call is refused, unrecorded).
    pub(super) fn decide(
        &mut self,
        tool: &str,
        args: &Value,
        call: CallMeta,
    ) -> Result<Decided, Error> {
        let session = self.session()?;
        session.live().name_next(call);
        let (decision, ready) = session.live().decide(None, tool, args);
        self.write(&ready)?;
        Ok(Decided {
            index: decision.index,
            findings: decision.findings,
            durable: self.synced..self.synced,
        })
    }

    /// Makes every link appended since the last call durable, with one flush (none
    /// when nothing was appended, or without fsync): the indices now durable. A
    /// failed flush breaks the session: nothing more is appended, and no link after
    /// the last durable one counts as durable.
    pub(super) fn sync(&mut self) -> Result<Range<u64>, Error> {
        let sealed = self.sealed();
        if sealed == self.synced {
            return Ok(sealed..sealed);
        }
        let session = self.session()?;
        session.sync().inspect_err(|err| {
            self.broken = Some(err.to_string());
        })?;
        self.syncs += 1;
        let durable = self.synced..sealed;
        self.synced = sealed;
        Ok(durable)
    }

    /// Completes call `index` with `outcome`: the findings of the response
    /// detectors on it, and the indices whose links are now durable.
    pub(super) fn complete(
        &mut self,
        index: u64,
        outcome: Outcome,
    ) -> Result<(Vec<Finding>, Range<u64>), Error> {
        let session = self.session()?;
        let (found, ready) = session.live().complete(index, outcome)?;
        self.write(&ready)?;
        Ok((found, self.synced..self.synced))
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
        let late = Outcome::Late {
            of,
            outcome: Box::new(outcome),
        };
        let (decision, _, ready) = session.live().record(None, tool, args, late);
        self.write(&ready)?;
        Ok((decision.index, self.synced..self.synced))
    }

    /// How many flushes [`Recorder::sync`] made.
    #[cfg(test)]
    pub(super) fn syncs(&self) -> u64 {
        self.syncs
    }

    fn sealed(&mut self) -> u64 {
        self.session
            .as_mut()
            .map_or(0, |session| session.live().sealed())
    }

    /// Sends every block of links made durable from now on to `spans`.
    pub(super) fn send_links_to(&mut self, spans: std::sync::mpsc::Sender<Ready>) {
        self.spans = Some(spans);
    }

    fn write(&mut self, ready: &Ready) -> Result<(), Error> {
        let session = self.session()?;
        session.append(ready, false).inspect_err(|err| {
            // The engine is past the file now: nothing more is appended.
            self.broken = Some(err.to_string());
        })?;
        if let Some(spans) = &self.spans
            && !ready.is_empty()
        {
            // The exporting thread may be gone; the session goes on regardless.
            let _ = spans.send(ready.clone());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use toolreplay_core::{CallMeta, Scope, parse_json};

    use super::{Outcome, Recorder};

    /// Links made ready by several calls are flushed together: one fsync for every
    /// link ready at that moment, and nothing durable before it.
    #[test]
    fn links_ready_together_are_flushed_with_one_fsync() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = dir.path().join("s.jsonl");
        let scope = Scope::parse(br#"{"agent": "a", "allowed_tools": ["echo"]}"#).expect("scope");
        let mut recorder = Recorder::open(&path, &scope, "policy", true);
        assert_eq!(recorder.broken(), None);
        let args = parse_json("{}").expect("JSON");
        let calls: Vec<u64> = (0..3)
            .map(|_| {
                recorder
                    .decide("echo", &args, CallMeta::default())
                    .expect("decided")
                    .index
            })
            .collect();
        // The calls end last first: nothing is ready until the first one ends.
        for &index in calls.iter().rev() {
            let response = parse_json(r#"{"content": []}"#).expect("JSON");
            let (_, durable) = recorder
                .complete(index, Outcome::Response(response))
                .expect("completed");
            assert!(durable.is_empty());
        }
        assert_eq!(recorder.syncs(), 0);
        assert_eq!(recorder.sync().expect("flushed"), 0..3);
        assert_eq!(recorder.syncs(), 1);
        // Nothing new: no flush.
        assert_eq!(recorder.sync().expect("flushed"), 3..3);
        assert_eq!(recorder.syncs(), 1);
        recorder.close().expect("closed");
        assert_eq!(
            std::fs::read_to_string(&path)
                .expect("read")
                .lines()
                .count(),
            3
        );
    }
}
