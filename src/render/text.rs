//! The text reports of every command (spec sections 3, 4 and 6, and the words of
//! `verify --head`, `verify --signature` and `diff`), coloured as [`Paint`] says.
//!
//! Renderers are pure: they return the report's text, and the caller decides where it
//! goes.

use std::fmt::Write as _;
use std::io;

use toolreplay_core::ReplayReport;
use toolreplay_core::ScopeReport;
use toolreplay_core::Verdict;
use toolreplay_core::{AttestationVerdict, DSSE_PAYLOAD_TYPE};
use toolreplay_core::{DiffAt as At, DiffReport, Difference};
use toolreplay_core::{Findings, push_u64, quote_name, shown_field, write_finding_message};
use toolreplay_core::{HeadVerdict, Pin};
use toolreplay_core::{SIGNATURE_NAMESPACE, SignatureVerdict, Untrusted};

use super::color::{Paint, Tone};
use super::{AttestationChecked, HeadCheck, SignatureChecked, VerifyReport};

/// Writes the lines of `findings`, `index N: KIND: message` each, as they are read
/// back: each line made in one buffer kept from line to line, and written in one go.
fn finding_lines(
    findings: &Findings,
    agent: &str,
    paint: Paint,
    out: &mut dyn io::Write,
) -> io::Result<()> {
    let mut line = String::new();
    findings.read_each(|finding| {
        line.clear();
        line.push_str("index ");
        push_u64(finding.index, &mut line);
        line.push_str(": ");
        paint.kind(&finding.kind).push_to(&mut line);
        line.push_str(": ");
        write_finding_message(finding, agent, &mut line);
        line.push('\n');
        out.write_all(line.as_bytes())
    })
}

/// The text report of `replay`, written to `out` as its findings are read back.
pub(crate) fn replay(
    report: &ReplayReport,
    paint: Paint,
    out: &mut dyn io::Write,
) -> io::Result<()> {
    writeln!(out, "calls: {}", report.calls)?;
    match report.divergence {
        Some(index) => writeln!(out, "divergence: index {index}")?,
        None => writeln!(out, "divergence: none")?,
    }
    writeln!(out, "findings: {}", report.findings.len())?;
    finding_lines(&report.findings, "", paint, out)
}

/// The text report of `scope`, written to `out` as its findings are read back.
pub(crate) fn scope(report: &ScopeReport, paint: Paint, out: &mut dyn io::Write) -> io::Result<()> {
    writeln!(out, "calls: {}", report.calls)?;
    writeln!(out, "findings: {}", report.findings.len())?;
    finding_lines(&report.findings, &report.agent, paint, out)
}

/// The text report of `verify` on the chain alone.
pub(crate) fn verify(verdict: &Verdict, paint: Paint) -> String {
    match verdict {
        Verdict::Intact { .. } => format!("chain: {}\n", paint.verdict("intact", Tone::Holds)),
        Verdict::Broken {
            position,
            expected,
            found,
            ..
        } => format!(
            "chain: {}\nfirst broken link: index {position}\nexpected: {}\nfound: {}\n",
            paint.verdict("broken", Tone::Fails),
            shown_field(expected),
            shown_field(found)
        ),
    }
}

/// The text report of `verify` with the checks beyond the chain: the chain's lines,
/// then those of `--head`, then that of `--signature`.
pub(crate) fn verify_report(report: &VerifyReport, paint: Paint) -> String {
    let mut out = verify(&report.verdict, paint);
    if let Some(check) = &report.head {
        head(check, paint, &mut out);
    }
    if let Some(check) = &report.signature {
        signature(check, paint, &mut out);
    }
    if let Some(check) = &report.attestation {
        let _ = writeln!(
            out,
            "attestation: {}: {}",
            paint.verdict(
                attestation_word(&check.verdict),
                if check.verdict.is_good() {
                    Tone::Holds
                } else {
                    Tone::Fails
                }
            ),
            attestation_words(check)
        );
    }
    out
}

/// The word of an attestation's verdict: `good`, `bad` or `not trusted`.
pub(crate) fn attestation_word(verdict: &AttestationVerdict) -> &'static str {
    match verdict {
        AttestationVerdict::Good { .. } => "good",
        AttestationVerdict::Untrusted { .. } | AttestationVerdict::UnknownKey { .. } => {
            "not trusted"
        }
        _ => "bad",
    }
}

