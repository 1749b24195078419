//! A live session: calls decided by a scope one at a time as an agent makes them, and
//! sealed into a transcript as they finish (the live sessions contract, `live.md`).
//!
//! A [`Live`] session holds what the front ends (the Claude Code hook and the MCP
//! proxy) share, with no I/O: the policy's decision state (a [`SessionState`]), the
//! calls decided but not yet sealed, the head of the chain and the index of the next
//! link. It saves to a [`LiveState`] (serde), so that a process living for one event
//! can leave it for the next.
//!
//! - [`Live::decide`] decides a call before it runs and reserves its index, the
//!   order of decisions. A denied call is complete at once, with the response
//!   [`denied_response`].
//! - [`Live::complete`] gives a call its [`Outcome`] and returns the findings of the
//!   scope's response detectors on it.
//! - [`Live::end`] gives every call still waiting for its outcome `{"no_result":
//!   true}`; [`Live::take_ended`] finds such a call when its outcome comes later,
//!   and [`Live::record`] seals that outcome as a late record ([`Outcome::Late`]).
//! - [`Reconcile`] rebuilds a session from the links of its transcript and carries
//!   over the calls a saved state had pending, so that what only the state holds
//!   (decisions and responses not sealed yet) is never thrown away.
//!
//! Each returns a [`Ready`]: the sealed lines of the calls now ready to write, in
//! index order. A call that finishes before an earlier one waits for it, so the
//! lines are always the next links of the chain; written one after another they are
//! byte for byte what `seal` writes for the same records.
//!
//! ```
//! use toolreplay_core::parse_json;
//! use toolreplay_core::{Live, LiveOutcome as Outcome};
//! use toolreplay_core::Scope;
//!
//! let scope = Scope::parse(br#"{"agent": "coder", "allowed_tools": ["Read"]}"#).expect("scope");
//! let mut live = Live::new(&scope);
//! let args = parse_json(r#"{"file_path": "/src/a.rs"}"#).expect("JSON");
//! let (first, _) = live.decide(Some("toolu_1"), "Read", &args);
//! let (second, _) = live.decide(Some("toolu_2"), "Read", &args);
//! assert!(first.is_allowed() && second.is_allowed());
//!
//! // The second call finishes first: its link waits for the first one.
//! let response = parse_json(r#"{"content": "fn main() {}"}"#).expect("JSON");
//! let (_, ready) = live.complete(second.index, Outcome::Response(response.clone())).expect("pending");
//! assert_eq!(ready.links, 0);
//! let (_, ready) = live.complete(first.index, Outcome::Response(response)).expect("pending");
//! assert_eq!(ready.links, 2);
//! assert_eq!(live.sealed(), 2);
//! ```

use serde::{Deserialize, Serialize};

use crate::canonical;
use crate::chain::{GENESIS, Sealer, UnsealedLink};
use crate::finding::{Finding, finding_message};
use crate::import::CallMeta;
use crate::json::Value;
use crate::scope::{Decision, Scope, Session, SessionState, too_deep};
use crate::transcript::Link;

/// What a live session keeps between events: serialisable, meaningful only with the
/// scope it was made with. Its size grows with the calls decided but not yet sealed,
/// never with the calls sealed (of which it keeps at most the last [`ENDED_KEPT`]
/// sealed without their result).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LiveState {
    /// The policy's decision state (the index of the next decision included).
    policy: SessionState,
    /// The digest of the last link sealed (the genesis before the first).
    head: String,
    /// How many links are sealed: the index of the next link.
    sealed: u64,
    /// The calls decided and not sealed yet, by index.
    #[serde(default)]
    pending: Vec<Pending>,
    /// The last [`ENDED_KEPT`] calls sealed without their result by [`Live::end`],
    /// oldest first: an outcome that comes later is recorded as late.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    ended: Vec<Ended>,
}

impl Default for LiveState {
    fn default() -> Self {
        LiveState {
            policy: SessionState::default(),
            head: GENESIS.to_owned(),
            sealed: 0,
            pending: Vec::new(),
            ended: Vec::new(),
        }
    }
}

/// How many calls sealed without their result at the end of a turn a session
/// remembers, so that an outcome coming later is recorded as late
/// ([`Live::take_ended`]); an outcome of an older one is recorded as a call of its
/// own, not flagged late.
pub const ENDED_KEPT: usize = 64;

/// A call sealed without its result by [`Live::end`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Ended {
    index: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    id: Option<String>,
    tool: String,
    /// The canonical arguments.
    args: String,
}

impl LiveState {
    /// The digest of the last link sealed (64 zeros before the first).
    pub fn head(&self) -> &str {
        &self.head
    }

    /// How many links are sealed.
    pub fn sealed(&self) -> u64 {
        self.sealed
    }

    /// How many calls are decided and not sealed yet.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }
}

/// A call decided and not sealed yet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Pending {
    index: u64,
    /// The front end's name for the call (Claude Code's `tool_use_id`, a JSON-RPC
    /// request id), if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    id: Option<String>,
    tool: String,
    /// The canonical arguments (canonical JSON is ASCII).
    args: String,
    /// The canonical response, once the call is complete.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    response: Option<String>,
    /// The subagent that made the call, when one did: its response says so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    subagent: Option<String>,
    /// What the front end said of the call besides its id ([`Live::name_next`]):
    /// for its line of the call ids file, not part of the state.
    #[serde(skip)]
    meta: Option<Box<CallMeta>>,
}

/// A call still waiting for its outcome, as [`Live::waiting`] lists it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Waiting<'a> {
    /// Its index.
    pub index: u64,
    /// The front end's name for it.
    pub id: Option<&'a str>,
    /// Its tool.
    pub tool: &'a str,
}

/// How a call ended, and so the response its record holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The tool's response, as it gave it: an object is the record's response as it
    /// is, any other value is kept under `"content"` (`{"content": ...}`), as import
    /// keeps a result.
    Response(Value),
    /// The tool failed: `{"error": E, "is_error": true}`, as import writes an error.
    Error(Value),
    /// No result before the call timeout (the server was told to cancel):
    /// `{"toolreplay": {"after_ms": N, "outcome": "timed-out"}}`.
    TimedOut {
        /// How long the call had run.
        after_ms: u64,
    },
    /// Cancelled by the client:
    /// `{"toolreplay": {"outcome": "cancelled", "reason": R}}`.
    Cancelled {
        /// Why, as the client said; `null` when it did not.
        reason: Option<String>,
    },
    /// No result ever came (the session ended, the server died):
    /// `{"no_result": true}`, with `"reason": R` when known.
    NoResult {
        /// Why, when known.
        reason: Option<String>,
    },
    /// The result came but cannot be held in a record (a lone surrogate, nesting
    /// deeper than a record allows): `{"toolreplay": {"outcome": "unrecordable",
    /// "reason": R}}`.
    Unrecordable {
        /// Why.
        reason: String,
    },
    /// The outcome of the call at index `of` came after that call was sealed without
    /// its result ([`Live::end`]): `{"toolreplay": {"of": M, "outcome": "late",
    /// "response": R}}`, R the response `outcome` gives.
    Late {
        /// The index of the record sealed without the result.
        of: u64,
        /// How the call ended.
        outcome: Box<Outcome>,
    },
    /// The call was seen only once it ran: its before-call event never came (a hook
    /// that timed out or was skipped), so it was decided only as it was recorded:
    /// `{"toolreplay": {"outcome": "unguarded", "response": R}}`, R the response
    /// `outcome` gives.
    Unguarded(Box<Outcome>),
}

fn toolreplay(members: Vec<(&str, Value)>) -> Value {
    Value::object([("toolreplay", Value::object(members))])
}

