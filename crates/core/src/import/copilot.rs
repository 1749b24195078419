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

use crate::json::Value;
use crate::transcript::LineError;

use super::{
    Items, Pairing, content_response, fit, get, get_str, must_be, non_empty_string, object,
    required, string_id,
};

/// Reads the events of `items` into `pairing`.
pub(crate) fn read(items: Items<'_>, pairing: &mut Pairing) -> Result<(), LineError> {
    let items = super::trees(items);
    for entry in items {
        let (line, value) = entry?;
        let Value::Object(event) = value else {
            pairing.skip(
                line,
                format!("line: {}, not an event object", value.described()),
            );
            continue;
        };
        let Some(kind) = get_str(&event, "type").filter(|kind| kind.contains('.')) else {
            pairing.skip(line, "event without a dotted string \"type\"".to_owned());
            continue;
        };
        let error = |message: String| LineError {
            line,
            message: format!("{kind} event: {message}"),
        };
        let wrong = |field, wanted| move |found| error(must_be(field, wanted, found));
        match kind {
            "tool.execution_start" | "tool.execution_complete" => {
                let data = required(&event, "data", object, wrong("data", "an object"))?;
                let id = required(
                    data,
                    "toolCallId",
                    string_id,
                    wrong("data.toolCallId", "a non-empty string"),
                )?;
                if kind == "tool.execution_start" {
                    let name = required(
                        data,
                        "toolName",
                        non_empty_string,
                        wrong("data.toolName", "a non-empty string"),
                    )?;
                    let args = match get(data, "arguments") {
                        None | Some(Value::Null) => b"{}".to_vec(),
                        Some(args @ Value::Object(_)) => fit(line, "arguments", args)?,
                        found => return Err(error(must_be("data.arguments", "an object", found))),
                    };
                    pairing.call(line, id, name, args);
                } else {
                    let failed = get(data, "success") == Some(&Value::Bool(false));
                    let content = match get(data, "result") {
                        Some(Value::Object(result)) => {
                            get(result, "content").or(get(data, "result"))
                        }
                        None | Some(Value::Null) => get(data, "error"),
                        other => other,
                    };
                    let response = fit(line, "response", &content_response(content, failed))?;
                    pairing.result(line, &id, response);
                }
            }
            _ => {}
        }
    }
    Ok(())
}
