//! MCP logs: JSON Lines of JSON-RPC 2.0 messages, one message (or one batch, a JSON
//! array of messages) a line.
//!
//! Each `tools/call` request is a call: `params.name` is the tool, `params.arguments`
//! (an object; `{}` when absent) the `args`. The response with the same `id` (the
//! first request of that id still waiting, so ids may be reused once answered) is
//! its result: the `result` as it is when it is an object (a `CallToolResult`, its
//! `isError` included), `{"content": result}` otherwise; a JSON-RPC `error` gives
//! `{"error": {...}, "is_error": true}`.
//!
//! Notifications and requests of other methods (`initialize`, `tools/list`, ...) are
//! dropped, and so are the responses to those requests. A message without
//! `"jsonrpc": "2.0"` is read as JSON-RPC 2.0, with a warning. A line or message that
//! is not a JSON-RPC message, a response whose id
//! no request is waiting for, and a request id used again while a request with it is
//! still waiting are warned about. Ids are matched by their JSON: `1` and `"1"` are
//! different ids. A `tools/call` without a `name`, with arguments that are not an
//! object, or a response with both `result` and `error` is an error.

use crate::json::Value;
use crate::transcript::LineError;

use super::{
    Items, Pairing, Slot, WarningKind, fit, get, id_key, must_be, non_empty_string, object,
    required, shown_id,
};

/// Reads the messages of `items` into `pairing`.
pub(crate) fn read(items: Items<'_>, pairing: &mut Pairing) -> Result<(), LineError> {
    for item in items {
        let (line, value) = item?;
        match value {
            Value::Object(members) => message(line, &members, pairing)?,
            Value::Array(batch) => {
                for item in &batch {
                    match item {
                        Value::Object(members) => message(line, members, pairing)?,
                        other => pairing.skip(
                            line,
                            format!("batch item: {}, not a JSON-RPC message", other.described()),
                        ),
                    }
                }
            }
            other => pairing.skip(
                line,
                format!("line: {}, not a JSON-RPC message", other.described()),
            ),
        }
    }
    Ok(())
}

fn message(line: u64, members: &[(String, Value)], pairing: &mut Pairing) -> Result<(), LineError> {
    if !matches!(get(members, "jsonrpc"), Some(Value::Str(version)) if version == "2.0") {
        pairing.warn(
            line,
            WarningKind::NotJsonRpc,
            "message without \"jsonrpc\": \"2.0\"; read as JSON-RPC 2.0".to_owned(),
        );
    }
    let id = get(members, "id");
    match (get(members, "method"), id) {
        (Some(Value::Str(method)), Some(id)) if method == "tools/call" => {
            tools_call(line, id_key(id), members, pairing)
        }
        (Some(Value::Str(_)), Some(id)) => {
            pairing.other_request(line, id_key(id));
            Ok(())
        }
        // A notification.
        (Some(Value::Str(_)), None) => Ok(()),
        (Some(other), _) => {
            pairing.skip(
                line,
                format!("message: \"method\" is {}", other.described()),
            );
            Ok(())
        }
        (None, Some(id)) if get(members, "result").is_some() || get(members, "error").is_some() => {
            response(line, &id_key(id), members, pairing)
        }
        (None, _) => {
            pairing.skip(
                line,
                "object that is not a JSON-RPC request, notification or response".to_owned(),
            );
            Ok(())
        }
    }
}

fn tools_call(
    line: u64,
    id: String,
    members: &[(String, Value)],
    pairing: &mut Pairing,
) -> Result<(), LineError> {
    let error = |message: String| LineError {
        line,
        message: format!("tools/call request: {message}"),
    };
    let wrong = |field, wanted| move |found| error(must_be(field, wanted, found));
    let params = required(members, "params", object, wrong("params", "an object"))?;
    let name = required(
        params,
        "name",
        non_empty_string,
        wrong("params.name", "a non-empty string"),
    )?;
    let args = match get(params, "arguments") {
        None => b"{}".to_vec(),
        Some(args @ Value::Object(_)) => fit(line, "arguments", args)?,
        found @ Some(_) => return Err(error(must_be("params.arguments", "an object", found))),
    };
    pairing.call(line, id, name, args);
    Ok(())
}

fn response(
    line: u64,
    id: &str,
    members: &[(String, Value)],
    pairing: &mut Pairing,
) -> Result<(), LineError> {
    let slot = pairing.take(id);
    let response = match (get(members, "result"), get(members, "error")) {
        (Some(_), Some(_)) => {
            return Err(LineError {
                line,
                message: format!(
                    "response to id {}: both \"result\" and \"error\"",
                    shown_id(id)
                ),
            });
        }
        (Some(result @ Value::Object(_)), None) => result.clone(),
        (Some(result), None) => Value::Object(vec![("content".to_owned(), result.clone())]),
        (None, Some(error)) => Value::Object(vec![
            ("error".to_owned(), error.clone()),
            ("is_error".to_owned(), Value::Bool(true)),
        ]),
        (None, None) => return Ok(()),
    };
    match slot {
        Some(Slot::Call(at)) => {
            let response = fit(line, "response", &response)?;
            pairing.answer(at, response);
        }
        Some(Slot::Other) => {}
        None => pairing.warn(
            line,
            WarningKind::NoCall,
            format!(
                "response to id {} answers no request waiting for it; dropped",
                shown_id(id)
            ),
        ),
    }
    Ok(())
}