impl Outcome {
    /// The response a record of a call that ended so holds.
    pub fn response(self) -> Value {
        match self {
            Outcome::Response(value @ Value::Object(_)) => value,
            Outcome::Response(other) => Value::object([("content", other)]),
            Outcome::Error(error) => {
                Value::object([("error", error), ("is_error", Value::Bool(true))])
            }
            Outcome::TimedOut { after_ms } => toolreplay(vec![
                ("after_ms", Value::Int(after_ms.to_string().into())),
                ("outcome", Value::Str("timed-out".to_owned())),
            ]),
            Outcome::Cancelled { reason } => toolreplay(vec![
                ("outcome", Value::Str("cancelled".to_owned())),
                ("reason", reason.map_or(Value::Null, Value::Str)),
            ]),
            Outcome::NoResult { reason } => {
                let mut members = vec![("no_result", Value::Bool(true))];
                if let Some(reason) = reason {
                    members.push(("reason", Value::Str(reason)));
                }
                Value::object(members)
            }
            Outcome::Unrecordable { reason } => toolreplay(vec![
                ("outcome", Value::Str("unrecordable".to_owned())),
                ("reason", Value::Str(reason)),
            ]),
            Outcome::Unguarded(outcome) => toolreplay(vec![
                ("outcome", Value::Str("unguarded".to_owned())),
                ("response", outcome.response()),
            ]),
            Outcome::Late { of, outcome } => toolreplay(vec![
                ("of", Value::Int(of.to_string().into())),
                ("outcome", Value::Str("late".to_owned())),
                ("response", outcome.response()),
            ]),
        }
    }
}

/// `response` (an object) with the member `"subagent": name` when a subagent made
/// the call; a member of that name the response had is replaced.
fn marked(response: Value, subagent: Option<&str>) -> Value {
    match (response, subagent) {
        (Value::Object(mut members), Some(name)) => {
            // Members stay sorted by key, as the canonical encoding wants them.
            members.retain(|(key, _)| key != "subagent");
            let at = members.partition_point(|(key, _)| key.as_str() < "subagent");
            members.insert(at, ("subagent".to_owned(), Value::Str(name.to_owned())));
            Value::Object(members)
        }
        (response, _) => response,
    }
}

/// The response of a call the policy denied before it ran:
/// `{"toolreplay": {"findings": [{"kind": K, "message": M}, ...], "outcome":
/// "denied"}}`, the findings of the decision in its order, each message as reports
/// write it (`agent` is the scope's agent).
pub(crate) fn denied_response(findings: &[Finding], agent: &str) -> Value {
    let findings = findings
        .iter()
        .map(|finding| {
            Value::object([
                ("kind", Value::Str(finding.kind.name().to_owned())),
                ("message", Value::Str(finding_message(finding, agent))),
            ])
        })
        .collect();
    toolreplay(vec![
        ("findings", Value::Array(findings)),
        ("outcome", Value::Str("denied".to_owned())),
    ])
}

/// The sealed lines an operation made ready: the next `links` links of the chain,
/// each line ending with LF, to append in this order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ready {
    /// The lines.
    pub lines: Vec<u8>,
    /// How many links they are.
    pub links: u64,
    /// The lines of the call ids file (`S.jsonl.calls`, [`crate::call_ids_line`])
    /// for those of the links whose calls the front end named, to append as the
    /// links are.
    pub calls: Vec<u8>,
}

impl Ready {
    /// Whether there is nothing to write.
    pub fn is_empty(&self) -> bool {
        self.links == 0
    }

    /// Puts the lines `next` made ready after these (its links follow them).
    pub fn extend(&mut self, next: Ready) {
        self.lines.extend_from_slice(&next.lines);
        self.links += next.links;
        self.calls.extend_from_slice(&next.calls);
    }
}

/// Why a live session could not do what it was asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LiveError {
    /// No call with this index waits for its outcome.
    #[error("no call with index {0} is waiting for its outcome")]
    NotWaiting(u64),
    /// No call with this id waits for its outcome.
    #[error("no call named {0:?} is waiting for its outcome")]
    UnknownId(String),
    /// A sealed link taken in by [`Live::take_sealed`] is not the next one.
    #[error("link {found} cannot follow the {sealed} links taken so far")]
    NotNext {
        /// How many links were taken.
        sealed: u64,
        /// The link's index as written.
        found: String,
    },
    /// Sealed links can be taken in only before any call is decided.
    #[error("sealed links can be taken in only while no call is pending")]
    Pending,
    /// The links given to [`Reconcile`] do not pass through the saved state's head.
    #[error("the links do not pass through link {sealed} with digest {head}")]
    NotContinued {
        /// How many links the saved state had sealed.
        sealed: u64,
        /// The saved state's head.
        head: String,
    },
}

/// A live session against a scope.
#[derive(Debug)]
pub struct Live<'s> {
    session: Session<'s>,
    head: String,
    sealed: u64,
    pending: Vec<Pending>,
    ended: Vec<Ended>,
    /// The subagent making the calls decided now.
    subagent: Option<String>,
    /// What [`Live::name_next`] said of the next call.
    next: Option<Box<CallMeta>>,
}

impl<'s> Live<'s> {
    /// A session with an empty transcript.
    pub fn new(scope: &'s Scope) -> Self {
        Self::resume(scope, LiveState::default())
    }

    /// A session that goes on from `state`, left by a session against the same scope.
    pub fn resume(scope: &'s Scope, state: LiveState) -> Self {
        let LiveState {
            policy,
            head,
            sealed,
            mut pending,
            ended,
        } = state;
        pending.sort_by_key(|call| call.index);
        Live {
            session: Session::resume(scope, policy),
            head,
            sealed,
            pending,
            ended,
            subagent: None,
            next: None,
        }
    }

    /// What the session keeps, to be saved.
    pub fn state(&self) -> LiveState {
        LiveState {
            policy: self.session.state().clone(),
            head: self.head.clone(),
            sealed: self.sealed,
            pending: self.pending.clone(),
            ended: self.ended.clone(),
        }
    }

    /// Where the calls decided from now on are made (see [`Session::set_context`]);
    /// nothing is known until this is said, and it is not part of the state.
    pub fn set_context(&mut self, context: crate::policy::PathContext) {
        self.session.set_context(context);
    }

    /// The subagent that makes the calls decided from now on, `None` for the main
    /// agent: their records' responses get a member `"subagent": ID`, as import
    /// marks a subagent's calls. Not part of the state: each call keeps its own.
    pub fn set_subagent(&mut self, subagent: Option<String>) {
        self.subagent = subagent;
    }

    /// What the front end says of the next call decided or recorded besides its id
    /// (the proxy: its JSON-RPC request's id and the protocol version): written in
    /// the call's line of the call ids file ([`Ready::calls`]) when its link is
    /// sealed. Not part of the state.
    pub fn name_next(&mut self, meta: CallMeta) {
        self.next = Some(Box::new(meta));
    }

