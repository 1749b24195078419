//! OpenAI Responses API items: a JSON array of input/output items (what a request's
//! `input` holds, what the OpenAI Agents SDK's `to_input_list()` gives), JSON Lines of
//! them, or a request body (`{"model": ..., "input": [...]}`) or a response
//! (`{"output": [...]}`).
//!
//! - `function_call` (`call_id`, `name`, `arguments`) is a call: `arguments` is JSON
//!   text, parsed strictly into the `args`, which must be an object (an object as it
//!   is, as some producers write it; absent: `{}`).
//! - `custom_tool_call` (`call_id`, `name`, `input`, a string) is a call with the args
//!   `{"input": input}`.
//! - The actions the agent's harness runs are calls too, each of a tool named for it
//!   with its action object as the args: `local_shell_call` (`call_id`, `action`) of
//!   `local_shell`, `shell_call` (`call_id`, `action`) of `shell`, `computer_call`
//!   (`call_id`, `action`: a click, a typed text, a screenshot, ...) of `computer`,
//!   and `apply_patch_call` (`call_id`, `operation`) of `apply_patch`.
//! - `function_call_output`, `custom_tool_call_output` and the outputs of those
//!   actions (`local_shell_call_output`, `shell_call_output`, `computer_call_output`
//!   with its screenshot, `apply_patch_call_output`) are the result of the call with
//!   their `call_id`: `{"content": output}`.
//! - `mcp_call` (`id`, `name`, `arguments`, `output`, `error`) is a call and its result
//!   at once: `{"content": output}`, or `{"error": error, "is_error": true}`.
//! - A log of a streamed response's events (`{"type": "response.output_item.done",
//!   "item": {...}}`, ...) is read as the items they carry: each
//!   `response.output_item.done` event's `item`, the item as it is once done. A
//!   `response.completed` (`failed`, `incomplete`) event's `response.output` holds
//!   the same items again: they are read only when the input has no done item (a
//!   log of each response's last event). The other events (`response.created`,
//!   `response.output_item.added`, text and argument deltas, ...) carry no item that
//!   is not also in those and are dropped.
//! - Early Codex CLI rollouts were these items one a line, with a first line of
//!   session metadata (`instructions`) and `record_type` lines: those are dropped.
//! - Messages, reasoning and the hosted tools' items (`web_search_call`, ...) are not
//!   calls of the agent's tools and are dropped; an item of an unknown type is skipped
//!   with a warning, which says so when its type (`*_call`, `*_call_output`) names
//!   it a tool call or its output.

use crate::json::{JsonType, Raw, RawMembers, quoted_key};
use crate::transcript::LineError;

use super::{
    Items, Pairing, object_bytes, raw_content_response, raw_fit, raw_must_be, raw_non_empty_string,
    raw_string_id, raw_value, rget, rget_str, rrequired,
};

/// Item types that are tools' calls (`mcp_call` with its output).
pub(crate) const CALLS: [&str; 7] = [
    "function_call",
    "custom_tool_call",
    "local_shell_call",
    "shell_call",
    "computer_call",
    "apply_patch_call",
    "mcp_call",
];

/// The actions a harness runs: the item type, the tool it is a call of, and the
/// member holding its action (the call's args).
const ACTIONS: [(&str, &str, &str); 4] = [
    ("local_shell_call", "local_shell", "action"),
    ("shell_call", "shell", "action"),
    ("computer_call", "computer", "action"),
    ("apply_patch_call", "apply_patch", "operation"),
];

/// Item types that are the outputs of calls.
const OUTPUTS: [&str; 6] = [
    "function_call_output",
    "custom_tool_call_output",
    "local_shell_call_output",
    "shell_call_output",
    "computer_call_output",
    "apply_patch_call_output",
];

/// Item types dropped without a warning, but for `message` (which other formats
/// have too).
const DROPPED: [&str; 7] = [
    "reasoning",
    "web_search_call",
    "file_search_call",
    "image_generation_call",
    "code_interpreter_call",
    "mcp_list_tools",
    "item_reference",
];

/// Whether `kind` is the type of a Responses API item this reader knows, other
/// than `message`.
pub(crate) fn is_item_type(kind: &str) -> bool {
    [&CALLS[..], &OUTPUTS, &DROPPED]
        .iter()
        .any(|kinds| kinds.contains(&kind))
}

