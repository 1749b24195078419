//! Importing the logs agents really write into strict transcripts (spec section 1).
//!
//! [`import`] reads the bytes of an agent's log, in one of the formats of [`Format`]
//! (one module each: [`claude_code`], [`codex`], [`responses`], [`gemini`],
//! [`copilot`], [`cursor`], [`openai`] (with Inspect AI and SWE-agent), [`anthropic`],
//! [`mcp`], [`openhands`], [`cline`], [`otel`], and this project's own transcripts),
//! and gives its tool calls, each paired with its own result, in call order, with a
//! [`Warning`] for everything that could not be paired or understood.
//! [`import_with_subagents`] also takes a Claude Code session's subagent logs, as
//! bytes. [`write_transcript`] writes the calls as a transcript. All are pure: the
//! same bytes give the same transcript and the same warnings, and nothing here
//! touches the file system.
//!
//! The format is named (`--from`) or recognised on positive evidence across the
//! whole input (see `detect.rs`: two formats that fit are an error naming both, none
//! is an error). An import that gives no record from an input holding a tool call in
//! the shape of another format is an error naming that format
//! ([`ImportError::WrongFormat`]): it never exits with nothing having dropped calls
//! it could see; one that gives no record from an input holding a tool call of the
//! format it was read as is an error too ([`ImportError::NoCallRead`]). The user
//! documentation of every format is `docs/import.md`.
//!
//! # The mapping, for every format
//!
//! - One record per tool call, in the order the calls appear in the input; `tool` is
//!   the tool's name exactly as written (`mcp__server__tool` stays as it is).
//! - `args` is the call's arguments object as written. OpenAI's
//!   `function.arguments` is JSON text: it is parsed with the strict parser of
//!   [`crate::json`] and must be an object.
//! - `response` is made from the call's own result:
//!   - Claude Code, OpenAI and Anthropic results have a `content` (a string, a list of
//!     content blocks, anything): it is kept as it is under `"content"`:
//!     `{"content": ...}`; a result without `content` gives `{}`. A result flagged as an
//!     error (`"is_error": true`) keeps the flag: `{"content": ..., "is_error": true}`;
//!     `"is_error": false` is the same as no flag and is not written.
//!   - MCP: the JSON-RPC `result` as it is when it is an object (a `CallToolResult`,
//!     its own `isError` included), `{"content": result}` otherwise; a JSON-RPC error
//!     gives `{"error": {...}, "is_error": true}`.
//! - A call without a result (an interrupted run) is kept, with the response
//!   `{"no_result": true}`, and a warning. A result without a call before it has no
//!   tool or arguments to make a record of: it is dropped, with a warning.
//! - Dropped without a warning, since they are not tool calls: text, reasoning
//!   (`thinking`), images and documents, system prompts, usage and model metadata,
//!   the entries each producer writes routinely besides its calls (see each module),
//!   and MCP notifications and other methods (`initialize`, `tools/list`, ...) with
//!   their responses.
//! - Anything else that is not understood (a line that is not an object, an entry or
//!   content block of an unknown type, a message without content, a legacy OpenAI
//!   `function_call`) is skipped with a warning.
//! - A tool call or result that is recognisable as one but malformed (a `tool_use`
//!   without an `id`, arguments that are not an object, a `tools/call` without a
//!   `name`) is an error: it cannot be imported faithfully, and it must not be lost.
//!   So is invalid JSON, read with the strictness of transcripts (duplicate keys,
//!   `NaN`, nesting deeper than 128 levels, invalid UTF-8 are all errors), and
//!   arguments or a response nested so deep that the record would be deeper than 128
//!   levels.
//!
//! Inputs are read whole, up to [`MAX_IMPORT_BYTES`], and checked once, then read
//! lazily ([`json::Raw`]): a call's arguments and result are written from the input's
//! text to their canonical bytes, never held as a tree (but OTLP spans, a tree per
//! document or line). Memory is about the input plus the calls' canonical bytes.

pub(crate) mod anthropic;
pub(crate) mod claude_code;
pub(crate) mod cline;
pub(crate) mod codex;
pub(crate) mod copilot;
pub(crate) mod cursor;
mod detect;
pub(crate) mod eval;
pub(crate) mod gemini;
pub(crate) mod mcp;
mod meta;
pub(crate) mod openai;
pub(crate) mod openhands;
pub(crate) mod otel;
mod own;
pub(crate) mod responses;
mod said;

pub use meta::CallMeta;
pub(crate) use meta::{epoch_seconds_nanos, rfc3339_nanos};

use std::borrow::Cow;
use std::collections::{BTreeMap, VecDeque};

use crate::canonical;
use crate::claims::{Message, MessageKind};
use crate::finding::quote_name;
use crate::json::{self, MAX_DEPTH, Raw, RawMembers, Value};
use crate::transcript::{LineError, line_text};

/// The largest input read, in bytes: 1 GiB. An input is read whole, and its calls
/// are held (as canonical bytes) until each has its result, so this bounds memory.
pub const MAX_IMPORT_BYTES: u64 = 1 << 30;

/// The response of a call that has no result.
pub(crate) const NO_RESULT: &[u8] = b"{\"no_result\":true}";

/// The format to read an input as: recognised from its content, or named.
///
/// ```
/// use toolreplay_core::{ImportError, ImportFormat as Format, ImportSource as Source, import_log};
///
/// let log = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}
/// {"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#;
/// let named = import_log(log, Source::from(Format::Mcp))?;
/// let recognised = import_log(log, Source::Auto)?;
/// assert_eq!((named.format, named.detected), (Format::Mcp, false));
/// assert_eq!((recognised.format, recognised.detected), (Format::Mcp, true));
/// # Ok::<(), ImportError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Recognise the format from the content ([`Imported::detected`] says so).
    Auto,
    /// Read the input as this format.
    Named(Format),
}

impl Source {
    /// The format named, or `None` for [`Source::Auto`].
    pub fn format(self) -> Option<Format> {
        match self {
            Source::Auto => None,
            Source::Named(format) => Some(format),
        }
    }
}

impl From<Format> for Source {
    fn from(format: Format) -> Source {
        Source::Named(format)
    }
}

/// A format an input was read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Format {
    /// A Claude Code session.
    ClaudeCode,
    /// OpenAI chat messages.
    Openai,
    /// Anthropic Messages API messages.
    Anthropic,
    /// MCP JSON-RPC messages.
    Mcp,
    /// A plain transcript.
    Transcript,
    /// A sealed transcript.
    Sealed,
    /// A Codex CLI rollout.
    Codex,
    /// OpenAI Responses API items.
    Responses,
    /// A Gemini CLI session.
    Gemini,
    /// A GitHub Copilot CLI event log.
    Copilot,
    /// A Cursor agent transcript.
    Cursor,
    /// An Inspect AI eval log.
    Inspect,
    /// A SWE-agent trajectory.
    SweAgent,
    /// An OpenHands event stream.
    Openhands,
    /// A Cline task history.
    Cline,
    /// OpenTelemetry GenAI spans.
    Otel,
}

impl Format {
    /// Every format, in the order of this enum.
    pub const ALL: [Format; 16] = [
        Format::ClaudeCode,
        Format::Openai,
        Format::Anthropic,
        Format::Mcp,
        Format::Transcript,
        Format::Sealed,
        Format::Codex,
        Format::Responses,
        Format::Gemini,
        Format::Copilot,
        Format::Cursor,
        Format::Inspect,
        Format::SweAgent,
        Format::Openhands,
        Format::Cline,
        Format::Otel,
    ];

