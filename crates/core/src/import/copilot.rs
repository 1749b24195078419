//! GitHub Copilot CLI session logs: `~/.copilot/session-state/<id>/events.jsonl`, one
//! `{"type", "data", "id", "timestamp", "parentId"}` event a line.
//!
//! A `tool.execution_start` event is a call: `data.toolName` the tool, `data.arguments`
//! (an object; absent: `{}`) the `args`, `data.toolCallId` its id. The
//! `tool.execution_complete` event with that `toolCallId` is its result:
//! `{"content": data.result.content}` (the whole `data.result` when it has no
//! `content`), with `"is_error": true` when `data.success` is `false` (then with
//! `data.error` as the content when there is no result). The tool requests listed in
//! `assistant.message` events are the model's side of the same calls, not calls of
//! their own, and every other event (`session.*`, `user.message`, `assistant.*`, ...)
//! is dropped. A line that is not an object or has no dotted `type` is skipped with a
//! warning.

use crate::json::{JsonType, RawMembers};
use crate::transcript::LineError;

use super::{
    Items, Pairing, raw_content_response, raw_fit, raw_must_be, raw_non_empty_string,
    raw_string_id, rget, rget_str, rrequired,
};

/// Reads the events of `items` into `pairing`.
pub(crate) fn read(items: Items<'_>, pairing: &mut Pairing) -> Result<(), LineError> {
    for entry in items {
        let (line, value) = entry?;
        let Some(event) = value.members() else {
            pairing.skip(
                line,
                format!("line: {}, not an event object", value.described()),
            );
            continue;
        };
        let Some(kind) = rget_str(&event, "type").filter(|kind| kind.contains('.')) else {
            pairing.skip(line, "event without a dotted string \"type\"".to_owned());
            continue;
        };
        let kind = kind.as_ref();
        pairing.clock(rget_str(&event, "timestamp").as_deref());
        let error = |message: String| LineError {
            line,
            message: format!("{kind} event: {message}"),
        };
        let wrong = |field, wanted| move |found| error(raw_must_be(field, wanted, found));
        said(kind, &event, pairing);
        match kind {
            "tool.execution_start" | "tool.execution_complete" => {
                let data: RawMembers<'_> =
                    rrequired(&event, "data", |v| v.members(), wrong("data", "an object"))?;
                let id = rrequired(
                    &data,
                    "toolCallId",
                    raw_string_id,
                    wrong("data.toolCallId", "a non-empty string"),
                )?;
                if kind == "tool.execution_start" {
                    let name = rrequired(
                        &data,
                        "toolName",
                        raw_non_empty_string,
                        wrong("data.toolName", "a non-empty string"),
                    )?;
                    let args = match rget(&data, "arguments") {
                        None => b"{}".to_vec(),
                        Some(args) if args.is_null() => b"{}".to_vec(),
                        Some(args) if args.json_type() == JsonType::Object => {
                            raw_fit(line, "arguments", args)?
                        }
                        found => {
                            return Err(error(raw_must_be("data.arguments", "an object", found)));
                        }
                    };
                    pairing.call(line, id, name, args);
                } else {
                    let failed = rget(&data, "success").and_then(|v| v.as_bool()) == Some(false);
                    let content = match rget(&data, "result") {
                        Some(result) if result.json_type() == JsonType::Object => result
                            .members()
                            .and_then(|r| rget(&r, "content"))
                            .or(Some(result)),
                        None => rget(&data, "error"),
                        Some(result) if result.is_null() => rget(&data, "error"),
                        other => other,
                    };
                    let response = raw_content_response(line, content, failed)?;
                    pairing.result(line, &id, response);
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// The conversation of an event: a `user.message` event's `data.content` is a
/// prompt, an `assistant.message` event's `data.content` an answer (before the
/// calls it requests, which start later); reasoning and every other event give
/// nothing.
fn said(kind: &str, event: &RawMembers<'_>, pairing: &mut Pairing) {
    use crate::claims::MessageKind;
    let kind = match kind {
        "user.message" => MessageKind::Prompt,
        "assistant.message" => MessageKind::Answer,
        _ => return,
    };
    if let Some(data) = super::said::object(event, "data") {
        pairing.said(kind, super::said::content_text(rget(&data, "content")));
    }
}
