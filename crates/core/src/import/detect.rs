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

use crate::json::{Lines, Value};

use super::{Document, Format, ImportError, get, get_str, json_lines, looks_like_object};

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

/// Responses API item types that are tools' calls or their outputs, or reasoning.
pub(crate) const RESPONSES_CALLS: [&str; 4] = [
    "function_call",
    "custom_tool_call",
    "local_shell_call",
    "mcp_call",
];
const RESPONSES_OTHER: [&str; 12] = [
    "function_call_output",
    "custom_tool_call_output",
    "local_shell_call_output",
    "reasoning",
    "web_search_call",
    "file_search_call",
    "computer_call",
    "computer_call_output",
    "image_generation_call",
    "code_interpreter_call",
    "mcp_list_tools",
    "item_reference",
];

/// What one item is evidence of: formats it fits, and formats whose tool call it
/// holds (both sets of [`Format::bit`]).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Seen {
    pub fits: u32,
    pub calls: u32,
}

fn array<'v>(members: &'v [(String, Value)], key: &str) -> Option<&'v [Value]> {
    match get(members, key) {
        Some(Value::Array(items)) => Some(items),
        _ => None,
    }
}

fn object<'v>(members: &'v [(String, Value)], key: &str) -> Option<&'v [(String, Value)]> {
    match get(members, key) {
        Some(Value::Object(inner)) => Some(inner),
        _ => None,
    }
}

/// The content blocks of `content` of type `kind`, counted.
fn has_block(members: &[(String, Value)], kind: &str) -> bool {
    array(members, "content").is_some_and(|blocks| {
        blocks.iter().any(|block| match block {
            Value::Object(b) => get_str(b, "type") == Some(kind),
            _ => false,
        })
    })
}

/// Whether a user message is Cline's result text: `[tool for '...'] Result:`.
fn cline_result(members: &[(String, Value)]) -> bool {
    let is_result = |text: &str| text.starts_with('[') && text.contains("] Result:");
    match get(members, "content") {
        Some(Value::Array(blocks)) => blocks.iter().any(|block| match block {
            Value::Object(b) => {
                get_str(b, "type") == Some("text") && get_str(b, "text").is_some_and(is_result)
            }
            _ => false,
        }),
        _ => false,
    }
}