    /// The format's name, as `--from` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Format::ClaudeCode => "claude-code",
            Format::Openai => "openai",
            Format::Anthropic => "anthropic",
            Format::Mcp => "mcp",
            Format::Transcript => "transcript",
            Format::Sealed => "sealed",
            Format::Codex => "codex",
            Format::Responses => "responses",
            Format::Gemini => "gemini",
            Format::Copilot => "copilot",
            Format::Cursor => "cursor",
            Format::Inspect => "inspect",
            Format::SweAgent => "swe-agent",
            Format::Openhands => "openhands",
            Format::Cline => "cline",
            Format::Otel => "otel",
        }
    }

    /// What the format is, in a few words, for a list of formats (`--from`'s help).
    pub fn description(self) -> &'static str {
        match self {
            Format::ClaudeCode => "A Claude Code session file (JSONL, from ~/.claude/projects/)",
            Format::Openai => "OpenAI chat messages with tool_calls: a JSON array, or JSONL",
            Format::Anthropic => {
                "Anthropic Messages API messages with tool_use/tool_result: a JSON array, or JSONL"
            }
            Format::Mcp => "MCP JSON-RPC 2.0 messages, one a line",
            Format::Transcript => "A plain transcript of this tool",
            Format::Sealed => {
                "A sealed transcript of this tool (its chain is checked as it is read)"
            }
            Format::Codex => "A Codex CLI rollout (~/.codex/sessions/**/rollout-*.jsonl)",
            Format::Responses => {
                "OpenAI Responses API items (function_call / function_call_output)"
            }
            Format::Gemini => {
                "A Gemini CLI session (~/.gemini/tmp/*/chats/session-*.json, or JSONL)"
            }
            Format::Copilot => "A GitHub Copilot CLI events.jsonl",
            Format::Cursor => "A Cursor agent transcript (JSONL)",
            Format::Inspect => "An Inspect AI eval log (.json)",
            Format::SweAgent => "A SWE-agent trajectory (.traj)",
            Format::Openhands => "An OpenHands event stream (JSON array of events)",
            Format::Cline => "A Cline task's api_conversation_history.json",
            Format::Otel => "OpenTelemetry GenAI spans as OTLP JSON",
        }
    }

    /// Whether the format is one of this crate's own, a transcript or a sealed
    /// transcript, rather than an agent's log.
    pub fn is_own(self) -> bool {
        matches!(self, Format::Transcript | Format::Sealed)
    }

    /// The format's bit in a set of formats.
    pub(crate) fn bit(self) -> u32 {
        1 << (self as u32)
    }
}

/// What a warning is about; the summary counts warnings by kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum WarningKind {
    /// A call without a result: kept with the response `{"no_result": true}`.
    NoResult,
    /// A result without a call: dropped.
    NoCall,
    /// An id used again while it was still waiting for a result, or a repeated id
    /// with different content.
    RepeatedId,
    /// A line, entry, message or content block that was not understood: skipped.
    Skipped,
    /// An MCP message without `"jsonrpc": "2.0"`, read as JSON-RPC 2.0.
    NotJsonRpc,
    /// A result left in a file beside the session that was not read: the reference
    /// to it is kept as the result.
    Persisted,
}

impl WarningKind {
    /// How the summary counts `n` warnings of this kind.
    fn counted(self, n: usize) -> String {
        let (one, many) = match self {
            WarningKind::NoResult => ("call without a result", "calls without a result"),
            WarningKind::NoCall => ("result without a call", "results without a call"),
            WarningKind::RepeatedId => ("repeated id", "repeated ids"),
            WarningKind::Skipped => ("skipped item", "skipped items"),
            WarningKind::NotJsonRpc => (
                "message without \"jsonrpc\"",
                "messages without \"jsonrpc\"",
            ),
            WarningKind::Persisted => (
                "result left in a file not read",
                "results left in files not read",
            ),
        };
        format!("{n} {}", if n == 1 { one } else { many })
    }
}

/// Something that did not map cleanly onto the transcript, on a 1-based line of the
/// input (for a JSON array, the line where the message starts).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// The line.
    pub line: u64,
    /// What kind of warning it is.
    pub kind: WarningKind,
    /// What happened, as a lowercase phrase.
    pub message: String,
}

/// One imported call: a record without its index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    /// The 1-based line of the call in the input (for a JSON array, the line where
    /// its message starts).
    pub line: u64,
    /// The tool's name; never empty.
    pub tool: String,
    /// The canonical encoding of the arguments, an object.
    pub args: Vec<u8>,
    /// The canonical encoding of the response, an object.
    pub response: Vec<u8>,
    /// What the log says of the call besides its record (never written in the
    /// transcript).
    pub meta: CallMeta,
}

/// A call's id as the log wrote it, from its key (the id's canonical JSON): the
/// string, or an integer's digits; `None` for no id or a key made of more.
fn id_of_key(key: &str) -> Option<String> {
    if key.is_empty() {
        return None;
    }
    match json::parse(key).ok()? {
        Value::Str(id) => Some(id),
        Value::Int(digits) => Some(digits.into_string()),
        _ => None,
    }
}

/// The result of an import.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Imported {
    /// The format the input was read as.
    pub format: Format,
    /// Whether the format was recognised from the content (`--from auto`).
    pub detected: bool,
    /// The calls, in call order.
    pub calls: Vec<Call>,
    /// The warnings, by line.
    pub warnings: Vec<Warning>,
    /// The conversation, where the format has it: the user's prompts and the
    /// agent's texts, each placed after the calls read before it (`said.rs`).
    pub messages: Vec<Message>,
}

/// Why an input could not be imported.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImportError {
    /// Invalid or malformed input on a line.
    #[error("{0}")]
    Input(LineError),
    /// The input as a whole is not what was asked for.
    #[error("{0}")]
    Whole(String),
    /// Nothing in the input is evidence of a known format.
    #[error("unrecognised input: {found}; {EXPECTED}")]
    Unrecognised {
        /// What was found instead, as a phrase.
        found: String,
    },
    /// Two formats fit the input.
    #[error(
        "ambiguous input: line {first_line} reads as {} and line {second_line} as {}; name the format with --from {} or --from {}",
        first.name(), second.name(), first.name(), second.name()
    )]
    Ambiguous {
        /// The format with the earliest evidence.
        first: Format,
        /// The line of that evidence.
        first_line: u64,
        /// The other format.
        second: Format,
        /// The line of its first evidence.
        second_line: u64,
    },
    /// Read as `read_as`, the input gave no call, though it holds tool calls in the
    /// shape of `looks_like`: importing nothing would lose them.
    #[error(
        "no tool calls read as {}, but line {line} holds a tool call of the {} format; import it with --from {}",
        read_as.name(), looks_like.name(), looks_like.name()
    )]
    WrongFormat {
        /// The format the input was read as.
        read_as: Format,
        /// The format its calls are written in.
        looks_like: Format,
        /// The first line holding such a call.
        line: u64,
    },
    /// Read as `format`, the input gave no call, though `line` holds a tool call of
    /// that format: importing nothing would lose it.
    #[error(
        "no tool call read as {}, but line {line} holds one; nothing is imported rather than losing it",
        format.name()
    )]
    NoCallRead {
        /// The format the input was read as.
        format: Format,
        /// The first line holding a call.
        line: u64,
    },
    /// The input is a zip archive, read as a format that is not one.
    #[error("a zip archive, which only --from inspect (an Inspect AI .eval log) reads")]
    Zip,
    /// A zip archive that is not a readable Inspect AI `.eval` log.
    #[error("{0}")]
    Eval(String),
    /// A subagent log given with a session could not be imported.
    #[error("subagent log {name}: {message}")]
    Subagent {
        /// The log's file name.
        name: String,
        /// What is wrong.
        message: String,
    },
    /// A sealed transcript whose chain is broken: nothing is imported from it.
    #[error(
        "the chain is broken at line {line} (link {position}): {what}; nothing is imported from a broken chain"
    )]
    BrokenChain {
        /// The physical line of the first link that does not check out.
        line: u64,
        /// Its 0-based position.
        position: u64,
        /// Which check failed.
        what: String,
    },
}

impl From<LineError> for ImportError {
    fn from(err: LineError) -> Self {
        ImportError::Input(err)
    }
}

const EXPECTED: &str = "expected an agent log of a known format (claude-code, codex, gemini, \
copilot, cursor, openai, responses, anthropic, mcp, inspect, swe-agent, openhands, cline, otel, \
or a transcript of this tool; see docs/import.md); name the format with --from";

