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
//! A `tools/call` sent without an `id` (as a notification, which no response
//! answers) is a call too: it is kept with `{"no_result": true}` and a warning.
//! still waiting are warned about. Ids are matched by their JSON: `1` and `"1"` are
//! different ids. A `tools/call` without a `name`, with arguments that are not an
//! object, or a response with both `result` and `error` is an error.

use crate::json::{JsonType, Raw, RawMembers};
use crate::transcript::LineError;

use super::{
    Items, NO_RESULT, Pairing, Slot, WarningKind, object_bytes, raw_fit, raw_id_key, raw_must_be,
    raw_non_empty_string, raw_value, rget, rget_str, rrequired, shown_id,
};

use crate::finding::quote_name;

/// Reads the messages of `items` into `pairing`.
pub(crate) fn read(items: Items<'_>, pairing: &mut Pairing) -> Result<(), LineError> {
    for item in items {
        let (line, value) = item?;
        if let Some(members) = value.members() {
            message(line, &members, pairing)?;
        } else if let Some(batch) = value.items() {
            for item in batch {
                match item.members() {
                    Some(members) => message(line, &members, pairing)?,
                    None => pairing.skip(
                        line,
                        format!("batch item: {}, not a JSON-RPC message", item.described()),
                    ),
                }
            }
        } else {
            pairing.skip(
                line,
                format!("line: {}, not a JSON-RPC message", value.described()),
            );
        }
    }
    Ok(())
}

fn message(line: u64, members: &RawMembers<'_>, pairing: &mut Pairing) -> Result<(), LineError> {
    if rget_str(members, "jsonrpc").as_deref() != Some("2.0") {
        pairing.warn(
            line,
            WarningKind::NotJsonRpc,
            "message without \"jsonrpc\": \"2.0\"; read as JSON-RPC 2.0".to_owned(),
        );
    }
    let id = rget(members, "id");
    let method = rget(members, "method");
    match (method, method.and_then(|m| m.as_str()), id) {
        (Some(_), Some(method), id) if method == "tools/call" => {
            let (name, args) = tools_call(line, members)?;
            match id {
                Some(id) => pairing.call(line, raw_id_key(id), name, args),
                None => {
                    let message = format!(
                        "tools/call of {} sent without an id, as a notification, which gets no response; kept with the response {}",
                        quote_name(&name),
                        String::from_utf8_lossy(NO_RESULT)
                    );
                    pairing.warn(line, WarningKind::NoResult, message);
                    pairing.call_unpaired(line, name, args, Some(NO_RESULT.to_vec()));
                }
            }
            Ok(())
        }
        (Some(_), Some(_), Some(id)) => {
            pairing.other_request(line, raw_id_key(id));
            Ok(())
        }
        // A notification.
        (Some(_), Some(_), None) => Ok(()),
        (Some(other), None, _) => {
            pairing.skip(
                line,
                format!("message: \"method\" is {}", other.described()),
            );
            Ok(())
        }
        (None, _, Some(id))
            if rget(members, "result").is_some() || rget(members, "error").is_some() =>
        {
            response(line, &raw_id_key(id), members, pairing)
        }
        (None, _, _) => {
            pairing.skip(
                line,
                "object that is not a JSON-RPC request, notification or response".to_owned(),
            );
            Ok(())
        }
    }
}

/// The tool and canonical arguments of a `tools/call` request.
fn tools_call(line: u64, members: &RawMembers<'_>) -> Result<(String, Vec<u8>), LineError> {
    let error = |message: String| LineError {
        line,
        message: format!("tools/call request: {message}"),
    };
    let wrong = |field, wanted| move |found| error(raw_must_be(field, wanted, found));
    let params = rrequired(
        members,
        "params",
        |v| v.members(),
        wrong("params", "an object"),
    )?;
    let name = rrequired(
        &params,
        "name",
        raw_non_empty_string,
        wrong("params.name", "a non-empty string"),
    )?;
    let args = match rget(&params, "arguments") {
        None => b"{}".to_vec(),
        Some(args) if args.json_type() == JsonType::Object => raw_fit(line, "arguments", args)?,
        found @ Some(_) => {
            return Err(error(raw_must_be("params.arguments", "an object", found)));
        }
    };
    Ok((name, args))
}

/// The response a JSON-RPC `result` or `error` makes, in canonical form.
fn response_bytes(
    line: u64,
    result: Option<Raw<'_>>,
    error: Option<Raw<'_>>,
) -> Result<Vec<u8>, LineError> {
    match (result, error) {
        (Some(result), _) if result.json_type() == JsonType::Object => {
            raw_fit(line, "response", result)
        }
        (Some(result), _) => Ok(object_bytes(vec![(
            "content",
            raw_value(line, "response", result, 1)?,
        )])),
        (None, Some(error)) => Ok(object_bytes(vec![
            ("error", raw_value(line, "response", error, 1)?),
            ("is_error", b"true".to_vec()),
        ])),
        (None, None) => Ok(b"{}".to_vec()),
    }
}

fn response(
    line: u64,
    id: &str,
    members: &RawMembers<'_>,
    pairing: &mut Pairing,
) -> Result<(), LineError> {
    let slot = pairing.take(id);
    let (result, error) = (rget(members, "result"), rget(members, "error"));
    match (result, error) {
        (Some(_), Some(_)) => {
            return Err(LineError {
                line,
                message: format!(
                    "response to id {}: both \"result\" and \"error\"",
                    shown_id(id)
                ),
            });
        }
        (None, None) => return Ok(()),
        _ => {}
    }
    match slot {
        Some(Slot::Call(at)) => {
            let response = response_bytes(line, result, error)?;
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
