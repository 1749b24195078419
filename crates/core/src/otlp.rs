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
    /// A request to encode in protobuf is not one [`otlp_request`] writes.
    #[error("not an OTLP/JSON request of toolreplay's: {0}")]
    Encoding(String),
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

/// The protobuf encoding (OTLP/HTTP `application/x-protobuf`) of a request
/// [`otlp_request`] gave: the same `ExportTraceServiceRequest`, field by field, as
/// the official definitions (`opentelemetry/proto/collector/trace/v1`) read it, each
/// message's fields in the order of their numbers, as a deterministic protobuf
/// encoder writes them. Only what [`otlp_request`] writes is taken; anything else is
/// an error (no span is dropped or changed on the way).
pub fn otlp_protobuf(request: &[u8]) -> Result<Vec<u8>, OtlpError> {
    let bad = |what: &str| OtlpError::Encoding(what.to_owned());
    let text = std::str::from_utf8(request).map_err(|_| bad("the request is not UTF-8"))?;
    let value = json::parse(text.trim_end()).map_err(|err| bad(&err.to_string()))?;
    let mut out = Vec::with_capacity(request.len() / 2);
    for resource in array(&value, "resourceSpans")? {
        let mut resource_spans = Vec::new();
        let mut attributes = Vec::new();
        for attribute in array(object(resource, "resource")?, "attributes")? {
            message(&mut attributes, 1, &key_value(attribute)?);
        }
        message(&mut resource_spans, 1, &attributes);
        for scope in array(resource, "scopeSpans")? {
            let mut scope_spans = Vec::new();
            let named = object(scope, "scope")?;
            let mut instrumentation = Vec::new();
            string_field(&mut instrumentation, 1, string(named, "name")?);
            string_field(&mut instrumentation, 2, string(named, "version")?);
            message(&mut scope_spans, 1, &instrumentation);
            for span in array(scope, "spans")? {
                message(&mut scope_spans, 2, &span_message(span)?);
            }
            message(&mut resource_spans, 2, &scope_spans);
        }
        message(&mut out, 1, &resource_spans);
    }
    Ok(out)
}

/// The protobuf `Span` of one span's OTLP/JSON.
fn span_message(span: &Value) -> Result<Vec<u8>, OtlpError> {
    let mut out = Vec::new();
    bytes_field(&mut out, 1, &hex_bytes(string(span, "traceId")?)?);
    bytes_field(&mut out, 2, &hex_bytes(string(span, "spanId")?)?);
    string_field(&mut out, 5, string(span, "name")?);
    varint_field(&mut out, 6, unsigned(member_of(span, "kind")?)?);
    fixed64_field(
        &mut out,
        7,
        unsigned(member_of(span, "startTimeUnixNano")?)?,
    );
    fixed64_field(&mut out, 8, unsigned(member_of(span, "endTimeUnixNano")?)?);
    for attribute in array(span, "attributes")? {
        message(&mut out, 9, &key_value(attribute)?);
    }
    for event in array(span, "events")? {
        let mut encoded = Vec::new();
        fixed64_field(
            &mut encoded,
            1,
            unsigned(member_of(event, "timeUnixNano")?)?,
        );
        string_field(&mut encoded, 2, string(event, "name")?);
        for attribute in array(event, "attributes")? {
            message(&mut encoded, 3, &key_value(attribute)?);
        }
        message(&mut out, 11, &encoded);
    }
    let status = object(span, "status")?;
    let mut encoded = Vec::new();
    if let Some(Value::Str(text)) = field(status, "message") {
        string_field(&mut encoded, 2, text);
    }
    if let Some(code) = field(status, "code") {
        varint_field(&mut encoded, 3, unsigned(code)?);
    }
    // A status given, even unset, is a message present (as the JSON has it).
    message(&mut out, 15, &encoded);
    Ok(out)
}

