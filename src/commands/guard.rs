//! `toolreplay guard`: a Claude Code hook command. Each event is one process: it reads
//! the hook's JSON on stdin, opens the session's sealed transcript
//! (`DIR/<session_id>.jsonl`, see [`crate::live`]), and answers with Claude Code's
//! hook protocol (docs/live.md):
//!
//! - `PreToolUse`: the call is decided by the scope and its index reserved. Allowed:
//!   exit 0 and no output, so the user's own permission rules still apply. Denied:
//!   exit 0 and `hookSpecificOutput.permissionDecision: "deny"` with the findings'
//!   messages as the reason; the denied call is sealed at once.
//! - `PostToolUse` / `PostToolUseFailure`: the call's record is completed with the
//!   tool's response (or `{"error": {...}, "is_error": true}`) and sealed, in index
//!   order, flushed to disk before the hook returns. A response the scope's detectors
//!   flag is reported to the model (`decision: "block"` and `additionalContext`)
//!   without quoting what matched.
//!   A result too large to read (past 256 MiB) is skipped as it streams in, and the
//!   call sealed as unrecordable.
//! - `Stop`, `UserPromptSubmit`: the agent's turn ended; calls still pending (their
//!   after-call event never came: the user rejected the permission prompt, another
//!   hook blocked the call) are sealed as `{"no_result": true, "reason": ...}`, so
//!   that the calls after them reach the file in that turn. A result that comes
//!   after that is sealed as a late record naming the `no_result` one, and flagged.
//! - `SessionEnd`: calls still pending are sealed as `{"no_result": true, "reason":
//!   ...}`.
//!
//! Anything that keeps the guard from deciding or recording (a missing or invalid
//! policy, a malformed event, a broken session file, a full disk, a panic) fails
//! closed: `error: ...` on stderr and exit 2, which blocks a `PreToolUse` call and
//! shows the reason to the model. `--fail-open` makes those exit 1 instead (Claude
//! Code's non-blocking error): the call goes on, unrecorded.
//!
//! `guard init` sets the guard up in a project ([`init`]); `guard check` says
//! whether it is ([`check`]).

mod check;
mod init;
mod ordered;
mod project;

use std::ffi::OsString;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use toolreplay_core::{ANSWER_TOOL, ContextRecord, PROMPT_TOOL, SensitiveResponse, context_after};
use toolreplay_core::{Finding, finding_message};
use toolreplay_core::{Live, LiveOutcome as Outcome, Ready};
use toolreplay_core::{Value, decode_json_document, json_member as member, parse_json};

use crate::args::{GuardAction, GuardArgs};
use crate::error::Error;
use crate::input::{self, ScopeFile};
use crate::live::{Options, SessionFile};
use crate::printer::{Printer, Status};

/// The largest hook event read, in bytes.
const MAX_EVENT_BYTES: u64 = 256 << 20;

/// What the guard answers.
#[derive(Debug)]
enum Answer {
    /// Exit 0, nothing written.
    Nothing,
    /// Exit 0, this JSON on stdout.
    Json(String),
    /// Exit 1, a non-blocking error: this on stderr.
    Told(Error),
}

/// `toolreplay guard`: exit 0 with the answer on stdout; an event that cannot be
/// decided or recorded is an error (exit 2, or 1 with `--fail-open`).
pub(super) fn run(args: &GuardArgs, printer: &mut Printer) -> Result<Status, Error> {
    match &args.action {
        Some(GuardAction::Init(args)) => return init::run(args, printer),
        Some(GuardAction::Check(args)) => return check::run(args, printer),
        None => {}
    }
    if args.print_settings {
        let text = settings(args.policy.as_deref(), args.dir.as_deref());
        printer.print(&format!("{text}\n"))?;
        return Ok(Status::Clean);
    }
    let handled = std::panic::catch_unwind(|| handle(args)).unwrap_or(Err(Error::Internal(
        "toolreplay guard failed unexpectedly; the call is not recorded",
    )));
    match handled {
        Ok(Answer::Nothing) => Ok(Status::Clean),
        Ok(Answer::Json(text)) => {
            printer.print(&format!("{text}\n"))?;
            Ok(Status::Clean)
        }
        Ok(Answer::Told(err)) => {
            err.tell(&mut io::stderr().lock());
            Ok(Status::Code(1))
        }
        Err(err) if args.fail_open => {
            err.tell(&mut io::stderr().lock());
            Ok(Status::Code(1))
        }
        Err(err) => Err(err),
    }
}

