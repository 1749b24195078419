//! One adapter per agent: how its hook events name things, read into one
//! [`Event`], and how the guard's [`Answer`] is written back in the shape the agent
//! documents. The decisions, the records and the session file are the same for
//! every agent; only these two translations differ.

use toolreplay_core::{ImportFormat, ReconcileAgent, Value, json_member as member};

use super::event::{Raw, check_session_id};
use crate::args::Agent;
use crate::error::Error;

/// What an event asks of the guard, whatever agent sent it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// A call is about to run: decide it.
    Before,
    /// A call ran and has its result.
    After,
    /// A call ran and failed.
    Failed,
    /// The user submitted a prompt: the previous turn is over.
    Prompt,
    /// The agent's turn ended.
    Stop,
    /// The agent answered, and its turn may go on (Cursor's `afterAgentResponse`).
    Answer,
    /// The session ended.
    SessionEnd,
    /// Anything else: not the guard's business.
    Other,
}

/// A tool call as an event names it.
#[derive(Debug)]
pub(super) struct Call {
    pub tool: String,
    pub input: Value,
    /// The agent's id of the call, when it gives one.
    pub id: Option<String>,
}

/// One hook event, read the same way for every agent.
#[derive(Debug)]
pub(super) struct Event {
    pub agent: Agent,
    /// The agent's name of the event, as its answers repeat it.
    pub name: String,
    pub kind: Kind,
    pub session_id: String,
    /// The call, for [`Kind::Before`], [`Kind::After`] and [`Kind::Failed`].
    pub call: Option<Call>,
    /// The result of an [`Kind::After`] event (`null` when the event has none), or
    /// the error of a [`Kind::Failed`] one.
    pub outcome: Value,
    /// Why the result cannot be held in a record, when it cannot.
    pub unrecordable: Option<String>,
    /// Whether that is because it is larger than the largest event read.
    pub oversized: bool,
    /// The working directory the agent reports.
    pub cwd: Option<String>,
    /// The prompt of a [`Kind::Prompt`] event; the agent's final answer of a
    /// [`Kind::Stop`] or [`Kind::Answer`] one, when it carries it.
    pub text: Option<String>,
    /// Why the session ended, for [`Kind::SessionEnd`].
    pub reason: Option<String>,
    /// The subagent the call is made by, when the agent says.
    pub subagent: Option<String>,
    /// The agent's own log of the session, when the event names it.
    pub transcript: Option<String>,
    /// Whether a failed call failed because it was denied before it ran (by this
    /// guard or another hook): Cursor says so after every denial.
    pub denied: bool,
}

/// What the guard answers, before it is put in the agent's words.
#[derive(Debug)]
pub(super) enum Answer {
    /// Nothing to say: the agent goes on (exit 0, no output).
    Nothing,
    /// The call is denied, for this reason.
    Deny(String),
    /// The prompt is blocked, for this reason.
    BlockPrompt(String),
    /// Something the agent (its model) should know about the call that ran.
    Tell(String),
    /// The result holds what the model must not use: told, and blocked where the
    /// agent can block a result.
    Flag(String),
    /// A non-blocking error (exit 1), this on stderr.
    Told(Error),
    /// Nothing for the agent (exit 0, no output), this on stderr for its user.
    Note(String),
}

/// The members of a raw event, read with the agent's field names.
struct Fields<'r> {
    members: &'r [(String, Value)],
}

