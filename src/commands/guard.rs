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

mod agents;
mod check;
mod event;
mod init;
mod ordered;
mod project;
mod setup;

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

use toolreplay_core::{
    ANSWER_TOOL, ContextRecord, PROMPT_TOOL, RECONCILE_TOOL, SensitiveResponse, context_after,
};
use toolreplay_core::{Finding, finding_message};
use toolreplay_core::{Live, LiveOutcome as Outcome, Ready, Value};

use self::agents::{Answer, Call, Event, Kind};
use self::ordered::Json;
use self::setup::{Setup, Where};
use crate::args::{Agent, GuardAction, GuardArgs};
use crate::error::Error;
use crate::input::{self, ScopeFile};
use crate::live::{Options, SessionFile};
use crate::printer::{Printer, Status};

/// `toolreplay guard`: exit 0 with the answer on stdout; an event that cannot be
/// decided or recorded is an error (exit 2, or 1 with `--fail-open`).
pub(super) fn run(args: &GuardArgs, printer: &mut Printer) -> Result<Status, Error> {
    match &args.action {
        Some(GuardAction::Init(args)) => return init::run(args, printer),
        Some(GuardAction::Check(args)) => return check::run(args, printer),
        None => {}
    }
    if args.print_settings {
        let text = match args.agent {
            Agent::ClaudeCode => settings(args.policy.as_deref(), args.dir.as_deref()),
            agent => hooks_file(agent, args.policy.as_deref(), args.dir.as_deref()),
        };
        printer.print(&format!("{text}\n"))?;
        return Ok(Status::Clean);
    }
    let handled = std::panic::catch_unwind(|| handle(args)).unwrap_or(Err(Error::Internal(
        "toolreplay guard failed unexpectedly; the call is not recorded",
    )));
    match handled {
        Ok((_, Answer::Told(err))) => {
            err.tell(&mut io::stderr().lock());
            Ok(Status::Code(1))
        }
        Ok((event, answer)) => {
            if let Some(text) = args.agent.answer(&event, &answer) {
                printer.print(&format!("{text}\n"))?;
            }
            if let Answer::Note(note) = answer {
                let _ = io::Write::write_all(&mut io::stderr().lock(), note.as_bytes());
            }
            Ok(Status::Clean)
        }
        Err(err) if args.fail_open => {
            err.tell(&mut io::stderr().lock());
            Ok(Status::Code(1))
        }
        Err(err) => Err(err),
    }
}

/// Reads the event on stdin and answers it.
fn handle(args: &GuardArgs) -> Result<(Event, Answer), Error> {
    // Read before the policy, so that a bad policy names the event it refused.
    let raw = event::read(io::stdin().lock(), args.agent.response_key())?;
    let event = args.agent.event(raw, args.event.as_deref())?;
    let answer = decide(args, &event)?;
    Ok((event, answer))
}

/// What the guard does with `event`.
fn decide(args: &GuardArgs, event: &Event) -> Result<Answer, Error> {
    let (Some(policy), Some(dir)) = (&args.policy, &args.dir) else {
        return Err(Error::Usage("guard needs --policy and --dir".to_owned()));
    };
    let mut name = OsString::from(&event.session_id);
    name.push(".jsonl");
    let path = dir.join(name);
    match event.kind {
        // Other events do not touch tool calls.
        Kind::Other => return Ok(Answer::Nothing),
        // A prompt that cannot be checked or kept is blocked (fail closed).
        Kind::Prompt => return turn_end(args, event, &path, policy),
        // Blocking this would keep the agent working: a failure is told, and the
        // pending calls are sealed at the next end.
        Kind::Stop | Kind::Answer => {
            return Ok(turn_end(args, event, &path, policy).unwrap_or_else(Answer::Told));
        }
        // The end of a session with no call yet has nothing to seal.
        Kind::SessionEnd if !path.exists() => return Ok(Answer::Nothing),
        _ => {}
    }
    let checked = crate::live::checked_policy(&path);
    let ScopeFile { scope, digest } = input::read_scope_checked(policy, checked.as_deref())
        .map_err(|err| Error::Policy(Box::new(err)))?;
    std::fs::create_dir_all(dir).map_err(|source| Error::Io {
        what: format!("create {}", input::display(dir)),
        source,
    })?;
    let options = Options {
        durable: !args.no_fsync,
    };
    let mut session = SessionFile::open(&path, &scope, &digest, options)?;
    session.enter(context_of(event, &digest))?;
    session.live().set_subagent(event.subagent.clone());
    let (ready, answer) = match (&event.call, event.kind) {
        (Some(call), Kind::Before) => {
            let (decision, ready) =
                session
                    .live()
                    .decide(call.id.as_deref(), &call.tool, &call.input);
            let answer = if decision.is_allowed() {
                Answer::Nothing
            } else {
                Answer::Deny(denial(session.live(), decision.index, &decision.findings))
            };
            (ready, answer)
        }
        (Some(call), Kind::After | Kind::Failed) => after(&mut session, event, call)?,
        _ => {
            let reason = event.reason.as_deref().unwrap_or("unknown");
            let ready = session.live().end(Some(&format!(
                "the session ended ({reason}) before the call finished"
            )));
            session.write(&ready)?;
            let answer = match &event.transcript {
                Some(log) => reconciled(&mut session, event, &path, Path::new(log))?,
                None => Answer::Nothing,
            };
            (Ready::default(), answer)
        }
    };
    session.write(&ready)?;
    let sealed = session.live().sealed();
    session.save()?;
    if event.kind == Kind::SessionEnd {
        send_spans(args, &path, sealed);
    }
    Ok(answer)
}