/// What an item, the object of members `m`, is evidence of (any other value is
/// evidence of nothing).
fn object_evidence(m: &[(String, Value)]) -> Seen {
    let one = |format: Format, call: bool| Seen {
        fits: format.bit(),
        calls: if call { format.bit() } else { 0 },
    };
    let has = |key| get(m, key).is_some();
    let kind = get_str(m, "type");
    if has("jsonrpc") || (get_str(m, "method").is_some() && (has("params") || has("id"))) {
        return one(Format::Mcp, get_str(m, "method") == Some("tools/call"));
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
            && get_str(payload, "type").is_some_and(|t| RESPONSES_CALLS.contains(&t));
        return one(Format::Codex, call);
    }
    if let Some(kind) = kind
        && kind.contains('.')
        && object(m, "data").is_some()
    {
        return one(Format::Copilot, kind == "tool.execution_start");
    }
    if let Some(kind) = kind
        && get(m, "role").is_none()
        && CLAUDE_TYPES.contains(&kind)
        && (!matches!(kind, "user" | "assistant") || object(m, "message").is_some())
    {
        let call = object(m, "message").is_some_and(|message| has_block(message, "tool_use"));
        return one(Format::ClaudeCode, call);
    }
    if let Some(kind) = kind
        && (RESPONSES_CALLS.contains(&kind) || RESPONSES_OTHER.contains(&kind))
    {
        return one(Format::Responses, RESPONSES_CALLS.contains(&kind));
    }
    if kind == Some("gemini")
        || (matches!(kind, Some("user" | "info" | "error" | "warning"))
            && has("content")
            && has("id")
            && !has("message"))
        || (has("sessionId") && has("projectHash"))
    {
        let call = array(m, "toolCalls").is_some_and(|calls| !calls.is_empty());
        return one(Format::Gemini, call);
    }
    if get_str(m, "role").is_some()
        && let Some(message) = object(m, "message")
    {
        return one(Format::Cursor, has_block(message, "tool_use"));
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
    if let Some(role) = get_str(m, "role") {
        if array(m, "tool_calls").is_some_and(|calls| !calls.is_empty()) {
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
pub(crate) fn document_format(m: &[(String, Value)]) -> Option<Format> {
    if array(m, "loglines").is_some() {
        return Some(Format::ClaudeCode);
    }
    if get(m, "resourceSpans").is_some() {
        return Some(Format::Otel);
    }
    if array(m, "history").is_some() && get(m, "role").is_none() {
        return Some(Format::SweAgent);
    }
    if array(m, "samples").is_some() || (object(m, "eval").is_some() && get(m, "version").is_some())
    {
        return Some(Format::Inspect);
    }
    if array(m, "messages").is_some()
        && (get(m, "sessionId").is_some() || get(m, "projectHash").is_some())
    {
        return Some(Format::Gemini);
    }
    None
}

/// The items of a document object to read as `format`: those of the document when
/// it is one of `format`, a request body's `messages` (or a Responses request's
/// `input`, a response's `output`), or the object itself.
pub(crate) fn document_items(
    format: Format,
    mut members: Vec<(String, Value)>,
    lines: &Lines,
) -> Vec<(u64, Value)> {
    // The elements of the array member `key`, each with its line.
    let mut take = |key: &str| -> Option<Vec<(u64, Value)>> {
        let at = members
            .iter()
            .position(|(k, v)| k == key && matches!(v, Value::Array(_)))?;
        match std::mem::replace(&mut members[at].1, Value::Null) {
            Value::Array(items) => Some(with_lines(items, lines.member(at))),
            _ => None,
        }
    };
    let found = match format {
        Format::ClaudeCode => take("loglines"),
        Format::SweAgent => take("history"),
        Format::Gemini | Format::Openai | Format::Anthropic | Format::Cline | Format::Cursor => {
            take("messages")
        }
        Format::Responses => take("input").or_else(|| take("output")),
        Format::Inspect => {
            // Every sample's messages, one sample after another.
            let at = members
                .iter()
                .position(|(k, v)| k == "samples" && matches!(v, Value::Array(_)));
            let mut all = Vec::new();
            if let Some(at) = at
                && let Value::Array(samples) = std::mem::replace(&mut members[at].1, Value::Null)
            {
                let sample_lines = lines.member(at);
                for (i, sample) in samples.into_iter().enumerate() {
                    let parts = sample_lines
                        .element(i)
                        .map_or(&Lines::Leaf, |(_, parts)| parts);
                    if let Value::Object(sample) = sample {
                        for (j, (key, value)) in sample.into_iter().enumerate() {
                            if key == "messages"
                                && let Value::Array(messages) = value
                            {
                                all.extend(with_lines(messages, parts.member(j)));
                            }
                        }
                    }
                }
            }
            Some(all)
        }
        _ => None,
    };
    found.unwrap_or_else(|| vec![(1, Value::Object(members))])
}

/// The elements `items` of an array, each with its line from `lines` (1 when not
/// recorded).
fn with_lines(items: Vec<Value>, lines: &Lines) -> Vec<(u64, Value)> {
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| {
            let line = lines.element(i).map_or(1, |(line, _)| *line as u64);
            (line, item)
        })
        .collect()
}

/// How evidence adds up over an input.
#[derive(Default)]
struct Tally {
    /// The first line of evidence of each format (0: none).
    first: [u64; 16],
    objects: u64,
    with_role: u64,
    calls: Option<(Format, u64)>,
}

impl Tally {
    fn add(&mut self, line: u64, value: &Value) {
        match value {
            Value::Object(m) => self.add_object(line, m),
            _ => self.record(line, Seen::default()),
        }
    }

    fn add_object(&mut self, line: u64, m: &[(String, Value)]) {
        self.objects += 1;
        if get(m, "role").is_some() {
            self.with_role += 1;
        }
        self.record(line, object_evidence(m));
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
                tally.add(*line, item);
            }
            if tally.objects == 0 {
                return Err(ImportError::Whole(format!(
                    "unrecognised input: a JSON array, but not of chat messages; {}",
                    super::EXPECTED
                )));
            }
        }
        Document::Object(members, lines) => {
            if let Some(format) = document_format(members) {
                return Ok(format);
            }
            for key in ["messages", "input", "output"] {
                if let Some(at) = members.iter().position(|(k, _)| k == key)
                    && let Value::Array(items) = &members[at].1
                {
                    for (i, item) in items.iter().enumerate() {
                        let line = lines.member(at).element(i).map_or(1, |(line, _)| *line);
                        tally.add(line as u64, item);
                    }
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
                tally.add(line, &value);
            }
        }
    }
    tally.verdict()
}

/// The first tool call the input holds in any known shape: its format and line.
pub(crate) fn calls_seen(document: Document<'_>) -> Option<(Format, u64)> {
    let mut tally = Tally::default();
    match document {
        Document::Array(items) => {
            for (line, item) in &items {
                tally.add(*line, item);
            }
        }
        Document::Object(members, lines) => {
            if let Some(format) = document_format(&members) {
                let items = document_items(format, members, &lines);
                let mut inner = Tally::default();
                for (line, item) in &items {
                    inner.add(*line, item);
                }
                return inner.calls.map(|(_, line)| (format, line));
            }
            for key in ["messages", "input", "output"] {
                if let Some(items) = array(&members, key) {
                    for item in items {
                        tally.add(1, item);
                    }
                }
            }
            tally.add_object(1, &members);
        }
        Document::Lines(bytes) => {
            for (line, value) in json_lines(bytes).flatten() {
                tally.add(line, &value);
                if tally.calls.is_some() {
                    break;
                }
            }
        }
    }
    tally.calls
}