/// One hook event, as far as the guard reads it.
struct Event {
    name: String,
    session_id: String,
    members: Vec<(String, Value)>,
    /// Why the event's `tool_response` cannot be held in a record, when it cannot.
    unrecordable: Option<String>,
    /// Whether that is because it is larger than the largest event read.
    oversized: bool,
}

impl Event {
    fn get(&self, key: &str) -> Option<&Value> {
        member(&self.members, key)
    }

    fn string(&self, key: &str) -> Result<Option<&str>, Error> {
        match self.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Str(s)) => Ok(Some(s)),
            Some(other) => Err(Error::Event(format!(
                "field \"{key}\" must be a string, found {}",
                other.described()
            ))),
        }
    }

    fn tool(&self) -> Result<(&str, &Value), Error> {
        let tool = match self.string("tool_name")? {
            Some(tool) if !tool.is_empty() => tool,
            _ => {
                return Err(Error::Event(format!("{} without \"tool_name\"", self.name)));
            }
        };
        match self.get("tool_input") {
            Some(args @ Value::Object(_)) => Ok((tool, args)),
            Some(other) => Err(Error::Event(format!(
                "field \"tool_input\" must be an object, found {}",
                other.described()
            ))),
            None => Err(Error::Event(format!(
                "{} without \"tool_input\"",
                self.name
            ))),
        }
    }
}

fn read_event() -> Result<Event, Error> {
    let read = read_capped(io::stdin().lock(), MAX_EVENT_BYTES).map_err(|source| Error::Io {
        what: "read the hook event".to_owned(),
        source,
    })?;
    let Some((bytes, oversized)) = read else {
        return Err(Error::Event(format!(
            "larger than {} MiB",
            MAX_EVENT_BYTES >> 20
        )));
    };
    let text = decode_json_document(&bytes).map_err(|err| Error::Event(err.message))?;
    let (mut members, mut unrecordable) = match parse_json(text.trim_end()) {
        Ok(Value::Object(members)) => (members, None),
        Ok(value) => {
            return Err(Error::Event(format!(
                "expected a JSON object, found {}",
                value.described()
            )));
        }
        Err(err) => match without_response(text) {
            // A result that a record cannot hold is still a call that ran.
            Some(members) => (members, Some(err.message)),
            None => return Err(Error::Event(err.message)),
        },
    };
    if oversized {
        // Read as `null` in its place: the result itself was never held.
        members.retain(|(key, _)| key != "tool_response");
        unrecordable = Some(format!("larger than {} MiB", MAX_EVENT_BYTES >> 20));
    }
    let field = |key: &str| match member(&members, key) {
        Some(Value::Str(s)) => Ok(s.clone()),
        Some(other) => Err(Error::Event(format!(
            "field \"{key}\" must be a string, found {}",
            other.described()
        ))),
        None => Err(Error::Event(format!("missing field \"{key}\""))),
    };
    let name = field("hook_event_name")?;
    let session_id = field("session_id")?;
    check_session_id(&session_id)?;
    if unrecordable.is_some() && !name.starts_with("PostToolUse") {
        // Before a call, what cannot be read is denied (fail closed).
        return Err(Error::Event(unrecordable.unwrap_or_default()));
    }
    Ok(Event {
        name,
        session_id,
        members,
        unrecordable,
        oversized,
    })
}