/// A subagent's log given beside a session (Claude Code's
/// `<session>/subagents/agent-ID.jsonl`): its name and bytes.
#[derive(Debug, Clone, Copy)]
pub struct Subagent<'a> {
    /// The file name, `agent-ID.jsonl`; the subagent's id is `ID`.
    pub name: &'a str,
    /// The file's bytes.
    pub bytes: &'a [u8],
}

/// The files of a session's `tool-results` folder, where Claude Code keeps a result
/// too large for the session (see the Claude Code reader): given a file's name (a plain name,
/// never a path), its bytes, or why it cannot be had. The caller reads them from the
/// session's own folder only; the core touches no file system.
pub type ToolResults<'a> = dyn Fn(&str) -> Result<Vec<u8>, String> + 'a;

/// What is found beside a session: its subagents' logs, and its `tool-results`
/// folder's files.
#[derive(Clone, Copy, Default)]
pub struct Beside<'a> {
    /// The logs of its subagents.
    pub subagents: &'a [Subagent<'a>],
    /// The files of its `tool-results` folder; `None` when it has no folder (standard
    /// input).
    pub tool_results: Option<&'a ToolResults<'a>>,
}

/// Imports the bytes of an input read as `source`.
pub fn import(bytes: &[u8], source: Source) -> Result<Imported, ImportError> {
    import_beside(bytes, source, Beside::default())
}

/// The format `--from auto` recognises `bytes` as, without importing them: `None`
/// when none does (the import's error says why).
pub fn detect_format(bytes: &[u8]) -> Option<Format> {
    if bytes.starts_with(b"PK\x03\x04") {
        return Some(Format::Inspect);
    }
    detect::detect(&Document::read(bytes, None).ok()?).ok()
}

/// Imports the bytes of an input read as `source`, with the logs of its subagents
/// (read only when the input is a Claude Code session; see `claude_code` for where
/// their calls go).
#[cfg(test)]
fn import_with_subagents(
    bytes: &[u8],
    source: Source,
    subagents: &[Subagent<'_>],
) -> Result<Imported, ImportError> {
    import_beside(
        bytes,
        source,
        Beside {
            subagents,
            tool_results: None,
        },
    )
}

/// Imports the bytes of an input read as `source`, with what is found beside it:
/// its subagents' logs and the files of its results kept beside it (both read only
/// when the input is a Claude Code session; see the Claude Code reader).
pub fn import_beside(
    bytes: &[u8],
    source: Source,
    beside: Beside<'_>,
) -> Result<Imported, ImportError> {
    let subagents = beside.subagents;
    if bytes.starts_with(b"PK\x03\x04") {
        return match source {
            Source::Auto | Source::Named(Format::Inspect) => {
                let (calls, warnings, said) = eval::read(bytes)?;
                Ok(Imported {
                    format: Format::Inspect,
                    detected: source == Source::Auto,
                    calls,
                    warnings,
                    messages: said::placed(said, None, &[]),
                })
            }
            _ => Err(ImportError::Zip),
        };
    }
    let document = Document::read(bytes, source.format())?;
    let (format, detected) = match source.format() {
        None => (detect::detect(&document)?, true),
        Some(format) => (format, false),
    };
    let (mut calls, mut warnings, mut agents, said) = read_as(document, format, bytes)?;
    let session = (!subagents.is_empty() && !said.is_empty()).then(|| calls.clone());
    if format == Format::ClaudeCode {
        claude_code::place_subagents(&mut calls, &mut warnings, &mut agents, subagents)?;
        claude_code::read_persisted(
            &mut calls,
            &mut warnings,
            beside.tool_results,
            &agents.persisted,
        );
        warnings.sort_by_key(|w| w.line);
    }
    if calls.is_empty()
        && let Some((looks_like, line)) = detect::calls_seen(Document::read(bytes, Some(format))?)
    {
        if looks_like != format {
            return Err(ImportError::WrongFormat {
                read_as: format,
                looks_like,
                line,
            });
        }
        // OTLP spans are evidence of a format that may hold calls, not of a call.
        if format != Format::Otel {
            return Err(ImportError::NoCallRead { format, line });
        }
    }
    let messages = said::placed(said, session.as_deref(), &calls);
    let calls = calls.into_iter().map(|(_, call)| call).collect();
    Ok(Imported {
        format,
        detected,
        calls,
        warnings,
        messages,
    })
}

/// The calls (each with its id) and warnings of `document` read as `format`, and for
/// Claude Code what it says of its subagents, and the conversation read beside the
/// calls (`said.rs`).
type Read = (
    Vec<(String, Call)>,
    Vec<Warning>,
    claude_code::Agents,
    Vec<(usize, MessageKind, String)>,
);

pub(crate) fn read_as(
    document: Document<'_>,
    format: Format,
    bytes: &[u8],
) -> Result<Read, ImportError> {
    let mut pairing = Pairing::new(format == Format::ClaudeCode);
    let mut agents = claude_code::Agents::default();
    match format {
        Format::Transcript => own::read_transcript(bytes, &mut pairing)?,
        Format::Sealed => own::read_sealed(bytes, &mut pairing)?,
        _ => {
            let items = document.items(format);
            match format {
                Format::ClaudeCode => claude_code::read(items, &mut pairing, &mut agents)?,
                Format::Openai | Format::SweAgent | Format::Inspect => {
                    openai::read(items, &mut pairing)?
                }
                Format::Anthropic => anthropic::read(items, &mut pairing)?,
                Format::Mcp => mcp::read(items, &mut pairing)?,
                Format::Codex => codex::read(items, &mut pairing)?,
                Format::Responses => responses::read(items, &mut pairing)?,
                Format::Gemini => gemini::read(items, &mut pairing)?,
                Format::Copilot => copilot::read(items, &mut pairing)?,
                Format::Cursor => cursor::read(items, &mut pairing)?,
                Format::Openhands => openhands::read(items, &mut pairing)?,
                Format::Cline => cline::read(items, &mut pairing)?,
                Format::Otel => otel::read(items, &mut pairing)?,
                Format::Transcript | Format::Sealed => {}
            }
        }
    }
    let said = std::mem::take(&mut pairing.said);
    let (calls, warnings) = pairing.finish();
    Ok((calls, warnings, agents, said))
}

/// The items of an input: its JSON values, each checked and read lazily, with the
/// lines they start on.
pub(crate) type Items<'a> = Box<dyn Iterator<Item = Result<(u64, Raw<'a>), LineError>> + 'a>;

/// The items of an input as trees, for the formats that read them so.
pub(crate) type Trees<'a> = Box<dyn Iterator<Item = Result<(u64, Value), LineError>> + 'a>;