impl<'r> Fields<'r> {
    fn get(&self, key: &str) -> Option<&'r Value> {
        member(self.members, key)
    }

    /// An optional string member: `null` is absent; anything else but a string is
    /// an error.
    fn string(&self, key: &str) -> Result<Option<&'r str>, Error> {
        match self.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Str(s)) => Ok(Some(s)),
            Some(other) => Err(Error::Event(format!(
                "field \"{key}\" must be a string, found {}",
                other.described()
            ))),
        }
    }

    /// An optional string member, owned.
    fn owned(&self, key: &str) -> Result<Option<String>, Error> {
        Ok(self.string(key)?.map(str::to_owned))
    }

    /// The prompt of the prompt event `event`: its member `key`, required.
    fn prompt(&self, event: &str, key: &str) -> Result<String, Error> {
        match self.string(key)? {
            Some(text) => Ok(text.to_owned()),
            None => Err(Error::Event(format!("{event} without \"{key}\""))),
        }
    }

    /// A required string member.
    fn required(&self, key: &str) -> Result<&'r str, Error> {
        match self.get(key) {
            Some(Value::Str(s)) => Ok(s),
            Some(other) => Err(Error::Event(format!(
                "field \"{key}\" must be a string, found {}",
                other.described()
            ))),
            None => Err(Error::Event(format!("missing field \"{key}\""))),
        }
    }

    /// The call of the tool event `event`: `tool_key` a non-empty string,
    /// `input_key` an object (or, with `json_text`, JSON text holding one, as Copilot
    /// CLI sends it). An input that cannot be read denies a call before it runs; after
    /// it ran, the call is still recorded, with `{}` for its input and the event's
    /// result unrecordable, saying why (nothing the agent did goes unrecorded).
    fn call(
        &self,
        event: &mut Event,
        (tool_key, input_key): (&str, &str),
        json_text: bool,
        id: Option<String>,
    ) -> Result<(), Error> {
        let tool = match self.string(tool_key)? {
            Some(tool) if !tool.is_empty() => tool.to_owned(),
            _ => {
                return Err(Error::Event(format!(
                    "{} without \"{tool_key}\"",
                    event.name
                )));
            }
        };
        let input = match self.get(input_key) {
            Some(input @ Value::Object(_)) => Ok(input.clone()),
            Some(Value::Str(text)) if json_text => match toolreplay_core::parse_json(text) {
                Ok(input @ Value::Object(_)) => Ok(input),
                Ok(other) => Err(format!(
                    "field \"{input_key}\" must hold an object, found {}",
                    other.described()
                )),
                Err(err) => Err(format!(
                    "field \"{input_key}\" is not JSON: {}",
                    err.message
                )),
            },
            Some(other) => Err(format!(
                "field \"{input_key}\" must be an object{}, found {}",
                if json_text { " or a JSON string" } else { "" },
                other.described()
            )),
            None => Err(format!("{} without \"{input_key}\"", event.name)),
        };
        let input = match (input, event.kind) {
            (Ok(input), _) => input,
            (Err(why), Kind::After | Kind::Failed) => {
                event.unrecordable = Some(format!("the call's input cannot be read: {why}"));
                Value::object([])
            }
            (Err(why), _) => return Err(Error::Event(why)),
        };
        event.call = Some(Call { tool, input, id });
        Ok(())
    }
}

impl Agent {
    /// The top-level member of an after-call event that holds the result.
    pub(super) fn response_key(self) -> &'static str {
        match self {
            Agent::ClaudeCode | Agent::Codex | Agent::Gemini => "tool_response",
            Agent::Cursor => "tool_output",
            Agent::Copilot => "toolResult",
        }
    }

    /// The name of the event before a call, as messages name it.
    pub(super) fn before_event(self) -> &'static str {
        match self {
            Agent::ClaudeCode | Agent::Codex => "PreToolUse",
            Agent::Gemini => "BeforeTool",
            Agent::Cursor | Agent::Copilot => "preToolUse",
        }
    }

    /// The format of the agent's own log, as `import` reads it, and the projection
    /// that holds it against the session's records.
    pub(super) fn log(self) -> (ImportFormat, ReconcileAgent) {
        match self {
            Agent::ClaudeCode => (ImportFormat::ClaudeCode, ReconcileAgent::ClaudeCode),
            Agent::Codex => (ImportFormat::Codex, ReconcileAgent::Codex),
            Agent::Gemini => (ImportFormat::Gemini, ReconcileAgent::Gemini),
            Agent::Cursor => (ImportFormat::Cursor, ReconcileAgent::Cursor),
            Agent::Copilot => (ImportFormat::Copilot, ReconcileAgent::Copilot),
        }
    }

    /// The agent's name in the session's context file.
    pub(super) fn name(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude-code",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
            Agent::Cursor => "cursor",
            Agent::Copilot => "copilot",
        }
    }

    /// Whether a hook can block a prompt.
    pub(super) fn blocks_prompts(self) -> bool {
        !matches!(self, Agent::Copilot)
    }

    /// Reads `raw` as this agent's event; `named` is the event the hook entry
    /// names (`--event`), for agents whose payloads do not say.
    pub(super) fn event(self, raw: Raw, named: Option<&str>) -> Result<Event, Error> {
        match self {
            Agent::ClaudeCode | Agent::Codex => claude_code(self, raw),
            Agent::Gemini => gemini(raw),
            Agent::Cursor => cursor(raw),
            Agent::Copilot => copilot(raw, named),
        }
    }

    /// The output that gives `answer` to the agent, for `event` (exit 0).
    pub(super) fn answer(self, event: &Event, answer: &Answer) -> Option<String> {
        let json = match self {
            Agent::ClaudeCode | Agent::Codex => claude_code_answer(event, answer),
            Agent::Gemini => gemini_answer(event, answer),
            Agent::Cursor => cursor_answer(event, answer),
            Agent::Copilot => copilot_answer(answer),
        };
        json.map(|json| json.to_string())
    }
}

