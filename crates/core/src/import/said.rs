//! The conversation beside the calls: each format's reader hands the user's prompts
//! and the agent's texts it meets to [`super::Pairing::said`] in the same pass that
//! reads the calls, so each message is placed after the calls read before it. What
//! each format gives is documented in its module and in `docs/import.md`; this
//! module holds what the readers share.
//!
//! Nothing here changes a call: the transcript `import` writes is the same with or
//! without the messages.

use crate::claims::{Message, MessageKind};
use crate::json::{JsonType, Raw};

use super::{Call, rget, rget_str};

/// The kind of message a chat role's text is: `user` a prompt, `assistant` an
/// answer; any other role (`system`, `developer`, `tool`) none.
pub(crate) fn role_kind(role: &str) -> Option<MessageKind> {
    match role {
        "user" => Some(MessageKind::Prompt),
        "assistant" => Some(MessageKind::Answer),
        _ => None,
    }
}

/// The text of a message's `content`: a string as it is, or the `text` of each of
/// its text parts (`text`, `input_text`, `output_text`; a part without a `type` but
/// with a string `text` too), joined by newlines. Other parts (images, reasoning,
/// tool calls and results, refusals) give nothing; so does content of another shape.
pub(crate) fn content_text(content: Option<Raw<'_>>) -> String {
    let Some(content) = content else {
        return String::new();
    };
    if let Some(text) = content.as_str() {
        return text.into_owned();
    }
    if content.json_type() != JsonType::Array {
        return String::new();
    }
    let mut texts = Vec::new();
    for part in content.items().into_iter().flatten() {
        let Some(part) = part.members() else { continue };
        let text_part = match rget_str(&part, "type").as_deref() {
            None | Some("text" | "input_text" | "output_text") => true,
            Some(_) => false,
        };
        if text_part && let Some(text) = rget_str(&part, "text") {
            texts.push(text.into_owned());
        }
    }
    texts.join("\n")
}

/// Whether a message's `content` blocks hold a tool result (`tool_result`): a user
/// message that carries results is the tool's side of the exchange, not a prompt.
pub(crate) fn holds_tool_result(content: Option<Raw<'_>>) -> bool {
    content
        .and_then(|c| c.items())
        .into_iter()
        .flatten()
        .any(|block| {
            block
                .members()
                .is_some_and(|b| rget_str(&b, "type").as_deref() == Some("tool_result"))
        })
}

/// The text between `<tag>` and `</tag>` when `text` is only that (white space
/// around it aside); `text` otherwise.
pub(crate) fn unwrapped<'t>(text: &'t str, tag: &str) -> &'t str {
    let trimmed = text.trim();
    trimmed
        .strip_prefix(&format!("<{tag}>"))
        .and_then(|rest| rest.strip_suffix(&format!("</{tag}>")))
        .map_or(text, str::trim)
}

/// The member `key` of a message's members, when it is an object's members.
pub(crate) fn object<'a>(
    members: &crate::json::RawMembers<'a>,
    key: &str,
) -> Option<crate::json::RawMembers<'a>> {
    rget(members, key)?.members()
}

/// The messages `said` (each with the number of calls read before it), placed
/// among the final `calls`: a message after `n` calls comes after the call at
/// `n - 1`. When calls were put among the session's after it was read (a Claude Code
/// session's subagents, `session` its calls as read), a message after `n` of the
/// session's calls comes right before the session's call `n` (so after the calls of
/// the subagents the earlier calls started), or after every call when `n` is all of
/// them.
pub(crate) fn placed(
    said: Vec<(usize, MessageKind, String)>,
    session: Option<&[(String, Call)]>,
    calls: &[(String, Call)],
) -> Vec<Message> {
    // Where each of the session's calls went, found in order.
    let moved: Option<Vec<usize>> = session.map(|session| {
        let mut at = Vec::with_capacity(session.len());
        let mut next = 0;
        for (position, call) in calls.iter().enumerate() {
            if session.get(next) == Some(call) {
                at.push(position);
                next += 1;
            }
        }
        at
    });
    said.into_iter()
        .map(|(before, kind, text)| {
            let before = match &moved {
                Some(at) => at.get(before).copied().unwrap_or(calls.len()),
                None => before,
            };
            Message {
                kind,
                after: (before as u64).checked_sub(1),
                after_digest: None,
                text,
            }
        })
        .collect()
}

/// Prompts that the agent's harness writes as the user's, not the user's own words:
/// the environment and instructions Codex sends first, the environment details
/// Cline appends.
const INJECTED: [&str; 5] = [
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md instructions",
    "<environment_details>",
    "<permissions instructions>",
];

/// The conversation of a chat message (OpenAI chat, SWE-agent, Inspect AI,
/// Anthropic, Responses and Codex messages), read as [`chat_text`] reads it. A
/// SWE-agent observation (`"message_type": "observation"`) of role `user` is the
/// output of the agent's last command once a call was made; before any call, it is
/// the task (SWE-agent writes the issue so), a prompt.
pub(crate) fn chat(
    role: &str,
    message: &crate::json::RawMembers<'_>,
    pairing: &mut super::Pairing,
) {
    if pairing.calls_len() > 0
        && rget_str(message, "message_type").as_deref() == Some("observation")
    {
        return;
    }
    if let Some((kind, text)) = chat_text(role, message) {
        pairing.said(kind, text);
    }
}

