//! Cline tasks: `api_conversation_history.json` in a task's folder, a JSON array of
//! Anthropic messages.
//!
//! Each `tool_use` block (`id`, `name`, `input`) is a call, as in
//! [`super::anthropic`]. Cline gives a call's result back as a text block of the next
//! user message that starts `[NAME for '...'] Result:` (or `[NAME] Result:`): each
//! such block is the result of the earliest call still waiting. Its content is the
//! text after `Result:` in that block followed by the text blocks after it, up to the
//! next result or an `<environment_details>` block, joined by newlines:
//! `{"content": text}`. A `tool_result` block is read as in Anthropic messages, by id.
//! Text, images and the rest of the messages are dropped.
//!
//! A result text with no call waiting for it is dropped with a warning. When a
//! history has such results and no call at all, its calls are XML in the assistant's
//! text (Cline's older prompt format), which is not read: that is an error, not an
//! import of nothing.

use std::collections::VecDeque;

use crate::json::Raw;
use crate::transcript::LineError;

use super::anthropic::content_blocks_of;
use super::{Items, Pairing, for_each_raw_message, raw_id_key, rget, rget_str};

/// Whether `text` is a Cline result: `[...] Result:` at its start.
fn is_result(text: &str) -> bool {
    text.starts_with('[')
        && text
            .find(']')
            .is_some_and(|end| text[end..].starts_with("] Result:"))
}

/// The text of a result: after `Result:` in `header`, then the text blocks of
/// `after` up to the next result or environment details.
fn result_text(header: &str, after: &[Raw<'_>]) -> String {
    let mut parts = Vec::new();
    if let Some(at) = header.find("] Result:") {
        let rest = header[at + "] Result:".len()..].trim_start_matches(['\n', '\r', ' ']);
        if !rest.is_empty() {
            parts.push(rest.to_owned());
        }
    }
    for block in after {
        let Some(b) = block.members() else { break };
        let Some(text) = rget_str(&b, "text") else {
            break;
        };
        if is_result(&text) || text.starts_with("<environment_details>") {
            break;
        }
        parts.push(text.into_owned());
    }
    parts.join("\n")
}

/// Reads the messages of `items` into `pairing`.
pub(crate) fn read(items: Items<'_>, pairing: &mut Pairing) -> Result<(), LineError> {
    let mut waiting: VecDeque<String> = VecDeque::new();
    let mut orphans: Vec<u64> = Vec::new();
    let calls_before = pairing.calls_len();
    for_each_raw_message(items, pairing, |line, message, pairing| {
        let Some(blocks) = rget(message, "content").and_then(|c| c.items()) else {
            return Ok(());
        };
        let blocks: Vec<Raw<'_>> = blocks.collect();
        said(message, &blocks, pairing);
        for (at, &block) in blocks.iter().enumerate() {
            let Some(b) = block.members() else { continue };
            match rget_str(&b, "type").as_deref() {
                Some("tool_use") => {
                    if let Some(id) = rget(&b, "id") {
                        waiting.push_back(raw_id_key(id));
                    }
                    completion(&b, pairing);
                    content_blocks_of(line, std::iter::once(block), pairing)?;
                }
                Some("text") if rget_str(message, "role").as_deref() == Some("user") => {
                    if let Some(text) = rget_str(&b, "text")
                        && is_result(&text)
                    {
                        // The earliest call still waiting for its result.
                        let mut answered = false;
                        while let Some(id) = waiting.pop_front() {
                            if pairing.waiting_call(&id).is_some() {
                                let mut content = Vec::new();
                                crate::canonical::write_str(
                                    &result_text(&text, &blocks[at + 1..]),
                                    &mut content,
                                );
                                let response = super::object_bytes(vec![("content", content)]);
                                pairing.result(line, &id, response);
                                answered = true;
                                break;
                            }
                        }
                        if !answered {
                            orphans.push(line);
                        }
                    }
                }
                _ => content_blocks_of(line, std::iter::once(block), pairing)?,
            }
        }
        Ok(())
    })?;
    if let Some(&first) = orphans.first() {
        if pairing.calls_len() == calls_before {
            // Results, and not one call: the calls are in the text, as XML.
            return Err(LineError {
                line: first,
                message: "a tool result of Cline with no tool_use call before it: calls Cline wrote as XML in the assistant's text are not read, and importing none would lose them".to_owned(),
            });
        }
        for line in orphans {
            pairing.warn(
                line,
                super::WarningKind::NoCall,
                "tool result has no tool_use call waiting for it; dropped".to_owned(),
            );
        }
    }
    Ok(())
}

/// The conversation of a message, read before its calls: a `user` message that
/// holds no result is a prompt, its text blocks but the environment details (the
/// task's `<task>` wrapper taken off); an `assistant` message's text blocks are an
/// answer.
fn said(message: &crate::json::RawMembers<'_>, blocks: &[Raw<'_>], pairing: &mut Pairing) {
    use super::said::{role_kind, unwrapped};
    use crate::claims::MessageKind;
    let Some(kind) = rget_str(message, "role").and_then(|role| role_kind(&role)) else {
        return;
    };
    let mut texts = Vec::new();
    for block in blocks {
        let Some(b) = block.members() else { continue };
        match rget_str(&b, "type").as_deref() {
            Some("tool_result") if kind == MessageKind::Prompt => return,
            Some("text") => {}
            _ => continue,
        }
        let Some(text) = rget_str(&b, "text") else {
            continue;
        };
        if kind == MessageKind::Prompt && is_result(&text) {
            return;
        }
        if !text.starts_with("<environment_details>") {
            texts.push(unwrapped(&text, "task").to_owned());
        }
    }
    pairing.said(kind, texts.join("\n"));
}

/// The answer Cline gives the user when it is done: the `result` of an
/// `attempt_completion` call, said as the call is made, so before it (the call
/// carrying the answer is no evidence of it).
fn completion(block: &crate::json::RawMembers<'_>, pairing: &mut Pairing) {
    if rget_str(block, "name").as_deref() == Some("attempt_completion")
        && let Some(input) = super::said::object(block, "input")
        && let Some(result) = rget_str(&input, "result")
    {
        pairing.said(crate::claims::MessageKind::Answer, result.into_owned());
    }
}
