//! Recognising the format of an input on positive evidence, across the whole input.
//!
//! Each item (a JSON Lines line, an element of a top-level array, or a top-level
//! object) is looked at alone: it is evidence of at most a few formats, by members
//! only that format writes (see `object_evidence`), or of none (a plain `{"role": "user",
//! "content": "hi"}` fits many formats and is evidence of none). A whole JSON object is
//! first looked at as a document ([`document_format`]: a Claude Code export, a
//! SWE-agent trajectory, an Inspect AI log, a Gemini CLI session, OTLP spans).
//!
//! The input's format is the one format with evidence. A Cline history is an
//! Anthropic one with Cline's result texts, so Cline evidence outweighs Anthropic's.
//! Two formats with evidence are an error that names both; no evidence is an error,
//! except for chat messages that all have a `role` and hold no tool call at all
//! (read as OpenAI, which imports nothing from them, correctly).

use crate::json::{Raw, RawItems, RawMembers};

use super::{
    Document, Format, ImportError, LineCounter, json_lines, looks_like_object, mcp, openai,
    openhands, responses, rget, rget_str,
};

/// Claude Code entry types (`type`), as its sessions write them.
pub(crate) const CLAUDE_TYPES: [&str; 14] = [
    "user",
    "assistant",
    "summary",
    "system",
    "progress",
    "attachment",
    "permission-mode",
    "last-prompt",
    "file-history-snapshot",
    "queue-operation",
    "custom-title",
    "agent-name",
    "pr-link",
    "tag",
];

/// Codex CLI rollout line types, each with a `payload`.
const CODEX_TYPES: [&str; 5] = [
    "session_meta",
    "response_item",
    "event_msg",
    "turn_context",
    "compacted",
];

/// What one item is evidence of: formats it fits, and formats whose tool call it
/// holds (both sets of [`Format::bit`]).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Seen {
    pub fits: u32,
    pub calls: u32,
}

fn array<'a>(members: &RawMembers<'a>, key: &str) -> Option<RawItems<'a>> {
    rget(members, key)?.items()
}

fn object<'a>(members: &RawMembers<'a>, key: &str) -> Option<RawMembers<'a>> {
    rget(members, key)?.members()
}

/// Whether the content blocks of `content` hold one of type `kind`.
fn has_block(members: &RawMembers<'_>, kind: &str) -> bool {
    array(members, "content").is_some_and(|mut blocks| {
        blocks.any(|block| {
            block
                .members()
                .is_some_and(|b| rget_str(&b, "type").as_deref() == Some(kind))
        })
    })
}

/// Whether a user message is Cline's result text: `[tool for '...'] Result:`.
fn cline_result(members: &RawMembers<'_>) -> bool {
    let is_result = |text: &str| text.starts_with('[') && text.contains("] Result:");
    array(members, "content").is_some_and(|mut blocks| {
        blocks.any(|block| {
            block.members().is_some_and(|b| {
                rget_str(&b, "type").as_deref() == Some("text")
                    && rget_str(&b, "text").is_some_and(|t| is_result(&t))
            })
        })
    })
}