/// Reads an event of at most `limit` bytes from `input`; an event larger than that
/// whose only part past the limit is its top-level `tool_response` is read with
/// `null` in place of that value, whose bytes are only scanned for their end, never
/// held (`true` says so). Holds at most `limit` bytes and a read buffer; `None` for
/// an event larger than `limit` otherwise.
fn read_capped(mut input: impl Read, limit: u64) -> io::Result<Option<(Vec<u8>, bool)>> {
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    let mut chunk = vec![0u8; 1 << 16];
    let mut buf: Vec<u8> = Vec::new();
    let mut split = Splitter::default();
    // Where the response starts in `buf`, while it is being read.
    let mut response_at = None;
    let mut skipping = false;
    let mut oversized = false;
    loop {
        let n = match input.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(err),
        };
        // The part of the chunk from `kept` on is kept.
        let mut kept = if skipping { n } else { 0 };
        let mut i = 0;
        while i < n {
            if split.in_string() {
                // Inside a string only a quote or a backslash matters.
                match chunk[i..n].iter().position(|&b| b == b'"' || b == b'\\') {
                    Some(at) => i += at,
                    None => break,
                }
            }
            match split.feed(chunk[i]) {
                Some(Step::ResponseStarts) => response_at = Some(buf.len() + (i - kept)),
                Some(Step::ResponseEnds) => {
                    if !skipping {
                        buf.extend_from_slice(&chunk[kept..i]);
                        skipping = buf.len() > limit;
                    }
                    if skipping {
                        // The response alone is what makes the event too large.
                        if let Some(at) = response_at {
                            buf.truncate(at);
                        }
                        buf.extend_from_slice(b"null");
                        skipping = false;
                        oversized = true;
                    }
                    kept = i;
                    response_at = None;
                }
                None => {}
            }
            i += 1;
        }
        if kept < n {
            let more = n - kept;
            if buf.len() + more > buf.capacity() {
                // Grown by at most what the limit needs, never to twice the limit.
                let want = (buf.capacity() * 2).clamp(1 << 16, limit.saturating_add(chunk.len()));
                buf.reserve_exact(want.max(buf.len() + more) - buf.len());
            }
            buf.extend_from_slice(&chunk[kept..n]);
        }
        if buf.len() > limit {
            match response_at {
                Some(at) if !skipping => {
                    buf.truncate(at);
                    skipping = true;
                }
                _ => return Ok(None),
            }
        }
    }
    if skipping {
        // The response never ended: what was read is not JSON, refused whole.
        return Ok(None);
    }
    Ok(Some((buf, oversized)))
}

/// What [`Splitter::feed`] saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// The byte fed starts the value of the event's top-level `tool_response`.
    ResponseStarts,
    /// The byte fed (a `,` or the closing `}`) ends it.
    ResponseEnds,
}

/// Where [`Splitter`] is in an event object.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Place {
    /// Before the object.
    #[default]
    Start,
    /// Before a member's key (or the end of the object).
    BeforeKey,
    /// In a key.
    Key,
    /// After a key, before its colon.
    AfterKey,
    /// Before a member's value.
    BeforeValue,
    /// In a member's value.
    Value,
    /// After the object.
    Done,
    /// Not an object this splitter follows: the parser says why.
    Lost,
}

/// Follows an event object byte by byte, without holding it, to find the extent of
/// its top-level `tool_response` value at any depth and size: the one splitter for
/// a result too large to read and one the parser refuses.
#[derive(Debug, Default)]
struct Splitter {
    place: Place,
    key: Vec<u8>,
    is_response: bool,
    depth: usize,
    in_string: bool,
    escaped: bool,
}

impl Splitter {
    /// Whether the next byte is inside a string of a value, where only a quote or a
    /// backslash matters.
    fn in_string(&self) -> bool {
        self.in_string && !self.escaped && self.place == Place::Value
    }

    fn feed(&mut self, b: u8) -> Option<Step> {
        if self.in_string {
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.in_string = false;
                if self.place == Place::Key {
                    self.place = Place::AfterKey;
                }
            }
            if self.place == Place::Key && self.key.len() <= 16 {
                self.key.push(b);
            }
            return None;
        }
        let space = matches!(b, b' ' | b'\t' | b'\n' | b'\r');
        match self.place {
            Place::Start if space || matches!(b, 0xEF | 0xBB | 0xBF) => {}
            Place::Start if b == b'{' => self.place = Place::BeforeKey,
            Place::BeforeKey if space => {}
            Place::BeforeKey if b == b'"' => {
                self.key.clear();
                self.in_string = true;
                self.place = Place::Key;
            }
            Place::BeforeKey if b == b'}' => self.place = Place::Done,
            Place::AfterKey if space => {}
            Place::AfterKey if b == b':' => self.place = Place::BeforeValue,
            Place::BeforeValue if space => {}
            Place::BeforeValue => {
                self.is_response = self.key == b"tool_response";
                self.place = Place::Value;
                self.depth = 0;
                self.value(b);
                return self.is_response.then_some(Step::ResponseStarts);
            }
            Place::Value => return self.value(b),
            Place::Done if space => {}
            _ => self.place = Place::Lost,
        }
        None
    }

    /// A byte of a member's value, not in a string.
    fn value(&mut self, b: u8) -> Option<Step> {
        match b {
            b'"' => self.in_string = true,
            b'{' | b'[' => self.depth += 1,
            b'}' | b']' if self.depth > 0 => self.depth -= 1,
            b'}' | b',' if self.depth == 0 => {
                self.place = if b == b',' {
                    Place::BeforeKey
                } else {
                    Place::Done
                };
                return self.is_response.then_some(Step::ResponseEnds);
            }
            b']' => self.place = Place::Lost,
            _ => {}
        }
        None
    }
}

