//! Anthropic Messages API messages: a JSON array of `{"role": ..., "content": ...}`
//! (or JSON Lines, one message a line).
//!
//! A message's `content` is a string (text, dropped) or a list of content blocks.
//! Each `tool_use` block (`id`, `name`, `input`) is a call, with `input` as its
//! `args`; each `tool_result` block (`tool_use_id`, `content`, `is_error`) is the
//! result of the call with that id, its response `{"content": ...}` with
//! `"is_error": true` when flagged. Blocks are read wherever they are, whatever the
//! message's role. `text`, `thinking`, `redacted_thinking`, `image` and `document`
//! blocks are dropped; a block of any other type (a server tool such as
//! `server_tool_use`) or that is not an object is skipped with a warning, and so is a
//! message that is not an object or has no `content`.
//!
//! A request body (`{"model": ..., "messages": [...]}`) gives its `messages`.

use crate::json::Value;
use crate::transcript::LineError;

use super::{
    Items, Pairing, content_response, fit, for_each_message, get, get_str, must_be,
    non_empty_string, required, string_id,
};

/// Reads the messages of `items` into `pairing`.
pub(crate) fn read(items: Items<'_>, pairing: &mut Pairing) -> Result<(), LineError> {
    for_each_message(items, pairing, |line, message, pairing| {
        match get(message, "content") {
            Some(Value::Array(blocks)) => content_blocks(line, blocks, pairing)?,
            Some(Value::Str(_)) => {}
            Some(other) => pairing.skip(
                line,
                format!("message: \"content\" is {}", other.described()),
            ),
            None => pairing.skip(line, "message without \"content\"".to_owned()),
        }
        Ok(())
    })
}

/// Blocks that hold no tool call and are dropped without a warning.
const DROPPED_BLOCKS: [&str; 5] = ["text", "thinking", "redacted_thinking", "image", "document"];

/// Reads a message's content blocks, on `line`, into `pairing`: shared by the
/// Anthropic and Claude Code formats.
pub(crate) fn content_blocks(
    line: u64,
    blocks: &[Value],
    pairing: &mut Pairing,
) -> Result<(), LineError> {
    for block in blocks {
        let Value::Object(block) = block else {
            pairing.skip(
                line,
                format!("content block: {}, not an object", block.described()),
            );
            continue;
        };
        match get_str(block, "type") {
            Some("tool_use") => tool_use(line, block, pairing)?,
            Some("tool_result") => tool_result(line, block, pairing)?,
            Some(kind) if DROPPED_BLOCKS.contains(&kind) => {}
            Some(kind) => pairing.skip(
                line,
                format!("content block of type {}", crate::json::quoted_key(kind)),
            ),
            None => pairing.skip(line, "content block without a string \"type\"".to_owned()),
        }
    }
    Ok(())
}

fn malformed(
    line: u64,
    block: &str,
    field: &str,
    wanted: &str,
    found: Option<&Value>,
) -> LineError {
    LineError {
        line,
        message: match found {
            Some(_) => format!("{block} block: {}", must_be(field, wanted, found)),
            None => format!("{block} block without \"{field}\""),
        },
    }
}

fn tool_use(line: u64, block: &[(String, Value)], pairing: &mut Pairing) -> Result<(), LineError> {
    let wrong = |field, wanted| move |found| malformed(line, "tool_use", field, wanted, found);
    let id = required(block, "id", string_id, wrong("id", "a non-empty string"))?;
    let name = required(
        block,
        "name",
        non_empty_string,
        wrong("name", "a non-empty string"),
    )?;
    let args = match get(block, "input") {
        Some(input @ Value::Object(_)) => fit(line, "arguments", input)?,
        other => return Err(malformed(line, "tool_use", "input", "an object", other)),
    };
    pairing.call(line, id, name, args);
    Ok(())
}

fn tool_result(
    line: u64,
    block: &[(String, Value)],
    pairing: &mut Pairing,
) -> Result<(), LineError> {
    let id = required(block, "tool_use_id", string_id, |found| {
        malformed(
            line,
            "tool_result",
            "tool_use_id",
            "a non-empty string",
            found,
        )
    })?;
    let is_error = match get(block, "is_error") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(flag)) => *flag,
        other => {
            return Err(malformed(
                line,
                "tool_result",
                "is_error",
                "a boolean",
                other,
            ));
        }
    };
    let response = content_response(get(block, "content"), is_error);
    let response = fit(line, "response", &response)?;
    pairing.result(line, &id, response);
    Ok(())
}
