//! OpenHands event streams: a JSON array of events (or JSON Lines, one event a line),
//! as OpenHands saves a conversation's trajectory; and its evaluation output
//! (`output.jsonl`), one instance a line (`instance_id`, `instruction`, `history`,
//! `test_result`, ...), whose `history` is the instance's events (or, in early
//! versions, `[action, observation]` pairs of them), read as a stream is, each on
//! the instance's line. Event ids are an instance's own: a result pairs only with a
//! call of its instance.
//!
//! An action event (`action`) that carries `tool_call_metadata` is a call: the tool
//! is `tool_call_metadata.function_name`, the `args` the action's `args` object (the
//! arguments as OpenHands parsed them from the model's call). The observation event
//! (`observation`) whose `cause` is the action's `id` is its result:
//! `{"content": content}`, with `"is_error": true` for an `error` observation. Actions
//! without `tool_call_metadata` (messages, system actions) and observations that
//! answer no call (state changes) are not calls and are dropped; an event that is not
//! an object is skipped with a warning.

use crate::json::{JsonType, Raw, RawItems, RawMembers};
use crate::transcript::LineError;

use super::{
    Items, Pairing, raw_content_response, raw_fit, raw_id_key, raw_must_be, raw_non_empty_string,
    rget, rget_str, rrequired,
};

/// Reads the events of `items` into `pairing`.
pub(crate) fn read(items: Items<'_>, pairing: &mut Pairing) -> Result<(), LineError> {
    for (n, entry) in items.enumerate() {
        let (line, value) = entry?;
        if let Some(history) = value.members().and_then(|m| instance_history(&m)) {
            // An evaluation's instance: its events, their ids its own.
            let scope = format!("instance {}: ", n + 1);
            for event in history {
                match event.items() {
                    // An early history of [action, observation] pairs.
                    Some(pair) => {
                        for event in pair {
                            read_event(line, &scope, event, pairing)?;
                        }
                    }
                    None => read_event(line, &scope, event, pairing)?,
                }
            }
            continue;
        }
        read_event(line, "", value, pairing)?;
    }
    Ok(())
}

/// The `history` of events of an evaluation's instance (a line of `output.jsonl`:
/// `instance_id`, `instruction`, `history`, `test_result`, ...), when the object of
/// members `members` is one.
pub(crate) fn instance_history<'a>(members: &RawMembers<'a>) -> Option<RawItems<'a>> {
    if rget(members, "action").is_some() || rget(members, "observation").is_some() {
        return None;
    }
    let history = rget(members, "history")?.items()?;
    let is_event = |event: Raw<'_>| {
        event.members().is_some_and(|e| {
            rget(&e, "source").is_some()
                && (rget(&e, "action").is_some() || rget(&e, "observation").is_some())
        })
    };
    let first = history.clone().next()?;
    let looks = match first.items() {
        Some(mut pair) => pair.next().is_some_and(is_event),
        None => is_event(first),
    };
    looks.then_some(history)
}

/// Reads one event, on `line`, into `pairing`; its ids are scoped by `scope`.
fn read_event(
    line: u64,
    scope: &str,
    value: Raw<'_>,
    pairing: &mut Pairing,
) -> Result<(), LineError> {
    let Some(event) = value.members() else {
        pairing.skip(line, format!("event: {}, not an object", value.described()));
        return Ok(());
    };
    said(&event, pairing);
    if rget_str(&event, "action").is_some()
        && let Some(metadata) = rget(&event, "tool_call_metadata").and_then(|m| m.members())
    {
        let error = |message: String| LineError {
            line,
            message: format!("action event: {message}"),
        };
        let id = match rget(&event, "id") {
            Some(id) if matches!(id.json_type(), JsonType::Int | JsonType::Str { .. }) => {
                format!("{scope}{}", raw_id_key(id))
            }
            found => {
                return Err(error(raw_must_be("id", "an integer or a string", found)));
            }
        };
        let name = rrequired(&metadata, "function_name", raw_non_empty_string, |found| {
            error(raw_must_be(
                "tool_call_metadata.function_name",
                "a non-empty string",
                found,
            ))
        })?;
        let args = match rget(&event, "args") {
            None => b"{}".to_vec(),
            Some(args) if args.is_null() => b"{}".to_vec(),
            Some(args) if args.json_type() == JsonType::Object => raw_fit(line, "arguments", args)?,
            found => return Err(error(raw_must_be("args", "an object", found))),
        };
        pairing.call(line, id, name, args);
    } else if let Some(action) = rget(&event, "action")
        && rget(&event, "tool_call_metadata").is_some_and(|m| m.members().is_some())
        && action.as_str().is_none()
    {
        // A call by its metadata, but not one this reader can take.
        pairing.skip(
            line,
            format!(
                "action event with \"tool_call_metadata\" whose \"action\" is {}, not a name",
                action.described()
            ),
        );
    } else if let Some(kind) = rget_str(&event, "observation")
        && let Some(cause) = rget(&event, "cause")
        && !cause.is_null()
    {
        let id = format!("{scope}{}", raw_id_key(cause));
        if pairing.waiting_call(&id).is_some() {
            let response = raw_content_response(line, rget(&event, "content"), kind == "error")?;
            pairing.result(line, &id, response);
        }
    }
    Ok(())
}

/// Whether an event of `history` (an instance's) is a call.
pub(crate) fn history_has_call(history: RawItems<'_>) -> bool {
    let is_call = |event: Raw<'_>| {
        event.members().is_some_and(|e| {
            rget_str(&e, "action").is_some()
                && rget(&e, "tool_call_metadata").is_some_and(|m| m.members().is_some())
        })
    };
    history.into_iter().any(|event| match event.items() {
        Some(mut pair) => pair.any(is_call),
        None => is_call(event),
    })
}

/// The conversation of an event, read before its call (the `finish` call carrying
/// the answer is no evidence of it): a `message` action of the
/// `user` is a prompt, of the `agent` an answer (`args.content`, else `message`);
/// a `finish` action is the agent's last answer (`args.final_thought`, else
/// `args.thought`, else `message`). Thoughts of other actions, observations and
/// system events give nothing.
fn said(event: &RawMembers<'_>, pairing: &mut Pairing) {
    use crate::claims::MessageKind;
    let args = super::said::object(event, "args");
    let arg = |key: &str| {
        args.as_ref()
            .and_then(|args| rget_str(args, key))
            .filter(|text| !text.trim().is_empty())
    };
    let message = || rget_str(event, "message").map(|m| m.into_owned());
    let (kind, text) = match rget_str(event, "action").as_deref() {
        Some("message") => {
            let kind = match rget_str(event, "source").as_deref() {
                Some("user") => MessageKind::Prompt,
                Some("agent") => MessageKind::Answer,
                _ => return,
            };
            (
                kind,
                arg("content").map(|t| t.into_owned()).or_else(message),
            )
        }
        Some("finish") => (
            MessageKind::Answer,
            arg("final_thought")
                .or_else(|| arg("thought"))
                .map(|t| t.into_owned())
                .or_else(message),
        ),
        _ => return,
    };
    if let Some(text) = text {
        pairing.said(kind, text);
    }
}