/// The streaming event whose `item` is an output item as it is once done.
const ITEM_DONE: &str = "response.output_item.done";

/// The streaming events whose `response` holds the response's whole `output`.
const RESPONSE_ENDS: [&str; 3] = [
    "response.completed",
    "response.failed",
    "response.incomplete",
];

/// Whether `kind` is the type of a streaming event (`response.*`).
pub(crate) fn is_event(kind: &str) -> bool {
    kind.starts_with("response.")
}

/// The output items a streaming event holds: a done item's, or a response's whole
/// `output` at its end.
pub(crate) fn event_items<'a>(kind: &str, members: &RawMembers<'a>) -> Vec<Raw<'a>> {
    if kind == ITEM_DONE {
        return rget(members, "item").into_iter().collect();
    }
    if RESPONSE_ENDS.contains(&kind)
        && let Some(response) = rget(members, "response").and_then(|r| r.members())
        && let Some(output) = rget(&response, "output").and_then(|o| o.items())
    {
        return output.collect();
    }
    Vec::new()
}

/// Reads the items of `items` into `pairing`.
pub(crate) fn read(items: Items<'_>, pairing: &mut Pairing) -> Result<(), LineError> {
    // A stream's items are read from its `response.output_item.done` events; the
    // same items again in a `response.completed` event's output are read only when
    // the input has no done item at all (a log of the responses' last events).
    let mut done_items = false;
    let mut ended: Vec<(u64, Raw<'_>)> = Vec::new();
    for entry in items {
        let (line, value) = entry?;
        if let Some(members) = value.members()
            && let Some(kind) = rget_str(&members, "type")
            && is_event(&kind)
        {
            if kind == ITEM_DONE {
                done_items = true;
                for inner in event_items(&kind, &members) {
                    one(line, inner, pairing)?;
                }
            } else {
                ended.extend(event_items(&kind, &members).into_iter().map(|i| (line, i)));
            }
            continue;
        }
        match value.members() {
            Some(members) => {
                // A request or response body: its `input` items, then its `output`
                // items (a stored exchange holds both), then the next entry.
                let mut body = false;
                if rget(&members, "type").is_none() {
                    for key in ["input", "output"] {
                        if let Some(inner) = rget(&members, key).and_then(|v| v.items()) {
                            body = true;
                            for item in inner {
                                one(line, item, pairing)?;
                            }
                        }
                    }
                }
                if !body {
                    item(line, &members, pairing)?;
                }
            }
            None => one(line, value, pairing)?,
        }
    }
    if !done_items {
        for (line, inner) in ended {
            one(line, inner, pairing)?;
        }
    }
    Ok(())
}

fn one(line: u64, value: Raw<'_>, pairing: &mut Pairing) -> Result<(), LineError> {
    let Some(members) = value.members() else {
        pairing.skip(line, format!("item: {}, not an object", value.described()));
        return Ok(());
    };
    item(line, &members, pairing)
}

/// Reads one Responses item (also a Codex rollout's `response_item` payload).
pub(crate) fn item(
    line: u64,
    members: &RawMembers<'_>,
    pairing: &mut Pairing,
) -> Result<(), LineError> {
    let Some(kind) = rget_str(members, "type") else {
        if rget(members, "role").is_some()
            || rget(members, "record_type").is_some()
            || rget(members, "instructions").is_some()
        {
            // An input message written without its type; the state and session lines
            // of early Codex rollouts, which were Responses items a line.
            if let Some(role) = rget_str(members, "role") {
                super::said::chat(&role, members, pairing);
            }
            return Ok(());
        }
        pairing.skip(line, "item without a string \"type\"".to_owned());
        return Ok(());
    };
    let kind = kind.as_ref();
    let error = |message: String| LineError {
        line,
        message: format!("{kind} item: {message}"),
    };
    let wrong = |field, wanted| move |found| error(raw_must_be(field, wanted, found));
    if kind == "message"
        && let Some(role) = rget_str(members, "role")
    {
        super::said::chat(&role, members, pairing);
    }
    match kind {
        "function_call" | "custom_tool_call" | "local_shell_call" | "shell_call"
        | "computer_call" | "apply_patch_call" => {
            let id = rrequired(
                members,
                "call_id",
                raw_string_id,
                wrong("call_id", "a non-empty string"),
            )?;
            let (tool, args) = called(line, kind, members)?;
            pairing.call(line, id, tool, args);
        }
        kind if OUTPUTS.contains(&kind) => {
            let id = rrequired(
                members,
                "call_id",
                raw_string_id,
                wrong("call_id", "a non-empty string"),
            )?;
            let response = raw_content_response(line, rget(members, "output"), false)?;
            pairing.result(line, &id, response);
        }
        "mcp_call" => {
            let id = rrequired(
                members,
                "id",
                raw_string_id,
                wrong("id", "a non-empty string"),
            )?;
            let name = rrequired(
                members,
                "name",
                raw_non_empty_string,
                wrong("name", "a non-empty string"),
            )?;
            let args = arguments(line, kind, rget(members, "arguments"))?;
            let response = match rget(members, "error") {
                Some(err) if !err.is_null() => object_bytes(vec![
                    ("error", raw_value(line, "response", err, 1)?),
                    ("is_error", b"true".to_vec()),
                ]),
                _ => raw_content_response(line, rget(members, "output"), false)?,
            };
            pairing.call_answered(line, id, name, args, response);
        }
        kind if kind == "message" || DROPPED.contains(&kind) => {}
        kind if kind.ends_with("_call") || kind.ends_with("_call_output") => pairing.skip(
            line,
            format!(
                "item of type {}, a tool call or its output of a type not understood",
                quoted_key(kind)
            ),
        ),
        kind => pairing.skip(line, format!("item of type {}", quoted_key(kind))),
    }
    Ok(())
}

/// The tool and canonical arguments of a `function_call`, `custom_tool_call` or
/// `local_shell_call` item.
fn called(line: u64, kind: &str, members: &RawMembers<'_>) -> Result<(String, Vec<u8>), LineError> {
    let error = |message: String| LineError {
        line,
        message: format!("{kind} item: {message}"),
    };
    let wrong = |field, wanted| move |found| error(raw_must_be(field, wanted, found));
    Ok(match kind {
        "function_call" => {
            let name = rrequired(
                members,
                "name",
                raw_non_empty_string,
                wrong("name", "a non-empty string"),
            )?;
            (name, arguments(line, kind, rget(members, "arguments"))?)
        }
        "custom_tool_call" => {
            let name = rrequired(
                members,
                "name",
                raw_non_empty_string,
                wrong("name", "a non-empty string"),
            )?;
            let input = match rget(members, "input") {
                Some(input) if input.as_str().is_some() => raw_value(line, "arguments", input, 1)?,
                found => return Err(error(raw_must_be("input", "a string", found))),
            };
            (name, object_bytes(vec![("input", input)]))
        }
        _ => {
            let (_, tool, member) = ACTIONS
                .into_iter()
                .find(|(item, _, _)| *item == kind)
                .unwrap_or(ACTIONS[0]);
            match rget(members, member) {
                Some(action) if action.json_type() == JsonType::Object => {
                    (tool.to_owned(), raw_fit(line, "arguments", action)?)
                }
                found => return Err(error(raw_must_be(member, "an object", found))),
            }
        }
    })
}

/// The canonical arguments of a call: JSON text holding an object, an object, or
/// absent (`{}`).
pub(crate) fn arguments(
    line: u64,
    kind: &str,
    found: Option<Raw<'_>>,
) -> Result<Vec<u8>, LineError> {
    let error = |message: String| LineError {
        line,
        message: format!("{kind} item: {message}"),
    };
    match found {
        None => Ok(b"{}".to_vec()),
        Some(args) if args.is_null() => Ok(b"{}".to_vec()),
        Some(args) if args.json_type() == JsonType::Object => raw_fit(line, "arguments", args),
        Some(args) if args.as_str().is_some() => {
            let text = args.as_str().unwrap_or_default();
            match Raw::parse(&text) {
                Ok(args) if args.json_type() == JsonType::Object => {
                    raw_fit(line, "arguments", args)
                }
                Ok(other) => Err(error(format!(
                    "\"arguments\" must hold a JSON object, found {}",
                    other.described()
                ))),
                Err(err) => Err(error(format!("\"arguments\" is not valid JSON: {err}"))),
            }
        }
        found => Err(error(raw_must_be(
            "arguments",
            "a string of JSON text or an object",
            found,
        ))),
    }
}
