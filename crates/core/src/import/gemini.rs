//! Gemini CLI sessions: `~/.gemini/tmp/<project_hash>/chats/session-*.json`, one JSON
//! document `{"sessionId", "projectHash", "startTime", "lastUpdated", "messages": [...]}`,
//! or JSON Lines with one message a line (a line with `sessionId` and no `type` is
//! the session's metadata, dropped), or JSON Lines with one whole session a line
//! (the recording's object, its `messages` each read as a message on that line; a
//! message that a line of the same `sessionId` already held, the same `id` with the
//! same text, is the same message written again and is read once).
//!
//! Each entry of a message's `toolCalls` is a call: `name` the tool, `args` (an
//! object; absent: `{}`) the `args`. Its result is recorded with it, in `result`, a
//! list of parts: the `functionResponse.response` of the part (a list of them when
//! there are several) gives `{"content": ...}`, with `"is_error": true` when the
//! call's `status` is `"error"`. A call without a `result` is kept with
//! `{"no_result": true}` and a warning. Messages of type `user`, `gemini`, `info`,
//! `error` and `warning`, their text and `thoughts`, are dropped otherwise; a message
//! that is not an object is skipped with a warning.

use std::collections::BTreeMap;

use crate::json::{JsonType, Raw};
use crate::transcript::LineError;

use super::{
    Items, MAX_DEPTH, Pairing, raw_content_response, raw_fit, raw_id_key, raw_must_be,
    raw_non_empty_string, raw_string_id, raw_value, rget, rget_str, rrequired, too_deep,
};

/// Reads the messages of `items` into `pairing`.
pub(crate) fn read(items: Items<'_>, pairing: &mut Pairing) -> Result<(), LineError> {
    // The messages already read of each session a line held whole, by the session's
    // id and the message's, with their text.
    let mut seen: BTreeMap<(String, String), String> = BTreeMap::new();
    for entry in items {
        let (line, value) = entry?;
        if let Some(session) = value.members()
            && rget(&session, "type").is_none()
            && let Some(messages) = rget(&session, "messages").and_then(|m| m.items())
        {
            // A whole session on one line: its messages, each on the line.
            let id = rget(&session, "sessionId")
                .map(raw_id_key)
                .unwrap_or_default();
            for value in messages {
                if let Some(message) = value.members()
                    && let Some(message_id) = rget(&message, "id").map(raw_id_key)
                {
                    let key = (id.clone(), message_id);
                    if seen.get(&key).is_some_and(|text| text == value.text()) {
                        // The same message of the same session, written again.
                        continue;
                    }
                    seen.insert(key, value.text().to_owned());
                }
                one(line, value, pairing)?;
            }
            continue;
        }
        one(line, value, pairing)?;
    }
    Ok(())
}

/// Reads one message, on `line`, into `pairing`.
fn one(line: u64, value: Raw<'_>, pairing: &mut Pairing) -> Result<(), LineError> {
    let Some(message) = value.members() else {
        pairing.skip(
            line,
            format!("message: {}, not an object", value.described()),
        );
        return Ok(());
    };
    said(&message, pairing);
    pairing.clock(rget_str(&message, "timestamp").as_deref());
    match rget(&message, "toolCalls") {
        None => {}
        Some(calls) if calls.is_null() => {}
        Some(calls) if calls.json_type() == JsonType::Array => {
            for (i, call) in calls.items().into_iter().flatten().enumerate() {
                tool_call(line, i, call, pairing)?;
            }
        }
        found => {
            return Err(LineError {
                line,
                message: raw_must_be("toolCalls", "an array", found),
            });
        }
    }
    if rget_str(&message, "type").is_none() && rget(&message, "sessionId").is_none() {
        pairing.skip(line, "message without a string \"type\"".to_owned());
    }
    Ok(())
}

fn tool_call(line: u64, i: usize, call: Raw<'_>, pairing: &mut Pairing) -> Result<(), LineError> {
    let error = |message: String| LineError {
        line,
        message: format!("toolCalls[{i}]: {message}"),
    };
    let Some(call) = call.members() else {
        return Err(error(format!("{}, not an object", call.described())));
    };
    let name = rrequired(&call, "name", raw_non_empty_string, |found| {
        error(raw_must_be("name", "a non-empty string", found))
    })?;
    let args = match rget(&call, "args") {
        None => b"{}".to_vec(),
        Some(args) if args.is_null() => b"{}".to_vec(),
        Some(args) if args.json_type() == JsonType::Object => raw_fit(line, "arguments", args)?,
        found => return Err(error(raw_must_be("args", "an object", found))),
    };
    let is_error = rget_str(&call, "status").as_deref() == Some("error");
    let response = match rget(&call, "result") {
        None => None,
        Some(result) if result.is_null() => None,
        Some(result) if result.json_type() == JsonType::Array => {
            let responses: Vec<Raw<'_>> = result
                .items()
                .into_iter()
                .flatten()
                .filter_map(|part| {
                    let response = rget(&part.members()?, "functionResponse")?.members()?;
                    rget(&response, "response")
                })
                .collect();
            match responses.as_slice() {
                [] => Some(raw_content_response(line, Some(result), is_error)?),
                [one] => Some(raw_content_response(line, Some(*one), is_error)?),
                many => {
                    // The responses as one array, the content of the response.
                    let deepest = many.iter().map(|r| r.depth()).max().unwrap_or(0);
                    if 2 + deepest >= MAX_DEPTH {
                        return Err(too_deep(line, "response"));
                    }
                    let mut out = b"{\"content\":[".to_vec();
                    for (at, part) in many.iter().enumerate() {
                        if at > 0 {
                            out.push(b',');
                        }
                        out.extend_from_slice(&raw_value(line, "response", *part, 2)?);
                    }
                    out.push(b']');
                    if is_error {
                        out.extend_from_slice(b",\"is_error\":true");
                    }
                    out.push(b'}');
                    Some(out)
                }
            }
        }
        Some(other) => Some(raw_content_response(line, Some(other), is_error)?),
    };
    match (rget(&call, "id").and_then(raw_string_id), response) {
        (Some(id), Some(response)) => pairing.call_answered(line, id, name, args, response),
        (Some(id), None) => pairing.call(line, id, name, args),
        (None, response) => pairing.call_unpaired(line, name, args, response),
    }
    let made = rget_str(&call, "timestamp").and_then(|t| super::rfc3339_nanos(&t));
    pairing.started(made);
    Ok(())
}

/// The conversation of a message, read before its calls: the `content` (a string,
/// or a list of parts whose `text` is kept) of a `user` message is a prompt, of a
/// `gemini` message an answer; `thoughts` and the `info`, `error` and `warning`
/// messages give nothing.
fn said(message: &crate::json::RawMembers<'_>, pairing: &mut Pairing) {
    use crate::claims::MessageKind;
    let kind = match rget_str(message, "type").as_deref() {
        Some("user") => MessageKind::Prompt,
        Some("gemini") => MessageKind::Answer,
        _ => return,
    };
    pairing.said(kind, super::said::content_text(rget(message, "content")));
}