/// The protobuf `KeyValue` of an attribute: a string or a 64-bit integer.
fn key_value(attribute: &Value) -> Result<Vec<u8>, OtlpError> {
    let mut out = Vec::new();
    string_field(&mut out, 1, string(attribute, "key")?);
    let value = object(attribute, "value")?;
    let mut any = Vec::new();
    // A oneof member is written even when it holds its type's default.
    match (field(value, "stringValue"), field(value, "intValue")) {
        (Some(Value::Str(text)), None) => {
            tag(&mut any, 1, 2);
            varint(&mut any, text.len() as u64);
            any.extend_from_slice(text.as_bytes());
        }
        (None, Some(number)) => {
            let number: i64 = match number {
                Value::Str(digits) => digits.parse().ok(),
                Value::Int(digits) => digits.parse().ok(),
                _ => None,
            }
            .ok_or_else(|| OtlpError::Encoding("an intValue is not a 64-bit integer".into()))?;
            tag(&mut any, 3, 0);
            // int64: two's complement, as protobuf writes a negative one.
            varint(&mut any, number as u64);
        }
        _ => {
            return Err(OtlpError::Encoding(
                "an attribute is neither a stringValue nor an intValue".to_owned(),
            ));
        }
    }
    message(&mut out, 2, &any);
    Ok(out)
}

fn field<'v>(value: &'v Value, key: &str) -> Option<&'v Value> {
    match value {
        Value::Object(members) => json::member(members, key),
        _ => None,
    }
}

fn member_of<'v>(value: &'v Value, key: &str) -> Result<&'v Value, OtlpError> {
    field(value, key).ok_or_else(|| OtlpError::Encoding(format!("no {key:?}")))
}

fn object<'v>(value: &'v Value, key: &str) -> Result<&'v Value, OtlpError> {
    match member_of(value, key)? {
        object @ Value::Object(_) => Ok(object),
        _ => Err(OtlpError::Encoding(format!("{key:?} is not an object"))),
    }
}

fn array<'v>(value: &'v Value, key: &str) -> Result<&'v [Value], OtlpError> {
    match member_of(value, key)? {
        Value::Array(items) => Ok(items),
        _ => Err(OtlpError::Encoding(format!("{key:?} is not an array"))),
    }
}

fn string<'v>(value: &'v Value, key: &str) -> Result<&'v str, OtlpError> {
    match member_of(value, key)? {
        Value::Str(text) => Ok(text),
        _ => Err(OtlpError::Encoding(format!("{key:?} is not a string"))),
    }
}

/// An unsigned integer written as a number or (OTLP/JSON's 64-bit ones) a string.
fn unsigned(value: &Value) -> Result<u64, OtlpError> {
    match value {
        Value::Str(digits) => digits.parse().ok(),
        Value::Int(digits) => digits.parse().ok(),
        _ => None,
    }
    .ok_or_else(|| OtlpError::Encoding("a number is not an unsigned 64-bit integer".to_owned()))
}

/// The bytes an id's hex digits write.
fn hex_bytes(hex: &str) -> Result<Vec<u8>, OtlpError> {
    let digits = hex.as_bytes();
    if !digits.len().is_multiple_of(2) {
        return Err(OtlpError::Encoding(format!("id {hex:?} is not hex")));
    }
    digits
        .chunks(2)
        .map(|pair| {
            std::str::from_utf8(pair)
                .ok()
                .and_then(|pair| u8::from_str_radix(pair, 16).ok())
                .ok_or_else(|| OtlpError::Encoding(format!("id {hex:?} is not hex")))
        })
        .collect()
}

fn varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8 & 0x7f) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// A field's key: its number and wire type (0 varint, 1 fixed64, 2 length-delimited).
fn tag(out: &mut Vec<u8>, number: u32, wire: u8) {
    varint(out, (u64::from(number) << 3) | u64::from(wire));
}

/// A proto3 scalar holding its default (0, empty) is not written.
fn varint_field(out: &mut Vec<u8>, number: u32, value: u64) {
    if value != 0 {
        tag(out, number, 0);
        varint(out, value);
    }
}

fn fixed64_field(out: &mut Vec<u8>, number: u32, value: u64) {
    if value != 0 {
        tag(out, number, 1);
        out.extend_from_slice(&value.to_le_bytes());
    }
}

fn bytes_field(out: &mut Vec<u8>, number: u32, bytes: &[u8]) {
    if !bytes.is_empty() {
        tag(out, number, 2);
        varint(out, bytes.len() as u64);
        out.extend_from_slice(bytes);
    }
}

fn string_field(out: &mut Vec<u8>, number: u32, text: &str) {
    bytes_field(out, number, text.as_bytes());
}

