//! Tool calls as OpenTelemetry spans: the OTLP/JSON encoding of an
//! `ExportTraceServiceRequest` (docs/otel.md), one `execute_tool` span per record,
//! following the GenAI semantic conventions. Byte-stable: the same records always
//! give the same bytes, ids and times included.
//!
//! - The trace id is the first 32 hex digits of the first link's digest, each span id
//!   the first 16 of its link's digest; an unsealed transcript's digests are those
//!   `seal` would give it, so a transcript and its sealed copy give the same trace.
//! - Records have no times: a span takes its call's times from the log it was
//!   imported from ([`CallMeta`]) where the log writes them; otherwise the span of
//!   index `i` starts at `i + 1` milliseconds after the Unix epoch and lasts one
//!   millisecond ([`SPAN_NANOS`]).
//! - The findings of `replay` at a call (by the rules given: `replay`'s own for the
//!   same input), and those given besides (`scope`'s), are its events; a denied
//!   call's decision findings too.
//!
//! [`OtlpSpans`] makes the spans one record at a time (what a live session sends),
//! [`export_otlp`] a whole transcript's request (what `export` writes): the same
//! records give the same spans either way.

use crate::canonical;
use crate::chain::{Sealer, UnsealedLink, Verdict};
use crate::finding::{Finding, FindingKind, finding_message};
use crate::graph::{CallRecord, Transcript, is_mcp_tool};
use crate::import::CallMeta;
use crate::json::{self, Value};
use crate::replay::{Options as ReplayOptions, Replay, fingerprints};
use crate::scope::{Scope, ScopeAudit};

/// How long a span lasts, and how far apart two spans start, in nanoseconds.
pub const SPAN_NANOS: u64 = 1_000_000;

/// The instrumentation scope's name in every request.
pub const OTLP_SCOPE_NAME: &str = "toolreplay";

/// What the spans hold.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OtlpOptions {
    /// Arguments and results (`gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`
    /// and `toolreplay.response`), opt-in as the conventions make them.
    pub with_content: bool,
    /// Every call is an MCP `tools/call` (a proxy's session); otherwise only tools
    /// whose names are an agent's names of MCP tools are.
    pub mcp: bool,
}

/// A finding at a call, an event of its span.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OtlpEvent {
    /// The audit that made it: `replay`, `scope` or `decision` (a live denial).
    pub audit: &'static str,
    /// The finding's kind, the event's name.
    pub kind: String,
    /// What the text report says of it.
    pub message: String,
    /// The other call it refers to, if any.
    pub related: Option<u64>,
}

/// One record as the spans read it: canonical arguments and response.
#[derive(Debug, Clone, Copy)]
pub struct OtlpRecord<'a> {
    /// The tool.
    pub tool: &'a str,
    /// The canonical encoding of the arguments.
    pub args: &'a [u8],
    /// The canonical encoding of the response.
    pub response: &'a [u8],
    /// The link's digest, for a sealed input.
    pub digest: Option<&'a str>,
    /// What the log it was imported from says of the call (its id, times, MCP
    /// request), if anything.
    pub meta: Option<&'a CallMeta>,
}

/// The spans of a transcript, one record at a time, in order.
#[derive(Debug)]
pub struct OtlpSpans {
    options: OtlpOptions,
    replay: Replay,
    sealer: Sealer,
    trace: Option<String>,
    next: u64,
}

impl OtlpSpans {
    /// Spans for a transcript from its first record, with the findings of `replay`
    /// by the specification's rules.
    pub fn new(options: OtlpOptions) -> Self {
        Self::judged(options, ReplayOptions::default())
    }

    /// Spans for a transcript from its first record, with the findings of `replay`
    /// judging calls as `judging` says.
    pub fn judged(options: OtlpOptions, judging: ReplayOptions) -> Self {
        OtlpSpans {
            options,
            replay: Replay::with_options(judging),
            sealer: Sealer::new(),
            trace: None,
            next: 0,
        }
    }

    /// How many records were taken.
    pub fn records(&self) -> u64 {
        self.next
    }