/// The items of `items` as trees: one item's tree at a time.
pub(crate) fn trees(items: Items<'_>) -> Trees<'_> {
    Box::new(items.map(|item| {
        let (line, raw) = item?;
        raw.to_value()
            .map(|value| (line, value))
            .map_err(|err| LineError {
                line,
                message: err.to_string(),
            })
    }))
}

/// An input as read: JSON Lines, or one JSON document (an array, each item with the
/// line it starts on, or an object with its members). A document is checked whole
/// once, then read lazily: nothing of it is held as a tree.
pub(crate) enum Document<'a> {
    Lines(&'a [u8]),
    Array(Vec<(u64, Raw<'a>)>),
    Object(Raw<'a>, RawMembers<'a>),
}

impl<'a> Document<'a> {
    /// An input is one JSON document when it starts with `[` (but MCP, whose lines
    /// may be batches, and this project's transcripts are always JSON Lines), or when
    /// it starts with `{` and its first line is not a whole JSON value (a
    /// pretty-printed document); JSON Lines otherwise.
    pub(crate) fn read(bytes: &'a [u8], format: Option<Format>) -> Result<Self, ImportError> {
        let lines_only = matches!(
            format,
            Some(Format::Mcp | Format::Transcript | Format::Sealed)
        );
        let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        let first = body
            .iter()
            .find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
            .copied();
        match first {
            Some(b'[') if !lines_only && format != Some(Format::ClaudeCode) => {}
            Some(b'{') if !lines_only && !first_line_is_json(bytes) => {
                if let Ok(document) = Self::whole(bytes) {
                    return Ok(document);
                }
                return Ok(Document::Lines(bytes));
            }
            _ => return Ok(Document::Lines(bytes)),
        }
        Self::whole(bytes)
    }

    pub(crate) fn whole(bytes: &'a [u8]) -> Result<Self, ImportError> {
        let error = |err: json::ParseError| LineError {
            line: err.line as u64,
            message: err.to_string(),
        };
        let text = json::decode_document(bytes).map_err(error)?;
        let raw = Raw::parse(text).map_err(error)?;
        if let Some(items) = raw.items() {
            let mut lines = LineCounter::new(text);
            return Ok(Document::Array(
                items
                    .map(|item| (lines.line_at(item.offset()), item))
                    .collect(),
            ));
        }
        match raw.members() {
            Some(members) if !text.trim_start().starts_with('[') => {
                Ok(Document::Object(raw, members))
            }
            _ => Err(ImportError::Whole(format!(
                "expected a JSON array of messages, found {}",
                raw.described()
            ))),
        }
    }

    /// The items to read as `format`.
    fn items(self, format: Format) -> Items<'a> {
        match self {
            Document::Lines(bytes) => Box::new(json_lines(bytes)),
            Document::Array(items) => Box::new(items.into_iter().map(Ok)),
            Document::Object(raw, members) => Box::new(
                detect::document_items(format, raw, members)
                    .into_iter()
                    .map(Ok),
            ),
        }
    }
}

/// The 1-based lines of offsets of a text, counted on from the last asked for.
pub(crate) struct LineCounter<'a> {
    bytes: &'a [u8],
    at: usize,
    line: u64,
}

impl<'a> LineCounter<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        LineCounter {
            bytes: text.as_bytes(),
            at: 0,
            line: 1,
        }
    }

    /// The line of byte `offset`.
    pub(crate) fn line_at(&mut self, offset: usize) -> u64 {
        if offset < self.at {
            (self.at, self.line) = (0, 1);
        }
        let offset = offset.min(self.bytes.len());
        self.line += memchr::memchr_iter(b'\n', &self.bytes[self.at..offset]).count() as u64;
        self.at = offset;
        self.line
    }
}

/// Whether the first non-blank line of `bytes` is one whole JSON value.
fn first_line_is_json(bytes: &[u8]) -> bool {
    json_lines(bytes).next().is_some_and(|first| first.is_ok())
}

/// The non-blank lines of `bytes`, each checked as one JSON value, with their 1-based
/// line numbers (a byte-order mark at the start is skipped, as in transcripts).
pub(crate) fn json_lines(
    bytes: &[u8],
) -> impl Iterator<Item = Result<(u64, Raw<'_>), LineError>> + '_ {
    bytes
        .split(|&b| b == b'\n')
        .zip(1u64..)
        .filter_map(|(bytes, line)| match line_text(line, bytes) {
            Ok(None) => None,
            Ok(Some(text)) => {
                Some(
                    Raw::parse(text)
                        .map(|value| (line, value))
                        .map_err(|err| LineError {
                            line,
                            message: err.to_string(),
                        }),
                )
            }
            Err(err) => Some(Err(err)),
        })
}

/// Whether the 1-based line `line` of `bytes` starts, after whitespace, with `{`.
pub(crate) fn looks_like_object(bytes: &[u8], line: u64) -> bool {
    bytes
        .split(|&b| b == b'\n')
        .nth(line.saturating_sub(1) as usize)
        .and_then(|text| {
            text.iter()
                .find(|b| !matches!(b, b' ' | b'\t' | b'\r' | 0xEF | 0xBB | 0xBF))
        })
        == Some(&b'{')
}

/// Hands each message of `items` (OpenAI, Anthropic, Cline) to `read` with its line:
/// a message that is not an object is skipped with a warning, and a request body
/// (`{"model": ..., "messages": [...]}`) where a message was expected gives its
/// messages, each on the line of the body. Each message's members are read lazily.
pub(crate) fn for_each_raw_message<'a>(
    items: Items<'a>,
    pairing: &mut Pairing,
    mut read: impl FnMut(u64, &RawMembers<'a>, &mut Pairing) -> Result<(), LineError>,
) -> Result<(), LineError> {
    for item in items {
        let (line, value) = item?;
        let Some(message) = value.members() else {
            pairing.skip(
                line,
                format!("message: {}, not an object", value.described()),
            );
            continue;
        };
        if rget(&message, "role").is_none()
            && let Some(messages) = rget(&message, "messages").and_then(|m| m.items())
        {
            for inner in messages {
                match inner.members() {
                    Some(inner) => read(line, &inner, pairing)?,
                    None => pairing.skip(
                        line,
                        format!("message: {}, not an object", inner.described()),
                    ),
                }
            }
            continue;
        }
        read(line, &message, pairing)?;
    }
    Ok(())
}

/// The member `key` of an object's members, read lazily.
pub(crate) use crate::json::raw_member as rget;

/// The member `key` of lazily read members, when it is a string.
pub(crate) fn rget_str<'a>(members: &RawMembers<'a>, key: &str) -> Option<Cow<'a, str>> {
    rget(members, key)?.as_str()
}

/// The member `key` of lazily read members when `take` accepts it, as [`required`].
pub(crate) fn rrequired<'a, T, E>(
    members: &RawMembers<'a>,
    key: &str,
    take: impl FnOnce(Raw<'a>) -> Option<T>,
    wrong: impl FnOnce(Option<Raw<'a>>) -> E,
) -> Result<T, E> {
    let found = rget(members, key);
    found.and_then(take).ok_or_else(|| wrong(found))
}

/// The canonical JSON of an id, as [`id_key`] gives it.
pub(crate) fn raw_id_key(id: Raw<'_>) -> String {
    let mut out = Vec::new();
    // The text was checked when it was read: writing it cannot fail.
    let _ = id.write_canonical(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// The key of an id that is a non-empty string, as [`string_id`].
pub(crate) fn raw_string_id(value: Raw<'_>) -> Option<String> {
    (value.json_type() == json::JsonType::Str { empty: false }).then(|| raw_id_key(value))
}

/// A non-empty string, as [`non_empty_string`].
pub(crate) fn raw_non_empty_string(value: Raw<'_>) -> Option<String> {
    value
        .as_str()
        .filter(|s| !s.is_empty())
        .map(Cow::into_owned)
}

/// What is wrong with the member `field`, as [`must_be`] says it.
pub(crate) fn raw_must_be(field: &str, wanted: &str, found: Option<Raw<'_>>) -> String {
    match found {
        Some(value) => format!("\"{field}\" must be {wanted}, found {}", value.described()),
        None => format!("no \"{field}\""),
    }
}

/// The error of a record's `what` nesting deeper than a record may.
pub(crate) fn too_deep(line: u64, what: &str) -> LineError {
    LineError {
        line,
        message: format!(
            "the {what} nest deeper than {} levels, too deep for a transcript record ({MAX_DEPTH} levels in all)",
            MAX_DEPTH - 1
        ),
    }
}

/// The canonical encoding of `value`, an object that becomes a record's `what`, as
/// [`fit`] gives it, written from its text.
pub(crate) fn raw_fit(line: u64, what: &str, value: Raw<'_>) -> Result<Vec<u8>, LineError> {
    if value.depth() >= MAX_DEPTH {
        return Err(too_deep(line, what));
    }
    let mut out = Vec::with_capacity(value.text().len());
    value.write_canonical(&mut out).map_err(|err| LineError {
        line,
        message: err.to_string(),
    })?;
    Ok(out)
}

/// The canonical response made of a result's `content` (absent: none) and error
/// flag, as `fit(line, "response", &content_response(content, is_error))` gives it,
/// written from the content's text.
pub(crate) fn raw_content_response(
    line: u64,
    content: Option<Raw<'_>>,
    is_error: bool,
) -> Result<Vec<u8>, LineError> {
    let Some(content) = content else {
        return Ok(if is_error {
            b"{\"is_error\":true}".to_vec()
        } else {
            b"{}".to_vec()
        });
    };
    if 1 + content.depth() >= MAX_DEPTH {
        return Err(too_deep(line, "response"));
    }
    // Written in place: `content` sorts before `is_error`.
    let mut out = Vec::with_capacity(content.text().len() + 32);
    out.extend_from_slice(b"{\"content\":");
    content.write_canonical(&mut out).map_err(|err| LineError {
        line,
        message: err.to_string(),
    })?;
    if is_error {
        out.extend_from_slice(b",\"is_error\":true");
    }
    out.push(b'}');
    Ok(out)
}

/// The canonical encoding of `value`, to be the value of a record's `what` at
/// `level` levels below its top: an error when the record would nest deeper than
/// [`MAX_DEPTH`] levels.
pub(crate) fn raw_value(
    line: u64,
    what: &str,
    value: Raw<'_>,
    level: usize,
) -> Result<Vec<u8>, LineError> {
    if level + value.depth() >= MAX_DEPTH {
        return Err(too_deep(line, what));
    }
    let mut out = Vec::with_capacity(value.text().len());
    value.write_canonical(&mut out).map_err(|err| LineError {
        line,
        message: err.to_string(),
    })?;
    Ok(out)
}

/// The canonical object of `members`, each a key and its value's canonical
/// encoding: sorted by key, as the encoding wants them.
pub(crate) fn object_bytes(mut members: Vec<(&str, Vec<u8>)>) -> Vec<u8> {
    members.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let len = members
        .iter()
        .map(|(k, v)| k.len() + v.len() + 4)
        .sum::<usize>()
        + 2;
    let mut out = Vec::with_capacity(len);
    out.push(b'{');
    for (i, (key, value)) in members.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        canonical::write_str(key, &mut out);
        out.push(b':');
        out.extend_from_slice(&value);
    }
    out.push(b'}');
    out
}

pub(crate) use crate::json::member as get;

/// The member `key` of an object's members, when it is a string.
pub(crate) fn get_str<'v>(members: &'v [(String, Value)], key: &str) -> Option<&'v str> {
    match get(members, key) {
        Some(Value::Str(s)) => Some(s),
        _ => None,
    }
}

