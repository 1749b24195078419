//! OpenAI Responses API items: a JSON array of input/output items (what a request's
//! `input` holds, what the OpenAI Agents SDK's `to_input_list()` gives), JSON Lines of
//! them, or a request body (`{"model": ..., "input": [...]}`) or a response
//! (`{"output": [...]}`).
//!
//! - `function_call` (`call_id`, `name`, `arguments`) is a call: `arguments` is JSON
//!   text, parsed strictly into the `args`, which must be an object (an object as it
//!   is, as some producers write it; absent: `{}`).
//! - `custom_tool_call` (`call_id`, `name`, `input`, a string) is a call with the args
//!   `{"input": input}`; `local_shell_call` (`call_id`, `action`) a call of the tool
//!   `local_shell` with the `action` as its args.
//! - `function_call_output`, `custom_tool_call_output` and `local_shell_call_output`
//!   are the result of the call with their `call_id`: `{"content": output}`.
//! - `mcp_call` (`id`, `name`, `arguments`, `output`, `error`) is a call and its result
//!   at once: `{"content": output}`, or `{"error": error, "is_error": true}`.
//! - Early Codex CLI rollouts were these items one a line, with a first line of
//!   session metadata (`instructions`) and `record_type` lines: those are dropped.
//! - Messages, reasoning and the hosted tools' items (`web_search_call`, ...) are not
//!   calls of the agent's tools and are dropped; an item of an unknown type is skipped
//!   with a warning.

use crate::json::{self, Value, quoted_key};
use crate::transcript::LineError;

use super::{
    Items, Pairing, content_response, fit, get, get_str, must_be, non_empty_string, required,
    string_id,
};

/// Item types dropped without a warning.
const DROPPED: [&str; 10] = [
    "message",
    "reasoning",
    "web_search_call",
    "file_search_call",
    "computer_call",
    "computer_call_output",
    "image_generation_call",
    "code_interpreter_call",
    "mcp_list_tools",
    "item_reference",
];

/// Reads the items of `items` into `pairing`.
pub(crate) fn read(items: Items<'_>, pairing: &mut Pairing) -> Result<(), LineError> {
    let items = super::trees(items);
    for entry in items {
        let (line, value) = entry?;
        match value {
            Value::Object(members) => {
                for key in ["input", "output"] {
                    if get(&members, "type").is_none()
                        && let Some(Value::Array(inner)) = get(&members, key)
                    {
                        for item in inner {
                            one(line, item, pairing)?;
                        }
                        return Ok(());
                    }
                }
                one(line, &Value::Object(members), pairing)?;
            }
            other => one(line, &other, pairing)?,
        }
    }
    Ok(())
}

fn one(line: u64, value: &Value, pairing: &mut Pairing) -> Result<(), LineError> {
    let Value::Object(members) = value else {
        pairing.skip(line, format!("item: {}, not an object", value.described()));
        return Ok(());
    };
    item(line, members, pairing)
}

/// Reads one Responses item (also a Codex rollout's `response_item` payload).
pub(crate) fn item(
    line: u64,
    members: &[(String, Value)],
    pairing: &mut Pairing,
) -> Result<(), LineError> {
    let Some(kind) = get_str(members, "type") else {
        if get(members, "role").is_some()
            || get(members, "record_type").is_some()
            || get(members, "instructions").is_some()
        {
            // An input message written without its type; the state and session lines
            // of early Codex rollouts, which were Responses items a line.
            return Ok(());
        }
        pairing.skip(line, "item without a string \"type\"".to_owned());
        return Ok(());
    };
    let error = |message: String| LineError {
        line,
        message: format!("{kind} item: {message}"),
    };
    let wrong = |field, wanted| move |found| error(must_be(field, wanted, found));
    match kind {
        "function_call" | "custom_tool_call" | "local_shell_call" => {
            let id = required(
                members,
                "call_id",
                string_id,
                wrong("call_id", "a non-empty string"),
            )?;
            let (tool, args) = match kind {
                "function_call" => {
                    let name = required(
                        members,
                        "name",
                        non_empty_string,
                        wrong("name", "a non-empty string"),
                    )?;
                    (name, arguments(line, kind, get(members, "arguments"))?)
                }
                "custom_tool_call" => {
                    let name = required(
                        members,
                        "name",
                        non_empty_string,
                        wrong("name", "a non-empty string"),
                    )?;
                    let input = match get(members, "input") {
                        Some(input @ Value::Str(_)) => input.clone(),
                        found => return Err(error(must_be("input", "a string", found))),
                    };
                    (name, Value::Object(vec![("input".to_owned(), input)]))
                }
                _ => match get(members, "action") {
                    Some(action @ Value::Object(_)) => ("local_shell".to_owned(), action.clone()),
                    found => return Err(error(must_be("action", "an object", found))),
                },
            };
            let args = fit(line, "arguments", &args)?;
            pairing.call(line, id, tool, args);
        }
        "function_call_output" | "custom_tool_call_output" | "local_shell_call_output" => {
            let id = required(
                members,
                "call_id",
                string_id,
                wrong("call_id", "a non-empty string"),
            )?;
            let response = content_response(get(members, "output"), false);
            let response = fit(line, "response", &response)?;
            pairing.result(line, &id, response);
        }
        "mcp_call" => {
            let id = required(members, "id", string_id, wrong("id", "a non-empty string"))?;
            let name = required(
                members,
                "name",
                non_empty_string,
                wrong("name", "a non-empty string"),
            )?;
            let args = fit(
                line,
                "arguments",
                &arguments(line, kind, get(members, "arguments"))?,
            )?;
            let response = match get(members, "error") {
                None | Some(Value::Null) => content_response(get(members, "output"), false),
                Some(err) => Value::Object(vec![
                    ("error".to_owned(), err.clone()),
                    ("is_error".to_owned(), Value::Bool(true)),
                ]),
            };
            let response = fit(line, "response", &response)?;
            pairing.call_answered(line, id, name, args, response);
        }
        kind if DROPPED.contains(&kind) => {}
        kind => pairing.skip(line, format!("item of type {}", quoted_key(kind))),
    }
    Ok(())
}

/// The arguments of a call: JSON text holding an object, an object, or absent (`{}`).
pub(crate) fn arguments(line: u64, kind: &str, found: Option<&Value>) -> Result<Value, LineError> {
    let error = |message: String| LineError {
        line,
        message: format!("{kind} item: {message}"),
    };
    match found {
        None | Some(Value::Null) => Ok(Value::Object(Vec::new())),
        Some(args @ Value::Object(_)) => Ok(args.clone()),
        Some(Value::Str(text)) => match json::parse(text) {
            Ok(args @ Value::Object(_)) => Ok(args),
            Ok(other) => Err(error(format!(
                "\"arguments\" must hold a JSON object, found {}",
                other.described()
            ))),
            Err(err) => Err(error(format!("\"arguments\" is not valid JSON: {err}"))),
        },
        found => Err(error(must_be(
            "arguments",
            "a string of JSON text or an object",
            found,
        ))),
    }
}
