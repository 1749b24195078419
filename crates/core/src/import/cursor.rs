//! Cursor agent transcripts: JSON Lines of `{"role": ..., "message": {"content": [...]}}`
//! (`~/.cursor/projects/<project>/agent-transcripts/*.jsonl`).
//!
//! The content blocks are Anthropic's: each `tool_use` block (`name`, `input`, and
//! `id` when there is one) is a call, with `input` as its `args`; a `tool_result`
//! block (`tool_use_id`) is the result of the call with that id. Cursor writes calls
//! without ids and without their results: such a call's response is
//! `{"no_result": true}`, without a warning, since the format never records them.
//! `text`, `thinking` and image blocks are dropped, and so are lines without a `role`
//! that carry a `type` (`turn_ended`, ...); anything else is skipped with a warning.

use crate::json::{Value, quoted_key};
use crate::transcript::LineError;

use super::{
    Items, NO_RESULT, Pairing, content_response, fit, get, get_str, must_be, non_empty_string,
    required, string_id,
};

/// Reads the lines of `items` into `pairing`.
pub(crate) fn read(items: Items<'_>, pairing: &mut Pairing) -> Result<(), LineError> {
    let items = super::trees(items);
    for entry in items {
        let (line, value) = entry?;
        let Value::Object(members) = value else {
            pairing.skip(line, format!("line: {}, not an object", value.described()));
            continue;
        };
        if get(&members, "role").is_none() {
            if get_str(&members, "type").is_none() {
                pairing.skip(line, "line without \"role\" or \"type\"".to_owned());
            }
            continue;
        }
        let content = match get(&members, "message") {
            Some(Value::Object(message)) => get(message, "content"),
            _ => get(&members, "content"),
        };
        match content {
            Some(Value::Array(blocks)) => {
                for block in blocks {
                    self::block(line, block, pairing)?;
                }
            }
            Some(Value::Str(_)) | None | Some(Value::Null) => {}
            Some(other) => pairing.skip(
                line,
                format!("message: \"content\" is {}", other.described()),
            ),
        }
    }
    Ok(())
}

fn block(line: u64, block: &Value, pairing: &mut Pairing) -> Result<(), LineError> {
    let Value::Object(block) = block else {
        pairing.skip(
            line,
            format!("content block: {}, not an object", block.described()),
        );
        return Ok(());
    };
    let error = |kind: &str, message: String| LineError {
        line,
        message: format!("{kind} block: {message}"),
    };
    match get_str(block, "type") {
        Some("tool_use") => {
            let name = required(block, "name", non_empty_string, |found| {
                error("tool_use", must_be("name", "a non-empty string", found))
            })?;
            let args = match get(block, "input") {
                Some(input @ Value::Object(_)) => fit(line, "arguments", input)?,
                None | Some(Value::Null) => b"{}".to_vec(),
                found => return Err(error("tool_use", must_be("input", "an object", found))),
            };
            match get(block, "id") {
                None | Some(Value::Null) => {
                    pairing.call_unpaired(line, name, args, Some(NO_RESULT.to_vec()))
                }
                Some(id) => {
                    let id = string_id(id).ok_or_else(|| {
                        error("tool_use", must_be("id", "a non-empty string", Some(id)))
                    })?;
                    pairing.call(line, id, name, args);
                }
            }
        }
        Some("tool_result") => {
            let id = required(block, "tool_use_id", string_id, |found| {
                error(
                    "tool_result",
                    must_be("tool_use_id", "a non-empty string", found),
                )
            })?;
            let is_error = get(block, "is_error") == Some(&Value::Bool(true));
            let response = fit(
                line,
                "response",
                &content_response(get(block, "content"), is_error),
            )?;
            pairing.result(line, &id, response);
        }
        Some("text" | "thinking" | "redacted_thinking" | "image") => {}
        Some(kind) => pairing.skip(line, format!("content block of type {}", quoted_key(kind))),
        None => pairing.skip(line, "content block without a string \"type\"".to_owned()),
    }
    Ok(())
}