/// A new event with the members every agent has; the adapter fills in the rest.
fn blank(agent: Agent, name: &str, kind: Kind, session_id: &str, raw: &Raw) -> Event {
    Event {
        agent,
        name: name.to_owned(),
        kind,
        session_id: session_id.to_owned(),
        call: None,
        outcome: Value::Null,
        unrecordable: raw.unrecordable.clone(),
        oversized: raw.oversized,
        cwd: None,
        text: None,
        reason: None,
        subagent: None,
        transcript: None,
        denied: false,
    }
}

/// Checks what every event must have once its kind is known: a safe session id,
/// and a result that cannot be held only after a call (before one, what cannot be
/// read is denied: fail closed).
fn checked(event: Event) -> Result<Event, Error> {
    check_session_id(&event.session_id)?;
    if let Some(reason) = &event.unrecordable
        && !matches!(event.kind, Kind::After | Kind::Failed)
    {
        return Err(Error::Event(reason.clone()));
    }
    Ok(event)
}

/// Claude Code and Codex: `hook_event_name`, `session_id`, `cwd`,
/// `transcript_path`; `tool_name`, `tool_input`, `tool_use_id`, `tool_response`;
/// `agent_id` inside a subagent. Codex has no `PostToolUseFailure` (a failed
/// command is a `PostToolUse`) and, in the versions documented, no `SessionEnd`.
fn claude_code(agent: Agent, raw: Raw) -> Result<Event, Error> {
    let fields = Fields {
        members: &raw.members,
    };
    let name = fields.required("hook_event_name")?;
    let session_id = fields.required("session_id")?;
    let kind = match name {
        "PreToolUse" => Kind::Before,
        "PostToolUse" => Kind::After,
        "PostToolUseFailure" => Kind::Failed,
        "UserPromptSubmit" => Kind::Prompt,
        "Stop" => Kind::Stop,
        "SessionEnd" => Kind::SessionEnd,
        _ => Kind::Other,
    };
    let mut event = blank(agent, name, kind, session_id, &raw);
    match kind {
        // None of these is an answer without the end of a turn.
        Kind::Other | Kind::Answer => return checked(event),
        Kind::Before | Kind::After | Kind::Failed => {
            let id = fields.owned("tool_use_id")?;
            fields.call(&mut event, ("tool_name", "tool_input"), false, id)?;
            event.outcome = match kind {
                Kind::After => fields.get("tool_response").cloned().unwrap_or(Value::Null),
                // `{"is_interrupt": ..., "message": ...}`.
                _ => failure(&fields, "error", &["is_interrupt"]),
            };
        }
        Kind::Prompt => event.text = Some(fields.prompt(name, "prompt")?),
        Kind::Stop => event.text = fields.owned("last_assistant_message")?,
        Kind::SessionEnd => event.reason = fields.owned("reason")?,
    }
    event.cwd = fields.owned("cwd")?;
    event.subagent = fields.owned("agent_id")?;
    event.transcript = fields.owned("transcript_path")?;
    checked(event)
}