/// What an attestation is, or why it fails, in words: the text after
/// `attestation: WORD: `.
pub(crate) fn attestation_words(check: &AttestationChecked) -> String {
    let allowed = &check.allowed_signers;
    match &check.verdict {
        AttestationVerdict::Good {
            fingerprint,
            principals,
            key_type,
        } => format!(
            "{} with {key_type} key {fingerprint}",
            quote_name(check.identity.as_deref().unwrap_or(principals))
        ),
        AttestationVerdict::OtherPayloadType { found } => format!(
            "its payload type is {}, not {}",
            quote_name(found),
            quote_name(DSSE_PAYLOAD_TYPE)
        ),
        AttestationVerdict::DoesNotVerify { keyid } => format!(
            "the signature by {keyid} does not verify: the envelope was changed since it was signed"
        ),
        AttestationVerdict::OtherKeyId {
            keyids,
            fingerprint,
        } => format!(
            "its signature by {fingerprint} is filed under the key id {}: the envelope was changed since it was signed",
            keyids.join(", ")
        ),
        AttestationVerdict::UnknownKey { keyids } => format!(
            "no key in {allowed} made its signature (key id {})",
            keyids.join(", ")
        ),
        AttestationVerdict::Untrusted { why, fingerprint } => match &check.identity {
            Some(identity) => untrusted(
                *why,
                &SignatureChecked {
                    verdict: SignatureVerdict::DoesNotSign,
                    identity: identity.clone(),
                    allowed_signers: allowed.clone(),
                },
                fingerprint,
            ),
            None => match why {
                Untrusted::NotValidNow => format!(
                    "the key {fingerprint} is not valid at this time (valid-after, valid-before) in {allowed}"
                ),
                _ => format!(
                    "the key {fingerprint} is not allowed for namespace {} in {allowed}",
                    quote_name(SIGNATURE_NAMESPACE)
                ),
            },
        },
        AttestationVerdict::NotASessionStatement { why } => {
            format!("it is not a ToolReplay session statement: {why}")
        }
        AttestationVerdict::OtherSubject { attested, file } => {
            format!("it attests another file: sha256 {attested}, where this file's is {file}")
        }
        AttestationVerdict::OtherHead { attested } => format!(
            "it attests another chain: {} {}, {}",
            attested.links,
            if attested.links == 1 {
                "record"
            } else {
                "records"
            },
            attested.digest
        ),
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 { "link" } else { "links" }
}

/// The words of `verify --head`'s first line after `head: `.
pub(crate) fn head_words(check: &HeadCheck, paint: Paint, out: &mut String) {
    let HeadCheck { verdict, pin, head } = check;
    let differs = paint.verdict("differs", Tone::Fails);
    let _ = match verdict {
        HeadVerdict::Matches => write!(out, "{}", paint.verdict("matches", Tone::Holds)),
        HeadVerdict::Extended { extra } => write!(
            out,
            "{differs}: extended, {extra} {} after the pinned head",
            plural(*extra)
        ),
        HeadVerdict::Truncated => {
            let links = match pin {
                Pin::Statement(pinned) => pinned.links,
                Pin::Digest(_) => 0,
            };
            write!(
                out,
                "{differs}: truncated or re-sealed, {} {} where the pinned head has {links}",
                head.links,
                plural(head.links)
            )
        }
        HeadVerdict::NotInChain => write!(
            out,
            "{differs}: re-sealed or truncated, the pinned head is not in this chain"
        ),
    };
}

/// The lines of `verify --head`, each ending with LF.
fn head(check: &HeadCheck, paint: Paint, out: &mut String) {
    out.push_str("head: ");
    head_words(check, paint, out);
    out.push('\n');
    if check.verdict.matches() {
        return;
    }
    let head = &check.head;
    let _ = match &check.pin {
        Pin::Statement(pinned) => writeln!(
            out,
            "pinned: {} {}, {}",
            pinned.links,
            plural(pinned.links),
            pinned.digest
        ),
        Pin::Digest(digest) => writeln!(out, "pinned: {digest}"),
    };
    let _ = writeln!(
        out,
        "found: {} {}, {}",
        head.links,
        plural(head.links),
        head.digest
    );
}

/// Why a signature is not trusted, in words.
pub(crate) fn untrusted(why: Untrusted, check: &SignatureChecked, fingerprint: &str) -> String {
    let identity = quote_name(&check.identity);
    let allowed = &check.allowed_signers;
    match why {
        Untrusted::NoKeyFor => format!("no key for {identity} in {allowed}"),
        Untrusted::KeyNotAllowed => {
            format!("the signing key {fingerprint} is not allowed for {identity} in {allowed}")
        }
        Untrusted::NamespaceNotAllowed => format!(
            "the key of {identity} is not allowed for namespace {} in {allowed}",
            quote_name(SIGNATURE_NAMESPACE)
        ),
        Untrusted::NotValidNow => format!(
            "the key of {identity} is not valid at this time (valid-after, valid-before) in {allowed}"
        ),
    }
}

/// Why a signature is bad, or what it is, in words: the text after `signature: WORD: `.
pub(crate) fn signature_words(check: &SignatureChecked) -> String {
    match &check.verdict {
        SignatureVerdict::Good { fingerprint } => format!(
            "{} with ED25519 key {fingerprint}",
            quote_name(&check.identity)
        ),
        SignatureVerdict::WrongNamespace { namespace } => format!(
            "made for namespace {}, not {}",
            quote_name(namespace),
            quote_name(SIGNATURE_NAMESPACE)
        ),
        SignatureVerdict::DoesNotSign => "it does not sign the head of this chain".to_owned(),
        SignatureVerdict::Untrusted { why, fingerprint } => untrusted(*why, check, fingerprint),
    }
}

/// The word of a signature's verdict: `good`, `bad` or `not trusted`.
pub(crate) fn signature_word(verdict: &SignatureVerdict) -> &'static str {
    match verdict {
        SignatureVerdict::Good { .. } => "good",
        SignatureVerdict::WrongNamespace { .. } | SignatureVerdict::DoesNotSign => "bad",
        SignatureVerdict::Untrusted { .. } => "not trusted",
    }
}

