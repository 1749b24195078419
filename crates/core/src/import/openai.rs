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

use crate::json::{self, Value, quoted_key};
use crate::transcript::LineError;

use super::{
    Items, Pairing, content_response, fit, for_each_message, get, get_str, must_be,
    non_empty_string, object, required, string_id,
};

/// Reads the messages of `items` into `pairing`.
pub(crate) fn read(items: Items<'_>, pairing: &mut Pairing) -> Result<(), LineError> {
    for_each_message(items, pairing, |line, message, pairing| {
        let Some(role) = get_str(message, "role") else {
            pairing.skip(line, "message without a string \"role\"".to_owned());
            return Ok(());
        };
        match get(message, "tool_calls") {
            None | Some(Value::Null) => {}
            Some(Value::Array(calls)) => {
                for (i, call) in calls.iter().enumerate() {
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
        if let Some(call) = get(message, "function_call")
            && *call != Value::Null
        {
            pairing.skip(line, "legacy \"function_call\"".to_owned());
        }
        match role {
            "tool" => tool_message(line, message, pairing)?,
            "function" => pairing.skip(line, "legacy \"function\" message".to_owned()),
            _ => {}
        }
        Ok(())
    })
}

fn tool_call(line: u64, i: usize, call: &Value, pairing: &mut Pairing) -> Result<(), LineError> {
    let error = |message: String| LineError {
        line,
        message: format!("tool_calls[{i}]: {message}"),
    };
    let Value::Object(call) = call else {
        return Err(error(format!("{}, not an object", call.described())));
    };
    if let Some(kind) = get_str(call, "type")
        && kind != "function"
    {
        pairing.skip(
            line,
            format!("tool_calls[{i}]: a call of type {}", quoted_key(kind)),
        );
        return Ok(());
    }
    let wrong = |field, wanted| move |found| error(must_be(field, wanted, found));
    let id = required(call, "id", string_id, wrong("id", "a non-empty string"))?;
    if let Some(Value::Str(name)) = get(call, "function") {
        // Inspect AI: the name, and the arguments as an object.
        if name.is_empty() {
            return Err(error(must_be(
                "function",
                "a non-empty string",
                get(call, "function"),
            )));
        }
        let args = match get(call, "arguments") {
            Some(args @ Value::Object(_)) => fit(line, "arguments", args)?,
            found => return Err(error(must_be("arguments", "an object", found))),
        };
        pairing.call(line, id, name.clone(), args);
        return Ok(());
    }
    let function = required(call, "function", object, wrong("function", "an object"))?;
    let name = required(
        function,
        "name",
        non_empty_string,
        wrong("function.name", "a non-empty string"),
    )?;
    let arguments = required(
        function,
        "arguments",
        |v| match v {
            Value::Str(text) => Some(text),
            _ => None,
        },
        wrong("function.arguments", "a string of JSON text"),
    )?;
    let args = match json::parse(arguments) {
        Ok(args @ Value::Object(_)) => args,
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
    let args = fit(line, "arguments", &args)?;
    pairing.call(line, id, name, args);
    Ok(())
}

fn tool_message(
    line: u64,
    message: &[(String, Value)],
    pairing: &mut Pairing,
) -> Result<(), LineError> {
    if get(message, "tool_call_id").is_none()
        && let Some(ids) = get(message, "tool_call_ids")
    {
        // SWE-agent: one message answers every call it names.
        let Value::Array(ids) = ids else {
            return Err(LineError {
                line,
                message: format!(
                    "tool message: {}",
                    must_be("tool_call_ids", "an array of ids", Some(ids))
                ),
            });
        };
        let response = content_response(get(message, "content"), false);
        let response = fit(line, "response", &response)?;
        for id in ids {
            let Some(id) = string_id(id) else {
                return Err(LineError {
                    line,
                    message: format!(
                        "tool message: {}",
                        must_be("tool_call_ids[]", "a non-empty string", Some(id))
                    ),
                });
            };
            pairing.result(line, &id, response.clone());
        }
        return Ok(());
    }
    let id = required(message, "tool_call_id", string_id, |found| LineError {
        line,
        message: match found {
            Some(_) => format!(
                "tool message: {}",
                must_be("tool_call_id", "a non-empty string", found)
            ),
            None => "tool message without \"tool_call_id\"".to_owned(),
        },
    })?;
    let response = match get(message, "error") {
        None | Some(Value::Null) => content_response(get(message, "content"), false),
        Some(error) => {
            // Inspect AI: the error kept beside the content.
            let mut response = content_response(get(message, "content"), true);
            if let Value::Object(members) = &mut response {
                members.insert(1, ("error".to_owned(), error.clone()));
            }
            response
        }
    };
    let response = fit(line, "response", &response)?;
    pairing.result(line, &id, response);
    Ok(())
}