/// What an item, the object of members `m`, is evidence of (any other value is
/// evidence of nothing).
fn object_evidence(m: &RawMembers<'_>) -> Seen {
    let one = |format: Format, call: bool| Seen {
        fits: format.bit(),
        calls: if call { format.bit() } else { 0 },
    };
    let has = |key| rget(m, key).is_some();
    let kind = rget_str(m, "type");
    let kind = kind.as_deref();
    if has("jsonrpc")
        || (rget(m, "method").is_some_and(|v| v.as_str().is_some()) && (has("params") || has("id")))
    {
        return one(
            Format::Mcp,
            rget_str(m, "method").as_deref() == Some("tools/call"),
        );
    }
    if m.len() == 4 && ["args", "index", "response", "tool"].iter().all(|k| has(k)) {
        return one(Format::Transcript, true);
    }
    if m.len() == 6
        && ["args", "digest", "index", "prev", "response", "tool"]
            .iter()
            .all(|k| has(k))
    {
        return one(Format::Sealed, true);
    }
    if let Some(kind) = kind
        && let Some(payload) = object(m, "payload")
        && CODEX_TYPES.contains(&kind)
    {
        let call = kind == "response_item"
            && rget_str(&payload, "type").is_some_and(|t| responses::CALLS.contains(&t.as_ref()));
        return one(Format::Codex, call);
    }
    if let Some(kind) = kind
        && responses::is_event(kind)
        && (object(m, "item").is_some() || object(m, "response").is_some())
    {
        // A Responses API stream's event, around an item or a response.
        let call = responses::event_items(kind, m).into_iter().any(|item| {
            item.members().is_some_and(|item| {
                rget_str(&item, "type").is_some_and(|t| responses::CALLS.contains(&t.as_ref()))
            })
        });
        return one(Format::Responses, call);
    }
    if let Some(kind) = kind
        && kind.contains('.')
        && object(m, "data").is_some()
    {
        return one(Format::Copilot, kind == "tool.execution_start");
    }
    if let Some(kind) = kind
        && rget(m, "role").is_none()
        && CLAUDE_TYPES.contains(&kind)
        && (!matches!(kind, "user" | "assistant") || object(m, "message").is_some())
    {
        let call = object(m, "message").is_some_and(|message| has_block(&message, "tool_use"));
        return one(Format::ClaudeCode, call);
    }
    if let Some(inner) = mcp::enveloped(m) {
        // A capture's envelope around a JSON-RPC message or batch (after the
        // formats whose `type` names their entries, whose members may hold one).
        let is_call = |message: Raw<'_>| {
            message
                .members()
                .is_some_and(|m| rget_str(&m, "method").as_deref() == Some("tools/call"))
        };
        let call = match inner.items() {
            Some(mut batch) => batch.any(is_call),
            None => is_call(inner),
        };
        return one(Format::Mcp, call);
    }
    if let Some(kind) = kind
        && responses::is_item_type(kind)
    {
        return one(Format::Responses, responses::CALLS.contains(&kind));
    }
    if kind == Some("gemini")
        || (matches!(kind, Some("user" | "info" | "error" | "warning"))
            && has("content")
            && has("id")
            && !has("message"))
        || (has("sessionId") && has("projectHash"))
    {
        let has_calls = |m: &RawMembers<'_>| {
            array(m, "toolCalls").is_some_and(|mut calls| calls.next().is_some())
        };
        // A message, or a whole session on one line with its messages.
        let call = has_calls(m)
            || array(m, "messages").is_some_and(|mut messages| {
                messages.any(|message| message.members().is_some_and(|m| has_calls(&m)))
            });
        return one(Format::Gemini, call);
    }
    if rget(m, "role").is_some_and(|v| v.as_str().is_some())
        && let Some(message) = object(m, "message")
    {
        return one(Format::Cursor, has_block(&message, "tool_use"));
    }
    if let Some(history) = openhands::instance_history(m) {
        return one(Format::Openhands, openhands::history_has_call(history));
    }
    if has("id") && has("source") && (has("action") || has("observation")) {
        return one(
            Format::Openhands,
            has("action") && object(m, "tool_call_metadata").is_some(),
        );
    }
    if has("resourceSpans") {
        return one(Format::Otel, true);
    }
    if let Some(messages) = openai::completion_messages(m) {
        // A chat completion, around its choices' messages.
        let call = messages
            .iter()
            .any(|m| array(m, "tool_calls").is_some_and(|mut calls| calls.next().is_some()));
        return one(Format::Openai, call);
    }
    if let Some(role) = rget_str(m, "role") {
        if array(m, "tool_calls").is_some_and(|mut calls| calls.next().is_some()) {
            return one(Format::Openai, true);
        }
        if role == "tool" && (has("tool_call_id") || has("tool_call_ids")) {
            return one(Format::Openai, false);
        }
        if role == "user" && cline_result(m) {
            return one(Format::Cline, false);
        }
        if has_block(m, "tool_use") {
            return Seen {
                fits: Format::Anthropic.bit(),
                calls: Format::Anthropic.bit() | Format::Cline.bit(),
            };
        }
        if has_block(m, "tool_result") {
            return one(Format::Anthropic, false);
        }
    }
    Seen::default()
}

