//! Claude Code session files: JSON Lines from `~/.claude/projects/`, one entry a line.
//!
//! Entries of `type` `user` and `assistant` carry an API `message`; its content
//! blocks are read as in [`super::anthropic`]: `tool_use` blocks are the calls (their
//! `input` the `args`), `tool_result` blocks the results, paired by id. What the
//! files hold besides is handled so:
//!
//! - One API response is often written over several lines sharing `message.id`, one
//!   content block each, and parallel tool uses give several `tool_use` blocks before
//!   their results: pairing by id handles both, and calls keep the order of their
//!   `tool_use` blocks in the file.
//! - A repeated line (or any repeat of a `tool_use` with the same id, name and input,
//!   or of a `tool_result` with the same id and content) is the same call logged
//!   again: it is merged, without a warning. A repeated id with other content is
//!   skipped with a warning.
//! - Sidechain (subagent) entries, `"isSidechain": true`, are tool calls the session
//!   made too: they are imported like the others, where they are in the file. The
//!   transcript format has no field to mark them.
//! - The other entry types Claude Code writes (`summary`, `system`, `progress`,
//!   `attachment`, `permission-mode`, `last-prompt`, `file-history-snapshot`,
//!   `queue-operation`, `custom-title`, `agent-name`, `pr-link`, `tag`) hold no tool
//!   call of the session and are dropped without a warning, as are the entry's
//!   `toolUseResult` (a richer copy of the result for the user interface: the
//!   `tool_result` block is what the model saw, and is what is imported), text,
//!   thinking and usage.
//! - Subagents: current Claude Code keeps each subagent's entries in
//!   `<session>/subagents/agent-ID.jsonl`, and the session shows them only as copies
//!   inside `progress` entries (`data.type` `agent_progress`, `data.agentId`). Those
//!   copies are not imported; the subagent logs are, when given with the session
//!   ([`super::import_with_subagents`]): each subagent log is read as a session of its
//!   own, and its calls are placed right after the call that started it (the call
//!   whose `tool_result` entry names the agent in `toolUseResult.agentId`, a `Task`
//!   call), in their order, on that call's line, each with the member
//!   `"subagent": "ID"` added to its response. A subagent that no call of the session
//!   started (a compaction agent, `agent-acompact-...`) comes after all the session's
//!   calls, in the order of the names. A subagent call that the session file
//!   already holds (as a sidechain entry: the same id, tool, arguments and result)
//!   is not imported twice; a subagent call whose id the session already uses for a
//!   call with other content is kept, with a warning naming the id. When the session's
//!   `progress` entries show
//!   calls of a subagent whose log was not given, that is warned about (once an
//!   agent), since those calls are not imported.
//! - A line that is not an object, an entry without a string `type` or of another
//!   type, and a `user` or `assistant` entry without a message content are skipped
//!   with a warning.
//! - Tool names are kept as they are: `mcp__server__tool` stays `mcp__server__tool`.
//! - Each entry's `cwd`, the directory the session was in when it was written, is
//!   kept as the call's [`super::CallMeta::cwd`] (not in the transcript): path
//!   rules read the call's relative paths from there, as the live guard reads them
//!   from the hook's `cwd`.

use crate::json::{JsonType, Raw, RawMembers, quoted_key};
use crate::transcript::LineError;

use super::anthropic::content_blocks;
use super::detect::CLAUDE_TYPES;
use super::{
    Call, Format, ImportError, Items, Pairing, Subagent, Warning, WarningKind, object_bytes,
    raw_id_key, rget, rget_str, shown_id,
};
use crate::finding::quote_name;

/// What a session says of its subagents: the id of each call that started one with
/// the agent's id, and the first line of each agent whose calls `progress` entries
/// show.
#[derive(Debug, Default)]
pub(crate) struct Agents {
    pub started: Vec<(String, String)>,
    pub shown: Vec<(String, u64)>,
    /// The id of each call whose `toolUseResult` names the file holding its whole
    /// result (`persistedOutputPath`), with that path.
    pub persisted: Vec<(String, String)>,
}