/// The line of `verify --signature`, ending with LF.
fn signature(check: &SignatureChecked, paint: Paint, out: &mut String) {
    let tone = if check.verdict.is_good() {
        Tone::Holds
    } else {
        Tone::Fails
    };
    let _ = writeln!(
        out,
        "signature: {}: {}",
        paint.verdict(signature_word(&check.verdict), tone),
        signature_words(check)
    );
}

fn at_line(label: &str, at: &At, out: &mut String) {
    let _ = writeln!(
        out,
        "{label}: line {}: tool {}",
        at.line,
        quote_name(&at.tool)
    );
}

/// The text report of `diff`.
///
/// ```text
/// runs: differ
/// calls: 6 and 6
/// first difference: index 5
/// differs: response
/// a: line 6: tool 'search'
/// b: line 6: tool 'search'
/// ```
pub(crate) fn diff(report: &DiffReport, paint: Paint) -> String {
    let mut out = String::new();
    let Some(first) = &report.first else {
        let _ = write!(
            out,
            "runs: {}\ncalls: {}\n",
            paint.verdict("same", Tone::Holds),
            report.calls_a
        );
        return out;
    };
    let _ = writeln!(out, "runs: {}", paint.verdict("differ", Tone::Fails));
    let _ = writeln!(out, "calls: {} and {}", report.calls_a, report.calls_b);
    match first {
        Difference::Call { index, parts, a, b } => {
            let names = parts.names();
            let _ = writeln!(out, "first difference: index {index}");
            let _ = writeln!(out, "differs: {}", names.join(", "));
            at_line("a", a, &mut out);
            at_line("b", b, &mut out);
        }
        Difference::Ended { index, a_ended, at } => {
            let (ended, other) = if *a_ended { ("a", "b") } else { ("b", "a") };
            let _ = writeln!(out, "first difference: index {index}");
            let _ = writeln!(out, "differs: {ended} ended");
            if *a_ended {
                let _ = writeln!(out, "a: ended after {index} calls");
                at_line(other, at, &mut out);
            } else {
                at_line(other, at, &mut out);
                let _ = writeln!(out, "b: ended after {index} calls");
            }
        }
    }
    out
}

/// The list of `diff --all`, after the report: `differences: N`, then one line each.
pub(crate) fn all_differences(all: &toolreplay_core::AllDifferences, out: &mut String) {
    let total = all.differences.len() as u64 + all.more;
    let _ = writeln!(out, "differences: {total}");
    for difference in &all.differences {
        match difference {
            Difference::Call { index, parts, a, b } => {
                let names = parts.names();
                let _ = writeln!(
                    out,
                    "index {index}: {}: a: line {}: tool {}; b: line {}: tool {}",
                    names.join(", "),
                    a.line,
                    quote_name(&a.tool),
                    b.line,
                    quote_name(&b.tool)
                );
            }
            Difference::Ended { index, a_ended, at } => {
                let (ended, other) = if *a_ended { ("a", "b") } else { ("b", "a") };
                let _ = writeln!(
                    out,
                    "index {index}: {ended} ended: {other}: line {}: tool {}",
                    at.line,
                    quote_name(&at.tool)
                );
            }
        }
    }
    if all.more > 0 {
        let _ = writeln!(out, "(the first {} shown)", all.differences.len());
    }
}

