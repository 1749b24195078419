//! MCP logs: JSON Lines of JSON-RPC 2.0 messages, one message (or one batch, a JSON
//! array of messages) a line. A capture that wraps each message in an envelope of
//! its own, `{"seq": 1, "t": ..., "dir": "c2s", "msg": {...}}`, is read as the
//! messages it wraps: a line that is no JSON-RPC message but holds one (or a batch)
//! under exactly one of `msg`, `message`, `payload` or `data` is that message (see
//! [`enveloped`]); the envelope's other members (direction, time, sequence) are
//! dropped.
//!
//! Each `tools/call` request is a call: `params.name` is the tool, `params.arguments`
//! (an object; `{}` when absent) the `args`. The response with the same `id` (the
//! first request of that id still waiting, so ids may be reused once answered) is
//! its result: the `result` as it is when it is an object (a `CallToolResult`, its
//! `isError` included), `{"content": result}` otherwise; a JSON-RPC `error` gives
//! `{"error": {...}, "is_error": true}`.
//!
//! A `tools/call` sent without an `id` (as a notification, which no response
//! answers) is a call too: it is kept with `{"no_result": true}` and a warning.
//! Notifications and requests of other methods (`initialize`, `tools/list`, ...) are
//! dropped, and so are the responses to those requests. A message without
//! `"jsonrpc": "2.0"` is read as JSON-RPC 2.0, with a warning. A line or message that
//! is not a JSON-RPC message, a response whose id
//! no request is waiting for, and a request id used again while a request with it is
//! still waiting are warned about. Ids are matched by their JSON: `1` and `"1"` are
//! different ids. A `tools/call` without a `name`, with arguments that are not an
//! object, or a response with both `result` and `error` is an error.

use crate::json::{JsonType, Raw, RawMembers};
use crate::transcript::LineError;

use crate::finding::quote_name;

use super::{
    Items, NO_RESULT, Pairing, Slot, WarningKind, object_bytes, raw_fit, raw_id_key, raw_must_be,
    raw_non_empty_string, raw_value, rget, rget_str, rrequired, shown_id,
};

/// The members that a capture's envelope holds its one JSON-RPC message (or batch)
/// under, beside its own fields (a sequence number, a time, a direction).
pub(crate) const ENVELOPE_KEYS: [&str; 4] = ["msg", "message", "payload", "data"];

/// Whether an object, of members `m`, is a JSON-RPC message by its members: a
/// `jsonrpc`, a string `method` with `params` or an `id`, or an `id` with a
/// `result` or an `error`.
pub(crate) fn is_message(m: &RawMembers<'_>) -> bool {
    let has = |key| rget(m, key).is_some();
    has("jsonrpc")
        || (rget(m, "method").is_some_and(|v| v.as_str().is_some()) && (has("params") || has("id")))
        || (has("id") && (has("result") || has("error")))
}

/// The JSON-RPC message (or batch) an envelope of members `m` wraps: the value of
/// its one member of [`ENVELOPE_KEYS`] that is a message or a batch of them, when
/// the envelope is no message itself.
pub(crate) fn enveloped<'a>(m: &RawMembers<'a>) -> Option<Raw<'a>> {
    if is_message(m) {
        return None;
    }
    let mut found = ENVELOPE_KEYS.iter().filter_map(|key| {
        let inner = rget(m, key)?;
        let message = match inner.items() {
            Some(mut batch) => batch
                .next()
                .and_then(|first| first.members())
                .is_some_and(|first| is_message(&first)),
            None => inner.members().is_some_and(|members| is_message(&members)),
        };
        message.then_some(inner)
    });
    let inner = found.next()?;
    found.next().is_none().then_some(inner)
}

/// Whether an object of members `m`, no JSON-RPC message itself, holds messages under
/// two or more members of [`ENVELOPE_KEYS`]: which one the line is cannot be told.
fn envelope_of_several(m: &RawMembers<'_>) -> bool {
    !is_message(m)
        && ENVELOPE_KEYS
            .iter()
            .filter(|key| {
                rget(m, key)
                    .and_then(|inner| inner.members())
                    .is_some_and(|inner| is_message(&inner))
            })
            .count()
            > 1
}

/// Reads the messages of `items` into `pairing`.
pub(crate) fn read(items: Items<'_>, pairing: &mut Pairing) -> Result<(), LineError> {
    pairing.jsonrpc();
    for item in items {
        let (line, value) = item?;
        pairing.clock_nanos(value.members().and_then(|m| envelope_time(&m)));
        if value.members().is_some_and(|m| envelope_of_several(&m)) {
            pairing.skip(
                line,
                format!(
                    "envelope holding JSON-RPC messages under more than one of {}",
                    ENVELOPE_KEYS.map(|key| format!("\"{key}\"")).join(", ")
                ),
            );
            continue;
        }
        let value = value
            .members()
            .and_then(|members| enveloped(&members))
            .unwrap_or(value);
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
        Some(Slot::Other) => {
            // An `initialize` result: the protocol version of the calls after it.
            if let Some(version) = result
                .and_then(|r| r.members())
                .and_then(|r| rget_str(&r, "protocolVersion"))
            {
                pairing.protocol_version(version.into_owned());
            }
        }
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

/// The time an envelope gives its message: `timestamp` (RFC 3339, or seconds since
/// the Unix epoch), or `t` or `ts` (seconds since the Unix epoch), in nanoseconds.
fn envelope_time(members: &RawMembers<'_>) -> Option<u64> {
    if is_message(members) {
        return None;
    }
    ["timestamp", "t", "ts"].iter().find_map(|key| {
        let value = rget(members, key)?;
        match value.as_str() {
            Some(text) => super::rfc3339_nanos(&text),
            None => super::epoch_seconds_nanos(value.text()),
        }
    })
}