/// Gemini CLI: `hook_event_name`, `session_id`, `cwd`, `transcript_path`;
/// `BeforeTool` and `AfterTool` with `tool_name`, `tool_input` and (after)
/// `tool_response` (`{llmContent, returnDisplay, error?}`: a call whose response
/// has an `error` failed); `BeforeAgent` with the `prompt`; `AfterAgent` with the
/// final answer, `prompt_response`; `SessionEnd` with its `reason`. No call ids:
/// events are paired by tool and input.
fn gemini(raw: Raw) -> Result<Event, Error> {
    let fields = Fields {
        members: &raw.members,
    };
    let name = fields.required("hook_event_name")?;
    let session_id = fields.required("session_id")?;
    let mut kind = match name {
        "BeforeTool" => Kind::Before,
        "AfterTool" => Kind::After,
        "BeforeAgent" => Kind::Prompt,
        "AfterAgent" => Kind::Stop,
        "SessionEnd" => Kind::SessionEnd,
        _ => Kind::Other,
    };
    let failed = kind == Kind::After
        && matches!(
            fields.get("tool_response"),
            Some(Value::Object(members)) if !matches!(member(members, "error"), None | Some(Value::Null))
        );
    if failed {
        kind = Kind::Failed;
    }
    let mut event = blank(Agent::Gemini, name, kind, session_id, &raw);
    match kind {
        // None of these is an answer without the end of a turn.
        Kind::Other | Kind::Answer => return checked(event),
        Kind::Before | Kind::After | Kind::Failed => {
            fields.call(&mut event, ("tool_name", "tool_input"), false, None)?;
            // A failed call's error is its whole response, as the tool gave it.
            event.outcome = fields.get("tool_response").cloned().unwrap_or(Value::Null);
        }
        Kind::Prompt => event.text = Some(fields.prompt(name, "prompt")?),
        Kind::Stop => event.text = fields.owned("prompt_response")?,
        Kind::SessionEnd => event.reason = fields.owned("reason")?,
    }
    event.cwd = fields.owned("cwd")?;
    event.transcript = fields.owned("transcript_path")?;
    checked(event)
}

/// Cursor (hooks.json version 1): `hook_event_name`, `conversation_id` (the
/// session), `cwd` (or the first of `workspace_roots`), `transcript_path`;
/// `preToolUse`, `postToolUse` (`tool_output`, a string) and `postToolUseFailure`
/// (`error_message`, `failure_type`, `is_interrupt`) with `tool_name`,
/// `tool_input` and `tool_use_id`; `beforeSubmitPrompt` with the `prompt`;
/// `afterAgentResponse` with the final answer, `text`; `stop`; `sessionEnd`.
/// The narrower events (`beforeShellExecution`, `beforeMCPExecution`,
/// `beforeReadFile`, `afterFileEdit`...) fire beside `preToolUse` for the same
/// calls: the guard decides every call at `preToolUse` and lets those pass.
fn cursor(raw: Raw) -> Result<Event, Error> {
    let fields = Fields {
        members: &raw.members,
    };
    let name = fields.required("hook_event_name")?;
    let session_id = match (
        fields.string("conversation_id")?,
        fields.string("session_id")?,
    ) {
        (Some(id), _) | (None, Some(id)) => id,
        (None, None) => fields.required("conversation_id")?,
    };
    let kind = match name {
        "preToolUse" => Kind::Before,
        "postToolUse" => Kind::After,
        "postToolUseFailure" => Kind::Failed,
        "beforeSubmitPrompt" => Kind::Prompt,
        "afterAgentResponse" => Kind::Answer,
        "stop" => Kind::Stop,
        "sessionEnd" => Kind::SessionEnd,
        _ => Kind::Other,
    };
    let mut event = blank(Agent::Cursor, name, kind, session_id, &raw);
    match kind {
        Kind::Other => return checked(event),
        Kind::Before | Kind::After | Kind::Failed => {
            let id = fields.owned("tool_use_id")?;
            fields.call(&mut event, ("tool_name", "tool_input"), false, id)?;
            event.outcome = match kind {
                Kind::After => fields.get("tool_output").cloned().unwrap_or(Value::Null),
                _ => failure(&fields, "error_message", &["failure_type", "is_interrupt"]),
            };
            event.denied =
                kind == Kind::Failed && fields.string("failure_type")? == Some("permission_denied");
        }
        Kind::Prompt => event.text = Some(fields.prompt(name, "prompt")?),
        Kind::Stop => {}
        Kind::Answer => event.text = fields.owned("text")?,
        Kind::SessionEnd => event.reason = fields.owned("reason")?,
    }
    event.cwd = match fields.string("cwd")? {
        Some(cwd) if !cwd.is_empty() => Some(cwd.to_owned()),
        _ => match fields.get("workspace_roots") {
            Some(Value::Array(roots)) => match roots.first() {
                Some(Value::Str(root)) => Some(root.clone()),
                _ => None,
            },
            _ => None,
        },
    };
    event.transcript = fields.owned("transcript_path")?;
    checked(event)
}

