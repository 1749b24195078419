//! Gemini CLI sessions: `~/.gemini/tmp/<project_hash>/chats/session-*.json`, one JSON
//! document `{"sessionId", "projectHash", "startTime", "lastUpdated", "messages": [...]}`,
//! or JSON Lines with one message a line (a line with `sessionId` and no `type` is
//! the session's metadata, dropped).
//!
//! Each entry of a message's `toolCalls` is a call: `name` the tool, `args` (an
//! object; absent: `{}`) the `args`. Its result is recorded with it, in `result`, a
//! list of parts: the `functionResponse.response` of the part (a list of them when
//! there are several) gives `{"content": ...}`, with `"is_error": true` when the
//! call's `status` is `"error"`. A call without a `result` is kept with
//! `{"no_result": true}` and a warning. Messages of type `user`, `gemini`, `info`,
//! `error` and `warning`, their text and `thoughts`, are dropped otherwise; a message
//! that is not an object is skipped with a warning.

use crate::json::Value;
use crate::transcript::LineError;

use super::{
    Items, Pairing, content_response, fit, get, get_str, must_be, non_empty_string, required,
    string_id,
};

/// Reads the messages of `items` into `pairing`.
pub(crate) fn read(items: Items<'_>, pairing: &mut Pairing) -> Result<(), LineError> {
    let items = super::trees(items);
    for entry in items {
        let (line, value) = entry?;
        let Value::Object(message) = value else {
            pairing.skip(
                line,
                format!("message: {}, not an object", value.described()),
            );
            continue;
        };
        match get(&message, "toolCalls") {
            None | Some(Value::Null) => {}
            Some(Value::Array(calls)) => {
                for (i, call) in calls.iter().enumerate() {
                    tool_call(line, i, call, pairing)?;
                }
            }
            found => {
                return Err(LineError {
                    line,
                    message: must_be("toolCalls", "an array", found),
                });
            }
        }
        if get_str(&message, "type").is_none() && get(&message, "sessionId").is_none() {
            pairing.skip(line, "message without a string \"type\"".to_owned());
        }
    }
    Ok(())
}

fn tool_call(line: u64, i: usize, call: &Value, pairing: &mut Pairing) -> Result<(), LineError> {
    let error = |message: String| LineError {
        line,
        message: format!("toolCalls[{i}]: {message}"),
    };
    let Value::Object(call) = call else {
        return Err(error(format!("{}, not an object", call.described())));
    };
    let name = required(call, "name", non_empty_string, |found| {
        error(must_be("name", "a non-empty string", found))
    })?;
    let args = match get(call, "args") {
        None | Some(Value::Null) => b"{}".to_vec(),
        Some(args @ Value::Object(_)) => fit(line, "arguments", args)?,
        found => return Err(error(must_be("args", "an object", found))),
    };
    let is_error = get_str(call, "status") == Some("error");
    let response = match get(call, "result") {
        None | Some(Value::Null) => None,
        Some(Value::Array(parts)) => {
            let mut responses: Vec<Value> = parts
                .iter()
                .filter_map(|part| match part {
                    Value::Object(part) => match get(part, "functionResponse") {
                        Some(Value::Object(response)) => get(response, "response").cloned(),
                        _ => None,
                    },
                    _ => None,
                })
                .collect();
            let content = match responses.len() {
                0 => Value::Array(parts.clone()),
                1 => responses.remove(0),
                _ => Value::Array(responses),
            };
            Some(content)
        }
        Some(other) => Some(other.clone()),
    };
    let response = match response {
        Some(content) => Some(fit(
            line,
            "response",
            &content_response(Some(&content), is_error),
        )?),
        None => None,
    };
    match (get(call, "id").and_then(string_id), response) {
        (Some(id), Some(response)) => pairing.call_answered(line, id, name, args, response),
        (Some(id), None) => pairing.call(line, id, name, args),
        (None, response) => pairing.call_unpaired(line, name, args, response),
    }
    Ok(())
}
