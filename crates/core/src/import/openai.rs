//! OpenAI chat messages: a JSON array of messages, or JSON Lines with one message a
//! line.
//!
//! Each entry of an assistant message's `tool_calls` is a call: `function.name` is
//! the tool, and `function.arguments`, JSON text, is parsed with the strict parser of
//! [`crate::json`] into the `args`, which must be an object. A later message of role
//! `tool` is the result of the call with its `tool_call_id`: the first call of that
//! id still waiting for a result (ids repeat within real runs), its response
//! `{"content": ...}`. Other messages (system, user, assistant text) are dropped; a
//! message that is not an object or has no string `role`, a tool call of a type other
//! than `function`, and the legacy `function_call` and `function` role are skipped
//! with a warning.
//!
//! Two variants of the same shape are read too. Inspect AI writes a call as
//! `{"id": ..., "function": "NAME", "arguments": {...}}` (the function's name a
//! string, the arguments an object); its tool messages may carry an `error`, kept as
//! `"error"` in the response beside the content, with `"is_error": true`. SWE-agent's tool messages name their calls in
//! `tool_call_ids`, a list: the message is the result of each of them. The documents
//! these come in (an Inspect AI eval log's `samples[].messages`, a SWE-agent
//! trajectory's `history`) are read one message after another.
//!
//! A chat completion, the API's response (`{"object": "chat.completion",
//! "choices": [{"message": {...}}]}`), holds the assistant's message in each choice:
//! a log of completions, one a line, is read as those messages.

use crate::json::{JsonType, Raw, RawMembers, quoted_key};
use crate::transcript::LineError;

use super::{
    Items, Pairing, for_each_raw_message, object_bytes, raw_fit, raw_must_be, raw_non_empty_string,
    raw_string_id, raw_value, rget, rget_str, rrequired,
};

/// The messages a chat completion (`{"object": "chat.completion", "choices": [...]}`)
/// holds, each choice's `message`, when the object of members `m` is one.
pub(crate) fn completion_messages<'a>(m: &RawMembers<'a>) -> Option<Vec<RawMembers<'a>>> {
    if rget(m, "role").is_some() {
        return None;
    }
    let choices = rget(m, "choices")?.items()?;
    let messages: Vec<RawMembers<'a>> = choices
        .filter_map(|choice| rget(&choice.members()?, "message")?.members())
        .collect();
    (!messages.is_empty()).then_some(messages)
}

/// Reads the messages of `items` into `pairing`.
pub(crate) fn read(items: Items<'_>, pairing: &mut Pairing) -> Result<(), LineError> {
    for_each_raw_message(items, pairing, |line, message, pairing| {
        match completion_messages(message) {
            // A chat completion: the message of each of its choices.
            Some(messages) => messages
                .iter()
                .try_for_each(|message| read_message(line, message, pairing)),
            None => read_message(line, message, pairing),
        }
    })
}

/// Reads one message, on `line`, into `pairing`.
fn read_message(
    line: u64,
    message: &RawMembers<'_>,
    pairing: &mut Pairing,
) -> Result<(), LineError> {
    let Some(role) = rget_str(message, "role") else {
        pairing.skip(line, "message without a string \"role\"".to_owned());
        return Ok(());
    };
    super::said::chat(&role, message, pairing);
    match rget(message, "tool_calls") {
        None => {}
        Some(calls) if calls.is_null() => {}
        Some(calls) if calls.json_type() == JsonType::Array => {
            for (i, call) in calls.items().into_iter().flatten().enumerate() {
                tool_call(line, i, call, pairing)?;
            }
        }
        Some(other) => {
            return Err(LineError {
                line,
                message: format!(
                    "\"tool_calls\" must be an array, found {}",
                    other.described()
                ),
            });
        }
    }
    if let Some(call) = rget(message, "function_call")
        && !call.is_null()
    {
        pairing.skip(line, "legacy \"function_call\"".to_owned());
    }
    match role.as_ref() {
        "tool" => tool_message(line, message, pairing)?,
        "function" => pairing.skip(line, "legacy \"function\" message".to_owned()),
        _ => {}
    }
    Ok(())
}