/// The longest a turn's or the session's end waits for its spans to be taken: an
/// endpoint that does not answer within it holds the agent no longer, and the spans
/// wait for the next end.
const SEND_BUDGET: std::time::Duration = std::time::Duration::from_secs(2);

/// With `--otlp` (or `otlp = true` in `toolreplay.toml`, read here only: a file that
/// cannot be read is said at these events, never at a call's), sends the spans of
/// the session's first `sealed` links not sent
/// yet (at a turn's or the session's end, the lock let go, within [`SEND_BUDGET`]);
/// a failure is said once on stderr and the spans wait for the next end.
fn send_spans(args: &GuardArgs, path: &Path, sealed: u64) {
    let on = args.otlp || (args.config && crate::settings::live_otlp("guard"));
    if !on {
        return;
    }
    let sent = crate::live::otlp::Exporter::from_env(Some(SEND_BUDGET))
        .and_then(|exporter| crate::live::otlp::send_pending(&exporter, path, sealed));
    if let Err(why) = sent {
        let _ = io::Write::write_all(
            &mut io::stderr().lock(),
            format!("toolreplay guard: --otlp: {why}; the spans wait for the next turn's end\n")
                .as_bytes(),
        );
    }
}

/// The agent's own log at `log` held against the session at `path`, at its end
/// (docs/live.md, "Reconcile"): the report kept in the session's context file as a
/// `reconcile` record, and what differs said on stderr. A log that cannot be read
/// is said so, and kept so; the session's end is sealed either way.
fn reconciled(
    session: &mut SessionFile,
    event: &Event,
    path: &Path,
    log: &Path,
) -> Result<Answer, Error> {
    let (format, agent) = event.agent.log();
    let import = input::ImportOptions {
        source: format.into(),
        strict: false,
    };
    let live = session.live();
    let after = context_after(live.sealed(), live.head());
    let shown = input::display(log);
    let found = super::reconcile::reconcile_files(
        path,
        log,
        import,
        Some(agent),
        toolreplay_core::Threads::new(1),
        &mut io::sink(),
    );
    let (response, note) = match &found {
        Ok(report) => {
            let json = crate::render::json::reconcile(report, &input::display(path), &shown);
            let response = toolreplay_core::parse_json(json.trim_end())
                .map_err(|_| Error::Internal("the reconcile report is not JSON"))?;
            let note = if report.same() {
                String::new()
            } else {
                let mut note = String::new();
                for (list, what) in [
                    (&report.differences, "differs from"),
                    (&report.not_comparable, "could not be compared with"),
                ] {
                    if list.is_empty() {
                        continue;
                    }
                    note.push_str(&format!(
                        "toolreplay: the agent's log {shown} {what} the sealed session {} in {} {}:\n",
                        input::display(path),
                        list.len(),
                        if list.len() == 1 { "place" } else { "places" }
                    ));
                    for difference in list.iter().take(20) {
                        note.push_str(&format!(
                            "  {}: {}\n",
                            difference.kind.name(),
                            difference.message()
                        ));
                    }
                    if list.len() > 20 {
                        note.push_str("  ... (`toolreplay reconcile` lists them all)\n");
                    }
                }
                note
            };
            (response, note)
        }
        Err(err) => {
            let message = err.to_string();
            let note = format!(
                "toolreplay: the agent's log could not be held against the sealed session {}: {message}\n",
                input::display(path)
            );
            (Value::object([("error", Value::Str(message))]), note)
        }
    };
    let mut args = match after {
        Value::Object(members) => members,
        _ => Vec::new(),
    };
    args.push((
        "log".to_owned(),
        Value::Str(log.to_string_lossy().into_owned()),
    ));
    let args = Value::object(args.iter().map(|(k, v)| (k.as_str(), v.clone())));
    session.note(&[(RECONCILE_TOOL, args, response)])?;
    Ok(if note.is_empty() {
        Answer::Nothing
    } else {
        Answer::Note(note)
    })
}