/// How deep a value nests: 0 for a scalar, 1 for `[]` or `{}`.
fn depth(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
        Value::Object(members) => 1 + members.iter().map(|(_, v)| depth(v)).max().unwrap_or(0),
        _ => 0,
    }
}

/// The canonical encoding of `value`, an object that becomes a record's `what`
/// (`args` or `response`): an error when the record would nest deeper than
/// [`MAX_DEPTH`] levels.
pub(crate) fn fit(line: u64, what: &str, value: &Value) -> Result<Vec<u8>, LineError> {
    if depth(value) >= MAX_DEPTH {
        return Err(too_deep(line, what));
    }
    Ok(canonical::encode(value))
}

/// The response made of a result's `content` (absent: none) and error flag.
pub(crate) fn content_response(content: Option<&Value>, is_error: bool) -> Value {
    let mut members = Vec::new();
    if let Some(content) = content {
        members.push(("content".to_owned(), content.clone()));
    }
    if is_error {
        members.push(("is_error".to_owned(), Value::Bool(true)));
    }
    Value::Object(members)
}

/// An id as messages show it: its canonical JSON, cut short when long.
pub(crate) fn shown_id(key: &str) -> String {
    const LIMIT: usize = 80;
    if key.chars().count() > LIMIT {
        let cut: String = key.chars().take(LIMIT).collect();
        format!("{cut}...")
    } else {
        key.to_owned()
    }
}

/// A call waiting for, or paired with, its result.
struct Pending {
    line: u64,
    id: String,
    call: Call,
    answered: bool,
}

/// What a pending id stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Slot {
    /// The call at this position.
    Call(usize),
    /// A request that is not a tool call (MCP), made on this line.
    Other,
}

/// Pairs calls with their results by id: a result goes to the first call of its id
/// still waiting for one, so ids may repeat once answered.
pub(crate) struct Pairing {
    calls: Vec<Pending>,
    waiting: BTreeMap<String, VecDeque<(Slot, u64)>>,
    /// Claude Code logs a call or result again (a repeated line, a message split over
    /// lines): a repeat of an id with the same content is the same call.
    merge_repeats: bool,
    /// With `merge_repeats`: the position of the call of each id.
    by_id: BTreeMap<String, usize>,
    warnings: Vec<Warning>,
    /// The conversation read beside the calls: each prompt and answer with the
    /// number of calls read before it.
    said: Vec<(usize, MessageKind, String)>,
    /// The time of the item being read, when the format writes one
    /// ([`Pairing::clock`]): a call made now starts at it, a result given now ends
    /// its call at it.
    now: Option<u64>,
    /// The working directory the item being read says it was written in
    /// ([`Pairing::directory`]): a call made now was made there.
    cwd: Option<String>,
    /// An MCP log: ids are JSON-RPC ids.
    jsonrpc: bool,
    /// An MCP log: the protocol version of the last `initialize` result.
    protocol_version: Option<String>,
}

impl Pairing {
    pub(crate) fn new(merge_repeats: bool) -> Self {
        Pairing {
            calls: Vec::new(),
            waiting: BTreeMap::new(),
            merge_repeats,
            by_id: BTreeMap::new(),
            warnings: Vec::new(),
            said: Vec::new(),
            now: None,
            cwd: None,
            jsonrpc: false,
            protocol_version: None,
        }
    }

    /// A prompt or an answer, after the calls read so far (see `said.rs`); a text
    /// of nothing but white space is no message.
    pub(crate) fn said(&mut self, kind: MessageKind, text: String) {
        self.said_after(self.calls.len(), kind, text);
    }

    /// A prompt or an answer after the first `calls` calls read (a text of a message
    /// whose calls were read with it, placed after those before it).
    pub(crate) fn said_after(&mut self, calls: usize, kind: MessageKind, text: String) {
        if !text.trim().is_empty() {
            self.said.push((calls, kind, text));
        }
    }

    /// The time of the item read next (an RFC 3339 timestamp), or none.
    pub(crate) fn clock(&mut self, timestamp: Option<&str>) {
        self.now = timestamp.and_then(rfc3339_nanos);
    }

    /// The working directory the item read next says it was written in, or none.
    pub(crate) fn directory(&mut self, cwd: Option<&str>) {
        if self.cwd.as_deref() != cwd {
            self.cwd = cwd.map(str::to_owned);
        }
    }

    /// The time of the item read next, in nanoseconds since the Unix epoch, or none.
    pub(crate) fn clock_nanos(&mut self, nanos: Option<u64>) {
        self.now = nanos;
    }

    /// Gives the last call made its times, as the item stated them.
    pub(crate) fn timed(&mut self, start: Option<u64>, end: Option<u64>) {
        if let Some(pending) = self.calls.last_mut() {
            pending.call.meta.start = start;
            pending.call.meta.end = end;
        }
    }

    /// The last call made was made at `start` when it says so (else at the item's
    /// time), and its result, written with it, has no time of its own.
    pub(crate) fn started(&mut self, start: Option<u64>) {
        if let Some(pending) = self.calls.last_mut() {
            pending.call.meta.start = start.or(pending.call.meta.start);
            pending.call.meta.end = None;
        }
    }

    /// Ids are JSON-RPC request ids (an MCP log).
    pub(crate) fn jsonrpc(&mut self) {
        self.jsonrpc = true;
    }

    /// The protocol version an MCP `initialize` result gave.
    pub(crate) fn protocol_version(&mut self, version: String) {
        self.protocol_version = Some(version);
    }