    /// The scope calls are decided against.
    pub fn scope(&self) -> &'s Scope {
        self.session.scope()
    }

    /// The digest of the last link sealed (64 zeros before the first).
    pub fn head(&self) -> &str {
        &self.head
    }

    /// How many links are sealed.
    pub fn sealed(&self) -> u64 {
        self.sealed
    }

    /// The index the next decided call gets.
    pub fn next_index(&self) -> u64 {
        self.session.next_index()
    }

    /// The calls decided and still waiting for their outcome, by index.
    pub fn waiting(&self) -> impl Iterator<Item = Waiting<'_>> {
        self.pending
            .iter()
            .filter(|call| call.response.is_none())
            .map(|call| Waiting {
                index: call.index,
                id: call.id.as_deref(),
                tool: &call.tool,
            })
    }

    /// The index of the call named `id` that waits for its outcome.
    pub fn index_of(&self, id: &str) -> Option<u64> {
        self.waiting()
            .find(|call| call.id == Some(id))
            .map(|call| call.index)
    }

    /// The first call waiting for its outcome that has no name and is to `tool`
    /// with `args`: how a front end whose events do not name calls pairs an outcome
    /// with its decision.
    pub fn index_of_call(&self, tool: &str, args: &Value) -> Option<u64> {
        self.waiting_call(None, tool, args)
    }

    /// The first call waiting for its outcome that is named `id` and is to `tool`
    /// with `args`: an event matched by its name, tool and input.
    pub fn index_of_named_call(&self, id: &str, tool: &str, args: &Value) -> Option<u64> {
        self.waiting_call(Some(id), tool, args)
    }

    fn waiting_call(&self, id: Option<&str>, tool: &str, args: &Value) -> Option<u64> {
        let args = canonical_args(args);
        self.pending
            .iter()
            .find(|call| {
                call.response.is_none()
                    && call.id.as_deref() == id
                    && call.tool == tool
                    && call.args.as_bytes() == args.as_slice()
            })
            .map(|call| call.index)
    }

    /// Takes in the next link of the transcript the session continues, already
    /// sealed (and verified by the caller): it counts for the decisions after it as
    /// a call decided, and becomes the head. This rebuilds a session from its
    /// transcript; only while no call is pending.
    pub fn take_sealed(&mut self, link: &Link) -> Result<(), LiveError> {
        if !self.pending.is_empty() {
            return Err(LiveError::Pending);
        }
        if *link.index != *self.sealed.to_string() {
            return Err(LiveError::NotNext {
                sealed: self.sealed,
                found: link.index.to_string(),
            });
        }
        self.count(&link.tool, &link.args);
        self.head.clone_from(&link.digest);
        self.sealed += 1;
        Ok(())
    }

    /// Decides the call `id` (the front end's name for it, if any) to `tool` with
    /// `args` before it runs, and reserves its index, whatever the decision. A
    /// denied call is complete at once, with `denied_response`; the lines this
    /// made ready are returned.
    ///
    /// A call named like one still waiting, to the same tool with the same
    /// arguments, is that call again (a second hook on the same event): its index,
    /// allowed, and nothing reserved. A name reused for another call is never taken
    /// for it: that call is decided and reserved as any other. Arguments that are
    /// not an object are recorded under `"content"`; arguments nested deeper than a
    /// record holds are denied and recorded as `{}`.
    pub fn decide(&mut self, id: Option<&str>, tool: &str, args: &Value) -> (Decision, Ready) {
        if let Some(index) = id.and_then(|id| self.index_of_named_call(id, tool, args)) {
            let decision = Decision {
                index,
                findings: Vec::new(),
            };
            return (decision, Ready::default());
        }
        let decision = self.reserve(id, tool, args, true);
        (decision, self.seal_ready())
    }

    /// Decides a call and adds it to the pending ones, complete with the denial
    /// when it is denied and `deny` says so.
    fn reserve(&mut self, id: Option<&str>, tool: &str, args: &Value, deny: bool) -> Decision {
        let wrapped;
        let args = match args {
            Value::Object(_) => args,
            other => {
                wrapped = Value::object([("content", other.clone())]);
                &wrapped
            }
        };
        let decision = self.session.decide(tool, args);
        let args = match too_deep(args) {
            Some(_) => b"{}".to_vec(),
            None => canonical::encode(args),
        };
        let subagent = self.subagent.clone();
        let response = (deny && !decision.is_allowed()).then(|| {
            let denied = denied_response(&decision.findings, &self.scope().agent);
            ascii(canonical::encode(&marked(denied, subagent.as_deref())))
        });
        self.pending.push(Pending {
            index: decision.index,
            id: id.map(str::to_owned),
            tool: tool.to_owned(),
            args: ascii(args),
            response,
            subagent,
            meta: self.next.take(),
        });
        decision
    }

    /// Gives the call at `index` its outcome: returns the findings of the scope's
    /// response detectors on the response the record holds (none without a policy),
    /// and the lines this made ready. A response nested deeper than a record holds
    /// is recorded as `{"toolreplay": {"outcome": "unrecordable", "reason": R}}`
    /// (its finding says it cannot be scanned).
    pub fn complete(
        &mut self,
        index: u64,
        outcome: Outcome,
    ) -> Result<(Vec<Finding>, Ready), LiveError> {
        let at = self
            .pending
            .iter()
            .position(|call| call.index == index && call.response.is_none())
            .ok_or(LiveError::NotWaiting(index))?;
        let mut response = outcome.response();
        let call = &self.pending[at];
        let found = self.session.check_response_canonical(
            index,
            &call.tool,
            call.args.as_bytes(),
            &response,
        );
        if let Some(reason) = too_deep(&response) {
            response = toolreplay(vec![
                ("outcome", Value::Str("unrecordable".to_owned())),
                ("reason", Value::Str(reason.into())),
            ]);
        }
        let response = marked(response, self.pending[at].subagent.as_deref());
        self.pending[at].response = Some(ascii(canonical::encode(&response)));
        Ok((found, self.seal_ready()))
    }

    /// Gives the call at `index`, complete but not sealed yet (it waits for an
    /// earlier call), another outcome in place of the one it had: a call the client
    /// cancelled while its result waited. Nothing is made ready: the call still
    /// waits for the same earlier call.
    pub fn amend(&mut self, index: u64, outcome: Outcome) -> Result<(), LiveError> {
        let call = self
            .pending
            .iter_mut()
            .find(|call| call.index == index && call.response.is_some())
            .ok_or(LiveError::NotWaiting(index))?;
        let response = marked(outcome.response(), call.subagent.as_deref());
        call.response = Some(ascii(canonical::encode(&response)));
        Ok(())
    }

    /// [`Live::complete`] for the waiting call named `id`; its index comes first.
    pub fn complete_id(
        &mut self,
        id: &str,
        outcome: Outcome,
    ) -> Result<(u64, Vec<Finding>, Ready), LiveError> {
        let index = self
            .index_of(id)
            .ok_or_else(|| LiveError::UnknownId(id.to_owned()))?;
        let (found, ready) = self.complete(index, outcome)?;
        Ok((index, found, ready))
    }

    /// Records a call seen only once it ran (its front end missed the decision
    /// before): it is decided now, counting as every call does, and recorded with
    /// its outcome whatever the decision. Returns the decision, the findings of the
    /// response detectors and the lines made ready.
    pub fn record(
        &mut self,
        id: Option<&str>,
        tool: &str,
        args: &Value,
        outcome: Outcome,
    ) -> (Decision, Vec<Finding>, Ready) {
        if let Some(id) = id
            && let Ok((index, found, ready)) = self.complete_id(id, outcome.clone())
        {
            let decision = Decision {
                index,
                findings: Vec::new(),
            };
            return (decision, found, ready);
        }
        let decision = self.reserve(id, tool, args, false);
        let (found, ready) = self
            .complete(decision.index, outcome)
            .unwrap_or_else(|_| (Vec::new(), Ready::default()));
        (decision, found, ready)
    }

    /// Ends the session: every call still waiting gets `{"no_result": true}` (with
    /// `reason` when given), and every link is made ready.
    pub fn end(&mut self, reason: Option<&str>) -> Ready {
        let mut response = vec![("no_result", Value::Bool(true))];
        if let Some(reason) = reason {
            response.push(("reason", Value::Str(reason.to_owned())));
        }
        let response = Value::object(response);
        let plain = ascii(canonical::encode(&response));
        for call in &mut self.pending {
            if call.response.is_none() {
                call.response = Some(match &call.subagent {
                    None => plain.clone(),
                    Some(name) => {
                        let marked = marked(response.clone(), Some(name));
                        ascii(canonical::encode(&marked))
                    }
                });
                self.ended.push(Ended {
                    index: call.index,
                    id: call.id.clone(),
                    tool: call.tool.clone(),
                    args: call.args.clone(),
                });
            }
        }
        let over = self.ended.len().saturating_sub(ENDED_KEPT);
        self.ended.drain(..over);
        self.seal_ready()
    }

    /// The index of the call named `id` (or unnamed), to `tool` with `args`, that
    /// [`Live::end`] sealed without its result, among the last [`ENDED_KEPT`]; it is
    /// forgotten then, so its outcome is taken once. An outcome of such a call is
    /// recorded with [`Live::record`] as [`Outcome::Late`].
    pub fn take_ended(&mut self, id: Option<&str>, tool: &str, args: &Value) -> Option<u64> {
        let args = canonical_args(args);
        let at = self.ended.iter().rposition(|call| {
            call.id.as_deref() == id && call.tool == tool && call.args.as_bytes() == args
        })?;
        Some(self.ended.remove(at).index)
    }

    /// Counts a call already decided, to `tool` with the canonical `args`, for the
    /// decisions after it (as [`Live::take_sealed`] counts a link): its index.
    fn count(&mut self, tool: &str, args: &[u8]) -> u64 {
        let arguments = match &self.scope().policy {
            Some(policy) => policy.check_arguments(tool, args),
            None => Vec::new(),
        };
        self.session.decide_checked(tool, arguments).0
    }

    /// Seals the complete calls at the front of the pending ones, in index order,
    /// up to the first still waiting.
    fn seal_ready(&mut self) -> Ready {
        let mut sealer = Sealer::after(&self.head);
        let mut ready = Ready::default();
        let complete = self
            .pending
            .iter()
            .take_while(|call| call.response.is_some())
            .count();
        for call in self.pending.drain(..complete) {
            let response = call.response.unwrap_or_default();
            let mut link = UnsealedLink::new(
                &call.index.to_string(),
                &call.tool,
                call.args.as_bytes(),
                response.as_bytes(),
            );
            sealer.seal_link(&mut link);
            ready.lines.extend_from_slice(link.as_ref());
            ready.links += 1;
            let mut meta = call.meta.map(|meta| *meta).unwrap_or_default();
            if call.id.is_some() {
                meta.id = call.id;
            }
            if let Some(line) = crate::call_ids::call_ids_line(call.index, sealer.head(), &meta) {
                ready.calls.extend_from_slice(&line);
            }
        }
        self.sealed += ready.links;
        sealer.head().clone_into(&mut self.head);
        ready
    }
}