/// GitHub Copilot CLI: events do not name themselves (the hook entry's event is
/// `--event`); camelCase members `sessionId`, `cwd`, `transcriptPath`;
/// `preToolUse`, `postToolUse` (`toolResult`) and `postToolUseFailure` (`error`)
/// with `toolName` and `toolArgs` (a JSON-encoded string, or an object); no call
/// ids: events are paired by tool and input. `userPromptSubmitted` carries the
/// `prompt`, which no hook can block; `agentStop` ends the turn (without the
/// final answer); `sessionEnd`.
fn copilot(raw: Raw, named: Option<&str>) -> Result<Event, Error> {
    let fields = Fields {
        members: &raw.members,
    };
    let name = match (named, fields.string("hook_event_name")?) {
        (Some(name), _) => name,
        (None, Some(_)) => {
            return Err(Error::Event(
                "a Copilot CLI event with \"hook_event_name\" is the Claude Code compatible form: run the guard with --agent claude-code for it".to_owned(),
            ));
        }
        (None, None) => {
            return Err(Error::Event(
                "Copilot CLI events do not name themselves: run the guard with --event EVENT, the event of its hook entry (guard init --agent copilot writes it)".to_owned(),
            ));
        }
    };
    let session_id = fields.required("sessionId")?;
    let kind = match name {
        "preToolUse" => Kind::Before,
        "postToolUse" => Kind::After,
        "postToolUseFailure" => Kind::Failed,
        "userPromptSubmitted" => Kind::Prompt,
        "agentStop" => Kind::Stop,
        "sessionEnd" => Kind::SessionEnd,
        _ => Kind::Other,
    };
    let mut event = blank(Agent::Copilot, name, kind, session_id, &raw);
    match kind {
        // None of these is an answer without the end of a turn.
        Kind::Other | Kind::Answer => return checked(event),
        Kind::Before | Kind::After | Kind::Failed => {
            fields.call(&mut event, ("toolName", "toolArgs"), true, None)?;
            event.outcome = match kind {
                Kind::After => fields.get("toolResult").cloned().unwrap_or(Value::Null),
                _ => fields.get("error").cloned().unwrap_or(Value::Null),
            };
        }
        Kind::Prompt => event.text = Some(fields.prompt(name, "prompt")?),
        Kind::Stop => {}
        Kind::SessionEnd => event.reason = fields.owned("reason")?,
    }
    event.cwd = fields.owned("cwd")?;
    event.transcript = fields.owned("transcriptPath")?;
    checked(event)
}

/// The error of a failed call: `{"message": E}` with the `extra` members the event
/// has, `E` its member `message`.
fn failure(fields: &Fields<'_>, message: &str, extra: &[&'static str]) -> Value {
    let mut members = Vec::new();
    for key in extra {
        if let Some(value @ (Value::Bool(_) | Value::Str(_))) = fields.get(key) {
            members.push((*key, value.clone()));
        }
    }
    let error = fields.get(message).cloned().unwrap_or(Value::Null);
    members.push(("message", error));
    // Sorted by key, as a record's members are.
    Value::object(members)
}

