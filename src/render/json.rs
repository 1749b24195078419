//! The JSON report of `replay`, `scope` and `verify` (`--format json`).
//!
//! One JSON document, pretty-printed with two-space indentation and followed by LF.
//! Keys always appear in the order given here, and every key is always present
//! (`null` where it does not apply). `format_version` changes only when a key is
//! removed or its meaning changes; new keys may be added in the same version.
//!
//! `replay`:
//!
//! ```json
//! {
//!   "format_version": 1,
//!   "command": "replay",
//!   "file": "samples/session-dirty.jsonl",
//!   "calls": 6,
//!   "divergence": 5,
//!   "findings": [
//!     {
//!       "kind": "redundant-call",
//!       "index": 2,
//!       "line": 3,
//!       "tool": "read_file",
//!       "related_index": 1,
//!       "message": "tool 'read_file' repeats the identical call at index 1 with no state change between them"
//!     }
//!   ]
//! }
//! ```
//!
//! - `configuration` (`replay` and `scope`, only when `toolreplay.toml` set some of
//!   the audit's inputs): `{"file": ..., "sets": [...]}`.
//! - `file`: the transcript as given on the command line, `<stdin>` for `-`.
//! - `calls`: the number of records. `divergence`: the index of the first
//!   non-determinism finding, or `null`.
//! - `findings`: sorted by index, then kind, as in the text report. `kind` is
//!   `non-determinism`, `redundant-call` or `permission-overreach`, or with a scope
//!   policy `argument-violation`, `budget-exceeded`, `flow-violation` or
//!   `sensitive-response`; `index` the
//!   call's index; `line` the 1-based physical line of its record in the input;
//!   `tool` its tool name, unescaped; `related_index` the first identical call
//!   (non-determinism), the most recent identical call (redundant-call), the most
//!   recent call to a source (flow-violation) or `null` (the others); `message` the
//!   text report's words after
//!   `index N: KIND: `.
//!
//! `scope` has `"command": "scope"`, `file`, `scope` (the scope file as given),
//! `agent`, `calls` and `findings` (as above: `permission-overreach`, and the policy
//! kinds when the scope file has policy rules).
//!
//! `verify`:
//!
//! ```json
//! {
//!   "format_version": 1,
//!   "command": "verify",
//!   "file": "sealed.jsonl",
//!   "chain": "intact",
//!   "links": 6,
//!   "head": "<the last link's digest: 64 zeros for an empty chain>",
//!   "first_broken": null
//! }
//! ```
//!
//! or, for a broken chain, `"chain": "broken"`, `links` and `head` `null`, and
//! `first_broken` an object: `index` (the link's position), `line` (its physical
//! line), `tool`, `field` (`prev` or `digest`: which check failed), `expected` and
//! `found` (both as in the link, unescaped).

use std::io;

use serde::Serialize;

use toolreplay_core::ReplayReport;
use toolreplay_core::ScopeReport;
use toolreplay_core::{AttestationVerdict, SignatureVerdict, Untrusted};
use toolreplay_core::{BrokenField, Verdict};
use toolreplay_core::{Finding, finding_message};
use toolreplay_core::{HeadVerdict, Pin};

use super::color::Paint;
use super::{Asked, AttestationChecked, HeadCheck, InForce, SignatureChecked, VerifyReport, text};

/// The version of the JSON report format.
pub(crate) const FORMAT_VERSION: u32 = 1;

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

/// What stands for the findings in the document's head: written where the array of
/// findings goes, once the rest is written.
pub(crate) struct Placeholder;

/// The placeholder as serde_json writes it.
pub(crate) const PLACEHOLDER: &str = "\"\\u0000findings\"";

impl Serialize for Placeholder {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str("\u{0}findings")
    }
}

/// Writes the pretty document of `head`, whose last key holds a [`Placeholder`],
/// with the array of `items` in its place: each item written as `item` says,
/// indented `depth` levels, so that the bytes are those serde_json would write for
/// the whole document, with no more than one item in memory at a time.
pub(super) fn document_with_array<T, F>(
    head: &impl Serialize,
    depth: usize,
    items: impl Iterator<Item = io::Result<T>>,
    mut item: F,
    out: &mut dyn io::Write,
) -> io::Result<()>
where
    F: FnMut(&T, &mut Vec<u8>),
{
    let head = document(head);
    // The last: a name written before it may hold the same characters.
    let Some(at) = head.rfind(PLACEHOLDER) else {
        debug_assert!(false, "the head holds the placeholder");
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
        out.write_all(&indent.as_bytes()[2..])?;
        out.write_all(b"]")?;
    }
    out.write_all(&head.as_bytes()[at + PLACEHOLDER.len()..])
}