/// What [`Reconcile::finish`] did with the saved state's pending calls.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reconciled {
    /// The pending calls found already sealed, at their own index, past the saved
    /// head (their writer was stopped before it saved the state).
    pub taken: u64,
    /// The links of another writer past the saved head (and past those calls).
    pub foreign: u64,
    /// The pending calls still unsealed, moved after the other writer's links:
    /// each call's index grew by `foreign`.
    pub moved: u64,
    /// The first index a moved call had before, when one moved.
    pub moved_from: Option<u64>,
    /// The lines of the moved calls that are complete and now first in line,
    /// ready to write.
    pub ready: Ready,
}

/// A session rebuilt from the links of its sealed transcript, carrying over the
/// calls a saved state had pending, so that no acknowledged record is thrown away:
/// the state can always be rebuilt from the file.
///
/// Each link of the file is given in order to [`Reconcile::take_sealed`] (verified by
/// the caller); the file must pass through the saved state's head. Past it:
///
/// - a link that is the next of the saved pending calls (same index, tool and
///   canonical arguments and, when the call was complete, the same response) is that
///   call, sealed by a writer stopped before it saved the state;
/// - from the first link that is not, the links are another writer's (`seal
///   --append`): they keep their indices, and the saved pending calls still
///   unsealed move after them, in their order, with their decisions, names and
///   responses, at the indices that follow.
///
/// The policy's decision state is rebuilt from the links and the pending calls, in
/// index order, with the scope given now: after a policy change the pending calls
/// stay as they were decided, and new calls are decided by the new policy.
///
/// ```
/// use toolreplay_core::{Live, LiveOutcome as Outcome, LiveState, Reconcile, Scope, parse_json};
///
/// let scope = Scope::parse(br#"{"agent": "coder", "allowed_tools": ["Read"]}"#).expect("scope");
/// let mut live = Live::new(&scope);
/// let (call, _) = live.decide(Some("toolu_1"), "Read", &parse_json("{}").expect("JSON"));
/// let saved: LiveState = live.state();
/// // Nothing was sealed since: the pending call is carried over as it was.
/// let (mut live, done) = Reconcile::new(&scope, saved).finish().expect("continued");
/// assert_eq!((done.taken, done.foreign, done.moved), (0, 0, 0));
/// live.complete(call.index, Outcome::Response(parse_json("{}").expect("JSON"))).expect("waiting");
/// ```
#[derive(Debug)]
pub struct Reconcile<'s> {
    live: Live<'s>,
    saved: LiveState,
    /// Whether the links taken passed through the saved head.
    continued: bool,
    /// Whether the links past the saved head are still the saved pending calls.
    matching: bool,
    taken: u64,
    foreign: u64,
}

impl<'s> Reconcile<'s> {
    /// Starts rebuilding a session against `scope` from its first link, to carry
    /// over `saved` (the default state carries nothing over).
    pub fn new(scope: &'s Scope, mut saved: LiveState) -> Self {
        saved.pending.sort_by_key(|call| call.index);
        let continued = saved.sealed == 0 && saved.head == GENESIS;
        Reconcile {
            live: Live::new(scope),
            saved,
            continued,
            matching: true,
            taken: 0,
            foreign: 0,
        }
    }

    /// Takes in the next link of the file.
    pub fn take_sealed(&mut self, link: &Link) -> Result<(), LiveError> {
        self.live.take_sealed(link)?;
        let sealed = self.live.sealed;
        if sealed <= self.saved.sealed {
            if sealed == self.saved.sealed {
                self.continued = self.live.head == self.saved.head;
            }
            return Ok(());
        }
        if self.matching {
            let call = usize::try_from(self.taken)
                .ok()
                .and_then(|at| self.saved.pending.get(at));
            let same = call.is_some_and(|call| {
                *link.index == *call.index.to_string()
                    && link.tool == call.tool
                    && link.args == call.args.as_bytes()
                    && call
                        .response
                        .as_ref()
                        .is_none_or(|response| link.response == response.as_bytes())
            });
            if same {
                self.taken += 1;
                return Ok(());
            }
            self.matching = false;
        }
        self.foreign += 1;
        Ok(())
    }

    /// The session rebuilt, with the saved pending calls carried over, and what was
    /// done with them; an error when the links did not pass through the saved head
    /// (the file was cut or replaced).
    pub fn finish(self) -> Result<(Live<'s>, Reconciled), LiveError> {
        let Reconcile {
            mut live,
            saved,
            continued,
            taken,
            foreign,
            ..
        } = self;
        if !continued {
            return Err(LiveError::NotContinued {
                sealed: saved.sealed,
                head: saved.head,
            });
        }
        let mut done = Reconciled {
            taken,
            foreign,
            ..Reconciled::default()
        };
        let keep = usize::try_from(taken).unwrap_or(usize::MAX);
        for mut call in saved.pending.into_iter().skip(keep) {
            let index = live.count(&call.tool, call.args.as_bytes());
            if index != call.index {
                done.moved += 1;
                done.moved_from.get_or_insert(call.index);
            }
            call.index = index;
            live.pending.push(call);
        }
        live.ended = saved.ended;
        done.ready = live.seal_ready();
        Ok((live, done))
    }
}

