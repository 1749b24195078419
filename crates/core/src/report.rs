//! The JSON reports (`--format json`) of `replay`, `scope`, `verify` and `claims`,
//! built here so that every front end (the `toolreplay` binary, the Python package)
//! writes the same bytes for the same audit.
//!
//! One JSON document, pretty-printed with two-space indentation and followed by LF.
//! Keys always appear in the order documented in docs/output.md, and every key is
//! always present (`null` where it does not apply). [`JSON_FORMAT_VERSION`] changes
//! only when a key is removed or its meaning changes.
//!
//! ```
//! use toolreplay_core::{ReplayOptions, Threads, audit_replay, write_replay_json};
//!
//! let transcript = "\
//! {\"index\": 0, \"tool\": \"read_file\", \"args\": {\"path\": \"a.md\"}, \"response\": {\"text\": \"A\"}}
//! {\"index\": 1, \"tool\": \"read_file\", \"args\": {\"path\": \"a.md\"}, \"response\": {\"text\": \"A\"}}
//! ";
//! let report = audit_replay(transcript.as_bytes(), &ReplayOptions::default(), Threads::default())?;
//! let mut out = Vec::new();
//! write_replay_json(&report, "run.jsonl", None, &mut out)?;
//! let json = String::from_utf8(out)?;
//! assert!(json.starts_with("{\n  \"format_version\": 1,\n  \"command\": \"replay\",\n  \"file\": \"run.jsonl\",\n  \"calls\": 2,"));
//! assert!(json.contains("\"kind\": \"redundant-call\""));
//! assert!(json.ends_with("}\n"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::io;

use serde::Serialize;

use crate::{
    AttestationVerdict, BrokenField, ClaimsReport, Finding, HeadVerdict, Pin, ReplayReport,
    ScopeReport, SignatureVerdict, Untrusted, Verdict, finding_message,
};

/// The version of the JSON report format.
pub const JSON_FORMAT_VERSION: u32 = 1;

/// The configuration file that set some of an audit's inputs, and which keys: the
/// `configuration` object of the `replay` and `scope` reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct JsonConfiguration<'a> {
    /// The file, as messages name it.
    pub file: &'a str,
    /// The keys it set for this audit.
    pub sets: &'a [&'a str],
}

#[derive(Serialize)]
struct JsonFinding<'a> {
    kind: &'static str,
    index: u64,
    line: u64,
    tool: &'a str,
    related_index: Option<u64>,
    message: String,
}

fn json_finding<'a>(f: &'a Finding, agent: &str) -> JsonFinding<'a> {
    JsonFinding {
        kind: f.kind.name(),
        index: f.index,
        line: f.line,
        tool: &f.tool,
        related_index: f.kind.related_index(),
        message: finding_message(f, agent),
    }
}

/// What stands for an array in a document's head, for
/// [`write_json_document_with_array`]: it serialises as [`JSON_PLACEHOLDER`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct JsonPlaceholder;

/// [`JsonPlaceholder`] as serde_json writes it.
pub const JSON_PLACEHOLDER: &str = "\"\\u0000findings\"";

impl Serialize for JsonPlaceholder {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str("\u{0}findings")
    }
}

/// Writes the pretty document of `head`, whose last key holds a [`JsonPlaceholder`],
/// with the array of `items` in its place: each item written as `item` says,
/// indented `depth` levels, so that the bytes are those serde_json would write for
/// the whole document, with no more than one item in memory at a time.
pub fn write_json_document_with_array<T, F>(
    head: &impl Serialize,
    depth: usize,
    items: impl Iterator<Item = io::Result<T>>,
    mut item: F,
    out: &mut dyn io::Write,
) -> io::Result<()>
where
    F: FnMut(&T, &mut Vec<u8>),
{
    let head = json_document(head);
    // The last: a name written before it may hold the same characters.
    let Some(at) = head.rfind(JSON_PLACEHOLDER) else {
        return Err(io::Error::other("no placeholder in the report's head"));
    };
    out.write_all(&head.as_bytes()[..at])?;
    let indent = "  ".repeat(depth);
    let mut first = true;
    let mut buffer = Vec::new();
    for value in items {
        let value = value?;
        out.write_all(if first { b"[\n" } else { b",\n" })?;
        first = false;
        buffer.clear();
        item(&value, &mut buffer);
        // serde_json writes no raw newline inside a string, so every newline is
        // one between lines: each line gets the indentation.
        out.write_all(indent.as_bytes())?;
        for line in buffer.split_inclusive(|&b| b == b'\n') {
            out.write_all(line)?;
            if line.ends_with(b"\n") {
                out.write_all(indent.as_bytes())?;
            }
        }
    }
    if first {
        out.write_all(b"[]")?;
    } else {
        out.write_all(b"\n")?;
        out.write_all(indent.get(2..).unwrap_or_default().as_bytes())?;
        out.write_all(b"]")?;
    }
    out.write_all(&head.as_bytes()[at + JSON_PLACEHOLDER.len()..])
}