/// Writes `value` pretty, as [`document`] does, without the final LF.
pub(crate) fn pretty_into(value: &impl Serialize, out: &mut Vec<u8>) {
    let written = serde_json::to_writer_pretty(out, value);
    debug_assert!(written.is_ok(), "a report serialises: {written:?}");
}

#[derive(Serialize)]
struct ReplayJson<'a> {
    format_version: u32,
    command: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    configuration: Option<&'a InForce>,
    file: &'a str,
    calls: u64,
    divergence: Option<u64>,
    findings: Placeholder,
}

#[derive(Serialize)]
struct ScopeJson<'a> {
    format_version: u32,
    command: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    configuration: Option<&'a InForce>,
    file: &'a str,
    scope: &'a str,
    agent: &'a str,
    calls: u64,
    findings: Placeholder,
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
    message: String,
}

#[derive(Serialize)]
struct HeadJson<'a> {
    verdict: &'static str,
    extra_links: Option<u64>,
    pinned_links: Option<u64>,
    pinned_digest: &'a str,
    message: String,
}

#[derive(Serialize)]
struct SignatureJson<'a> {
    verdict: &'static str,
    reason: Option<&'static str>,
    identity: &'a str,
    fingerprint: Option<&'a str>,
    message: String,
}

/// The document of `value`: serialising the structs of this module cannot fail
/// (every key is a string and every value a string, integer, null, array or object),
/// and serde_json's pretty printer writes them with two-space indentation.
pub(crate) fn document(value: &impl Serialize) -> String {
    let mut out = Vec::new();
    let written = serde_json::to_writer_pretty(&mut out, value);
    debug_assert!(written.is_ok(), "a report serialises: {written:?}");
    out.push(b'\n');
    // serde_json writes UTF-8.
    String::from_utf8_lossy(&out).into_owned()
}

fn head_json(check: &HeadCheck) -> HeadJson<'_> {
    let mut words = String::new();
    text::head_words(check, Paint::PLAIN, &mut words);
    HeadJson {
        verdict: match check.verdict {
            HeadVerdict::Matches => "matches",
            HeadVerdict::Extended { .. } => "extended",
            HeadVerdict::Truncated => "truncated",
            HeadVerdict::NotInChain => "not-in-chain",
        },
        extra_links: match check.verdict {
            HeadVerdict::Extended { extra } => Some(extra),
            _ => None,
        },
        pinned_links: match &check.pin {
            Pin::Statement(pinned) => Some(pinned.links),
            Pin::Digest(_) => None,
        },
        pinned_digest: check.pin.digest(),
        message: words,
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

/// The id of a signature's verdict and of its reason.
pub(super) fn signature_ids(verdict: &SignatureVerdict) -> (&'static str, Option<&'static str>) {
    match verdict {
        SignatureVerdict::Good { .. } => ("good", None),
        SignatureVerdict::WrongNamespace { .. } => ("bad", Some("wrong-namespace")),
        SignatureVerdict::DoesNotSign => ("bad", Some("does-not-sign")),
        SignatureVerdict::Untrusted { why, .. } => ("not-trusted", Some(untrusted_id(why))),
    }
}

fn signature_json(check: &SignatureChecked) -> SignatureJson<'_> {
    let (verdict, reason) = signature_ids(&check.verdict);
    SignatureJson {
        verdict,
        reason,
        identity: &check.identity,
        fingerprint: match &check.verdict {
            SignatureVerdict::Good { fingerprint }
            | SignatureVerdict::Untrusted { fingerprint, .. } => Some(fingerprint),
            SignatureVerdict::WrongNamespace { .. } | SignatureVerdict::DoesNotSign => None,
        },
        message: format!(
            "{}: {}",
            text::signature_word(&check.verdict),
            text::signature_words(check)
        ),
    }
}

/// The id of an attestation's verdict and of its reason.
pub(super) fn attestation_ids(
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

fn attestation_json(check: &AttestationChecked) -> AttestationJson<'_> {
    let (verdict, reason) = attestation_ids(&check.verdict);
    AttestationJson {
        verdict,
        reason,
        identity: match &check.verdict {
            AttestationVerdict::Good { principals, .. } => {
                Some(check.identity.as_deref().unwrap_or(principals))
            }
            _ => check.identity.as_deref(),
        },
        fingerprint: match &check.verdict {
            AttestationVerdict::Good { fingerprint, .. }
            | AttestationVerdict::Untrusted { fingerprint, .. } => Some(fingerprint),
            _ => None,
        },
        message: format!(
            "{}: {}",
            text::attestation_word(&check.verdict),
            text::attestation_words(check)
        ),
    }
}