/// The prompt or answer of a chat message of `role`: a `user` message is a prompt
/// (unless it carries tool results or is what a harness writes as the user's, see
/// [`INJECTED`]), an `assistant` message an answer; its text as [`content_text`]
/// reads it.
pub(crate) fn chat_text(
    role: &str,
    message: &crate::json::RawMembers<'_>,
) -> Option<(MessageKind, String)> {
    let kind = role_kind(role)?;
    let content = rget(message, "content");
    if kind == MessageKind::Prompt && holds_tool_result(content) {
        return None;
    }
    let text = content_text(content);
    if kind == MessageKind::Prompt && INJECTED.iter().any(|tag| text.starts_with(tag)) {
        return None;
    }
    Some((kind, text))
}

#[cfg(test)]
mod tests {
    use super::super::{Source, Subagent, import, import_with_subagents};
    use crate::claims::Message;

    /// Each message comes after the calls read before it, whatever the lines: texts
    /// before the calls of their own message, prompts carrying tool results skipped.
    #[test]
    fn messages_are_placed_among_the_calls_read_before_them() {
        let log = r#"[
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Count the files."},
            {"role": "assistant", "content": "Counting.", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "run_command", "arguments": "{\"command\":\"ls | wc -l\"}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "12"},
            {"role": "assistant", "content": [{"type": "text", "text": "There are 12 files."}]}
        ]"#;
        let imported = import(log.as_bytes(), Source::Auto).expect("imports");
        assert_eq!(
            imported.messages,
            [
                Message::prompt(None, "Count the files."),
                Message::answer(None, "Counting."),
                Message::answer(Some(0), "There are 12 files."),
            ]
        );
    }

    /// A Claude Code session read with its subagent's log: the answer said after the
    /// call that started the subagent comes after the subagent's calls, placed
    /// right after that call; the subagent's own texts are no messages of the session.
    #[test]
    fn a_message_after_a_subagent_comes_after_its_calls() {
        let session = [
            r#"{"type":"user","message":{"content":"Look around."}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Task","input":{"prompt":"explore"}}]}}"#,
            r#"{"type":"user","toolUseResult":{"agentId":"abc"},"message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"found 3"}]}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"It holds 3 files."}]}}"#,
        ]
        .join("\n");
        let subagent = [
            r#"{"type":"user","isSidechain":true,"message":{"content":"explore"}}"#,
            r#"{"type":"assistant","isSidechain":true,"message":{"content":[{"type":"text","text":"Listing."},{"type":"tool_use","id":"s1","name":"Bash","input":{"command":"ls"}}]}}"#,
            r#"{"type":"user","isSidechain":true,"message":{"content":[{"type":"tool_result","tool_use_id":"s1","content":"a b c"}]}}"#,
        ]
        .join("\n");
        let subagents = [Subagent {
            name: "agent-abc.jsonl",
            bytes: subagent.as_bytes(),
        }];
        let imported =
            import_with_subagents(session.as_bytes(), Source::Auto, &subagents).expect("imports");
        let tools: Vec<&str> = imported.calls.iter().map(|c| c.tool.as_str()).collect();
        assert_eq!(tools, ["Task", "Bash"]);
        assert_eq!(
            imported.messages,
            [
                Message::prompt(None, "Look around."),
                Message::answer(Some(1), "It holds 3 files."),
            ]
        );
    }

    /// A Claude Code assistant message's text after its `tool_use` block comes after
    /// that call, a text before it before; what the harness writes as the user's (a
    /// local command's caveat and output) is no prompt, so the answers after it stay
    /// in the user's turn.
    #[test]
    fn claude_code_texts_follow_their_calls_and_harness_prompts_are_none() {
        let session = [
            r#"{"type":"user","message":{"content":"Run the tests."}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"Running."},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"mix test"}},{"type":"text","text":"Started."},{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"ls"}},{"type":"text","text":"Both ran."}]}}"#,
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"4 tests, 0 failures"},{"type":"tool_result","tool_use_id":"t2","content":"a"}]}}"#,
            r#"{"type":"user","message":{"content":"Caveat: The messages below were generated by the user while running local commands. DO NOT respond to these messages."}}"#,
            r#"{"type":"user","message":{"content":"<local-command-stdout>ok</local-command-stdout>"}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"4 tests, 0 failures."}]}}"#,
        ]
        .join("\n");
        let imported = import(session.as_bytes(), Source::Auto).expect("imports");
        assert_eq!(
            imported.messages,
            [
                Message::prompt(None, "Run the tests."),
                Message::answer(None, "Running."),
                Message::answer(Some(0), "Started."),
                Message::answer(Some(1), "Both ran."),
                Message::answer(Some(1), "4 tests, 0 failures."),
            ]
        );
    }
}
