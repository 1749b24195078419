//! Codex CLI rollouts: `~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`, one
//! `{"timestamp", "type", "payload"}` line each.
//!
//! The `payload` of a `response_item` line is an OpenAI Responses item, read as
//! [`super::responses`] reads one: `function_call` (`name`, `arguments`, JSON text,
//! `call_id`) and `custom_tool_call` (`name`, `input`) are the calls, paired with
//! `function_call_output` / `custom_tool_call_output` by `call_id`; messages and
//! reasoning are dropped. `session_meta`, `turn_context`, `compacted` and `event_msg`
//! lines are dropped: the `event_msg` payloads (`exec_command_begin`, ...) are the
//! user interface's copies of the same calls, not calls of their own. A line of
//! another type, without a `payload` object, or that is not an object is skipped with
//! a warning.

use crate::json::quoted_key;
use crate::transcript::LineError;

use super::{Items, Pairing, rget, rget_str};

/// Reads the lines of `items` into `pairing`.
pub(crate) fn read(items: Items<'_>, pairing: &mut Pairing) -> Result<(), LineError> {
    for entry in items {
        let (line, value) = entry?;
        let Some(members) = value.members() else {
            pairing.skip(line, format!("line: {}, not an object", value.described()));
            continue;
        };
        pairing.clock(rget_str(&members, "timestamp").as_deref());
        match rget_str(&members, "type").as_deref() {
            Some("response_item") => match rget(&members, "payload").and_then(|p| p.members()) {
                Some(payload) => super::responses::item(line, &payload, pairing)?,
                _ => pairing.skip(
                    line,
                    "response_item without a \"payload\" object".to_owned(),
                ),
            },
            Some("session_meta" | "turn_context" | "compacted" | "event_msg") => {}
            Some(kind) => pairing.skip(line, format!("line of type {}", quoted_key(kind))),
            None => pairing.skip(line, "line without a string \"type\"".to_owned()),
        }
    }
    Ok(())
}