    /// Takes the next record and gives its span (JSON, no trailing LF), with
    /// `events` (another audit's findings at it) after replay's.
    pub fn span(&mut self, record: &OtlpRecord<'_>, events: &[OtlpEvent]) -> Vec<u8> {
        let index = self.next;
        self.next += 1;
        let digest = match record.digest {
            Some(digest) => {
                self.sealer = Sealer::after(digest);
                digest.to_owned()
            }
            None => {
                let mut link = UnsealedLink::new(
                    &index.to_string(),
                    record.tool,
                    record.args,
                    record.response,
                );
                self.sealer.seal_link(&mut link);
                self.sealer.head().to_owned()
            }
        };
        let trace = self
            .trace
            .get_or_insert_with(|| hex_prefix(&digest, 32))
            .clone();
        let (call, response) = fingerprints(record.tool, record.args, record.response);
        self.replay
            .observe_fingerprints(index + 1, index, record.tool, call, response);
        let mut all: Vec<OtlpEvent> = self
            .replay
            .recent()
            .iter()
            .map(|kind| event("replay", record.tool, index, kind, ""))
            .collect();
        all.extend(events.iter().cloned());
        write_span(
            &mut SpanParts {
                trace: &trace,
                span: &hex_prefix(&digest, 16),
                index,
                record,
                stated: record.digest,
                options: self.options,
            },
            all,
        )
    }
}

/// The event of a finding of `kind` at the call to `tool` at `index`.
fn event(
    audit: &'static str,
    tool: &str,
    index: u64,
    kind: &FindingKind,
    agent: &str,
) -> OtlpEvent {
    let finding = Finding {
        index,
        tool: tool.to_owned(),
        kind: kind.clone(),
        line: index + 1,
        call: [0; 32],
    };
    OtlpEvent {
        audit,
        kind: kind.name().to_owned(),
        message: finding_message(&finding, agent),
        related: kind.related_index(),
    }
}

/// The first `n` characters of a digest (a digest is ASCII hex).
fn hex_prefix(digest: &str, n: usize) -> String {
    digest.get(..n).unwrap_or(digest).to_ascii_lowercase()
}

/// The request holding `spans` (as [`OtlpSpans::span`] gives them), one line
/// ending with LF; no span makes a request with no resource spans.
pub fn otlp_request(spans: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::with_capacity(spans.iter().map(Vec::len).sum::<usize>() + 256);
    if spans.is_empty() {
        out.extend_from_slice(b"{\"resourceSpans\":[]}\n");
        return out;
    }
    out.extend_from_slice(b"{\"resourceSpans\":[{\"resource\":{\"attributes\":[");
    attribute_str(&mut out, "service.name", "toolreplay", true);
    out.extend_from_slice(b"]},\"scopeSpans\":[{\"scope\":{\"name\":");
    canonical::write_str(OTLP_SCOPE_NAME, &mut out);
    out.extend_from_slice(b",\"version\":");
    canonical::write_str(env!("CARGO_PKG_VERSION"), &mut out);
    out.extend_from_slice(b"},\"spans\":[");
    for (n, span) in spans.iter().enumerate() {
        if n > 0 {
            out.push(b',');
        }
        out.extend_from_slice(span);
    }
    out.extend_from_slice(b"]}]}]}\n");
    out
}

/// Why a transcript cannot be exported.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OtlpError {
    /// The sealed input's chain is broken: its digests name no trace.
    #[error(
        "the chain is broken at index {0} (toolreplay verify names the link); only an intact chain is exported"
    )]
    Broken(u64),
    /// The scope's findings could not be kept.
    #[error("cannot keep the findings: {0}")]
    Findings(String),
}

/// The request of every record of `transcript` (read by
/// [`crate::read_graph_transcript`]), with the findings of `replay` judging as
/// `judging` says and of `scope`'s audit, if any, as events; each record's span with
/// what `meta` says of its call (by index; none past its end).
pub fn export(
    transcript: &Transcript,
    scope: Option<&Scope>,
    options: OtlpOptions,
    judging: ReplayOptions,
    meta: &[CallMeta],
) -> Result<Vec<u8>, OtlpError> {
    if let Some(Verdict::Broken { position, .. }) = &transcript.chain {
        return Err(OtlpError::Broken(*position));
    }
    let mut by_index: Vec<Vec<OtlpEvent>> = vec![Vec::new(); transcript.records.len()];
    if let Some(scope) = scope {
        let mut audit = ScopeAudit::new(scope);
        for record in &transcript.records {
            let context = transcript.contexts.at(record.index);
            let checked =
                scope.check_call_in(&record.tool, (&record.args, context), &record.response);
            audit.observe(record.line, &record.tool, checked);
        }
        let report = audit.finish();
        let findings = report
            .findings
            .to_vec()
            .map_err(|err| OtlpError::Findings(err.to_string()))?;
        for finding in findings {
            if let Some(events) = usize::try_from(finding.index)
                .ok()
                .and_then(|i| by_index.get_mut(i))
            {
                events.push(OtlpEvent {
                    audit: "scope",
                    kind: finding.kind.name().to_owned(),
                    message: finding_message(&finding, &report.agent),
                    related: finding.kind.related_index(),
                });
            }
        }
    }
    let mut spans = OtlpSpans::judged(options, judging);
    let made: Vec<Vec<u8>> = transcript
        .records
        .iter()
        .zip(&by_index)
        .enumerate()
        .map(|(at, (record, events))| spans.span(&as_record(record, meta.get(at)), events))
        .collect();
    Ok(otlp_request(&made))
}