/// Appends `value` to `out`, pretty as [`json_document`] writes it, without the
/// final LF.
pub fn pretty_json_into(value: &impl Serialize, out: &mut Vec<u8>) {
    let written = serde_json::to_writer_pretty(out, value);
    debug_assert!(written.is_ok(), "a report serialises: {written:?}");
}

/// The pretty document of `value` (two-space indentation) followed by LF. Values
/// whose keys are all strings serialise; any other gives what was written of it.
pub fn json_document(value: &impl Serialize) -> String {
    let mut out = Vec::new();
    pretty_json_into(value, &mut out);
    out.push(b'\n');
    // serde_json writes UTF-8.
    String::from_utf8_lossy(&out).into_owned()
}

#[derive(Serialize)]
struct ReplayJson<'a> {
    format_version: u32,
    command: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    configuration: Option<&'a JsonConfiguration<'a>>,
    file: &'a str,
    calls: u64,
    divergence: Option<u64>,
    findings: JsonPlaceholder,
}

#[derive(Serialize)]
struct ScopeJson<'a> {
    format_version: u32,
    command: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    configuration: Option<&'a JsonConfiguration<'a>>,
    file: &'a str,
    scope: &'a str,
    agent: &'a str,
    calls: u64,
    findings: JsonPlaceholder,
}

/// Writes the JSON report of a replay of the input named `file` to `out`, its
/// findings as they are read back from the report's store.
pub fn write_replay_json(
    report: &ReplayReport,
    file: &str,
    configuration: Option<&JsonConfiguration<'_>>,
    out: &mut dyn io::Write,
) -> io::Result<()> {
    let head = ReplayJson {
        format_version: JSON_FORMAT_VERSION,
        command: "replay",
        configuration,
        file,
        calls: report.calls,
        divergence: report.divergence,
        findings: JsonPlaceholder,
    };
    write_json_document_with_array(
        &head,
        2,
        report.findings.iter(),
        |f, buffer| pretty_json_into(&json_finding(f, ""), buffer),
        out,
    )
}

/// Writes the JSON report of the scope audit of the input named `file` against the
/// scope file named `scope` to `out`, its findings as they are read back.
pub fn write_scope_json(
    report: &ScopeReport,
    file: &str,
    scope: &str,
    configuration: Option<&JsonConfiguration<'_>>,
    out: &mut dyn io::Write,
) -> io::Result<()> {
    let head = ScopeJson {
        format_version: JSON_FORMAT_VERSION,
        command: "scope",
        configuration,
        file,
        scope,
        agent: &report.agent,
        calls: report.calls,
        findings: JsonPlaceholder,
    };
    write_json_document_with_array(
        &head,
        2,
        report.findings.iter(),
        |f, buffer| pretty_json_into(&json_finding(f, &report.agent), buffer),
        out,
    )
}

/// The pinned head against the chain's, for the `head_check` of a verify report:
/// its verdict, the pin, and the text report's words on it.
#[derive(Debug, Clone, Copy)]
pub struct HeadJsonCheck<'a> {
    /// How they compare.
    pub verdict: &'a HeadVerdict,
    /// The pinned head.
    pub pin: &'a Pin,
    /// The words of the text report.
    pub message: &'a str,
}

/// A signature of the head statement, checked, for the `signature` of a verify
/// report.
#[derive(Debug, Clone, Copy)]
pub struct SignatureJsonCheck<'a> {
    /// The verdict.
    pub verdict: &'a SignatureVerdict,
    /// The principal the signer must be.
    pub identity: &'a str,
    /// The words of the text report.
    pub message: &'a str,
}

/// An attestation, checked, for the `attestation` of a verify report.
#[derive(Debug, Clone, Copy)]
pub struct AttestationJsonCheck<'a> {
    /// The verdict.
    pub verdict: &'a AttestationVerdict,
    /// The principal the signer must be, if one was named.
    pub identity: Option<&'a str>,
    /// The words of the text report.
    pub message: &'a str,
}

