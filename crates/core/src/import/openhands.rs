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

use crate::json::JsonType;
use crate::transcript::LineError;

use super::{
    Items, Pairing, raw_content_response, raw_fit, raw_id_key, raw_must_be, raw_non_empty_string,
    rget, rget_str, rrequired,
};

/// Reads the events of `items` into `pairing`.
pub(crate) fn read(items: Items<'_>, pairing: &mut Pairing) -> Result<(), LineError> {
    for entry in items {
        let (line, value) = entry?;
        let Some(event) = value.members() else {
            pairing.skip(line, format!("event: {}, not an object", value.described()));
            continue;
        };
        if rget_str(&event, "action").is_some()
            && let Some(metadata) = rget(&event, "tool_call_metadata").and_then(|m| m.members())
        {
            let error = |message: String| LineError {
                line,
                message: format!("action event: {message}"),
            };
            let id = match rget(&event, "id") {
                Some(id) if matches!(id.json_type(), JsonType::Int | JsonType::Str { .. }) => {
                    raw_id_key(id)
                }
                found => {
                    return Err(error(raw_must_be("id", "an integer or a string", found)));
                }
            };
            let name = rrequired(&metadata, "function_name", raw_non_empty_string, |found| {
                error(raw_must_be(
                    "tool_call_metadata.function_name",
                    "a non-empty string",
                    found,
                ))
            })?;
            let args = match rget(&event, "args") {
                None => b"{}".to_vec(),
                Some(args) if args.is_null() => b"{}".to_vec(),
                Some(args) if args.json_type() == JsonType::Object => {
                    raw_fit(line, "arguments", args)?
                }
                found => return Err(error(raw_must_be("args", "an object", found))),
            };
            pairing.call(line, id, name, args);
        } else if let Some(kind) = rget_str(&event, "observation")
            && let Some(cause) = rget(&event, "cause")
            && !cause.is_null()
        {
            let id = raw_id_key(cause);
            if pairing.waiting_call(&id).is_some() {
                let response =
                    raw_content_response(line, rget(&event, "content"), kind == "error")?;
                pairing.result(line, &id, response);
            }
        }
    }
    Ok(())
}