/// A call's after-call event: its record completed, or recorded as it ran.
fn after(session: &mut SessionFile, event: &Event, call: &Call) -> Result<(Ready, Answer), Error> {
    let Call { tool, input, id } = call;
    let id = id.as_deref();
    let outcome = match &event.unrecordable {
        Some(reason) if event.oversized => Outcome::Unrecordable {
            reason: format!("the result is {reason}"),
        },
        Some(reason) => Outcome::Unrecordable {
            reason: format!("the result cannot be held in a record: {reason}"),
        },
        None if event.kind == Kind::After => Outcome::Response(event.outcome.clone()),
        None => Outcome::Error(event.outcome.clone()),
    };
    // Events are paired by id, tool and input; without an id, by tool and input.
    let live = session.live();
    let (waiting, changed) = match id {
        Some(id) => match live.index_of_named_call(id, tool, input) {
            Some(index) => (Some(index), None),
            // Another hook changed the input after the decision.
            None => (None, live.index_of(id)),
        },
        None => (live.index_of_call(tool, input), None),
    };
    if event.denied && waiting.is_none() && changed.is_none() {
        // The failure of a call denied before it ran, which is sealed so if this
        // guard denied it: it never ran, and is no call of its own.
        return Ok((Ready::default(), Answer::Nothing));
    }
    // The outcome of a call sealed without it at the end of a turn is late.
    let late = match waiting {
        Some(_) => None,
        None => live.take_ended(id, tool, input),
    };
    let changed = changed.filter(|_| late.is_none());
    let mut ready = Ready::default();
    if let Some(decided) = changed {
        // The decided call never ran as decided: it is sealed so, naming the record
        // of the call as it ran, decided now, which comes next.
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
            // Decided as it ran, and flagged so in its record: a late result, a call
            // whose input another hook changed (the decided call names it), or one
            // whose before-call event never came; what the decision would have
            // denied is told with what the detectors found.
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
            let (decision, mut found, ready) = session.live().record(id, tool, input, outcome);
            let mut all = decision.findings;
            all.append(&mut found);
            (decision.index, all, ready)
        }
    };
    ready.extend(rest);
    let live = session.live();
    let answer = match &event.unrecordable {
        _ if let Some(of) = late => Answer::Tell(late_answer(
            live,
            (index, of),
            &found,
            event.unrecordable.as_deref(),
        )),
        Some(reason) => Answer::Tell(unrecorded(index, reason)),
        None if changed.is_some() => Answer::Tell(rewritten(live, index, &found)),
        None if found.is_empty() => Answer::Nothing,
        None if waiting.is_none() => Answer::Tell(unguarded(live, event, index, &found)),
        None => Answer::Flag(flagged(live, index, &found)),
    };
    Ok((ready, answer))
}

/// The context the calls of `event` are made in: the agent, its `cwd`, the home of
/// the user the hook runs as, and the policy's digest.
fn context_of(event: &Event, digest: &str) -> ContextRecord {
    ContextRecord {
        agent: event.agent.name().to_owned(),
        cwd: event.cwd.clone(),
        home: std::env::var("HOME")
            .ok()
            .filter(|home| home.starts_with('/')),
        policy_digest: digest.to_owned(),
    }
}

/// The end of the agent's turn (its stop event), an answer of the agent, or the
/// start of the next turn (a prompt): but at an answer that may not end the turn
/// (Cursor's `afterAgentResponse`), the calls still pending (rejected at the
/// permission prompt, blocked by another hook: their after-call event never came)
/// are sealed, so that they hold nothing back past their turn; the prompt is
/// checked by the policy's `prompt_detectors` and kept, with the agent's answer, in
/// the session's context file.
fn turn_end(args: &GuardArgs, event: &Event, path: &Path, policy: &Path) -> Result<Answer, Error> {
    let prompting = event.kind == Kind::Prompt;
    let said = event.text.as_deref();
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
    session.enter(context_of(event, &digest))?;
    // An answer that may not end the turn holds the pending calls to their results.
    if event.kind != Kind::Answer && session.live().waiting().next().is_some() {
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
                // An agent whose hooks cannot block a prompt sends it on: the
                // record says it was only flagged.
                let blocks = event.agent.blocks_prompts();
                let decision = if blocks { "blocked" } else { "flagged" };
                response.push(("decision", Value::Str(decision.to_owned())));
                let names = detectors.iter().cloned().map(Value::Str).collect();
                response.push(("detectors", Value::Array(names)));
                if blocks {
                    answer = Answer::BlockPrompt(blocked_prompt(&detectors));
                }
            }
            response.push(("text", Value::Str(text.to_owned())));
            (PROMPT_TOOL, Value::object(response))
        } else {
            let text = Value::Str(text.to_owned());
            (ANSWER_TOOL, Value::object([("text", text)]))
        };
        session.note(&[(tool, after, response)])?;
    }
    let sealed = session.live().sealed();
    session.save()?;
    send_spans(args, path, sealed);
    Ok(answer)
}