/// The checks beyond the chain that a verify report states: each `None` when it
/// was not asked for (its key is left out), `Some(None)` when it was asked for but
/// not made (the chain is broken: `null`).
#[derive(Debug, Clone, Copy, Default)]
pub struct VerifyJsonChecks<'a> {
    /// `--head`.
    pub head: Option<Option<HeadJsonCheck<'a>>>,
    /// `--signature`.
    pub signature: Option<Option<SignatureJsonCheck<'a>>>,
    /// `--attestation`.
    pub attestation: Option<Option<AttestationJsonCheck<'a>>>,
}

#[derive(Serialize)]
struct BrokenJson<'a> {
    index: u64,
    line: u64,
    tool: &'a str,
    field: &'static str,
    expected: &'a str,
    found: &'a str,
}

#[derive(Serialize)]
struct VerifyJson<'a> {
    format_version: u32,
    command: &'static str,
    file: &'a str,
    chain: &'static str,
    links: Option<u64>,
    head: Option<&'a str>,
    first_broken: Option<BrokenJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    head_check: Option<Option<HeadJson<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    signature: Option<Option<SignatureJson<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    attestation: Option<Option<AttestationJson<'a>>>,
}

#[derive(Serialize)]
struct AttestationJson<'a> {
    verdict: &'static str,
    reason: Option<&'static str>,
    identity: Option<&'a str>,
    fingerprint: Option<&'a str>,
    message: &'a str,
}

#[derive(Serialize)]
struct HeadJson<'a> {
    verdict: &'static str,
    extra_links: Option<u64>,
    pinned_links: Option<u64>,
    pinned_digest: &'a str,
    message: &'a str,
}

#[derive(Serialize)]
struct SignatureJson<'a> {
    verdict: &'static str,
    reason: Option<&'static str>,
    identity: &'a str,
    fingerprint: Option<&'a str>,
    message: &'a str,
}

fn head_json<'a>(check: &HeadJsonCheck<'a>) -> HeadJson<'a> {
    HeadJson {
        verdict: match check.verdict {
            HeadVerdict::Matches => "matches",
            HeadVerdict::Extended { .. } => "extended",
            HeadVerdict::Truncated => "truncated",
            HeadVerdict::NotInChain => "not-in-chain",
        },
        extra_links: match check.verdict {
            HeadVerdict::Extended { extra } => Some(*extra),
            _ => None,
        },
        pinned_links: match check.pin {
            Pin::Statement(pinned) => Some(pinned.links),
            Pin::Digest(_) => None,
        },
        pinned_digest: check.pin.digest(),
        message: check.message,
    }
}

/// The id of why a key is not trusted.
fn untrusted_id(why: &Untrusted) -> &'static str {
    match why {
        Untrusted::NoKeyFor => "no-key-for",
        Untrusted::KeyNotAllowed => "key-not-allowed",
        Untrusted::NamespaceNotAllowed => "namespace-not-allowed",
        Untrusted::NotValidNow => "not-valid-now",
    }
}

/// The ids of a signature's verdict (`good`, `bad`, `not-trusted`) and of its
/// reason, as reports give them.
pub fn signature_verdict_ids(verdict: &SignatureVerdict) -> (&'static str, Option<&'static str>) {
    match verdict {
        SignatureVerdict::Good { .. } => ("good", None),
        SignatureVerdict::WrongNamespace { .. } => ("bad", Some("wrong-namespace")),
        SignatureVerdict::DoesNotSign => ("bad", Some("does-not-sign")),
        SignatureVerdict::Untrusted { why, .. } => ("not-trusted", Some(untrusted_id(why))),
    }
}

fn signature_json<'a>(check: &SignatureJsonCheck<'a>) -> SignatureJson<'a> {
    let (verdict, reason) = signature_verdict_ids(check.verdict);
    SignatureJson {
        verdict,
        reason,
        identity: check.identity,
        fingerprint: match check.verdict {
            SignatureVerdict::Good { fingerprint }
            | SignatureVerdict::Untrusted { fingerprint, .. } => Some(fingerprint),
            SignatureVerdict::WrongNamespace { .. } | SignatureVerdict::DoesNotSign => None,
        },
        message: check.message,
    }
}