/// The members of the event `text` but its `tool_response`, when the event is an
/// object whose only member the parser refuses is that one (a lone surrogate, or
/// nesting deeper than a record allows): the value's extent is found by the
/// [`Splitter`], without reading it into a tree, so no depth is too deep to skip.
fn without_response(text: &str) -> Option<Vec<(String, Value)>> {
    let bytes = text.as_bytes();
    let mut split = Splitter::default();
    let (mut start, mut end) = (None, None);
    for (at, &b) in bytes.iter().enumerate() {
        match split.feed(b) {
            Some(Step::ResponseStarts) => start = Some(at),
            Some(Step::ResponseEnds) => end = Some(at),
            None => {}
        }
        if split.place == Place::Lost {
            return None;
        }
    }
    let (start, end) = (start?, end?);
    let rest = [&text[..start], "null", &text[end..]].concat();
    match parse_json(rest.trim_end()) {
        Ok(Value::Object(mut members)) => {
            members.retain(|(key, _)| key != "tool_response");
            Some(members)
        }
        _ => None,
    }
}

/// A session id names a file in DIR: 1 to 128 ASCII letters, digits, `-`, `_` and
/// `.`, not starting with `.`.
fn check_session_id(id: &str) -> Result<(), Error> {
    let safe = !id.is_empty()
        && id.len() <= 128
        && !id.starts_with('.')
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    if safe {
        Ok(())
    } else {
        Err(Error::Event(format!(
            "session_id {} is not a safe file name (1 to 128 letters, digits, '-', '_' or '.', not starting with '.')",
            toolreplay_core::quote_name(id)
        )))
    }
}