fn as_record<'a>(record: &'a CallRecord, meta: Option<&'a CallMeta>) -> OtlpRecord<'a> {
    OtlpRecord {
        tool: &record.tool,
        args: &record.args,
        response: &record.response,
        digest: record.digest.as_deref(),
        meta,
    }
}

/// The span's start and end: the log's times where it wrote them (a call with only
/// a start ends when it starts; an end before the start is the start), else index
/// `i`'s synthetic millisecond.
fn times(index: u64, meta: Option<&CallMeta>) -> (u64, u64) {
    match meta.and_then(|meta| meta.start.or(meta.end).map(|start| (start, meta.end))) {
        Some((start, end)) => (start, end.filter(|&end| end >= start).unwrap_or(start)),
        None => {
            // Never 0, which protobuf's binary encoding cannot tell from an unset time.
            let start = index.saturating_add(1).saturating_mul(SPAN_NANOS);
            (start, start.saturating_add(SPAN_NANOS))
        }
    }
}

struct SpanParts<'a> {
    trace: &'a str,
    span: &'a str,
    index: u64,
    record: &'a OtlpRecord<'a>,
    stated: Option<&'a str>,
    options: OtlpOptions,
}

/// What a record's response says of how the call ended.
#[derive(Default)]
struct Ending {
    /// `toolreplay.outcome`: the live session's word for a call it stopped or
    /// could not simply finish.
    outcome: Option<String>,
    /// The decision's findings of a denied call.
    denied: Vec<(String, String)>,
    /// `"is_error": true`.
    error: bool,
}

fn ending(response: &[u8]) -> Ending {
    let Ok(Value::Object(members)) = std::str::from_utf8(response)
        .map_err(|_| ())
        .and_then(|text| json::parse(text).map_err(|_| ()))
    else {
        return Ending::default();
    };
    let mut ending = Ending {
        error: json::member(&members, "is_error") == Some(&Value::Bool(true)),
        ..Ending::default()
    };
    if let Some(Value::Object(live)) = json::member(&members, "toolreplay")
        && let Some(Value::Str(outcome)) = json::member(live, "outcome")
    {
        ending.outcome = Some(outcome.clone());
        if outcome == "denied"
            && let Some(Value::Array(findings)) = json::member(live, "findings")
        {
            for finding in findings {
                if let Value::Object(finding) = finding
                    && let (Some(Value::Str(kind)), Some(Value::Str(message))) = (
                        json::member(finding, "kind"),
                        json::member(finding, "message"),
                    )
                {
                    ending.denied.push((kind.clone(), message.clone()));
                }
            }
        }
    }
    ending
}

