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

use crate::json::{JsonType, Raw, RawMembers};
use crate::transcript::LineError;

use super::{
    Items, Pairing, for_each_raw_message, raw_content_response, raw_fit, raw_must_be,
    raw_non_empty_string, raw_string_id, rget, rget_str, rrequired,
};

/// Reads the messages of `items` into `pairing`.
pub(crate) fn read(items: Items<'_>, pairing: &mut Pairing) -> Result<(), LineError> {
    for_each_raw_message(items, pairing, |line, message, pairing| {
        if let Some(role) = rget_str(message, "role") {
            super::said::chat(&role, message, pairing);
        }
        match rget(message, "content") {
            Some(content) if content.json_type() == JsonType::Array => {
                content_blocks(line, content, pairing)?
            }
            Some(content) if content.as_str().is_some() => {}
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

/// Reads a message's content blocks, the array `blocks`, on `line`, into `pairing`:
/// shared by the Anthropic and Claude Code formats.
pub(crate) fn content_blocks(
    line: u64,
    blocks: Raw<'_>,
    pairing: &mut Pairing,
) -> Result<(), LineError> {
    content_blocks_of(line, blocks.items().into_iter().flatten(), pairing)
}

/// Reads the content blocks `blocks`, on `line`, into `pairing`.
pub(crate) fn content_blocks_of<'a>(
    line: u64,
    blocks: impl Iterator<Item = Raw<'a>>,
    pairing: &mut Pairing,
) -> Result<(), LineError> {
    for block in blocks {
        let Some(members) = block.members() else {
            pairing.skip(
                line,
                format!("content block: {}, not an object", block.described()),
            );
            continue;
        };
        match rget_str(&members, "type").as_deref() {
            Some("tool_use") => tool_use(line, &members, pairing)?,
            Some("tool_result") => tool_result(line, &members, pairing)?,
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
    found: Option<Raw<'_>>,
) -> LineError {
    LineError {
        line,
        message: match found {
            Some(_) => format!("{block} block: {}", raw_must_be(field, wanted, found)),
            None => format!("{block} block without \"{field}\""),
        },
    }
}

fn tool_use(line: u64, block: &RawMembers<'_>, pairing: &mut Pairing) -> Result<(), LineError> {
    let wrong = |field, wanted| move |found| malformed(line, "tool_use", field, wanted, found);
    let id = rrequired(
        block,
        "id",
        raw_string_id,
        wrong("id", "a non-empty string"),
    )?;
    let name = rrequired(
        block,
        "name",
        raw_non_empty_string,
        wrong("name", "a non-empty string"),
    )?;
    let args = match rget(block, "input") {
        Some(input) if input.json_type() == JsonType::Object => raw_fit(line, "arguments", input)?,
        other => return Err(malformed(line, "tool_use", "input", "an object", other)),
    };
    pairing.call(line, id, name, args);
    Ok(())
}

fn tool_result(line: u64, block: &RawMembers<'_>, pairing: &mut Pairing) -> Result<(), LineError> {
    let id = rrequired(block, "tool_use_id", raw_string_id, |found| {
        malformed(
            line,
            "tool_result",
            "tool_use_id",
            "a non-empty string",
            found,
        )
    })?;
    let is_error = match rget(block, "is_error") {
        None => false,
        Some(flag) if flag.is_null() => false,
        Some(flag) if flag.as_bool().is_some() => flag.as_bool() == Some(true),
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
    let response = raw_content_response(line, rget(block, "content"), is_error)?;
    pairing.result(line, &id, response);
    Ok(())
}