/// The JSON report of `replay`, written to `out` as its findings are read back.
pub(crate) fn replay(
    report: &ReplayReport,
    file: &str,
    configuration: Option<&InForce>,
    out: &mut dyn io::Write,
) -> io::Result<()> {
    let head = ReplayJson {
        format_version: FORMAT_VERSION,
        command: "replay",
        configuration,
        file,
        calls: report.calls,
        divergence: report.divergence,
        findings: Placeholder,
    };
    document_with_array(
        &head,
        2,
        report.findings.iter(),
        |f, buffer| pretty_into(&json_finding(f, ""), buffer),
        out,
    )
}

/// The JSON report of `scope`, written to `out` as its findings are read back.
pub(crate) fn scope(
    report: &ScopeReport,
    file: &str,
    scope: &str,
    configuration: Option<&InForce>,
    out: &mut dyn io::Write,
) -> io::Result<()> {
    let head = ScopeJson {
        format_version: FORMAT_VERSION,
        command: "scope",
        configuration,
        file,
        scope,
        agent: &report.agent,
        calls: report.calls,
        findings: Placeholder,
    };
    document_with_array(
        &head,
        2,
        report.findings.iter(),
        |f, buffer| pretty_into(&json_finding(f, &report.agent), buffer),
        out,
    )
}

/// The JSON report of `verify`; `checks` says which checks were asked for.
pub(crate) fn verify(report: &VerifyReport, checks: Asked, file: &str) -> String {
    let head_check = checks.head.then(|| report.head.as_ref().map(head_json));
    let signature = checks
        .signature
        .then(|| report.signature.as_ref().map(signature_json));
    let attestation = checks
        .attestation
        .then(|| report.attestation.as_ref().map(attestation_json));
    let json = match &report.verdict {
        Verdict::Intact { links, head } => VerifyJson {
            format_version: FORMAT_VERSION,
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
            format_version: FORMAT_VERSION,
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
    document(&json)
}

/// The JSON report of `diff`: the runs' verdict and counts, and the first difference
/// or, with `all` (`--all`), every difference kept and how many more there were.
pub(crate) fn diff(
    report: &toolreplay_core::DiffReport,
    all: Option<&toolreplay_core::AllDifferences>,
    a: &str,
    b: &str,
) -> String {
    use toolreplay_core::Difference;
    let at = |at: &toolreplay_core::DiffAt| serde_json::json!({"line": at.line, "tool": at.tool});
    let one = |difference: &Difference| match difference {
        Difference::Call { index, parts, a, b } => {
            let differs = parts.names();
            serde_json::json!({"index": index, "differs": differs, "a": at(a), "b": at(b)})
        }
        Difference::Ended {
            index,
            a_ended,
            at: other,
        } => {
            let (ended, side) = if *a_ended { ("a", "b") } else { ("b", "a") };
            serde_json::json!({"index": index, "ended": ended, side: at(other)})
        }
    };
    let mut doc = serde_json::json!({
        "format_version": FORMAT_VERSION,
        "command": "diff",
        "a": a,
        "b": b,
        "runs": if report.first.is_none() { "same" } else { "differ" },
        "calls_a": report.calls_a,
        "calls_b": report.calls_b,
        "first_difference": report.first.as_ref().map(one),
    });
    if let Some(all) = all {
        doc["differences"] = all.differences.iter().map(one).collect();
        doc["more_differences"] = serde_json::json!(all.more);
    }
    document(&doc)
}

/// The report of `reconcile` as one JSON document (docs/output.md): the verdict,
/// the counts, and each difference with both sides' index (`null` for the side that
/// lacks the call, and `at`, where it would be there).
pub(crate) fn reconcile(
    report: &toolreplay_core::ReconcileReport,
    session: &str,
    log: &str,
) -> String {
    let differences: Vec<serde_json::Value> = report
        .differences
        .iter()
        .map(|difference| {
            serde_json::json!({
                "kind": difference.kind.name(),
                "sealed": difference.sealed,
                "log": difference.log,
                "at": difference.at,
                "tool": difference.tool,
                "message": difference.message(),
            })
        })
        .collect();
    document(&serde_json::json!({
        "format_version": FORMAT_VERSION,
        "command": "reconcile",
        "session": session,
        "log": log,
        "agent": report.agent.name(),
        "result": if report.same() { "same" } else { "differ" },
        "sealed": report.sealed,
        "logged": report.logged,
        "matched": report.matched,
        "denied_not_logged": report.denied_not_logged,
        "late_merged": report.late_merged,
        "replaced_not_logged": report.replaced_not_logged,
        "results_not_kept": report.results_not_kept,
        "unaligned": report.unaligned,
        "differences": differences,
    }))
}