/// The canonical arguments a record of a call with `args` holds (a value that is not
/// an object under `"content"`).
fn canonical_args(args: &Value) -> Vec<u8> {
    match args {
        Value::Object(_) => canonical::encode(args),
        other => canonical::encode(&Value::object([("content", other.clone())])),
    }
}

/// Canonical JSON as text: it is ASCII (every other character is escaped).
fn ascii(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|err| String::from_utf8_lossy(err.as_bytes()).into())
}

#[cfg(test)]
mod tests {
    use super::{CallMeta, Live, LiveError, LiveState, Outcome, Reconcile, Reconciled};
    use crate::chain::{Sealer, Verdict, Verifier};
    use crate::finding::{Finding, finding_message};
    use crate::json::{self, Value};
    use crate::scope::{Scope, ScopeAudit};
    use crate::transcript::{self, Link, Record};

    const SCOPE: &str = r#"{
        "agent": "coder",
        "allowed_tools": ["Read", "Bash", "WebFetch", "Write"],
        "policy_version": 1,
        "budgets": {"per_tool": {"Bash": 2}},
        "flows": [{"name": "web-to-shell", "sources": ["WebFetch"], "sinks": ["Bash"]}],
        "response_detectors": ["secrets"],
        "tools": {"Read": {"paths": [{"args": ["/file_path"], "root": "/repo", "deny": ["**/.env"]}]}}
    }"#;

    fn scope() -> Scope {
        Scope::parse(SCOPE.as_bytes()).expect("a valid scope")
    }

    fn value(text: &str) -> Value {
        json::parse(text).expect("JSON")
    }

    fn links(lines: &[u8]) -> Vec<Link> {
        std::str::from_utf8(lines)
            .expect("ASCII")
            .lines()
            .enumerate()
            .map(|(i, line)| transcript::parse_link(i as u64 + 1, line).expect("a link"))
            .collect()
    }

    /// The plain records of sealed lines, sealed again by `seal`'s sealer.
    fn resealed(lines: &[u8]) -> Vec<u8> {
        let mut sealer = Sealer::new();
        let mut out = Vec::new();
        for link in links(lines) {
            let record = Record {
                index: link.index.parse().expect("an index"),
                tool: link.tool.clone(),
                args: value(std::str::from_utf8(&link.args).expect("ASCII")),
                response: value(std::str::from_utf8(&link.response).expect("ASCII")),
            };
            sealer.seal(&record, &mut out);
        }
        out
    }

    fn messages(scope: &Scope, found: &[Finding]) -> Vec<String> {
        found
            .iter()
            .map(|f| format!("{} {}", f.index, finding_message(f, &scope.agent)))
            .collect()
    }

    /// A session saved and resumed between every step, as one process per event.
    fn step<T>(scope: &Scope, state: &mut String, f: impl FnOnce(&mut Live<'_>) -> T) -> T {
        let saved: LiveState = serde_json::from_str(state).expect("state");
        let mut live = Live::resume(scope, saved);
        let out = f(&mut live);
        *state = serde_json::to_string(&live.state()).expect("state");
        out
    }

    /// The calls the front end named get a line of the call ids file each, with the
    /// digest of the link they were sealed as: a call completed before an earlier
    /// one, across a saved state, and one ended with the turn; an unnamed call none.
    #[test]
    fn named_calls_are_given_their_call_ids_lines_as_they_are_sealed() {
        let scope = scope();
        let mut state = serde_json::to_string(&LiveState::default()).expect("state");
        let read = value(r#"{"file_path": "/repo/a"}"#);
        let (first, _) = step(&scope, &mut state, |l| {
            l.decide(Some("toolu_a"), "Read", &read)
        });
        let (second, _) = step(&scope, &mut state, |l| l.decide(None, "Read", &read));
        let (_, ready) = step(&scope, &mut state, |l| {
            l.decide(Some("toolu_c"), "Read", &read)
        });
        assert!(ready.is_empty());
        let response = || Outcome::Response(value(r#"{"ok": true}"#));
        let (_, ready) = step(&scope, &mut state, |l| {
            l.complete(second.index, response()).expect("pending")
        });
        assert!(ready.is_empty() && ready.calls.is_empty());
        let (_, ready) = step(&scope, &mut state, |l| {
            l.complete(first.index, response()).expect("pending")
        });
        let sealed = links(&ready.lines);
        assert_eq!(sealed.len(), 2);
        assert_eq!(
            String::from_utf8(ready.calls).expect("ASCII"),
            format!(
                "{{\"digest\":\"{}\",\"id\":\"toolu_a\",\"index\":0}}\n",
                sealed[0].digest
            )
        );
        let ready = step(&scope, &mut state, |l| l.end(None));
        let ended = links(&ready.lines);
        assert_eq!(
            String::from_utf8(ready.calls).expect("ASCII"),
            format!(
                "{{\"digest\":\"{}\",\"id\":\"toolu_c\",\"index\":2}}\n",
                ended[0].digest
            )
        );
    }

    /// What the front end says of a call besides its id (a proxy's request id and
    /// protocol version) is in its call ids line; it is not part of the state.
    #[test]
    fn what_is_said_of_the_next_call_is_in_its_call_ids_line() {
        let scope = scope();
        let mut live = Live::new(&scope);
        let read = value(r#"{"file_path": "/repo/a"}"#);
        live.name_next(CallMeta {
            jsonrpc_id: Some("7".to_owned()),
            protocol_version: Some("2025-06-18".to_owned()),
            ..CallMeta::default()
        });
        let (first, _) = live.decide(None, "Read", &read);
        let (second, _) = live.decide(None, "Read", &read);
        assert!(!live.state().pending.is_empty());
        let (_, ready) = live
            .complete(first.index, Outcome::Response(value("{}")))
            .expect("pending");
        let sealed = links(&ready.lines);
        assert_eq!(
            String::from_utf8(ready.calls).expect("ASCII"),
            format!(
                "{{\"digest\":\"{}\",\"index\":0,\"jsonrpc_id\":\"7\",\"protocol_version\":\"2025-06-18\"}}\n",
                sealed[0].digest
            )
        );
        let (_, ready) = live
            .complete(second.index, Outcome::Response(value("{}")))
            .expect("pending");
        assert!(ready.calls.is_empty());
    }

    /// A subagent's calls, denied, completed or ended with the turn, are marked as
    /// theirs in canonical order (the member sorted among the others), across a
    /// saved state; the main agent's are not.
    #[test]
    fn a_subagents_calls_are_marked_as_theirs() {
        let scope = scope();
        let mut state = serde_json::to_string(&LiveState::default()).expect("state");
        let mut written = Vec::new();
        let read = value(r#"{"file_path": "/repo/a"}"#);
        let env = value(r#"{"file_path": "/repo/.env"}"#);
        let (first, _) = step(&scope, &mut state, |l| {
            l.set_subagent(Some("agent-1".to_owned()));
            l.decide(Some("a"), "Read", &read)
        });
        let (_, ready) = step(&scope, &mut state, |l| {
            l.set_subagent(Some("agent-1".to_owned()));
            l.decide(Some("b"), "Read", &env)
        });
        written.extend_from_slice(&ready.lines);
        let (_, ready) = step(&scope, &mut state, |l| {
            l.decide(Some("c"), "Bash", &value(r#"{"command": "ls"}"#))
        });
        written.extend_from_slice(&ready.lines);
        let (_, ready) = step(&scope, &mut state, |l| {
            let response = value(r#"{"type": "text", "zz": 1}"#);
            l.complete(first.index, Outcome::Response(response))
                .expect("pending")
        });
        written.extend_from_slice(&ready.lines);
        let ready = step(&scope, &mut state, |l| l.end(Some("the turn ended")));
        written.extend_from_slice(&ready.lines);
        let responses: Vec<String> = links(&written)
            .iter()
            .map(|link| String::from_utf8(link.response.clone()).expect("ASCII"))
            .collect();
        assert_eq!(
            responses[0],
            r#"{"subagent":"agent-1","type":"text","zz":1}"#
        );
        assert!(responses[1].starts_with(r#"{"subagent":"agent-1","toolreplay":{"findings":"#));
        assert_eq!(
            responses[2],
            r#"{"no_result":true,"reason":"the turn ended"}"#
        );
        assert_eq!(written, resealed(&written));
        let mut verifier = Verifier::new();
        for (i, link) in links(&written).iter().enumerate() {
            verifier.check(i as u64 + 1, link);
        }
        assert!(matches!(
            verifier.finish(),
            Verdict::Intact { links: 3, .. }
        ));
    }

    #[test]
    fn later_calls_wait_for_earlier_ones_and_the_bytes_are_seals() {
        let scope = scope();
        let mut state = serde_json::to_string(&LiveState::default()).expect("state");
        let mut written = Vec::new();
        let read = value(r#"{"file_path": "/repo/src/main.rs"}"#);
        let (a, ready) = step(&scope, &mut state, |l| l.decide(Some("a"), "Read", &read));
        assert_eq!((a.index, ready.links), (0, 0));
        let (b, _) = step(&scope, &mut state, |l| {
            l.decide(Some("b"), "Bash", &value(r#"{"command": "ls"}"#))
        });
        let (c, _) = step(&scope, &mut state, |l| {
            l.decide(
                Some("c"),
                "Write",
                &value(r#"{"file_path": "/repo/x", "content": "é"}"#),
            )
        });
        assert_eq!((b.index, c.index), (1, 2));
        // c, then b, then a finish: nothing is ready until a is.
        for (id, outcome) in [
            ("c", Outcome::Response(value(r#""written""#))),
            ("b", Outcome::Error(value(r#"{"message": "exit 1"}"#))),
        ] {
            let (_, found, ready) =
                step(&scope, &mut state, |l| l.complete_id(id, outcome)).expect("waiting");
            assert_eq!((found.len(), ready.links), (0, 0));
        }
        let (index, found, ready) = step(&scope, &mut state, |l| {
            l.complete_id(
                "a",
                Outcome::Response(value(r#"{"content": "key AKIAIOSFODNN7EXAMPLE"}"#)),
            )
        })
        .expect("waiting");
        assert_eq!(index, 0);
        assert_eq!(
            messages(&scope, &found),
            ["0 tool 'Read' response field '/content' matches detector 'aws-access-key-id'"]
        );
        assert_eq!(ready.links, 3);
        written.extend_from_slice(&ready.lines);
        // A denied call is sealed at once, with what denied it.
        let (denied, ready) = step(&scope, &mut state, |l| {
            l.decide(Some("d"), "Read", &value(r#"{"file_path": "/repo/.env"}"#))
        });
        assert!(!denied.is_allowed());
        assert_eq!(ready.links, 1);
        written.extend_from_slice(&ready.lines);
        // The end seals what still waits as having no result.
        step(&scope, &mut state, |l| {
            l.decide(
                Some("e"),
                "WebFetch",
                &value(r#"{"url": "https://example.com/"}"#),
            )
        });
        let ready = step(&scope, &mut state, |l| l.end(Some("session ended")));
        assert_eq!(ready.links, 1);
        written.extend_from_slice(&ready.lines);

        let responses: Vec<String> = links(&written)
            .iter()
            .map(|link| format!("{} {}", link.tool, String::from_utf8_lossy(&link.response)))
            .collect();
        assert_eq!(
            responses,
            [
                r#"Read {"content":"key AKIAIOSFODNN7EXAMPLE"}"#,
                r#"Bash {"error":{"message":"exit 1"},"is_error":true}"#,
                r#"Write {"content":"written"}"#,
                r#"Read {"toolreplay":{"findings":[{"kind":"argument-violation","message":"tool 'Read' argument '/file_path' path '.env' matches deny glob '**/.env' (paths[0])"}],"outcome":"denied"}}"#,
                r#"WebFetch {"no_result":true,"reason":"session ended"}"#,
            ]
        );
        assert_eq!(written, resealed(&written));
        let mut verifier = Verifier::new();
        for (i, link) in links(&written).iter().enumerate() {
            verifier.check(i as u64 + 1, link);
        }
        let saved: LiveState = serde_json::from_str(&state).expect("state");
        assert_eq!(
            verifier.finish(),
            Verdict::Intact {
                links: 5,
                head: saved.head().to_owned()
            }
        );
        assert_eq!((saved.sealed(), saved.pending()), (5, 0));
    }

    /// Denied attempts count for the budgets and mark a flow's source as seen; the
    /// scope audit of the sealed records finds at each denied record exactly what
    /// denied it, and no call-time finding at an allowed one.
    #[test]
    fn the_audit_after_the_fact_finds_what_the_decisions_found() {
        let scope = scope();
        let mut live = Live::new(&scope);
        let calls = [
            ("Bash", r#"{"command": "make"}"#),
            ("Read", r#"{"file_path": "/etc/passwd"}"#),
            ("Bash", r#"{"command": "make test"}"#),
            ("Bash", r#"{"command": "make again"}"#),
            ("Telnet", r#"{"host": "example.com"}"#),
            ("WebFetch", r#"{"url": "https://example.com/"}"#),
            ("Bash", r#"{"command": "sh"}"#),
        ];
        let mut decided = Vec::new();
        let mut written = Vec::new();
        for (i, (tool, args)) in calls.iter().enumerate() {
            let id = i.to_string();
            let (decision, ready) = live.decide(Some(&id), tool, &value(args));
            written.extend_from_slice(&ready.lines);
            if decision.is_allowed() && i != 5 {
                let (_, _, ready) = live
                    .complete_id(&id, Outcome::Response(value("{}")))
                    .expect("waiting");
                written.extend_from_slice(&ready.lines);
            }
            decided.extend(decision.findings);
        }
        written.extend_from_slice(&live.end(None).lines);
        assert_eq!(
            messages(&scope, &decided),
            [
                "1 tool 'Read' argument '/file_path' path '/etc/passwd' is outside root '/repo' (paths[0])",
                "3 tool 'Bash' is call 3 to this tool, over its budget of 2 (budgets.per_tool)",
                "4 tool 'Telnet' is not in the declared scope for agent 'coder'",
                "6 tool 'Bash' is call 4 to this tool, over its budget of 2 (budgets.per_tool)",
                "6 tool 'Bash' is a sink called after the source 'WebFetch' at index 5 (flow 'web-to-shell')",
            ]
        );
        let mut audit = ScopeAudit::new(&scope);
        for (i, link) in links(&written).iter().enumerate() {
            audit.observe(
                i as u64 + 1,
                &link.tool,
                scope.check_call(&link.tool, &link.args, &link.response),
            );
        }
        let report = audit.finish();
        assert_eq!(report.findings.to_vec().expect("findings"), decided);
    }

    #[test]
    fn a_session_rebuilt_from_its_links_decides_as_it_would_have() {
        let scope = scope();
        let mut live = Live::new(&scope);
        let mut written = Vec::new();
        for command in ["a", "b"] {
            let (decision, _) = live.decide(
                None,
                "Bash",
                &value(&format!(r#"{{"command": "{command}"}}"#)),
            );
            let (_, ready) = live
                .complete(decision.index, Outcome::Response(value("{}")))
                .expect("waiting");
            written.extend_from_slice(&ready.lines);
        }
        let mut rebuilt = Live::new(&scope);
        for link in links(&written) {
            rebuilt.take_sealed(&link).expect("the next link");
        }
        assert_eq!(rebuilt.state(), live.state());
        let (third, _) = rebuilt.decide(None, "Bash", &value(r#"{"command": "c"}"#));
        assert_eq!(
            messages(&scope, &third.findings),
            ["2 tool 'Bash' is call 3 to this tool, over its budget of 2 (budgets.per_tool)"]
        );
        assert_eq!(
            rebuilt.take_sealed(&links(&written)[0]),
            Err(LiveError::NotNext {
                sealed: 3,
                found: "0".to_owned()
            })
        );
        rebuilt.decide(None, "Read", &value(r#"{"file_path": "/repo/a"}"#));
        assert_eq!(
            rebuilt.take_sealed(&links(&written)[0]),
            Err(LiveError::Pending)
        );
        assert_eq!(
            rebuilt.complete(0, Outcome::NoResult { reason: None }),
            Err(LiveError::NotWaiting(0))
        );
    }

    #[test]
    fn every_outcome_has_its_documented_response() {
        let shown = |outcome: Outcome| {
            String::from_utf8(crate::canonical::encode(&outcome.response())).expect("ASCII")
        };
        assert_eq!(
            shown(Outcome::TimedOut { after_ms: 30000 }),
            r#"{"toolreplay":{"after_ms":30000,"outcome":"timed-out"}}"#
        );
        assert_eq!(
            shown(Outcome::Cancelled {
                reason: Some("user".into())
            }),
            r#"{"toolreplay":{"outcome":"cancelled","reason":"user"}}"#
        );
        assert_eq!(
            shown(Outcome::Cancelled { reason: None }),
            r#"{"toolreplay":{"outcome":"cancelled","reason":null}}"#
        );
        assert_eq!(
            shown(Outcome::NoResult { reason: None }),
            r#"{"no_result":true}"#
        );
        assert_eq!(
            shown(Outcome::Error(value(r#""boom""#))),
            r#"{"error":"boom","is_error":true}"#
        );
        assert_eq!(shown(Outcome::Response(value("[1]"))), r#"{"content":[1]}"#);
    }

    /// A denied call to a flow's source still marks the source as seen.
    #[test]
    fn a_denied_source_still_counts_for_its_flow() {
        let text = SCOPE.replace(
            r#""tools": {"#,
            r#""tools": {"WebFetch": {"urls": [{"args": ["/url"], "schemes": ["https"]}]}, "#,
        );
        let scope = Scope::parse(text.as_bytes()).expect("a valid scope");
        let mut live = Live::new(&scope);
        let (fetch, ready) = live.decide(
            None,
            "WebFetch",
            &value(r#"{"url": "http://example.com/"}"#),
        );
        assert_eq!((fetch.is_allowed(), ready.links), (false, 1));
        let (shell, _) = live.decide(None, "Bash", &value(r#"{"command": "sh"}"#));
        assert_eq!(
            messages(&scope, &shell.findings),
            [
                "1 tool 'Bash' is a sink called after the source 'WebFetch' at index 0 (flow 'web-to-shell')"
            ]
        );
    }

    /// Links sealed by another writer after `head`, from index `from`.
    fn foreign(head: &str, from: u64, calls: &[(&str, &str)]) -> Vec<u8> {
        let mut sealer = Sealer::after(head);
        let mut out = Vec::new();
        for (i, (tool, args)) in calls.iter().enumerate() {
            let mut link = crate::chain::UnsealedLink::new(
                &(from + i as u64).to_string(),
                tool,
                args.as_bytes(),
                b"{}",
            );
            sealer.seal_link(&mut link);
            out.extend_from_slice(link.as_ref());
        }
        out
    }

    fn reconciled<'s>(
        scope: &'s Scope,
        saved: &LiveState,
        written: &[u8],
    ) -> Result<(Live<'s>, Reconciled), LiveError> {
        let mut rebuild = Reconcile::new(scope, saved.clone());
        for link in links(written) {
            rebuild.take_sealed(&link).expect("the next link");
        }
        rebuild.finish()
    }

    fn intact(written: &[u8]) -> bool {
        let mut verifier = Verifier::new();
        for (i, link) in links(written).iter().enumerate() {
            verifier.check(i as u64 + 1, link);
        }
        matches!(verifier.finish(), Verdict::Intact { .. })
    }

    /// A writer stopped after it wrote its links and before it saved the state: its
    /// links are the saved pending calls, sealed; one whose link was lost (a torn
    /// line cut off) is written again.
    #[test]
    fn links_of_the_saved_pending_calls_are_those_calls_sealed() {
        let scope = scope();
        let mut live = Live::new(&scope);
        let read = value(r#"{"file_path": "/repo/a"}"#);
        let (a, _) = live.decide(Some("a"), "Read", &read);
        let (b, _) = live.decide(Some("b"), "Bash", &value(r#"{"command": "ls"}"#));
        live.complete(b.index, Outcome::Response(value(r#"{"stdout": ""}"#)))
            .expect("waiting");
        let saved = live.state();
        let (_, ready) = live
            .complete(a.index, Outcome::Response(value("{}")))
            .expect("waiting");
        assert_eq!(ready.links, 2);
        // Both links written, the state not saved.
        let (rebuilt, done) = reconciled(&scope, &saved, &ready.lines).expect("continued");
        assert_eq!((done.taken, done.foreign, done.moved), (2, 0, 0));
        assert!(done.ready.is_empty());
        assert_eq!(rebuilt.state(), live.state());
        // Only the first link written whole: the second call is written again.
        let first = &ready.lines[..=ready.lines.iter().position(|&b| b == b'\n').expect("LF")];
        let (rebuilt, done) = reconciled(&scope, &saved, first).expect("continued");
        assert_eq!((done.taken, done.foreign, done.moved), (1, 0, 0));
        assert_eq!(done.ready.links, 1);
        assert_eq!([first, &done.ready.lines[..]].concat(), ready.lines);
        assert_eq!(rebuilt.state(), live.state());
    }

    /// Links another writer added while calls were pending take the next indices;
    /// the pending calls move after them with their decisions, names and responses.
    #[test]
    fn pending_calls_move_after_another_writers_links() {
        let scope = scope();
        let mut live = Live::new(&scope);
        let mut written = Vec::new();
        let (first, _) = live.decide(None, "Read", &value(r#"{"file_path": "/repo/a"}"#));
        let (_, ready) = live
            .complete(first.index, Outcome::Response(value("{}")))
            .expect("waiting");
        written.extend_from_slice(&ready.lines);
        let (a, _) = live.decide(Some("a"), "Bash", &value(r#"{"command": "ls"}"#));
        let (denied, _) = live.decide(Some("d"), "Read", &value(r#"{"file_path": "/etc/x"}"#));
        let (c, _) = live.decide(Some("c"), "Read", &value(r#"{"file_path": "/repo/c"}"#));
        live.complete(c.index, Outcome::Response(value(r#"{"content": "c"}"#)))
            .expect("waiting");
        assert_eq!((a.index, denied.index, c.index), (1, 2, 3));
        assert!(!denied.is_allowed());
        let saved = live.state();
        written.extend(foreign(
            saved.head(),
            1,
            &[
                ("Bash", r#"{"command":"make"}"#),
                ("WebFetch", r#"{"url":"u"}"#),
            ],
        ));
        let (mut rebuilt, done) = reconciled(&scope, &saved, &written).expect("continued");
        assert_eq!(
            (done.taken, done.foreign, done.moved, done.moved_from),
            (0, 2, 3, Some(1))
        );
        assert!(done.ready.is_empty());
        assert_eq!(rebuilt.index_of("a"), Some(3));
        assert_eq!(rebuilt.next_index(), 6);
        let (_, _, ready) = rebuilt
            .complete_id("a", Outcome::Response(value("{}")))
            .expect("waiting");
        assert_eq!(ready.links, 3);
        written.extend_from_slice(&ready.lines);
        assert!(intact(&written));
        let sealed: Vec<String> = links(&written)
            .iter()
            .map(|link| {
                format!(
                    "{} {} {}",
                    link.index,
                    link.tool,
                    String::from_utf8_lossy(&link.response)
                )
            })
            .collect();
        assert_eq!(
            sealed[3..],
            [
                "3 Bash {}".to_owned(),
                r#"4 Read {"toolreplay":{"findings":[{"kind":"argument-violation","message":"tool 'Read' argument '/file_path' path '/etc/x' is outside root '/repo' (paths[0])"}],"outcome":"denied"}}"#.to_owned(),
                r#"5 Read {"content":"c"}"#.to_owned(),
            ]
        );
        // The other writer's Bash call and the pending one count: a third is over
        // the budget of 2, and the other writer's WebFetch is a flow's source.
        let (next, _) = rebuilt.decide(None, "Bash", &value(r#"{"command": "id"}"#));
        assert_eq!(
            messages(&scope, &next.findings),
            [
                "6 tool 'Bash' is call 3 to this tool, over its budget of 2 (budgets.per_tool)",
                "6 tool 'Bash' is a sink called after the source 'WebFetch' at index 2 (flow 'web-to-shell')",
            ]
        );
    }

    /// After a policy change the pending calls stay as decided; new calls are
    /// decided by the new policy, counting the links and the pending calls.
    #[test]
    fn a_new_policy_keeps_pending_calls_as_decided() {
        let scope = scope();
        let mut live = Live::new(&scope);
        let (a, _) = live.decide(Some("a"), "Bash", &value(r#"{"command": "ls"}"#));
        let (b, _) = live.decide(Some("b"), "Bash", &value(r#"{"command": "make"}"#));
        assert!(a.is_allowed() && b.is_allowed());
        let saved = live.state();
        let stricter = Scope::parse(SCOPE.replace(r#""Bash": 2"#, r#""Bash": 1"#).as_bytes())
            .expect("a valid scope");
        let (mut rebuilt, done) = reconciled(&stricter, &saved, b"").expect("continued");
        assert_eq!((done.taken, done.foreign, done.moved), (0, 0, 0));
        assert_eq!(
            (rebuilt.index_of("a"), rebuilt.index_of("b")),
            (Some(0), Some(1))
        );
        let (c, _) = rebuilt.decide(None, "Bash", &value(r#"{"command": "id"}"#));
        assert_eq!(
            messages(&stricter, &c.findings),
            ["2 tool 'Bash' is call 3 to this tool, over its budget of 1 (budgets.per_tool)"]
        );
    }

    #[test]
    fn links_that_miss_the_saved_head_are_refused() {
        let scope = scope();
        let mut live = Live::new(&scope);
        let (a, _) = live.decide(None, "Bash", &value(r#"{"command": "ls"}"#));
        let (_, ready) = live
            .complete(a.index, Outcome::Response(value("{}")))
            .expect("waiting");
        let saved = live.state();
        assert_eq!(
            reconciled(&scope, &saved, b"").map(|(_, done)| done),
            Err(LiveError::NotContinued {
                sealed: 1,
                head: saved.head().to_owned()
            })
        );
        let other = foreign(crate::chain::GENESIS, 0, &[("Bash", r#"{"command":"rm"}"#)]);
        assert!(reconciled(&scope, &saved, &other).is_err());
        assert!(reconciled(&scope, &saved, &ready.lines).is_ok());
    }

    /// A call complete behind an earlier one can be given another outcome until it
    /// is sealed; a call waiting for its outcome, or sealed, cannot.
    #[test]
    fn a_complete_call_waiting_for_an_earlier_one_can_be_amended() {
        let scope = scope();
        let mut live = Live::new(&scope);
        let args = value(r#"{"command": "ls"}"#);
        let (a, _) = live.decide(None, "Bash", &args);
        let (b, _) = live.decide(None, "Bash", &args);
        assert_eq!(
            live.amend(b.index, Outcome::Cancelled { reason: None }),
            Err(LiveError::NotWaiting(1))
        );
        live.complete(b.index, Outcome::Response(value(r#"{"content": "x"}"#)))
            .expect("waiting");
        live.amend(b.index, Outcome::Cancelled { reason: None })
            .expect("complete, not sealed");
        let (_, ready) = live
            .complete(a.index, Outcome::Response(value("{}")))
            .expect("waiting");
        let sealed = links(&ready.lines);
        assert_eq!(
            sealed[1].response,
            br#"{"toolreplay":{"outcome":"cancelled","reason":null}}"#
        );
        assert_eq!(
            live.amend(b.index, Outcome::Cancelled { reason: None }),
            Err(LiveError::NotWaiting(1))
        );
    }

    /// An outcome that comes after its call was sealed without it is a new record,
    /// decided as it ran, naming the record it belongs to.
    #[test]
    fn an_outcome_after_the_end_of_its_turn_is_late() {
        let scope = scope();
        let mut live = Live::new(&scope);
        let args = value(r#"{"command": "ls"}"#);
        live.decide(Some("a"), "Bash", &args);
        let ready = live.end(Some("the turn ended"));
        assert_eq!(ready.links, 1);
        assert_eq!(live.take_ended(Some("a"), "Bash", &value("{}")), None);
        assert_eq!(live.take_ended(Some("b"), "Bash", &args), None);
        let saved: LiveState =
            serde_json::from_str(&serde_json::to_string(&live.state()).expect("state"))
                .expect("state");
        let mut live = Live::resume(&scope, saved);
        let of = live.take_ended(Some("a"), "Bash", &args).expect("ended");
        assert_eq!(live.take_ended(Some("a"), "Bash", &args), None);
        let late = Outcome::Late {
            of,
            outcome: Box::new(Outcome::Error(value(
                r#"{"message": "key AKIAIOSFODNN7EXAMPLE"}"#,
            ))),
        };
        let (decision, found, ready) = live.record(None, "Bash", &args, late);
        assert_eq!((decision.index, decision.is_allowed()), (1, true));
        assert_eq!(
            messages(&scope, &found),
            [
                "1 tool 'Bash' response field '/toolreplay/response/error/message' matches detector 'aws-access-key-id'"
            ]
        );
        let link = &links(&ready.lines)[0];
        assert_eq!(
            String::from_utf8_lossy(&link.response),
            r#"{"toolreplay":{"of":0,"outcome":"late","response":{"error":{"message":"key AKIAIOSFODNN7EXAMPLE"},"is_error":true}}}"#
        );
        // Only the last calls ended are remembered.
        for i in 0..super::ENDED_KEPT + 1 {
            live.decide(Some(&i.to_string()), "Read", &value("{}"));
        }
        live.end(None);
        assert_eq!(live.take_ended(Some("0"), "Read", &value("{}")), None);
        assert!(live.take_ended(Some("1"), "Read", &value("{}")).is_some());
    }

    /// The same call named twice (two hooks on one event) is decided once.
    #[test]
    fn a_call_named_again_is_the_same_call() {
        let scope = scope();
        let mut live = Live::new(&scope);
        let args = value(r#"{"command": "ls"}"#);
        let (first, _) = live.decide(Some("x"), "Bash", &args);
        let (again, _) = live.decide(Some("x"), "Bash", &args);
        assert_eq!((first.index, again.index, live.next_index()), (0, 0, 1));
        // Calls without a name are found by what they are, the first one first.
        let read = value(r#"{"file_path": "/repo/a"}"#);
        live.decide(None, "Read", &read);
        live.decide(None, "Read", &read);
        assert_eq!(live.index_of_call("Read", &read), Some(1));
        live.complete(1, Outcome::Response(value("{}")))
            .expect("waiting");
        assert_eq!(live.index_of_call("Read", &read), Some(2));
        assert_eq!(live.index_of_call("Read", &value("{}")), None);
        assert_eq!(live.index_of_call("Bash", &args), None);
    }
}