/// An embedded message, written even when empty (it is present).
fn message(out: &mut Vec<u8>, number: u32, encoded: &[u8]) {
    tag(out, number, 2);
    varint(out, encoded.len() as u64);
    out.extend_from_slice(encoded);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A request of two spans (a string attribute, integers, an empty string, an
    /// event whose integer is 0, a status and an unset one, a name past ASCII).
    const REQUEST: &str = r#"{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"toolreplay"}}]},"scopeSpans":[{"scope":{"name":"toolreplay","version":"0.6.0"},"spans":[{"traceId":"00112233445566778899aabbccddeeff","spanId":"0011223344556677","name":"execute_tool Read","kind":1,"startTimeUnixNano":"1000000","endTimeUnixNano":"2000000","attributes":[{"key":"gen_ai.tool.name","value":{"stringValue":"Read"}},{"key":"toolreplay.index","value":{"intValue":"300"}},{"key":"e","value":{"stringValue":""}}],"events":[{"timeUnixNano":"1000000","name":"redundant-call","attributes":[{"key":"toolreplay.related_index","value":{"intValue":"0"}}]}],"status":{"code":2,"message":"denied"}},{"traceId":"00112233445566778899aabbccddeeff","spanId":"8899aabbccddeeff","name":"execute_tool é","kind":1,"startTimeUnixNano":"1700000000000000000","endTimeUnixNano":"1700000000000000000","attributes":[],"events":[],"status":{}}]}]}]}"#;

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn the_protobuf_encoding_is_that_of_the_official_definitions() {
        // What `ExportTraceServiceRequest.SerializeToString(deterministic=True)` of
        // the PyPI package `opentelemetry-proto` gives of REQUEST (its ids in base64,
        // as protobuf's JSON mapping reads bytes).
        let expected: String = [
            "0ac8020a1e0a1c0a0c736572766963652e6e616d65120c0a0a746f6f6c7265706c617912a5020a13",
            "0a0a746f6f6c7265706c61791205302e362e3012c8010a1000112233445566778899aabbccddeeff",
            "120800112233445566772a11657865637574655f746f6f6c205265616430013940420f0000000000",
            "4180841e00000000004a1a0a1067656e5f61692e746f6f6c2e6e616d6512060a04526561644a170a",
            "10746f6f6c7265706c61792e696e646578120318ac024a070a016512020a005a390940420f000000",
            "0000120e726564756e64616e742d63616c6c1a1e0a18746f6f6c7265706c61792e72656c61746564",
            "5f696e646578120218007a0a120664656e696564180212430a1000112233445566778899aabbccdd",
            "eeff12088899aabbccddeeff2a0f657865637574655f746f6f6c20c3a930013900002a36fe9c9717",
            "4100002a36fe9c97177a00",
        ]
        .concat();
        let encoded = otlp_protobuf(REQUEST.as_bytes()).expect("a request");
        assert_eq!(hex(&encoded), expected);
    }

    #[test]
    fn a_request_of_no_span_is_empty_and_other_shapes_are_refused() {
        assert_eq!(otlp_protobuf(&otlp_request(&[])), Ok(Vec::new()));
        let float = REQUEST.replace(r#"{"intValue":"300"}"#, r#"{"doubleValue":0.5}"#);
        assert_eq!(
            otlp_protobuf(float.as_bytes()),
            Err(OtlpError::Encoding(
                "an attribute is neither a stringValue nor an intValue".to_owned()
            ))
        );
        let odd = REQUEST.replace("0011223344556677\"", "001122334455667\"");
        assert_eq!(
            otlp_protobuf(odd.as_bytes()),
            Err(OtlpError::Encoding(
                "id \"001122334455667\" is not hex".to_owned()
            ))
        );
    }

    #[test]
    fn the_spans_of_a_transcript_encode_whole() {
        let mut spans = OtlpSpans::new(OtlpOptions::default());
        let record = OtlpRecord {
            tool: "Read",
            args: b"{}",
            response: b"{}",
            digest: None,
            meta: None,
        };
        let made = vec![spans.span(&record, &[]), spans.span(&record, &[])];
        let encoded = otlp_protobuf(&otlp_request(&made)).expect("a request");
        // Two spans, each named (field 5, 17 bytes), the second with its redundant
        // call as an event.
        assert_eq!(
            encoded
                .windows(19)
                .filter(|w| *w == b"*\x11execute_tool Read")
                .count(),
            2
        );
        assert_eq!(
            encoded
                .windows(b"redundant-call".len())
                .filter(|w| *w == b"redundant-call")
                .count(),
            1
        );
    }
}