fn handle(args: &GuardArgs) -> Result<Answer, Error> {
    // Read before the policy, so that a bad policy names the event it refused.
    let event = read_event()?;
    let (Some(policy), Some(dir)) = (&args.policy, &args.dir) else {
        return Err(Error::Usage("guard needs --policy and --dir".to_owned()));
    };
    let kind = match event.name.as_str() {
        "PreToolUse" | "PostToolUse" | "PostToolUseFailure" | "Stop" | "UserPromptSubmit"
        | "SessionEnd" => &event.name,
        // Other events do not touch tool calls.
        _ => return Ok(Answer::Nothing),
    };
    // The event is checked whole before anything is opened.
    let ends_turn = matches!(kind.as_str(), "Stop" | "UserPromptSubmit" | "SessionEnd");
    if kind == "SessionEnd" {
        event.string("reason")?;
    } else if !ends_turn {
        event.tool()?;
        event.string("tool_use_id")?;
    }
    let mut name = OsString::from(&event.session_id);
    name.push(".jsonl");
    let path = dir.join(name);
    match kind.as_str() {
        // A prompt that cannot be checked or kept is blocked (fail closed).
        "UserPromptSubmit" => return turn_end(args, &event, &path, policy),
        // Blocking this would keep the agent working: a failure is told, and the
        // pending calls are sealed at the next end.
        "Stop" => return Ok(turn_end(args, &event, &path, policy).unwrap_or_else(Answer::Told)),
        // The end of a session with no call yet has nothing to seal.
        _ if ends_turn && !path.exists() => return Ok(Answer::Nothing),
        _ => {}
    }
    let ScopeFile { scope, digest } =
        input::read_scope(policy).map_err(|err| Error::Policy(Box::new(err)))?;
    std::fs::create_dir_all(dir).map_err(|source| Error::Io {
        what: format!("create {}", input::display(dir)),
        source,
    })?;
    let options = Options {
        durable: !args.no_fsync,
    };
    let mut session = SessionFile::open(&path, &scope, &digest, options)?;
    session.enter(context_of(&event, &digest)?)?;
    let (ready, answer) = match kind.as_str() {
        "PreToolUse" => {
            let (tool, input) = event.tool()?;
            let id = event.string("tool_use_id")?;
            let (decision, ready) = session.live().decide(id, tool, input);
            let answer = if decision.is_allowed() {
                Answer::Nothing
            } else {
                Answer::Json(denial(session.live(), decision.index, &decision.findings))
            };
            (ready, answer)
        }
        "PostToolUse" | "PostToolUseFailure" => {
            let (tool, input) = event.tool()?;
            let id = event.string("tool_use_id")?;
            let outcome = match &event.unrecordable {
                Some(reason) if event.oversized => Outcome::Unrecordable {
                    reason: format!("the result is {reason}"),
                },
                Some(reason) => Outcome::Unrecordable {
                    reason: format!("the result cannot be held in a record: {reason}"),
                },
                None if kind == "PostToolUse" => {
                    Outcome::Response(event.get("tool_response").cloned().unwrap_or(Value::Null))
                }
                None => Outcome::Error(failure(&event)),
            };
            // Events are paired by id, tool and input; without a `tool_use_id`, by
            // tool and input.
            let live = session.live();
            let (waiting, changed) = match id {
                Some(id) => match live.index_of_named_call(id, tool, input) {
                    Some(index) => (Some(index), None),
                    // Another hook changed the input after the decision.
                    None => (None, live.index_of(id)),
                },
                None => (live.index_of_call(tool, input), None),
            };
            // The outcome of a call sealed without it at the end of a turn is late.
            let late = match waiting {
                Some(_) => None,
                None => live.take_ended(id, tool, input),
            };
            let changed = changed.filter(|_| late.is_none());
            let mut ready = Ready::default();
            if let Some(decided) = changed {
                // The decided call never ran as decided: it is sealed so, naming the
                // record of the call as it ran, decided now, which comes next.
                let next = session.live().next_index();
                let reason = format!(
                    "another hook changed its input before it ran; the call as it ran is index {next}"
                );
                let (_, first) = session.live().complete(
                    decided,
                    Outcome::NoResult {
                        reason: Some(reason),
                    },
                )?;
                ready = first;
            }
            let (index, found, rest) = match waiting {
                Some(index) => {
                    let (found, ready) = session.live().complete(index, outcome)?;
                    (index, found, ready)
                }
                None => {
                    // Decided as it ran, and flagged so in its record: a late
                    // result, a call whose input another hook changed (the decided
                    // call names it), or one whose before-call event never came; what
                    // the decision would have denied is told with what the detectors
                    // found.
                    let (id, outcome) = match (late, changed) {
                        (Some(of), _) => (
                            None,
                            Outcome::Late {
                                of,
                                outcome: Box::new(outcome),
                            },
                        ),
                        (None, Some(_)) => (None, outcome),
                        (None, None) => (id, Outcome::Unguarded(Box::new(outcome))),
                    };
                    let (decision, mut found, ready) =
                        session.live().record(id, tool, input, outcome);
                    let mut all = decision.findings;
                    all.append(&mut found);
                    (decision.index, all, ready)
                }
            };
            ready.lines.extend_from_slice(&rest.lines);
            ready.links += rest.links;
            let answer = match &event.unrecordable {
                _ if let Some(of) = late => Answer::Json(late_answer(
                    session.live(),
                    kind,
                    (index, of),
                    &found,
                    event.unrecordable.as_deref(),
                )),
                Some(reason) => Answer::Json(unrecorded(kind, index, reason)),
                None if changed.is_some() => {
                    Answer::Json(rewritten(session.live(), kind, index, &found))
                }
                None if found.is_empty() => Answer::Nothing,
                None if waiting.is_none() => {
                    Answer::Json(unguarded(session.live(), kind, index, &found))
                }
                None => Answer::Json(flagged(session.live(), kind, index, &found)),
            };
            (ready, answer)
        }
        _ => {
            let reason = event.string("reason")?.unwrap_or("unknown");
            let ready = session.live().end(Some(&format!(
                "the session ended ({reason}) before the call finished"
            )));
            (ready, Answer::Nothing)
        }
    };
    session.write(&ready)?;
    session.save()?;
    Ok(answer)
}