/// Notes what the entry `entry` says of subagents.
fn note_agents(line: u64, kind: &str, entry: &RawMembers<'_>, agents: &mut Agents) {
    fn object<'a>(members: &RawMembers<'a>, key: &str) -> Option<RawMembers<'a>> {
        rget(members, key)?.members()
    }
    if kind == "progress"
        && let Some(data) = object(entry, "data")
        && rget_str(&data, "type").as_deref() == Some("agent_progress")
        && let Some(agent) = rget_str(&data, "agentId")
        && !agents.shown.iter().any(|(a, _)| *a == agent)
    {
        agents.shown.push((agent.into_owned(), line));
    }
    // A user entry's result says where its whole output was kept, or which subagent
    // ran it: noted for each tool result the entry's message holds.
    if kind == "user"
        && let Some(result) = object(entry, "toolUseResult")
        && let Some(message) = object(entry, "message")
        && let Some(blocks) = rget(&message, "content").and_then(|c| c.items())
    {
        let path = rget_str(&result, "persistedOutputPath");
        let agent = rget_str(&result, "agentId");
        if path.is_none() && agent.is_none() {
            return;
        }
        for block in blocks {
            if let Some(block) = block.members()
                && rget_str(&block, "type").as_deref() == Some("tool_result")
                && let Some(id) = rget(&block, "tool_use_id")
            {
                let id = raw_id_key(id);
                if let Some(path) = &path {
                    agents
                        .persisted
                        .push((id.clone(), path.clone().into_owned()));
                }
                if let Some(agent) = &agent {
                    agents.started.push((id, agent.clone().into_owned()));
                }
            }
        }
    }
}

/// Reads the entries of `items` into `pairing`, noting what they say of subagents in
/// `agents`.
pub(crate) fn read(
    items: Items<'_>,
    pairing: &mut Pairing,
    agents: &mut Agents,
) -> Result<(), LineError> {
    for item in items {
        let (line, value) = item?;
        let Some(entry) = value.members() else {
            pairing.skip(
                line,
                format!("line: {}, not an entry object", value.described()),
            );
            continue;
        };
        pairing.clock(rget_str(&entry, "timestamp").as_deref());
        pairing.directory(rget_str(&entry, "cwd").as_deref());
        let kind = rget_str(&entry, "type");
        if let Some(kind) = &kind {
            note_agents(line, kind, &entry, agents);
        }
        let kind = match kind.as_deref() {
            Some(kind @ ("user" | "assistant")) => kind,
            Some(kind) if CLAUDE_TYPES.contains(&kind) => continue,
            Some(kind) => {
                pairing.skip(line, format!("entry of type {}", quoted_key(kind)));
                continue;
            }
            None => {
                pairing.skip(line, "entry without a string \"type\"".to_owned());
                continue;
            }
        };
        let message = match rget(&entry, "message") {
            Some(message) if message.json_type() == JsonType::Object => {
                message.members().unwrap_or_default()
            }
            Some(other) => {
                pairing.skip(
                    line,
                    format!(
                        "\"{kind}\" entry: \"message\" is {}, not an object",
                        other.described()
                    ),
                );
                continue;
            }
            None => {
                pairing.skip(line, format!("\"{kind}\" entry without \"message\""));
                continue;
            }
        };
        let before = pairing.calls_len();
        let later = said(&entry, &message, kind, pairing);
        match rget(&message, "content") {
            Some(blocks) if blocks.json_type() == JsonType::Array => {
                content_blocks(line, blocks, pairing)?;
                // A text after a `tool_use` block comes after that block's call.
                let after = pairing.calls_len();
                for (uses, text) in later {
                    pairing.said_after(
                        (before + uses).min(after),
                        crate::claims::MessageKind::Answer,
                        text,
                    );
                }
            }
            Some(text) if text.as_str().is_some() => {}
            Some(other) => pairing.skip(
                line,
                format!(
                    "\"{kind}\" entry: the message's \"content\" is {}",
                    other.described()
                ),
            ),
            None => pairing.skip(
                line,
                format!("\"{kind}\" entry: its message has no \"content\""),
            ),
        }
    }
    Ok(())
}