    /// What is known of a call made now with the id key `id`.
    fn meta_now(&self, id: &str) -> CallMeta {
        let id = id_of_key(id);
        CallMeta {
            mcp: self.jsonrpc,
            jsonrpc_id: if self.jsonrpc { id.clone() } else { None },
            protocol_version: if self.jsonrpc {
                self.protocol_version.clone()
            } else {
                None
            },
            id,
            start: self.now,
            end: None,
            cwd: self.cwd.clone(),
        }
    }

    /// Adds a warning.
    pub(crate) fn warn(&mut self, line: u64, kind: WarningKind, message: String) {
        self.warnings.push(Warning {
            line,
            kind,
            message,
        });
    }

    /// How many calls there are so far.
    pub(crate) fn calls_len(&self) -> usize {
        self.calls.len()
    }

    /// How many warnings there are so far.
    pub(crate) fn warnings_len(&self) -> usize {
        self.warnings.len()
    }

    /// Names `name` in the warnings given since there were `from`.
    pub(crate) fn name_warnings(&mut self, from: usize, name: &str) {
        for warning in &mut self.warnings[from..] {
            warning.message = format!("{name}: {}", warning.message);
        }
    }

    /// Skips something not understood, with a warning.
    pub(crate) fn skip(&mut self, line: u64, message: String) {
        self.warn(line, WarningKind::Skipped, format!("skipped {message}"));
    }

    fn repeated_while_waiting(&mut self, line: u64, id: &str) {
        if let Some((_, first)) = self.waiting.get(id).and_then(|queue| queue.front()) {
            let message = format!(
                "id {} is used again while the request on line {first} is still waiting for its result; results go to the earliest first",
                shown_id(id)
            );
            self.warn(line, WarningKind::RepeatedId, message);
        }
    }

    /// A call of `tool` with the canonical arguments `args`, on `line`, with the id
    /// whose canonical JSON is `id`.
    pub(crate) fn call(&mut self, line: u64, id: String, tool: String, args: Vec<u8>) {
        if self.merge_repeats
            && let Some(&at) = self.by_id.get(&id)
        {
            let first = &self.calls[at];
            if first.call.tool != tool || first.call.args != args {
                let message = format!(
                    "tool_use id {} repeats with another call than on line {}; the repeat is skipped",
                    shown_id(&id),
                    first.line
                );
                self.warn(line, WarningKind::RepeatedId, message);
            }
            return;
        }
        self.repeated_while_waiting(line, &id);
        let at = self.calls.len();
        if self.merge_repeats {
            self.by_id.insert(id.clone(), at);
        }
        self.waiting
            .entry(id.clone())
            .or_default()
            .push_back((Slot::Call(at), line));
        let meta = self.meta_now(&id);
        self.calls.push(Pending {
            line,
            id,
            call: Call {
                line,
                tool,
                args,
                response: Vec::new(),
                meta,
            },
            answered: false,
        });
    }

    /// A call without an id, on `line`: it pairs with no result (its response is
    /// `response`, or [`NO_RESULT`] with a warning when `None`).
    pub(crate) fn call_unpaired(
        &mut self,
        line: u64,
        tool: String,
        args: Vec<u8>,
        response: Option<Vec<u8>>,
    ) {
        let answered = response.is_some();
        let mut meta = self.meta_now("");
        meta.end = if answered { self.now } else { None };
        self.calls.push(Pending {
            line,
            id: String::new(),
            call: Call {
                line,
                tool,
                args,
                response: response.unwrap_or_default(),
                meta,
            },
            answered,
        });
    }

    /// A call with an id whose result is given with it (inline).
    pub(crate) fn call_answered(
        &mut self,
        line: u64,
        id: String,
        tool: String,
        args: Vec<u8>,
        response: Vec<u8>,
    ) {
        let mut meta = self.meta_now(&id);
        meta.end = self.now;
        self.calls.push(Pending {
            line,
            id,
            call: Call {
                line,
                tool,
                args,
                response,
                meta,
            },
            answered: true,
        });
    }

    /// The position of the call of id `id` still waiting for its result.
    pub(crate) fn waiting_call(&self, id: &str) -> Option<usize> {
        match self.waiting.get(id)?.front()? {
            (Slot::Call(at), _) => Some(*at),
            (Slot::Other, _) => None,
        }
    }

    /// A request that is not a tool call, whose response is dropped.
    pub(crate) fn other_request(&mut self, line: u64, id: String) {
        self.repeated_while_waiting(line, &id);
        self.waiting
            .entry(id)
            .or_default()
            .push_back((Slot::Other, line));
    }

    /// Takes what is waiting for the result with id `id`, earliest first.
    pub(crate) fn take(&mut self, id: &str) -> Option<Slot> {
        let queue = self.waiting.get_mut(id)?;
        let (slot, _) = queue.pop_front()?;
        if queue.is_empty() {
            self.waiting.remove(id);
        }
        Some(slot)
    }

    /// Gives the call at `at` its response.
    pub(crate) fn answer(&mut self, at: usize, response: Vec<u8>) {
        let pending = &mut self.calls[at];
        pending.call.response = response;
        pending.answered = true;
        pending.call.meta.end = self.now;
    }

    /// A result with the id `id` and the canonical response `response`, on `line`.
    pub(crate) fn result(&mut self, line: u64, id: &str, response: Vec<u8>) {
        if let Some(Slot::Call(at)) = self.take(id) {
            self.answer(at, response);
            return;
        }
        if self.merge_repeats
            && let Some(&at) = self.by_id.get(id)
        {
            let first = &self.calls[at];
            if first.call.response != response {
                let message = format!(
                    "tool_result for id {} repeats with another result than the first; the repeat is dropped",
                    shown_id(id)
                );
                self.warn(line, WarningKind::RepeatedId, message);
            }
            return;
        }
        self.warn(
            line,
            WarningKind::NoCall,
            format!(
                "result for id {} has no call before it; dropped",
                shown_id(id)
            ),
        );
    }

    /// The calls in order, each with its id (empty when it had none) and, without a
    /// result, given [`NO_RESULT`]; and every warning, sorted by line (stable, so in
    /// the order found on a line).
    pub(crate) fn finish(mut self) -> (Vec<(String, Call)>, Vec<Warning>) {
        let mut calls = Vec::with_capacity(self.calls.len());
        for pending in self.calls {
            let mut call = pending.call;
            if !pending.answered {
                let id = if pending.id.is_empty() {
                    "no id".to_owned()
                } else {
                    format!("id {}", shown_id(&pending.id))
                };
                self.warnings.push(Warning {
                    line: pending.line,
                    kind: WarningKind::NoResult,
                    message: format!(
                        "call {} ({id}) has no result; kept with the response {}",
                        quote_name(&call.tool),
                        String::from_utf8_lossy(NO_RESULT)
                    ),
                });
                call.response = NO_RESULT.to_vec();
            }
            calls.push((pending.id, call));
        }
        self.warnings.sort_by_key(|w| w.line);
        (calls, self.warnings)
    }
}

/// The canonical JSON of an id, the key results are paired by.
pub(crate) fn id_key(id: &Value) -> String {
    String::from_utf8_lossy(&canonical::encode(id)).into_owned()
}

/// Writes the calls as a transcript: one record a line, `index`, `tool`, `args`,
/// `response` in that order, `args` and `response` in canonical form, every line
/// ending with LF. The text is ASCII.
pub fn write_transcript(calls: &[Call], out: &mut Vec<u8>) {
    for (index, call) in calls.iter().enumerate() {
        write_record(index, call, out);
    }
}

/// Writes `call` as the record of index `index`, as [`write_transcript`] writes each:
/// to write calls one at a time, each dropped once written.
pub fn write_record(index: usize, call: &Call, out: &mut Vec<u8>) {
    out.extend_from_slice(b"{\"index\":");
    out.extend_from_slice(index.to_string().as_bytes());
    out.extend_from_slice(b",\"tool\":");
    canonical::write_str(&call.tool, out);
    out.extend_from_slice(b",\"args\":");
    out.extend_from_slice(&call.args);
    out.extend_from_slice(b",\"response\":");
    out.extend_from_slice(&call.response);
    out.extend_from_slice(b"}\n");
}