/// The context the calls of `event` are made in: Claude Code's `cwd`, the home of
/// the user the hook runs as, and the policy's digest.
fn context_of(event: &Event, digest: &str) -> Result<ContextRecord, Error> {
    Ok(ContextRecord {
        agent: "claude-code".to_owned(),
        cwd: event.string("cwd")?.map(str::to_owned),
        home: std::env::var("HOME")
            .ok()
            .filter(|home| home.starts_with('/')),
        policy_digest: digest.to_owned(),
    })
}

/// The end of the agent's turn (`Stop`) or the start of the next (`UserPromptSubmit`):
/// the calls still pending (rejected at the permission prompt, blocked by another
/// hook: their after-call event never came) are sealed, so that they hold nothing
/// back past their turn; the prompt is checked by the policy's `prompt_detectors`
/// and kept, with the agent's final answer, in the session's context file.
fn turn_end(args: &GuardArgs, event: &Event, path: &Path, policy: &Path) -> Result<Answer, Error> {
    let prompting = event.name == "UserPromptSubmit";
    let prompt = match event.string("prompt")? {
        Some(text) => Some(text),
        None if prompting => {
            return Err(Error::Event(
                "UserPromptSubmit without \"prompt\"".to_owned(),
            ));
        }
        None => None,
    };
    let said = if prompting {
        prompt
    } else {
        event.string("last_assistant_message")?
    };
    if said.is_none() && !path.exists() {
        // Nothing to seal and nothing to keep.
        return Ok(Answer::Nothing);
    }
    let ScopeFile { scope, digest } =
        input::read_scope(policy).map_err(|err| Error::Policy(Box::new(err)))?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|source| Error::Io {
            what: format!("create {}", input::display(dir)),
            source,
        })?;
    }
    let options = Options {
        durable: !args.no_fsync,
    };
    let mut session = SessionFile::open(path, &scope, &digest, options)?;
    session.enter(context_of(event, &digest)?)?;
    if session.live().waiting().next().is_some() {
        let reason = if prompting {
            "the next prompt came before the call finished"
        } else {
            "the agent's turn ended before the call finished"
        };
        let ready = session.live().end(Some(reason));
        session.write(&ready)?;
    }
    let live = session.live();
    let after = context_after(live.sealed(), live.head());
    let mut answer = Answer::Nothing;
    if let Some(text) = said {
        let (tool, response) = if prompting {
            let found = scope
                .policy
                .as_ref()
                .map(|policy| policy.check_prompt(text))
                .unwrap_or_default();
            let mut detectors: Vec<String> = Vec::new();
            for finding in &found {
                let name = match finding {
                    SensitiveResponse::Match { detector, .. } => detector.to_string(),
                    // What cannot be scanned cannot be shown free of secrets.
                    SensitiveResponse::Unscannable { .. } => "unscannable".to_owned(),
                };
                if !detectors.contains(&name) {
                    detectors.push(name);
                }
            }
            let mut response = Vec::new();
            if detectors.is_empty() {
                response.push(("decision", Value::Str("allowed".to_owned())));
            } else {
                response.push(("decision", Value::Str("blocked".to_owned())));
                let names = detectors.iter().cloned().map(Value::Str).collect();
                response.push(("detectors", Value::Array(names)));
                answer = Answer::Json(blocked_prompt(&detectors));
            }
            response.push(("text", Value::Str(text.to_owned())));
            (PROMPT_TOOL, Value::object(response))
        } else {
            let text = Value::Str(text.to_owned());
            (ANSWER_TOOL, Value::object([("text", text)]))
        };
        session.note(&[(tool, after, response)])?;
    }
    session.save()?;
    Ok(answer)
}

