//! OpenHands event streams: a JSON array of events (or JSON Lines, one event a line),
//! as OpenHands saves a conversation's trajectory.
//!
//! An action event (`action`) that carries `tool_call_metadata` is a call: the tool
//! is `tool_call_metadata.function_name`, the `args` the action's `args` object (the
//! arguments as OpenHands parsed them from the model's call). The observation event
//! (`observation`) whose `cause` is the action's `id` is its result:
//! `{"content": content}`, with `"is_error": true` for an `error` observation. Actions
//! without `tool_call_metadata` (messages, system actions) and observations that
//! answer no call (state changes) are not calls and are dropped; an event that is not
//! an object is skipped with a warning.

use crate::json::Value;
use crate::transcript::LineError;

use super::{
    Items, Pairing, content_response, fit, get, get_str, id_key, must_be, non_empty_string, object,
    required,
};

/// Reads the events of `items` into `pairing`.
pub(crate) fn read(items: Items<'_>, pairing: &mut Pairing) -> Result<(), LineError> {
    let items = super::trees(items);
    for entry in items {
        let (line, value) = entry?;
        let Value::Object(event) = value else {
            pairing.skip(line, format!("event: {}, not an object", value.described()));
            continue;
        };
        if get_str(&event, "action").is_some()
            && let Some(metadata) = get(&event, "tool_call_metadata").and_then(object)
        {
            let error = |message: String| LineError {
                line,
                message: format!("action event: {message}"),
            };
            let id = match get(&event, "id") {
                Some(id @ (Value::Int(_) | Value::Str(_))) => id_key(id),
                found => return Err(error(must_be("id", "an integer or a string", found))),
            };
            let name = required(metadata, "function_name", non_empty_string, |found| {
                error(must_be(
                    "tool_call_metadata.function_name",
                    "a non-empty string",
                    found,
                ))
            })?;
            let args = match get(&event, "args") {
                None | Some(Value::Null) => b"{}".to_vec(),
                Some(args @ Value::Object(_)) => fit(line, "arguments", args)?,
                found => return Err(error(must_be("args", "an object", found))),
            };
            pairing.call(line, id, name, args);
        } else if let Some(kind) = get_str(&event, "observation")
            && let Some(cause) = get(&event, "cause")
            && !matches!(cause, Value::Null)
        {
            let id = id_key(cause);
            if pairing.waiting_call(&id).is_some() {
                let response = content_response(get(&event, "content"), kind == "error");
                pairing.result(line, &id, fit(line, "response", &response)?);
            }
        }
    }
    Ok(())
}