fn tool_call(line: u64, i: usize, call: Raw<'_>, pairing: &mut Pairing) -> Result<(), LineError> {
    let error = |message: String| LineError {
        line,
        message: format!("tool_calls[{i}]: {message}"),
    };
    let Some(call) = call.members() else {
        return Err(error(format!("{}, not an object", call.described())));
    };
    if let Some(kind) = rget_str(&call, "type")
        && kind != "function"
    {
        pairing.skip(
            line,
            format!("tool_calls[{i}]: a call of type {}", quoted_key(&kind)),
        );
        return Ok(());
    }
    let wrong = |field, wanted| move |found| error(raw_must_be(field, wanted, found));
    let id = rrequired(
        &call,
        "id",
        raw_string_id,
        wrong("id", "a non-empty string"),
    )?;
    if let Some(name) = rget_str(&call, "function") {
        // Inspect AI: the name, and the arguments as an object.
        if name.is_empty() {
            return Err(error(raw_must_be(
                "function",
                "a non-empty string",
                rget(&call, "function"),
            )));
        }
        let args = match rget(&call, "arguments") {
            Some(args) if args.json_type() == JsonType::Object => raw_fit(line, "arguments", args)?,
            found => return Err(error(raw_must_be("arguments", "an object", found))),
        };
        pairing.call(line, id, name.into_owned(), args);
        return Ok(());
    }
    let function = rrequired(
        &call,
        "function",
        |v| v.members(),
        wrong("function", "an object"),
    )?;
    let name = rrequired(
        &function,
        "name",
        raw_non_empty_string,
        wrong("function.name", "a non-empty string"),
    )?;
    let arguments = rrequired(
        &function,
        "arguments",
        |v| v.as_str(),
        wrong("function.arguments", "a string of JSON text"),
    )?;
    let args = match Raw::parse(&arguments) {
        Ok(args) if args.json_type() == JsonType::Object => raw_fit(line, "arguments", args)?,
        Ok(other) => {
            return Err(error(format!(
                "\"function.arguments\" must hold a JSON object, found {}",
                other.described()
            )));
        }
        Err(err) => {
            return Err(error(format!(
                "\"function.arguments\" is not valid JSON: {err}"
            )));
        }
    };
    pairing.call(line, id, name, args);
    Ok(())
}

fn tool_message(
    line: u64,
    message: &RawMembers<'_>,
    pairing: &mut Pairing,
) -> Result<(), LineError> {
    if rget(message, "tool_call_id").is_none()
        && let Some(ids) = rget(message, "tool_call_ids")
    {
        // SWE-agent: one message answers every call it names.
        let Some(items) = ids.items() else {
            return Err(LineError {
                line,
                message: format!(
                    "tool message: {}",
                    raw_must_be("tool_call_ids", "an array of ids", Some(ids))
                ),
            });
        };
        let response = super::raw_content_response(line, rget(message, "content"), false)?;
        for id in items {
            let Some(key) = raw_string_id(id) else {
                return Err(LineError {
                    line,
                    message: format!(
                        "tool message: {}",
                        raw_must_be("tool_call_ids[]", "a non-empty string", Some(id))
                    ),
                });
            };
            pairing.result(line, &key, response.clone());
        }
        return Ok(());
    }
    let id = rrequired(message, "tool_call_id", raw_string_id, |found| LineError {
        line,
        message: match found {
            Some(_) => format!(
                "tool message: {}",
                raw_must_be("tool_call_id", "a non-empty string", found)
            ),
            None => "tool message without \"tool_call_id\"".to_owned(),
        },
    })?;
    let response = match rget(message, "error") {
        Some(error) if !error.is_null() => {
            // Inspect AI: the error kept beside the content.
            let mut members = Vec::new();
            if let Some(content) = rget(message, "content") {
                members.push(("content", raw_value(line, "response", content, 1)?));
            }
            members.push(("error", raw_value(line, "response", error, 1)?));
            members.push(("is_error", b"true".to_vec()));
            object_bytes(members)
        }
        _ => super::raw_content_response(line, rget(message, "content"), false)?,
    };
    pairing.result(line, &id, response);
    Ok(())
}