/// Places the calls of `subagents` among the session's `calls` (see the module
/// documentation), and warns about subagents shown but not given.
pub(crate) fn place_subagents(
    calls: &mut Vec<(String, Call)>,
    warnings: &mut Vec<Warning>,
    agents: &mut Agents,
    subagents: &[Subagent<'_>],
) -> Result<(), ImportError> {
    let mut given: Vec<&Subagent<'_>> = subagents.iter().collect();
    given.sort_by(|a, b| a.name.cmp(b.name));
    let mut after: Vec<(usize, Vec<(String, Call)>)> = Vec::new();
    let mut last = Vec::new();
    for subagent in given {
        let id = agent_id(subagent.name);
        let fail = |err: ImportError| ImportError::Subagent {
            name: subagent.name.to_owned(),
            message: err.to_string(),
        };
        let document =
            super::Document::read(subagent.bytes, Some(Format::ClaudeCode)).map_err(fail)?;
        let (found, found_warnings, found_agents, _) =
            super::read_as(document, Format::ClaudeCode, subagent.bytes).map_err(fail)?;
        agents.persisted.extend(found_agents.persisted);
        let started = agents
            .started
            .iter()
            .find(|(_, agent)| agent == id)
            .and_then(|(call, _)| calls.iter().position(|(c, _)| c == call));
        let line = match started {
            Some(at) => calls[at].1.line,
            None => calls.last().map_or(1, |(_, call)| call.line),
        };
        for warning in found_warnings {
            warnings.push(Warning {
                line,
                kind: warning.kind,
                message: format!(
                    "subagent {}, its line {}: {}",
                    subagent.name, warning.line, warning.message
                ),
            });
        }
        let mut placed = Vec::with_capacity(found.len());
        for (call_id, mut call) in found {
            if let Some((_, first)) = calls
                .iter()
                .find(|(id, _)| !call_id.is_empty() && *id == call_id)
            {
                if (&first.tool, &first.args, &first.response)
                    == (&call.tool, &call.args, &call.response)
                {
                    // Already in the session file as a sidechain entry.
                    continue;
                }
                warnings.push(Warning {
                    line,
                    kind: WarningKind::RepeatedId,
                    message: format!(
                        "subagent {}: its call {} has the id {} of the call {} on line {}, with other content; both are kept",
                        subagent.name,
                        quote_name(&call.tool),
                        shown_id(&call_id),
                        quote_name(&first.tool),
                        first.line
                    ),
                });
            }
            call.line = line;
            call.response = with_subagent(&call.response, id);
            placed.push((call_id, call));
        }
        match started {
            Some(at) => after.push((at, placed)),
            None => last.extend(placed),
        }
    }
    for (agent, line) in &agents.shown {
        if !subagents.iter().any(|s| agent_id(s.name) == agent) {
            warnings.push(Warning {
                line: *line,
                kind: WarningKind::Skipped,
                message: format!(
                    "skipped the calls of subagent {agent}, shown in progress entries: its log subagents/agent-{agent}.jsonl was not read"
                ),
            });
        }
    }
    // Latest positions first, so earlier positions stay valid.
    after.sort_by_key(|placed| std::cmp::Reverse(placed.0));
    for (at, placed) in after {
        let tail = calls.split_off(at + 1);
        calls.extend(placed);
        calls.extend(tail);
    }
    calls.extend(last);
    warnings.sort_by_key(|w| w.line);
    Ok(())
}

/// The agent id of a subagent log's name: `agent-ID.jsonl` gives `ID`.
pub(crate) fn agent_id(name: &str) -> &str {
    let name = name.strip_suffix(".jsonl").unwrap_or(name);
    name.strip_prefix("agent-").unwrap_or(name)
}

/// The canonical response `response` with `"subagent": id` added.
fn with_subagent(response: &[u8], id: &str) -> Vec<u8> {
    let text = String::from_utf8_lossy(response);
    let members = Raw::parse(&text)
        .ok()
        .and_then(|raw| raw.members())
        .unwrap_or_default();
    // The response is canonical: each member's text is its canonical encoding.
    let mut kept: Vec<(&str, Vec<u8>)> = members
        .iter()
        .filter(|(key, _)| key != "subagent")
        .map(|(key, value)| (key.as_ref(), value.text().as_bytes().to_vec()))
        .collect();
    let mut name = Vec::new();
    crate::canonical::write_str(id, &mut name);
    kept.push(("subagent", name));
    object_bytes(kept)
}

/// A tool result's text that refers to a file holding the whole result, as Claude
/// Code writes it in place of a result too large to keep in the session: the named
/// path, when the text is such a reference.
///
/// - `<persisted-output>` then `Output too large (...). Full output saved to: PATH`
///   and a preview (a Bash or other tool's output, from Claude Code 2.1.51 on);
/// - `Error: result (N characters) exceeds maximum allowed tokens. Output has been
///   saved to PATH.` (an MCP tool's result).
///
/// The path is the rest of its line (a Windows path may hold spaces), without a
/// final `.`.
pub(crate) fn file_reference(text: &str) -> Option<&str> {
    let trimmed = text.trim_start();
    let marker = if trimmed.starts_with("<persisted-output>") {
        "Full output saved to:"
    } else if trimmed.starts_with("Error: result (") && trimmed.contains("exceeds maximum allowed")
    {
        "Output has been saved to"
    } else {
        return None;
    };
    let at = trimmed.find(marker)? + marker.len();
    let rest = &trimmed[at..];
    let path = rest.lines().next()?.trim();
    let path = path.strip_suffix('.').unwrap_or(path).trim();
    (!path.is_empty()).then_some(path)
}

/// What a reference to the file `path` names: the file's name when it is a file of
/// a `tool-results` folder, or why it is not read.
fn tool_result_name(path: &str) -> Result<&str, String> {
    let mut parts = path.rsplit(['/', '\\']);
    let name = parts.next().unwrap_or_default();
    let folder = parts.next().unwrap_or_default();
    if folder != "tool-results" || matches!(name, "" | "." | "..") {
        return Err(
            "it names a file outside a session's tool-results folder, which is never read"
                .to_owned(),
        );
    }
    Ok(name)
}

/// Gives each call whose result (in `content`, a string or text blocks) is a
/// reference to the file holding the whole result ([`file_reference`]) that file's
/// text in place of the reference, the file got from `files` by its name in the
/// session's `tool-results` folder; a reference whose file is not there (or cannot
/// be read, or names a file elsewhere) is kept, with a warning.
pub(crate) fn read_persisted(
    calls: &mut [(String, Call)],
    warnings: &mut Vec<Warning>,
    files: Option<&super::ToolResults<'_>>,
    named: &[(String, String)],
) {
    for (id, call) in calls.iter_mut() {
        let field = named
            .iter()
            .find(|(call_id, _)| !id.is_empty() && call_id == id)
            .map(|(_, path)| path.as_str());
        if memchr::memmem::find(&call.response, b"saved to").is_none() && field.is_none() {
            continue;
        }
        let text = String::from_utf8_lossy(&call.response).into_owned();
        let Some(members) = Raw::parse(&text).ok().and_then(|raw| raw.members()) else {
            continue;
        };
        let Some(content) = rget(&members, "content") else {
            continue;
        };
        let mut referred = false;
        let mut read_path = |path: &str| -> Option<String> {
            let found = tool_result_name(path).and_then(|name| match files {
                Some(files) => files(name).and_then(|bytes| {
                    String::from_utf8(bytes).map_err(|_| "the file is not UTF-8 text".to_owned())
                }),
                None => Err("no session folder to read it from".to_owned()),
            });
            match found {
                Ok(whole) => Some(whole),
                Err(why) => {
                    warnings.push(Warning {
                        line: call.line,
                        kind: WarningKind::Persisted,
                        message: format!(
                            "the result of {} is in the file {path}, not read: {why}; the reference is kept as the result",
                            quote_name(&call.tool)
                        ),
                    });
                    None
                }
            }
        };
        let mut read = |reference: &str| -> Option<String> {
            let path = file_reference(reference)?;
            referred = true;
            read_path(path)
        };
        let mut replaced = false;
        let new_content = if let Some(reference) = content.as_str() {
            read(&reference).map(|whole| {
                replaced = true;
                let mut out = Vec::new();
                crate::canonical::write_str(&whole, &mut out);
                out
            })
        } else if let Some(blocks) = content.items() {
            let mut out = b"[".to_vec();
            for (at, block) in blocks.enumerate() {
                if at > 0 {
                    out.push(b',');
                }
                let inner = block
                    .members()
                    .filter(|b| rget_str(b, "type").as_deref() == Some("text"));
                let whole = inner
                    .as_ref()
                    .and_then(|b| rget_str(b, "text"))
                    .and_then(|reference| read(&reference));
                match (inner, whole) {
                    (Some(inner), Some(whole)) => {
                        replaced = true;
                        let mut kept: Vec<(&str, Vec<u8>)> = inner
                            .iter()
                            .filter(|(key, _)| key != "text")
                            .map(|(key, value)| (key.as_ref(), value.text().as_bytes().to_vec()))
                            .collect();
                        let mut text = Vec::new();
                        crate::canonical::write_str(&whole, &mut text);
                        kept.push(("text", text));
                        out.extend_from_slice(&object_bytes(kept));
                    }
                    _ => out.extend_from_slice(block.text().as_bytes()),
                }
            }
            out.push(b']');
            Some(out)
        } else {
            None
        };
        // The entry's toolUseResult names the file, and no text of the result does:
        // the whole content is the file's text.
        let new_content = match field {
            Some(path) if !referred => read_path(path).map(|whole| {
                replaced = true;
                let mut out = Vec::new();
                crate::canonical::write_str(&whole, &mut out);
                out
            }),
            _ => new_content,
        };
        if let Some(new_content) = new_content
            && replaced
        {
            // The response is canonical: each member's text is its canonical encoding.
            let mut kept: Vec<(&str, Vec<u8>)> = members
                .iter()
                .filter(|(key, _)| key != "content")
                .map(|(key, value)| (key.as_ref(), value.text().as_bytes().to_vec()))
                .collect();
            kept.push(("content", new_content));
            call.response = object_bytes(kept);
        }
    }
}

/// What Claude Code writes as the user's that the user did not write: the caveat
/// and output of a local command (`<local-command-stdout>`).
const HARNESS_PROMPTS: [&str; 3] = [
    "Caveat: The messages below were generated by the user while running local commands.",
    "<local-command-stdout>",
    "<local-command-stderr>",
];

/// The conversation of an entry, read beside its calls: a user entry is a prompt
/// when its content is a string, or the text blocks of an array that holds no
/// `tool_result`, joined by newlines; an assistant entry gives each of its `text`
/// blocks, those before its first `tool_use` block now (before its calls), the
/// others returned with the number of `tool_use` blocks before each, to be placed
/// after those calls. Entries of subagents (`isSidechain`), meta entries
/// (`isMeta`), compaction summaries (`isCompactSummary`), interruption notes
/// (`[Request interrupted ...`) and what the harness writes as the user's
/// ([`HARNESS_PROMPTS`]) give nothing, nor do thinking blocks and tool results.
fn said(
    entry: &RawMembers<'_>,
    message: &RawMembers<'_>,
    kind: &str,
    pairing: &mut Pairing,
) -> Vec<(usize, String)> {
    use super::said::{content_text, holds_tool_result};
    use crate::claims::MessageKind;
    let flag = |key: &str| rget(entry, key).and_then(|v| v.as_bool()) == Some(true);
    if flag("isSidechain") || flag("isMeta") || flag("isCompactSummary") {
        return Vec::new();
    }
    let content = rget(message, "content");
    if kind == "user" {
        if holds_tool_result(content) {
            return Vec::new();
        }
        let text = content_text(content);
        let harness = HARNESS_PROMPTS
            .iter()
            .any(|start| text.trim_start().starts_with(start));
        if !harness && !text.starts_with("[Request interrupted") {
            pairing.said(MessageKind::Prompt, text);
        }
        return Vec::new();
    }
    let Some(blocks) = content.and_then(|c| c.items()) else {
        if let Some(text) = content.and_then(|c| c.as_str()) {
            pairing.said(MessageKind::Answer, text.into_owned());
        }
        return Vec::new();
    };
    let mut uses = 0;
    let mut later = Vec::new();
    for block in blocks {
        let Some(block) = block.members() else {
            continue;
        };
        match rget_str(&block, "type").as_deref() {
            Some("tool_use") => uses += 1,
            Some("text") => {
                if let Some(text) = rget_str(&block, "text") {
                    if uses == 0 {
                        pairing.said(MessageKind::Answer, text.into_owned());
                    } else {
                        later.push((uses, text.into_owned()));
                    }
                }
            }
            _ => {}
        }
    }
    later
}
