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

use crate::json::{JsonType, Raw, quoted_key};
use crate::transcript::LineError;

use super::{
    Items, NO_RESULT, Pairing, raw_content_response, raw_fit, raw_must_be, raw_non_empty_string,
    raw_string_id, rget, rget_str, rrequired,
};

/// Reads the lines of `items` into `pairing`.
pub(crate) fn read(items: Items<'_>, pairing: &mut Pairing) -> Result<(), LineError> {
    for entry in items {
        let (line, value) = entry?;
        let Some(members) = value.members() else {
            pairing.skip(line, format!("line: {}, not an object", value.described()));
            continue;
        };
        if rget(&members, "role").is_none() {
            if rget_str(&members, "type").is_none() {
                pairing.skip(line, "line without \"role\" or \"type\"".to_owned());
            }
            continue;
        }
        let content = match rget(&members, "message").and_then(|m| m.members()) {
            Some(message) => rget(&message, "content"),
            _ => rget(&members, "content"),
        };
        said(&members, content, pairing);
        match content {
            Some(blocks) if blocks.json_type() == JsonType::Array => {
                for block in blocks.items().into_iter().flatten() {
                    self::block(line, block, pairing)?;
                }
            }
            None => {}
            Some(content) if content.is_null() || content.as_str().is_some() => {}
            Some(other) => pairing.skip(
                line,
                format!("message: \"content\" is {}", other.described()),
            ),
        }
    }
    Ok(())
}

fn block(line: u64, block: Raw<'_>, pairing: &mut Pairing) -> Result<(), LineError> {
    let Some(block) = block.members() else {
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
    match rget_str(&block, "type").as_deref() {
        Some("tool_use") => {
            let name = rrequired(&block, "name", raw_non_empty_string, |found| {
                error("tool_use", raw_must_be("name", "a non-empty string", found))
            })?;
            let args = match rget(&block, "input") {
                Some(input) if input.json_type() == JsonType::Object => {
                    raw_fit(line, "arguments", input)?
                }
                None => b"{}".to_vec(),
                Some(input) if input.is_null() => b"{}".to_vec(),
                found => {
                    return Err(error("tool_use", raw_must_be("input", "an object", found)));
                }
            };
            match rget(&block, "id") {
                Some(id) if !id.is_null() => {
                    let id = raw_string_id(id).ok_or_else(|| {
                        error(
                            "tool_use",
                            raw_must_be("id", "a non-empty string", Some(id)),
                        )
                    })?;
                    pairing.call(line, id, name, args);
                }
                _ => pairing.call_unpaired(line, name, args, Some(NO_RESULT.to_vec())),
            }
        }
        Some("tool_result") => {
            let id = rrequired(&block, "tool_use_id", raw_string_id, |found| {
                error(
                    "tool_result",
                    raw_must_be("tool_use_id", "a non-empty string", found),
                )
            })?;
            let is_error = rget(&block, "is_error").and_then(|v| v.as_bool()) == Some(true);
            let response = raw_content_response(line, rget(&block, "content"), is_error)?;
            pairing.result(line, &id, response);
        }
        Some("text" | "thinking" | "redacted_thinking" | "image") => {}
        Some(kind) => pairing.skip(line, format!("content block of type {}", quoted_key(kind))),
        None => pairing.skip(line, "content block without a string \"type\"".to_owned()),
    }
    Ok(())
}

/// The conversation of a line, read before its calls: the text blocks of a `user`
/// line are a prompt (its `<user_query>` wrapper taken off), of an `assistant` line
/// an answer; thinking blocks and tool results give nothing.
fn said(members: &crate::json::RawMembers<'_>, content: Option<Raw<'_>>, pairing: &mut Pairing) {
    use super::said::{content_text, holds_tool_result, role_kind, unwrapped};
    use crate::claims::MessageKind;
    let Some(kind) = rget_str(members, "role").and_then(|role| role_kind(&role)) else {
        return;
    };
    if kind == MessageKind::Prompt && holds_tool_result(content) {
        return;
    }
    let text = content_text(content);
    pairing.said(kind, unwrapped(&text, "user_query").to_owned());
}