/// The `UserPromptSubmit` answer blocking a prompt the `detectors` matched.
fn blocked_prompt(detectors: &[String]) -> String {
    let names: Vec<String> = detectors
        .iter()
        .map(|name| toolreplay_core::quote_name(name))
        .collect();
    let reason = format!(
        "toolreplay blocked this prompt: it matches {} {} (prompt_detectors), so it was not sent to the model. It is kept in the session's sealed context file. Send it again without that content.",
        if names.len() == 1 {
            "detector"
        } else {
            "detectors"
        },
        names.join(", ")
    );
    serde_json::json!({"decision": "block", "reason": reason}).to_string()
}

/// The error of a `PostToolUseFailure`: `{"message": ..., "is_interrupt": ...}`.
fn failure(event: &Event) -> Value {
    let mut members = Vec::new();
    if let Some(flag @ Value::Bool(_)) = event.get("is_interrupt") {
        members.push(("is_interrupt".to_owned(), flag.clone()));
    }
    members.push((
        "message".to_owned(),
        event.get("error").cloned().unwrap_or(Value::Null),
    ));
    Value::Object(members)
}

fn messages(live: &Live<'_>, found: &[Finding]) -> String {
    let agent = &live.scope().agent;
    let messages: Vec<String> = found.iter().map(|f| finding_message(f, agent)).collect();
    messages.join("; ")
}

/// The `PreToolUse` answer denying the call at `index`.
fn denial(live: &Live<'_>, index: u64, found: &[Finding]) -> String {
    let reason = format!(
        "toolreplay denied this call (index {index}) by the scope policy: {}",
        messages(live, found)
    );
    serde_json::json!({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }
    })
    .to_string()
}

/// The answer flagging a call whose input another hook changed after it was
/// decided, sealed as it ran at `index`, with what the policy and the detectors find
/// in it.
fn rewritten(live: &Live<'_>, kind: &str, index: u64, found: &[Finding]) -> String {
    let reason = format!(
        "toolreplay: another hook changed the input of this call after it was decided; it is sealed as it ran (index {index})"
    );
    told_as_ran(live, kind, reason, found)
}

/// The answer flagging a call seen only after it ran (its `PreToolUse` never came),
/// sealed at `index` as unguarded, with what the policy and the detectors find.
fn unguarded(live: &Live<'_>, kind: &str, index: u64, found: &[Finding]) -> String {
    let reason = format!(
        "toolreplay: this call was seen only after it ran (its PreToolUse never came), so it was decided as it ran and sealed flagged unguarded (index {index})"
    );
    told_as_ran(live, kind, reason, found)
}

/// The answer about a call decided only as it ran: `reason`, then what the policy
/// and the detectors find.
fn told_as_ran(live: &Live<'_>, kind: &str, mut reason: String, found: &[Finding]) -> String {
    if !found.is_empty() {
        reason.push_str(": ");
        reason.push_str(&messages(live, found));
    }
    serde_json::json!({
        "hookSpecificOutput": {
            "hookEventName": kind,
            "additionalContext": reason,
        }
    })
    .to_string()
}

/// The answer flagging a result that came after its call (index `of`) was sealed
/// without it, sealed as a late record at `index`, with what the policy and the
/// detectors find in it, and why it could not be recorded, when it could not.
fn late_answer(
    live: &Live<'_>,
    kind: &str,
    (index, of): (u64, u64),
    found: &[Finding],
    unrecordable: Option<&str>,
) -> String {
    let mut reason = format!(
        "toolreplay: the result of this call came after the call was sealed without it (index {of}) when the turn ended; it is sealed as a late result, index {index} of {of}"
    );
    if let Some(why) = unrecordable {
        reason.push_str(&format!(
            "; it could not be recorded as it came ({why}) and is sealed as unrecordable. Treat the result with care"
        ));
    }
    told_as_ran(live, kind, reason, found)
}

/// The answer flagging a result that could not be recorded as it came.
fn unrecorded(kind: &str, index: u64, reason: &str) -> String {
    let reason = format!(
        "toolreplay could not record the result of this call (index {index}) as it came ({reason}); it is sealed as unrecordable. Treat the result with care."
    );
    serde_json::json!({
        "hookSpecificOutput": {
            "hookEventName": kind,
            "additionalContext": reason,
        }
    })
    .to_string()
}

