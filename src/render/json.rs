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
use toolreplay_core::{
    AttestationJsonCheck, HeadJsonCheck, JsonConfiguration, SignatureJsonCheck, VerifyJsonChecks,
};

use super::color::Paint;
use super::{Asked, InForce, VerifyReport, text};

/// The version of the JSON report format.
pub(crate) const FORMAT_VERSION: u32 = toolreplay_core::JSON_FORMAT_VERSION;

/// What stands for the findings in the document's head.
pub(crate) use toolreplay_core::JsonPlaceholder as Placeholder;

/// The placeholder as serde_json writes it.
pub(crate) const PLACEHOLDER: &str = toolreplay_core::JSON_PLACEHOLDER;

/// The ids of an attestation's verdict and of its reason.
pub(super) use toolreplay_core::attestation_verdict_ids as attestation_ids;

/// Writes the pretty document of `head`, whose last key holds a [`Placeholder`],
/// with the array of `items` in its place (the core's
/// [`toolreplay_core::write_json_document_with_array`]).
pub(super) fn document_with_array<T, F>(
    head: &impl Serialize,
    depth: usize,
    items: impl Iterator<Item = io::Result<T>>,
    item: F,
    out: &mut dyn io::Write,
) -> io::Result<()>
where
    F: FnMut(&T, &mut Vec<u8>),
{
    toolreplay_core::write_json_document_with_array(head, depth, items, item, out)
}

/// Writes `value` pretty, as [`document`] does, without the final LF.
pub(crate) fn pretty_into(value: &impl Serialize, out: &mut Vec<u8>) {
    toolreplay_core::pretty_json_into(value, out);
}

/// The pretty document of `value`, followed by LF.
pub(crate) fn document(value: &impl Serialize) -> String {
    toolreplay_core::json_document(value)
}

/// The core's form of the configuration in force.
fn configuration<'a>(
    configuration: Option<&'a InForce>,
    sets: &'a [&'static str],
) -> Option<JsonConfiguration<'a>> {
    configuration.map(|c| JsonConfiguration {
        file: &c.file,
        sets,
    })
}

/// The JSON report of `replay`, written to `out` as its findings are read back.
pub(crate) fn replay(
    report: &ReplayReport,
    file: &str,
    in_force: Option<&InForce>,
    out: &mut dyn io::Write,
) -> io::Result<()> {
    let sets = in_force.map(|c| c.sets.as_slice()).unwrap_or_default();
    let configuration = configuration(in_force, sets);
    toolreplay_core::write_replay_json(report, file, configuration.as_ref(), out)
}

/// The JSON report of `scope`, written to `out` as its findings are read back.
pub(crate) fn scope(
    report: &ScopeReport,
    file: &str,
    scope: &str,
    in_force: Option<&InForce>,
    out: &mut dyn io::Write,
) -> io::Result<()> {
    let sets = in_force.map(|c| c.sets.as_slice()).unwrap_or_default();
    let configuration = configuration(in_force, sets);
    toolreplay_core::write_scope_json(report, file, scope, configuration.as_ref(), out)
}

/// The JSON report of `verify`; `checks` says which checks were asked for. The words
/// of each check are the text report's.
pub(crate) fn verify(report: &VerifyReport, checks: Asked, file: &str) -> String {
    let head_words = report.head.as_ref().map(|check| {
        let mut words = String::new();
        text::head_words(check, Paint::PLAIN, &mut words);
        words
    });
    let signature_words = report.signature.as_ref().map(|check| {
        format!(
            "{}: {}",
            text::signature_word(&check.verdict),
            text::signature_words(check)
        )
    });
    let attestation_words = report.attestation.as_ref().map(|check| {
        format!(
            "{}: {}",
            text::attestation_word(&check.verdict),
            text::attestation_words(check)
        )
    });
    let json_checks = VerifyJsonChecks {
        head: checks.head.then(|| {
            report
                .head
                .as_ref()
                .zip(head_words.as_deref())
                .map(|(check, message)| HeadJsonCheck {
                    verdict: &check.verdict,
                    pin: &check.pin,
                    message,
                })
        }),
        signature: checks.signature.then(|| {
            report
                .signature
                .as_ref()
                .zip(signature_words.as_deref())
                .map(|(check, message)| SignatureJsonCheck {
                    verdict: &check.verdict,
                    identity: &check.identity,
                    message,
                })
        }),
        attestation: checks.attestation.then(|| {
            report
                .attestation
                .as_ref()
                .zip(attestation_words.as_deref())
                .map(|(check, message)| AttestationJsonCheck {
                    verdict: &check.verdict,
                    identity: check.identity.as_deref(),
                    message,
                })
        }),
    };
    toolreplay_core::verify_json(&report.verdict, file, &json_checks)
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
/// the counts, and each difference (and each result not comparable) with both
/// sides' index (`null` for the side that lacks the call, and `at`, where it would
/// be there).
pub(crate) fn reconcile(
    report: &toolreplay_core::ReconcileReport,
    session: &str,
    log: &str,
) -> String {
    let listed = |list: &[toolreplay_core::LogDifference]| -> Vec<serde_json::Value> {
        list.iter()
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
            .collect()
    };
    document(&serde_json::json!({
        "format_version": FORMAT_VERSION,
        "command": "reconcile",
        "session": session,
        "log": log,
        "agent": report.agent.name(),
        "result": report.result().name(),
        "sealed": report.sealed,
        "logged": report.logged,
        "matched": report.matched,
        "denied_not_logged": report.denied_not_logged,
        "late_merged": report.late_merged,
        "replaced_not_logged": report.replaced_not_logged,
        "results_not_kept": report.results_not_kept,
        "unaligned": report.unaligned,
        "differences": listed(&report.differences),
        "not_comparable": listed(&report.not_comparable),
    }))
}