/// The format of a JSON object read as a whole document, when it is one.
pub(crate) fn document_format(m: &RawMembers<'_>) -> Option<Format> {
    let get = |key| rget(m, key);
    if array(m, "loglines").is_some() {
        return Some(Format::ClaudeCode);
    }
    if get("resourceSpans").is_some() {
        return Some(Format::Otel);
    }
    if openhands::instance_history(m).is_some() {
        return Some(Format::Openhands);
    }
    if array(m, "history").is_some() && get("role").is_none() {
        return Some(Format::SweAgent);
    }
    if array(m, "samples").is_some() || (object(m, "eval").is_some() && get("version").is_some()) {
        return Some(Format::Inspect);
    }
    if array(m, "messages").is_some()
        && (get("sessionId").is_some() || get("projectHash").is_some())
    {
        return Some(Format::Gemini);
    }
    None
}

/// The items of a document object `raw` (of members `members`) to read as `format`:
/// those of the document when it is one of `format`, a request body's `messages`
/// (or a Responses request's `input`, a response's `output`), or the object itself.
pub(crate) fn document_items<'a>(
    format: Format,
    raw: Raw<'a>,
    members: RawMembers<'a>,
) -> Vec<(u64, Raw<'a>)> {
    let mut lines = LineCounter::new(raw.doc());
    let mut with_lines = |items: RawItems<'a>| -> Vec<(u64, Raw<'a>)> {
        items
            .map(|item| (lines.line_at(item.offset()), item))
            .collect()
    };
    let found = match format {
        Format::ClaudeCode => array(&members, "loglines").map(&mut with_lines),
        Format::SweAgent => array(&members, "history").map(&mut with_lines),
        Format::Gemini | Format::Openai | Format::Anthropic | Format::Cline | Format::Cursor => {
            array(&members, "messages").map(&mut with_lines)
        }
        Format::Responses => array(&members, "input")
            .or_else(|| array(&members, "output"))
            .map(&mut with_lines),
        Format::Inspect => {
            // Every sample's messages, one sample after another.
            let mut all = Vec::new();
            for sample in array(&members, "samples").into_iter().flatten() {
                if let Some(sample) = sample.members()
                    && let Some(messages) = array(&sample, "messages")
                {
                    all.extend(with_lines(messages));
                }
            }
            Some(all)
        }
        _ => None,
    };
    found.unwrap_or_else(|| vec![(1, raw)])
}

/// How evidence adds up over an input.
#[derive(Default)]
struct Tally {
    /// The first line of evidence of each format (0: none).
    first: [u64; 16],
    objects: u64,
    with_role: u64,
    calls: Option<(Format, u64)>,
    /// Whether to look for an MCP `tools/call` one level inside an object of no
    /// format's call (an envelope no reader unwraps), and the first line of one.
    deep: bool,
    nested: Option<u64>,
}

impl Tally {
    fn add(&mut self, line: u64, value: Raw<'_>) {
        match value.members() {
            Some(m) => self.add_object(line, &m),
            _ => self.record(line, Seen::default()),
        }
    }