/// The span's JSON.
fn write_span(parts: &mut SpanParts<'_>, mut events: Vec<OtlpEvent>) -> Vec<u8> {
    let record = parts.record;
    let ending = ending(record.response);
    let denial: Vec<OtlpEvent> = ending
        .denied
        .iter()
        .map(|(kind, message)| OtlpEvent {
            audit: "decision",
            kind: kind.clone(),
            message: message.clone(),
            related: None,
        })
        .collect();
    events.splice(0..0, denial);
    let meta = record.meta;
    let (start, end) = times(parts.index, meta);
    let mcp = parts.options.mcp || meta.is_some_and(|meta| meta.mcp) || is_mcp_tool(record.tool);
    let mut out = Vec::with_capacity(record.args.len() + record.response.len() + 512);
    out.extend_from_slice(b"{\"traceId\":\"");
    out.extend_from_slice(parts.trace.as_bytes());
    out.extend_from_slice(b"\",\"spanId\":\"");
    out.extend_from_slice(parts.span.as_bytes());
    out.extend_from_slice(b"\",\"name\":");
    canonical::write_str(&format!("execute_tool {}", record.tool), &mut out);
    // SPAN_KIND_INTERNAL.
    out.extend_from_slice(b",\"kind\":1,\"startTimeUnixNano\":\"");
    out.extend_from_slice(start.to_string().as_bytes());
    out.extend_from_slice(b"\",\"endTimeUnixNano\":\"");
    out.extend_from_slice(end.to_string().as_bytes());
    out.extend_from_slice(b"\",\"attributes\":[");
    attribute_str(&mut out, "gen_ai.operation.name", "execute_tool", true);
    attribute_str(&mut out, "gen_ai.tool.name", record.tool, false);
    if let Some(id) = meta.and_then(|meta| meta.id.as_deref()) {
        attribute_str(&mut out, "gen_ai.tool.call.id", id, false);
    }
    let kind = if mcp { "extension" } else { "function" };
    attribute_str(&mut out, "gen_ai.tool.type", kind, false);
    if mcp {
        attribute_str(&mut out, "mcp.method.name", "tools/call", false);
        if let Some(version) = meta.and_then(|meta| meta.protocol_version.as_deref()) {
            attribute_str(&mut out, "mcp.protocol.version", version, false);
        }
        if let Some(id) = meta.and_then(|meta| meta.jsonrpc_id.as_deref()) {
            attribute_str(&mut out, "jsonrpc.request.id", id, false);
        }
    }
    attribute_int(&mut out, "toolreplay.index", parts.index);
    if let Some(digest) = parts.stated {
        attribute_str(&mut out, "toolreplay.link.digest", digest, false);
    }
    if let Some(outcome) = &ending.outcome {
        attribute_str(&mut out, "toolreplay.outcome", outcome, false);
        // The draft agent conventions' disposition: a call the policy denied, or
        // one it let run though it did not simply finish.
        let disposition = match outcome.as_str() {
            "denied" | "refused" => Some("deny"),
            "timed-out" | "cancelled" | "late" | "unrecordable" => Some("allow"),
            _ => None,
        };
        if let Some(disposition) = disposition {
            attribute_str(
                &mut out,
                "gen_ai.agent.tool.disposition",
                disposition,
                false,
            );
        }
    }
    let error_type = match ending.outcome.as_deref() {
        Some(outcome @ ("denied" | "refused" | "timed-out" | "cancelled" | "unrecordable")) => {
            Some(outcome)
        }
        _ if ending.error => Some("tool_error"),
        _ => None,
    };
    if let Some(error_type) = error_type {
        attribute_str(&mut out, "error.type", error_type, false);
    }
    if parts.options.with_content {
        let args = String::from_utf8_lossy(record.args);
        let response = String::from_utf8_lossy(record.response);
        attribute_str(&mut out, "gen_ai.tool.call.arguments", &args, false);
        attribute_str(&mut out, "gen_ai.tool.call.result", &response, false);
        attribute_str(&mut out, "toolreplay.response", &response, false);
    }
    out.extend_from_slice(b"],\"events\":[");
    for (n, event) in events.iter().enumerate() {
        if n > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"timeUnixNano\":\"");
        out.extend_from_slice(start.to_string().as_bytes());
        out.extend_from_slice(b"\",\"name\":");
        canonical::write_str(&event.kind, &mut out);
        out.extend_from_slice(b",\"attributes\":[");
        attribute_str(&mut out, "toolreplay.audit", event.audit, true);
        attribute_str(&mut out, "toolreplay.message", &event.message, false);
        if let Some(related) = event.related {
            attribute_int(&mut out, "toolreplay.related_index", related);
        }
        out.extend_from_slice(b"]}");
    }
    out.extend_from_slice(b"],\"status\":{");
    if let Some(error_type) = error_type {
        // STATUS_CODE_ERROR.
        out.extend_from_slice(b"\"code\":2,\"message\":");
        canonical::write_str(error_type, &mut out);
    }
    out.extend_from_slice(b"}}");
    out
}

fn attribute_str(out: &mut Vec<u8>, key: &str, value: &str, first: bool) {
    if !first {
        out.push(b',');
    }
    out.extend_from_slice(b"{\"key\":");
    canonical::write_str(key, out);
    out.extend_from_slice(b",\"value\":{\"stringValue\":");
    canonical::write_str(value, out);
    out.extend_from_slice(b"}}");
}

fn attribute_int(out: &mut Vec<u8>, key: &str, value: u64) {
    out.extend_from_slice(b",{\"key\":");
    canonical::write_str(key, out);
    // OTLP/JSON writes 64-bit integers as decimal strings.
    out.extend_from_slice(b",\"value\":{\"intValue\":\"");
    out.extend_from_slice(value.to_string().as_bytes());
    out.extend_from_slice(b"\"}}");
}