/// Claude Code's answers, which Codex's output schemas also accept: a denial is
/// `hookSpecificOutput.permissionDecision: "deny"` with its reason; a prompt is
/// blocked with `decision: "block"`; what the model should know after a call is
/// `additionalContext`, and a flagged result also `decision: "block"`.
fn claude_code_answer(event: &Event, answer: &Answer) -> Option<serde_json::Value> {
    Some(match answer {
        Answer::Nothing | Answer::Told(_) | Answer::Note(_) => return None,
        Answer::Deny(reason) => serde_json::json!({
            "hookSpecificOutput": {
                "hookEventName": event.name,
                "permissionDecision": "deny",
                "permissionDecisionReason": reason,
            }
        }),
        Answer::BlockPrompt(reason) => serde_json::json!({"decision": "block", "reason": reason}),
        Answer::Tell(reason) => serde_json::json!({
            "hookSpecificOutput": {
                "hookEventName": event.name,
                "additionalContext": reason,
            }
        }),
        Answer::Flag(reason) => serde_json::json!({
            "decision": "block",
            "reason": reason,
            "hookSpecificOutput": {
                "hookEventName": event.name,
                "additionalContext": reason,
            }
        }),
    })
}

/// Gemini CLI's answers: a denied call or a blocked prompt is `decision: "deny"`
/// with its reason; a flagged result is denied too (its reason replaces the
/// result the model sees); what the model should know after a call is
/// `hookSpecificOutput.additionalContext`.
fn gemini_answer(event: &Event, answer: &Answer) -> Option<serde_json::Value> {
    Some(match answer {
        Answer::Nothing | Answer::Told(_) | Answer::Note(_) => return None,
        Answer::Deny(reason) | Answer::BlockPrompt(reason) | Answer::Flag(reason) => {
            serde_json::json!({"decision": "deny", "reason": reason})
        }
        Answer::Tell(reason) => serde_json::json!({
            "hookSpecificOutput": {
                "hookEventName": event.name,
                "additionalContext": reason,
            }
        }),
    })
}

/// Cursor's answers: a call event is always answered with a `permission`
/// (`"allow"`, or `"deny"` with the reason as `user_message` and `agent_message`),
/// since an empty answer is a failure that `failClosed` turns into a denial; a
/// prompt is blocked with `continue: false`; what the model should know after a
/// call is `additional_context`; anything else is `{}`.
fn cursor_answer(event: &Event, answer: &Answer) -> Option<serde_json::Value> {
    let permission = matches!(
        event.name.as_str(),
        "preToolUse" | "beforeShellExecution" | "beforeMCPExecution" | "beforeReadFile"
    );
    Some(match answer {
        Answer::Deny(reason) => serde_json::json!({
            "permission": "deny",
            "user_message": reason,
            "agent_message": reason,
        }),
        Answer::Nothing | Answer::Told(_) | Answer::Note(_) if permission => {
            serde_json::json!({"permission": "allow"})
        }
        Answer::Nothing | Answer::Told(_) | Answer::Note(_) if event.kind == Kind::Prompt => {
            serde_json::json!({"continue": true})
        }
        Answer::Nothing | Answer::Told(_) | Answer::Note(_) => serde_json::json!({}),
        Answer::BlockPrompt(reason) => {
            serde_json::json!({"continue": false, "user_message": reason})
        }
        Answer::Tell(reason) | Answer::Flag(reason) => {
            serde_json::json!({"additional_context": reason})
        }
    })
}

/// Copilot CLI's answers: a denied call is `permissionDecision: "deny"` with
/// `permissionDecisionReason`; what the model should know after a call is
/// `additionalContext`. Its prompt hooks' output is dropped: a prompt cannot be
/// blocked.
fn copilot_answer(answer: &Answer) -> Option<serde_json::Value> {
    Some(match answer {
        Answer::Nothing | Answer::Told(_) | Answer::Note(_) | Answer::BlockPrompt(_) => {
            return None;
        }
        Answer::Deny(reason) => serde_json::json!({
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }),
        Answer::Tell(reason) | Answer::Flag(reason) => {
            serde_json::json!({"additionalContext": reason})
        }
    })
}