/// The answer flagging a response the detectors matched, without quoting it.
fn flagged(live: &Live<'_>, kind: &str, index: u64, found: &[Finding]) -> String {
    let reason = format!(
        "toolreplay: the result of this call (index {index}) holds sensitive data: {}. Do not repeat, store or send it.",
        messages(live, found)
    );
    serde_json::json!({
        "decision": "block",
        "reason": reason,
        "hookSpecificOutput": {
            "hookEventName": kind,
            "additionalContext": reason,
        }
    })
    .to_string()
}

/// The settings.json block running the guard on every tool call and at the end of
/// a session.
fn settings(policy: Option<&Path>, dir: Option<&Path>) -> String {
    let arg = |path: Option<&Path>, default: &str| match path {
        Some(path) => shell_quote(&absolute(path).to_string_lossy()),
        None => default.to_owned(),
    };
    let command = format!(
        "toolreplay guard --policy {} --dir {}",
        arg(
            policy,
            "\"$CLAUDE_PROJECT_DIR\"/.claude/toolreplay-scope.json"
        ),
        arg(dir, "\"$CLAUDE_PROJECT_DIR\"/.claude/toolreplay"),
    );
    let command = serde_json::Value::String(command).to_string();
    let hook =
        format!("\"hooks\": [{{\"type\": \"command\", \"command\": {command}, \"timeout\": 30}}]");
    let on_tools = |event: &str| format!("    \"{event}\": [{{\"matcher\": \"*\", {hook}}}]");
    let on_turn = |event: &str| format!("    \"{event}\": [{{{hook}}}]");
    format!(
        "{{\n  \"hooks\": {{\n{},\n{},\n{},\n{},\n{},\n{}\n  }}\n}}",
        on_tools("PreToolUse"),
        on_tools("PostToolUse"),
        on_tools("PostToolUseFailure"),
        on_turn("UserPromptSubmit"),
        on_turn("Stop"),
        on_turn("SessionEnd"),
    )
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_owned())
}

/// `text` as one word for a POSIX shell.
fn shell_quote(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+=:,@".contains(&b));
    if plain {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::{check_session_id, read_capped, shell_quote, without_response};

    /// One splitter finds the response at any size and depth: past the limit it is
    /// skipped to its end and read as `null`; anything else past the limit is
    /// refused.
    #[test]
    fn a_response_past_the_limit_is_skipped_and_nothing_else() {
        let response = format!(
            r#"{{"a": ["x\\\"}}]", {}]}}"#,
            "[".repeat(50) + &"]".repeat(50)
        );
        let event = format!(r#"{{"k": 1, "tool_response": {response} , "z": "}}"}}"#);
        let read = |limit: u64| {
            read_capped(event.as_bytes(), limit)
                .expect("read")
                .map(|(bytes, skipped)| (String::from_utf8(bytes).expect("UTF-8"), skipped))
        };
        assert_eq!(read(1 << 10), Some((event.clone(), false)));
        assert_eq!(
            read(45),
            Some((
                r#"{"k": 1, "tool_response": null, "z": "}"}"#.to_owned(),
                true
            ))
        );
        assert_eq!(read(20), None);
        let unended = r#"{"tool_response": "xxxxxxxxxxxxxxxxxxxxxxxxxxx"#;
        assert_eq!(read_capped(unended.as_bytes(), 20).expect("read"), None);
        let members = without_response(&event).expect("members");
        let keys: Vec<&str> = members.iter().map(|(key, _)| key.as_str()).collect();
        assert_eq!(keys, ["k", "z"]);
        assert!(without_response(r#"{"k": 1, "tool_response": {}, "z": }"#).is_none());
        assert!(without_response(r#"{"k": 1}"#).is_none());
    }

    #[test]
    fn session_ids_are_safe_file_names() {
        for good in ["8f1c2d3e-aaaa-4bbb-8ccc-0123456789ab", "a", "a.b_c-d"] {
            assert!(check_session_id(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            "..",
            ".hidden",
            "../x",
            "a/b",
            "a\\b",
            "a b",
            &"x".repeat(129),
        ] {
            assert!(check_session_id(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn shell_words_are_quoted_when_needed() {
        assert_eq!(shell_quote("/a/b.json"), "/a/b.json");
        assert_eq!(shell_quote("/a b/it's"), r"'/a b/it'\''s'");
    }
}