    fn add_object(&mut self, line: u64, m: &RawMembers<'_>) {
        self.objects += 1;
        if rget(m, "role").is_some() {
            self.with_role += 1;
        }
        let seen = object_evidence(m);
        if self.deep && seen.calls == 0 && self.nested.is_none() {
            let nested_call = |value: &Raw<'_>| {
                value.members().is_some_and(|inner| {
                    mcp::is_message(&inner)
                        && rget_str(&inner, "method").as_deref() == Some("tools/call")
                })
            };
            if m.iter().any(|(_, value)| nested_call(value)) {
                self.nested = Some(line);
            }
        }
        self.record(line, seen);
    }

    fn record(&mut self, line: u64, seen: Seen) {
        for format in Format::ALL {
            if seen.fits & format.bit() != 0 && self.first[format as usize] == 0 {
                self.first[format as usize] = line;
            }
        }
        if self.calls.is_none()
            && let Some(format) = Format::ALL.into_iter().find(|f| seen.calls & f.bit() != 0)
        {
            self.calls = Some((format, line));
        }
    }

    fn verdict(&self) -> Result<Format, ImportError> {
        let mut found: Vec<(u64, Format)> = Format::ALL
            .into_iter()
            .filter(|f| self.first[*f as usize] != 0)
            .map(|f| (self.first[f as usize], f))
            .collect();
        if found.iter().any(|(_, f)| *f == Format::Cline) {
            found.retain(|(_, f)| *f != Format::Anthropic);
        }
        found.sort();
        match found.as_slice() {
            [] if self.objects > 0 && self.with_role == self.objects => Ok(Format::Openai),
            [] if self.objects > 0 => Err(ImportError::Unrecognised {
                found: "no item in it is of a known format".to_owned(),
            }),
            [] => Err(ImportError::Unrecognised {
                found: "no JSON object in it".to_owned(),
            }),
            [(_, format)] => Ok(*format),
            [(first_line, first), (second_line, second), ..] => Err(ImportError::Ambiguous {
                first: *first,
                first_line: *first_line,
                second: *second,
                second_line: *second_line,
            }),
        }
    }
}

/// Recognises the format of a document.
pub(crate) fn detect(document: &Document<'_>) -> Result<Format, ImportError> {
    let mut tally = Tally::default();
    match document {
        Document::Array(items) => {
            if items.is_empty() {
                return Ok(Format::Openai);
            }
            for (line, item) in items {
                tally.add(*line, *item);
            }
            if tally.objects == 0 {
                return Err(ImportError::Whole(format!(
                    "unrecognised input: a JSON array, but not of chat messages; {}",
                    super::EXPECTED
                )));
            }
        }
        Document::Object(raw, members) => {
            if let Some(format) = document_format(members) {
                return Ok(format);
            }
            let mut lines = LineCounter::new(raw.doc());
            for key in ["messages", "input", "output"] {
                for item in array(members, key).into_iter().flatten() {
                    tally.add(lines.line_at(item.offset()), item);
                }
            }
            if tally.objects == 0 {
                tally.add_object(1, members);
            }
        }
        Document::Lines(bytes) => {
            for parsed in json_lines(bytes) {
                let (line, value) = match parsed {
                    Ok(found) => found,
                    Err(err) if tally.objects > 0 || looks_like_object(bytes, err.line) => {
                        return Err(ImportError::Input(err));
                    }
                    Err(err) => {
                        return Err(ImportError::Input(crate::transcript::LineError {
                            line: err.line,
                            message: format!(
                                "unrecognised input: {}; {}",
                                err.message,
                                super::EXPECTED
                            ),
                        }));
                    }
                };
                tally.add(line, value);
            }
        }
    }
    tally.verdict()
}

/// The first tool call the input holds in any known shape: its format and line.
///
/// A JSON-RPC `tools/call` one level inside an object that holds no call of any
/// format (in an envelope of a member no reader unwraps) is seen too, as MCP's.
pub(crate) fn calls_seen(document: Document<'_>) -> Option<(Format, u64)> {
    let mut tally = Tally {
        deep: true,
        ..Tally::default()
    };
    match document {
        Document::Array(items) => {
            for (line, item) in items {
                tally.add(line, item);
            }
        }
        Document::Object(raw, members) => {
            if let Some(format) = document_format(&members) {
                let items = document_items(format, raw, members);
                let mut inner = Tally::default();
                for (line, item) in items {
                    inner.add(line, item);
                }
                return inner.calls.map(|(_, line)| (format, line));
            }
            for key in ["messages", "input", "output"] {
                for item in array(&members, key).into_iter().flatten() {
                    tally.add(1, item);
                }
            }
            tally.add_object(1, &members);
        }
        Document::Lines(bytes) => {
            for (line, value) in json_lines(bytes).flatten() {
                tally.add(line, value);
                if tally.calls.is_some() {
                    break;
                }
            }
        }
    }
    tally
        .calls
        .or_else(|| tally.nested.map(|line| (Format::Mcp, line)))
}
