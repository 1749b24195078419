//! One adapter per agent: how its hook events name things, read into one
//! [`Event`], and how the guard's [`Answer`] is written back in the shape the agent
//! documents. The decisions, the records and the session file are the same for
//! every agent; only these two translations differ.

use toolreplay_core::{Value, json_member as member};

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
    /// [`Kind::Stop`] one, when it carries it.
    pub text: Option<String>,
    /// Why the session ended, for [`Kind::SessionEnd`].
    pub reason: Option<String>,
    /// The subagent the call is made by, when the agent says.
    pub subagent: Option<String>,
    /// The agent's own log of the session, when the event names it.
    pub transcript: Option<String>,
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

    /// The call of a tool event named `event`: `tool_key` a non-empty string,
    /// `input_key` an object.
    fn call(&self, event: &str, tool_key: &str, input_key: &str) -> Result<(String, Value), Error> {
        let tool = match self.string(tool_key)? {
            Some(tool) if !tool.is_empty() => tool,
            _ => return Err(Error::Event(format!("{event} without \"{tool_key}\""))),
        };
        match self.get(input_key) {
            Some(input @ Value::Object(_)) => Ok((tool.to_owned(), input.clone())),
            Some(other) => Err(Error::Event(format!(
                "field \"{input_key}\" must be an object, found {}",
                other.described()
            ))),
            None => Err(Error::Event(format!("{event} without \"{input_key}\""))),
        }
    }
}

impl Agent {
    /// The top-level member of an after-call event that holds the result.
    pub(super) fn response_key(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "tool_response",
        }
    }

    /// The name of the event before a call, as messages name it.
    pub(super) fn before_event(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "PreToolUse",
        }
    }

    /// The agent's name in the session's context file.
    pub(super) fn name(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude-code",
        }
    }

    /// Reads `raw` as this agent's event; `named` is the event the hook entry
    /// names (`--event`), for agents whose payloads do not say.
    pub(super) fn event(self, raw: Raw, named: Option<&str>) -> Result<Event, Error> {
        let _ = named;
        match self {
            Agent::ClaudeCode => claude_code(raw),
        }
    }

    /// The exit code and the output that give `answer` to the agent, for `event`.
    pub(super) fn answer(self, event: &Event, answer: &Answer) -> Option<String> {
        match self {
            Agent::ClaudeCode => claude_code_answer(event, answer),
        }
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

/// Claude Code: `hook_event_name`, `session_id`, `cwd`, `transcript_path`;
/// `tool_name`, `tool_input`, `tool_use_id`, `tool_response`; `agent_id` inside a
/// subagent.
fn claude_code(raw: Raw) -> Result<Event, Error> {
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
    let mut event = blank(Agent::ClaudeCode, name, kind, session_id, &raw);
    let mut event = match kind {
        Kind::Other => return checked(event),
        Kind::Before | Kind::After | Kind::Failed => {
            let (tool, input) = fields.call(name, "tool_name", "tool_input")?;
            let id = fields.string("tool_use_id")?.map(str::to_owned);
            event.call = Some(Call { tool, input, id });
            event.outcome = match kind {
                Kind::After => fields.get("tool_response").cloned().unwrap_or(Value::Null),
                Kind::Failed => {
                    // `{"is_interrupt": ..., "message": ...}`.
                    let mut members = Vec::new();
                    if let Some(flag @ Value::Bool(_)) = fields.get("is_interrupt") {
                        members.push(("is_interrupt".to_owned(), flag.clone()));
                    }
                    let message = fields.get("error").cloned().unwrap_or(Value::Null);
                    members.push(("message".to_owned(), message));
                    Value::Object(members)
                }
                _ => Value::Null,
            };
            event
        }
        Kind::Prompt => match fields.string("prompt")? {
            Some(text) => {
                event.text = Some(text.to_owned());
                event
            }
            None => {
                return Err(Error::Event(
                    "UserPromptSubmit without \"prompt\"".to_owned(),
                ));
            }
        },
        Kind::Stop => {
            event.text = fields.string("last_assistant_message")?.map(str::to_owned);
            event
        }
        Kind::SessionEnd => {
            event.reason = fields.string("reason")?.map(str::to_owned);
            event
        }
    };
    event.cwd = fields.string("cwd")?.map(str::to_owned);
    event.subagent = fields.string("agent_id")?.map(str::to_owned);
    event.transcript = fields.string("transcript_path")?.map(str::to_owned);
    checked(event)
}

/// Claude Code's answers: a denial is `hookSpecificOutput.permissionDecision:
/// "deny"`; a prompt is blocked with `decision: "block"`; what the model should
/// know after a call is `additionalContext`, and a flagged result also
/// `decision: "block"`.
fn claude_code_answer(event: &Event, answer: &Answer) -> Option<String> {
    let json = match answer {
        Answer::Nothing | Answer::Told(_) => return None,
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
    };
    Some(json.to_string())
}