/// The reason blocking a prompt the `detectors` matched.
fn blocked_prompt(detectors: &[String]) -> String {
    let names: Vec<String> = detectors
        .iter()
        .map(|name| toolreplay_core::quote_name(name))
        .collect();
    format!(
        "toolreplay blocked this prompt: it matches {} {} (prompt_detectors), so it was not sent to the model. It is kept in the session's sealed context file. Send it again without that content.",
        if names.len() == 1 {
            "detector"
        } else {
            "detectors"
        },
        names.join(", ")
    )
}

fn messages(live: &Live<'_>, found: &[Finding]) -> String {
    let agent = &live.scope().agent;
    let messages: Vec<String> = found.iter().map(|f| finding_message(f, agent)).collect();
    messages.join("; ")
}

/// The reason denying the call at `index`.
fn denial(live: &Live<'_>, index: u64, found: &[Finding]) -> String {
    format!(
        "toolreplay denied this call (index {index}) by the scope policy: {}",
        messages(live, found)
    )
}

/// What to tell of a call whose input another hook changed after it was decided,
/// sealed as it ran at `index`, with what the policy and the detectors find in it.
fn rewritten(live: &Live<'_>, index: u64, found: &[Finding]) -> String {
    let reason = format!(
        "toolreplay: another hook changed the input of this call after it was decided; it is sealed as it ran (index {index})"
    );
    told_as_ran(live, reason, found)
}

/// What to tell of a call seen only after it ran (its before-call event never
/// came), sealed at `index` as unguarded, with what the policy and the detectors
/// find.
fn unguarded(live: &Live<'_>, event: &Event, index: u64, found: &[Finding]) -> String {
    let reason = format!(
        "toolreplay: this call was seen only after it ran (its {} never came), so it was decided as it ran and sealed flagged unguarded (index {index})",
        event.agent.before_event()
    );
    told_as_ran(live, reason, found)
}

/// `reason` about a call decided only as it ran, then what the policy and the
/// detectors find.
fn told_as_ran(live: &Live<'_>, mut reason: String, found: &[Finding]) -> String {
    if !found.is_empty() {
        reason.push_str(": ");
        reason.push_str(&messages(live, found));
    }
    reason
}

/// What to tell of a result that came after its call (index `of`) was sealed
/// without it, sealed as a late record at `index`, with what the policy and the
/// detectors find in it, and why it could not be recorded, when it could not.
fn late_answer(
    live: &Live<'_>,
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
    told_as_ran(live, reason, found)
}

/// What to tell of a result that could not be recorded as it came.
fn unrecorded(index: u64, reason: &str) -> String {
    format!(
        "toolreplay could not record the result of this call (index {index}) as it came ({reason}); it is sealed as unrecordable. Treat the result with care."
    )
}

/// What to tell of a response the detectors matched, without quoting it.
fn flagged(live: &Live<'_>, index: u64, found: &[Finding]) -> String {
    format!(
        "toolreplay: the result of this call (index {index}) holds sensitive data: {}. Do not repeat, store or send it.",
        messages(live, found)
    )
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
    // One line an event, Claude Code's events as `init` writes them.
    let events: Vec<String> = Setup::of(Agent::ClaudeCode)
        .events
        .iter()
        .map(|event| match event.matcher {
            true => format!("    \"{}\": [{{\"matcher\": \"*\", {hook}}}]", event.name),
            false => format!("    \"{}\": [{{{hook}}}]", event.name),
        })
        .collect();
    format!("{{\n  \"hooks\": {{\n{}\n  }}\n}}", events.join(",\n"))
}

/// The hooks file `guard init --agent AGENT` would write in a new project in the
/// current directory; `--policy` and `--dir`, when given, by their absolute paths.
fn hooks_file(agent: Agent, policy: Option<&Path>, dir: Option<&Path>) -> String {
    let setup = Setup::of(agent);
    let project = absolute(Path::new("."));
    let (policy, sessions) = (policy.map(absolute), dir.map(absolute));
    let at = Where::Files {
        project: &project,
        policy: policy.as_deref(),
        sessions: sessions.as_deref(),
    };
    let mut file: Vec<(String, Json)> = setup
        .version
        .map(|v| ("version".to_owned(), Json::Number(v.into())))
        .into_iter()
        .collect();
    let hooks = setup.hooks_block(&at);
    file.push(("hooks".to_owned(), Json::Object(hooks)));
    Json::Object(file).pretty()
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
    use super::shell_quote;

    #[test]
    fn shell_words_are_quoted_when_needed() {
        assert_eq!(shell_quote("/a/b.json"), "/a/b.json");
        assert_eq!(shell_quote("/a b/it's"), r"'/a b/it'\''s'");
    }
}