/// The summary of findings (`--summary`), after the report: counts by kind and by
/// tool, then each finding by the input and line of its call. `inputs` are the
/// findings of each input with its name; `files` is how many inputs were audited,
/// when several. The findings are read back twice: to count, then to list.
pub(crate) fn summary(
    inputs: &[(&str, &Findings)],
    files: Option<usize>,
    out: &mut dyn io::Write,
) -> io::Result<()> {
    use std::collections::BTreeMap;
    let mut kinds: BTreeMap<&'static str, u64> = BTreeMap::new();
    let mut tools: BTreeMap<String, u64> = BTreeMap::new();
    let mut total = 0u64;
    for (_, findings) in inputs {
        total += findings.len();
        for finding in findings.iter() {
            let finding = finding?;
            *kinds.entry(finding.kind.name()).or_default() += 1;
            match tools.get_mut(&finding.tool) {
                Some(count) => *count += 1,
                None => {
                    tools.insert(finding.tool, 1);
                }
            }
        }
    }
    writeln!(out, "summary:")?;
    if let Some(files) = files {
        writeln!(out, "files: {files}")?;
    }
    writeln!(out, "findings: {total}")?;
    writeln!(out, "by kind:")?;
    for (kind, count) in &kinds {
        writeln!(out, "  {kind}: {count}")?;
    }
    writeln!(out, "by tool:")?;
    for (tool, count) in &tools {
        writeln!(out, "  {}: {count}", quote_name(tool))?;
    }
    writeln!(out, "by line:")?;
    for (file, findings) in inputs {
        for finding in findings.iter() {
            let finding = finding?;
            writeln!(
                out,
                "  {file}:{}: index {}: {}",
                finding.line,
                finding.index,
                finding.kind.name()
            )?;
        }
    }
    Ok(())
}

/// The report of `reconcile`: `reconcile: same`, `differ` or `not-comparable`, the
/// agent, the counts, then `differences: N` and a line each,
/// `sealed S, log L: KIND: tool 'T': detail`, a side that lacks the call written
/// `before N` (the index of the call it would come before there), then
/// `not comparable: N` and a line each in the same form.
pub(crate) fn reconcile(report: &toolreplay_core::ReconcileReport, paint: Paint) -> String {
    use toolreplay_core::ReconcileResult;
    let mut out = String::new();
    let result = report.result();
    let tone = match result {
        ReconcileResult::Same => Tone::Holds,
        ReconcileResult::Differ | ReconcileResult::NotComparable => Tone::Fails,
    };
    let _ = writeln!(out, "reconcile: {}", paint.verdict(result.name(), tone));
    let _ = writeln!(out, "agent: {}", report.agent.name());
    let _ = writeln!(
        out,
        "sealed: {} {}, {} matched",
        report.sealed,
        if report.sealed == 1 {
            "record"
        } else {
            "records"
        },
        report.matched
    );
    let _ = writeln!(
        out,
        "log: {} {}",
        report.logged,
        if report.logged == 1 { "call" } else { "calls" }
    );
    if report.late_merged > 0 {
        let _ = writeln!(
            out,
            "late results: {} (each held with the call sealed without it)",
            report.late_merged
        );
    }
    if report.results_not_kept > 0 {
        let _ = writeln!(
            out,
            "results not kept by the log: {} (not compared: the log's format keeps none)",
            report.results_not_kept
        );
    }
    if report.denied_not_logged > 0 {
        let _ = writeln!(
            out,
            "denied, not in the log: {} (they never ran)",
            report.denied_not_logged
        );
    }
    if report.replaced_not_logged > 0 {
        let _ = writeln!(
            out,
            "changed by another hook, not in the log: {} (each ran as its own record)",
            report.replaced_not_logged
        );
    }
    if report.unaligned {
        let _ = writeln!(
            out,
            "note: a stretch differs in more than {} places and was not aligned call by call",
            toolreplay_core::MAX_ALIGNED_EDITS
        );
    }
    let side = |index: Option<u64>, at: Option<u64>| match (index, at) {
        (Some(index), _) => index.to_string(),
        (None, Some(at)) => format!("before {at}"),
        (None, None) => "-".to_owned(),
    };
    for (heading, list) in [
        ("differences", &report.differences),
        ("not comparable", &report.not_comparable),
    ] {
        if list.is_empty() {
            continue;
        }
        let _ = writeln!(out, "{heading}: {}", list.len());
        for difference in list {
            let _ = writeln!(
                out,
                "sealed {}, log {}: {}: {}",
                side(difference.sealed, difference.at),
                side(difference.log, difference.at),
                paint.verdict(difference.kind.name(), Tone::Fails),
                difference.message()
            );
        }
    }
    out
}