/// `N warnings: 1 call without a result, 2 skipped items`, or `None` without
/// warnings.
pub fn summary(warnings: &[Warning]) -> Option<String> {
    if warnings.is_empty() {
        return None;
    }
    let mut counts: BTreeMap<WarningKind, usize> = BTreeMap::new();
    for warning in warnings {
        *counts.entry(warning.kind).or_default() += 1;
    }
    let parts: Vec<String> = counts.iter().map(|(kind, &n)| kind.counted(n)).collect();
    let n = warnings.len();
    Some(format!(
        "{n} warning{}: {}",
        if n == 1 { "" } else { "s" },
        parts.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn transcript(bytes: &str, source: Source) -> (String, Vec<Warning>) {
        let imported = import(bytes.as_bytes(), source).expect("imports");
        let mut out = Vec::new();
        write_transcript(&imported.calls, &mut out);
        (String::from_utf8(out).expect("ASCII"), imported.warnings)
    }

    #[test]
    fn detection_follows_the_content() {
        let cases = [
            (r#"{"type":"summary","summary":"x"}"#, Format::ClaudeCode),
            (
                r#"{"jsonrpc":"2.0","method":"initialize","id":0}"#,
                Format::Mcp,
            ),
            (r#"{"role":"user","content":"hi"}"#, Format::Openai),
            (r#"[{"role":"user","content":"hi"}]"#, Format::Openai),
            (
                r#"[{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"t","input":{}}]}]"#,
                Format::Anthropic,
            ),
            (
                "\nnull\n{\"type\":\"user\",\"message\":{}}\n",
                Format::ClaudeCode,
            ),
        ];
        for (text, format) in cases {
            let imported = import(text.as_bytes(), Source::Auto).expect(text);
            assert_eq!(
                (imported.format, imported.detected),
                (format, true),
                "{text}"
            );
        }
    }

    #[test]
    fn unrecognised_inputs_name_what_was_expected() {
        for text in ["", "hello", "[1, 2]", "{\"a\": 1}", "null\n"] {
            let err = import(text.as_bytes(), Source::Auto).expect_err(text);
            let message = match err {
                ImportError::Input(err) => err.message,
                other => other.to_string(),
            };
            assert!(message.contains("unrecognised input"), "{text}: {message}");
            assert!(
                message.ends_with("name the format with --from"),
                "{message}"
            );
        }
    }

    #[test]
    fn records_are_canonical_and_in_call_order() {
        let (text, warnings) = transcript(
            r#"[{"role":"assistant","content":[
                {"type":"tool_use","id":"b","name":"second","input":{"z":1,"a":"\u00e9"}},
                {"type":"tool_use","id":"a","name":"first","input":{}}]},
               {"role":"user","content":[
                {"type":"tool_result","tool_use_id":"a","content":"A"},
                {"type":"tool_result","tool_use_id":"b","content":[{"type":"text","text":"B"}],"is_error":true}]}]"#,
            Source::Named(Format::Anthropic),
        );
        assert_eq!(warnings, []);
        assert_eq!(
            text,
            concat!(
                r#"{"index":0,"tool":"second","args":{"a":"\u00e9","z":1},"response":{"content":[{"text":"B","type":"text"}],"is_error":true}}"#,
                "\n",
                r#"{"index":1,"tool":"first","args":{},"response":{"content":"A"}}"#,
                "\n"
            )
        );
    }

    #[test]
    fn calls_in_a_document_are_on_the_lines_where_their_messages_start() {
        let text = "{\n \"samples\": [\n  {\"messages\": [\n   {\"role\": \"user\", \"content\": \"x\"},\n   {\"role\": \"assistant\", \"tool_calls\": [{\"id\": \"a\", \"function\": \"f\", \"arguments\": {}}]}]},\n  {\"messages\": [\n   {\"role\": \"assistant\", \"tool_calls\": [{\"id\": \"b\", \"function\": \"g\", \"arguments\": {}}]}]}\n ],\n \"eval\": {}, \"version\": 2\n}\n";
        let imported = import(text.as_bytes(), Source::Auto).expect("imports");
        assert_eq!(imported.format, Format::Inspect);
        let lines: Vec<(u64, &str)> = imported
            .calls
            .iter()
            .map(|call| (call.line, call.tool.as_str()))
            .collect();
        assert_eq!(lines, [(5, "f"), (7, "g")]);
    }

    /// An Inspect AI tool message with an error and no content: the response's keys
    /// are in canonical order (the error first), as in every record.
    #[test]
    fn an_error_without_content_is_a_canonical_response() {
        let (text, warnings) = transcript(
            concat!(
                r#"{"role":"assistant","tool_calls":[{"id":"a","function":"f","arguments":{}}]}"#,
                "\n",
                r#"{"role":"tool","tool_call_id":"a","error":{"message":"boom"}}"#,
                "\n"
            ),
            Source::Named(Format::Inspect),
        );
        assert_eq!(warnings, []);
        assert_eq!(
            text,
            "{\"index\":0,\"tool\":\"f\",\"args\":{},\"response\":{\"error\":{\"message\":\"boom\"},\"is_error\":true}}\n"
        );
    }

    /// A result of millions of small objects, or a long text, is written from the
    /// input's text as the tree's canonical encoding would be.
    #[test]
    fn large_results_are_written_as_their_canonical_encoding() {
        let objects = format!("[{}]", vec![r#"{"b":2, "a":"\u00e9"}"#; 10_000].join(","));
        let text = "x\\n\\u0041".repeat(10_000);
        for content in [objects, format!("\"{text}\"")] {
            let call = r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"n","input":{"z":[1.50,-0]}}]}}"#;
            let log = format!(
                r#"{call}
{{"type":"user","message":{{"content":[{{"type":"tool_result","tool_use_id":"t","content":{content},"is_error":true}}]}}}}
"#
            );
            let (out, warnings) = transcript(&log, Source::Named(Format::ClaudeCode));
            assert_eq!(warnings, []);
            let expected = format!(
                "{{\"index\":0,\"tool\":\"n\",\"args\":{{\"z\":[1.5,0]}},\"response\":{{\"content\":{},\"is_error\":true}}}}\n",
                String::from_utf8(canonical::encode(&json::parse(&content).unwrap())).unwrap()
            );
            assert_eq!(out, expected);
        }
    }

    fn openai_arguments(nesting: usize) -> String {
        let args = format!(r#"{{"a":{}{}}}"#, "[".repeat(nesting), "]".repeat(nesting));
        format!(
            r#"{{"role":"assistant","tool_calls":[{{"id":"c","function":{{"name":"t","arguments":{}}}}}]}}"#,
            String::from_utf8(canonical::encode(&Value::Str(args))).expect("ASCII")
        )
    }

    #[test]
    fn records_nest_at_most_128_levels() {
        // The record (1), the arguments (2) and 126 arrays: 128 levels, read back.
        let (text, _) = transcript(&openai_arguments(126), Source::Named(Format::Openai));
        let line = text.lines().next().expect("one record");
        assert!(crate::transcript::parse_record(1, line, 0).is_ok());
        // One more is an error, not a record the transcript reader refuses.
        let err = import(
            openai_arguments(127).as_bytes(),
            Source::Named(Format::Openai),
        )
        .expect_err("too deep");
        assert_eq!(
            err,
            ImportError::Input(LineError {
                line: 1,
                message: "the arguments nest deeper than 127 levels, too deep for a transcript record (128 levels in all)".to_owned()
            })
        );
    }

    fn tools(imported: &Imported) -> Vec<(&str, String)> {
        imported
            .calls
            .iter()
            .map(|call| {
                (
                    call.tool.as_str(),
                    String::from_utf8_lossy(&call.response).into_owned(),
                )
            })
            .collect()
    }

    #[test]
    fn harness_actions_are_calls_and_unknown_call_items_are_warned_about() {
        let log = r#"[
{"type": "computer_call", "call_id": "c1", "action": {"type": "screenshot"}},
{"type": "computer_call_output", "call_id": "c1", "output": {"type": "computer_screenshot", "image_url": "u"}},
{"type": "shell_call", "call_id": "c2", "action": {"commands": ["ls"]}},
{"type": "shell_call_output", "call_id": "c2", "output": "a"},
{"type": "apply_patch_call", "call_id": "c3", "operation": {"type": "update_file", "path": "a", "diff": "d"}},
{"type": "apply_patch_call_output", "call_id": "c3", "output": "done"},
{"type": "rocket_call", "call_id": "c4"}
]"#;
        let imported = import(log.as_bytes(), Source::Auto).expect("imports");
        assert_eq!(imported.format, Format::Responses);
        assert_eq!(
            tools(&imported),
            [
                (
                    "computer",
                    r#"{"content":{"image_url":"u","type":"computer_screenshot"}}"#.to_owned()
                ),
                ("shell", r#"{"content":"a"}"#.to_owned()),
                ("apply_patch", r#"{"content":"done"}"#.to_owned()),
            ]
        );
        assert_eq!(imported.warnings.len(), 1);
        assert_eq!(imported.warnings[0].kind, WarningKind::Skipped);
        assert!(imported.warnings[0].message.contains("\"rocket_call\""));
        // An action that is not an object is malformed, an error.
        let err = import(
            br#"[{"type": "computer_call", "call_id": "c1", "action": "click"}]"#,
            Source::Auto,
        )
        .expect_err("malformed");
        assert!(
            err.to_string().contains("\"action\" must be an object"),
            "{err}"
        );
    }

    #[test]
    fn an_mcp_tools_call_without_an_id_is_a_call_without_a_result() {
        let log = r#"{"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "t", "arguments": {"a": 1}}}"#;
        let imported = import(log.as_bytes(), Source::Named(Format::Mcp)).expect("imports");
        assert_eq!(
            tools(&imported),
            [("t", r#"{"no_result":true}"#.to_owned())]
        );
        assert_eq!(imported.warnings.len(), 1);
        assert_eq!(imported.warnings[0].kind, WarningKind::NoResult);
    }

    #[test]
    fn an_envelope_is_unwrapped_only_around_one_json_rpc_message() {
        let log = concat!(
            r#"{"seq": 1, "dir": "c2s", "msg": {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t"}}}"#,
            "\n",
            r#"{"seq": 2, "dir": "s2c", "msg": {"jsonrpc": "2.0", "id": 1, "result": {"content": []}}}"#,
            "\n",
        );
        let imported = import(log.as_bytes(), Source::Auto).expect("imports");
        assert_eq!(imported.format, Format::Mcp);
        assert_eq!(tools(&imported), [("t", r#"{"content":[]}"#.to_owned())]);
        assert_eq!(imported.warnings, []);
        // A Claude Code entry's `message` is no JSON-RPC message: no envelope.
        let entry = r#"{"type": "user", "message": {"role": "user", "content": "hi"}}"#;
        let members = Raw::parse(entry).unwrap().members().unwrap();
        assert!(mcp::enveloped(&members).is_none());
    }

    #[test]
    fn gemini_sessions_one_a_line_read_a_message_written_again_once() {
        let session = |extra: &str| {
            format!(
                r#"{{"sessionId": "s", "projectHash": "p", "messages": [{{"id": "m1", "type": "gemini", "toolCalls": [{{"id": "a", "name": "ls", "args": {{}}, "result": []}}]}}{extra}]}}"#
            )
        };
        let later = r#", {"id": "m2", "type": "gemini", "toolCalls": [{"id": "b", "name": "cat", "args": {}, "result": []}]}"#;
        let log = format!("{}\n{}\n", session(""), session(later));
        let imported = import(log.as_bytes(), Source::Auto).expect("imports");
        assert_eq!(imported.format, Format::Gemini);
        let names: Vec<&str> = imported.calls.iter().map(|c| c.tool.as_str()).collect();
        assert_eq!(names, ["ls", "cat"]);
        assert_eq!(imported.calls[1].line, 2);
    }

    #[test]
    fn openhands_instances_pair_their_own_events_only() {
        let instance = |cause: u32| {
            format!(
                r#"{{"instance_id": "i", "history": [{{"id": 1, "source": "agent", "action": "run", "tool_call_metadata": {{"function_name": "bash"}}, "args": {{}}}}, {{"id": 2, "source": "agent", "cause": {cause}, "observation": "run", "content": "out"}}]}}"#
            )
        };
        // The second instance's observation names id 1 of its own instance.
        let log = format!("{}\n{}\n", instance(9), instance(1));
        let imported = import(log.as_bytes(), Source::Auto).expect("imports");
        assert_eq!(imported.format, Format::Openhands);
        assert_eq!(
            tools(&imported),
            [
                ("bash", r#"{"no_result":true}"#.to_owned()),
                ("bash", r#"{"content":"out"}"#.to_owned()),
            ]
        );
    }

    #[test]
    fn a_subagent_call_repeating_a_session_id_with_other_content_is_kept() {
        let call = |input: &str| {
            format!(
                r#"{{"type":"assistant","message":{{"content":[{{"type":"tool_use","id":"t","name":"Read","input":{input}}}]}}}}"#
            )
        };
        let session = call(r#"{"p":1}"#);
        let same = call(r#"{"p":1}"#);
        let other = call(r#"{"p":2}"#);
        for (log, kept) in [(same, 1), (other, 2)] {
            let subagents = [Subagent {
                name: "agent-a.jsonl",
                bytes: log.as_bytes(),
            }];
            let imported = import_with_subagents(session.as_bytes(), Source::Auto, &subagents)
                .expect("imports");
            assert_eq!(imported.calls.len(), kept, "{log}");
            let repeated = imported
                .warnings
                .iter()
                .filter(|w| w.kind == WarningKind::RepeatedId)
                .count();
            assert_eq!(repeated, kept - 1);
        }
    }

    #[test]
    fn persisted_results_are_asked_for_by_name_in_tool_results_only() {
        let session = |text: &str| {
            format!(
                "{}\n{}\n",
                r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"Bash","input":{}}]}}"#,
                format_args!(
                    r#"{{"type":"user","message":{{"content":[{{"type":"tool_result","tool_use_id":"t","content":{}}}]}}}}"#,
                    String::from_utf8(canonical::encode(&Value::Str(text.to_owned()))).unwrap()
                )
            )
        };
        let asked = std::cell::RefCell::new(Vec::new());
        let files = |name: &str| -> Result<Vec<u8>, String> {
            asked.borrow_mut().push(name.to_owned());
            match name {
                "x.txt" => Ok(b"whole".to_vec()),
                _ => Err("not there".to_owned()),
            }
        };
        let beside = Beside {
            subagents: &[],
            tool_results: Some(&files),
        };
        let read = |text: &str| {
            import_beside(session(text).as_bytes(), Source::Auto, beside).expect("imports")
        };
        let found = read(
            "<persisted-output>\nOutput too large (60KB). Full output saved to: C:\\Users\\A B\\.claude\\projects\\p\\s\\tool-results\\x.txt\n\nPreview (first 2KB):\nwh\n</persisted-output>",
        );
        assert_eq!(
            tools(&found),
            [("Bash", r#"{"content":"whole"}"#.to_owned())]
        );
        assert_eq!(found.warnings, []);
        let elsewhere = read(
            "<persisted-output>\nOutput too large (60KB). Full output saved to: /home/u/.ssh/id_rsa\n</persisted-output>",
        );
        assert_eq!(elsewhere.warnings.len(), 1);
        assert_eq!(elsewhere.warnings[0].kind, WarningKind::Persisted);
        let plain = read("Output has been saved to x.txt");
        assert_eq!(plain.warnings, []);
        // Only the plain name of a file of tool-results was ever asked for.
        assert_eq!(*asked.borrow(), ["x.txt"]);
    }
}