/// The ids of an attestation's verdict (`good`, `bad`, `not-trusted`) and of its
/// reason, as reports give them.
pub fn attestation_verdict_ids(
    verdict: &AttestationVerdict,
) -> (&'static str, Option<&'static str>) {
    match verdict {
        AttestationVerdict::Good { .. } => ("good", None),
        AttestationVerdict::OtherPayloadType { .. } => ("bad", Some("other-payload-type")),
        AttestationVerdict::DoesNotVerify { .. } => ("bad", Some("does-not-verify")),
        AttestationVerdict::OtherKeyId { .. } => ("bad", Some("other-key-id")),
        AttestationVerdict::NotASessionStatement { .. } => ("bad", Some("not-a-session-statement")),
        AttestationVerdict::OtherSubject { .. } => ("bad", Some("other-subject")),
        AttestationVerdict::OtherHead { .. } => ("bad", Some("other-head")),
        AttestationVerdict::UnknownKey { .. } => ("not-trusted", Some("unknown-key")),
        AttestationVerdict::Untrusted { why, .. } => ("not-trusted", Some(untrusted_id(why))),
    }
}

fn attestation_json<'a>(check: &AttestationJsonCheck<'a>) -> AttestationJson<'a> {
    let (verdict, reason) = attestation_verdict_ids(check.verdict);
    AttestationJson {
        verdict,
        reason,
        identity: match check.verdict {
            AttestationVerdict::Good { principals, .. } => {
                Some(check.identity.unwrap_or(principals))
            }
            _ => check.identity,
        },
        fingerprint: match check.verdict {
            AttestationVerdict::Good { fingerprint, .. }
            | AttestationVerdict::Untrusted { fingerprint, .. } => Some(fingerprint),
            _ => None,
        },
        message: check.message,
    }
}

/// The JSON report of the verification of the sealed transcript named `file`: the
/// chain's `verdict`, and the `checks` beyond it.
///
/// ```
/// use toolreplay_core::{Stop, Threads, VerifyJsonChecks, check_sealed, seal, verify_json};
///
/// let transcript = "{\"index\": 0, \"tool\": \"t\", \"args\": {}, \"response\": {}}\n";
/// let mut sealed = Vec::new();
/// seal(transcript.as_bytes(), Threads::default(), |lines| {
///     sealed.extend_from_slice(lines.as_ref());
///     Ok::<(), std::convert::Infallible>(())
/// })
/// .map_err(Stop::into_read_error)?;
/// let checked = check_sealed(&sealed[..], None, Threads::default())?;
/// let json = verify_json(&checked.verdict, "s.jsonl", &VerifyJsonChecks::default());
/// assert!(json.contains("\"chain\": \"intact\",\n  \"links\": 1,"));
/// # Ok::<(), toolreplay_core::ReadError>(())
/// ```
pub fn verify_json(verdict: &Verdict, file: &str, checks: &VerifyJsonChecks<'_>) -> String {
    let head_check = checks.head.map(|c| c.as_ref().map(head_json));
    let signature = checks.signature.map(|c| c.as_ref().map(signature_json));
    let attestation = checks.attestation.map(|c| c.as_ref().map(attestation_json));
    let json = match verdict {
        Verdict::Intact { links, head } => VerifyJson {
            format_version: JSON_FORMAT_VERSION,
            command: "verify",
            file,
            chain: "intact",
            links: Some(*links),
            head: Some(head),
            first_broken: None,
            head_check,
            signature,
            attestation,
        },
        Verdict::Broken {
            position,
            field,
            expected,
            found,
            line,
            tool,
            ..
        } => VerifyJson {
            format_version: JSON_FORMAT_VERSION,
            command: "verify",
            file,
            chain: "broken",
            links: None,
            head: None,
            first_broken: Some(BrokenJson {
                index: *position,
                line: *line,
                tool,
                field: match field {
                    BrokenField::Prev => "prev",
                    BrokenField::Digest => "digest",
                },
                expected,
                found,
            }),
            head_check,
            signature,
            attestation,
        },
    };
    json_document(&json)
}

/// The JSON report of `claims` on the input named `file`.
pub fn claims_json(report: &ClaimsReport, file: &str) -> String {
    let value = serde_json::json!({
        "format_version": JSON_FORMAT_VERSION,
        "file": file,
        "calls": report.calls,
        "counts": report.counts,
        "turns": report.turns,
        "claims": report.claims,
    });
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');
    text
}
