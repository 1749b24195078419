//! The SARIF 2.1.0 report of `replay`, `scope` and `verify` (`--format sarif`), for
//! code-scanning dashboards such as GitHub's.
//!
//! One log with one run. The run's tool is `toolreplay` with the rules of every
//! audit declared, whatever the command: `non-determinism` (level `warning`),
//! `redundant-call` (`note`), `permission-overreach` (`error`) and `broken-chain`
//! (`error`), each with a short and full description and help; a scope run with a
//! policy also declares the policy's rules, and `verify --head` or `--signature`
//! declares `head-differs`, `bad-signature` and `untrusted-signature` (all `error`),
//! whose results have a location without a region (they are about the whole file)
//! and a fingerprint made of the found head's digest instead of a call's. A clean audit or an
//! intact chain has `"results": []`. Each result has `ruleId`, `ruleIndex`, `level`,
//! `message.text` (`index N: ` and the words of the text report), one location whose
//! `artifactLocation.uri` is the input as given (percent-encoded as a URI reference:
//! every byte but ASCII letters, digits, `-._~/` as `%XX`; standard input is named
//! `<stdin>`, so `%3Cstdin%3E`) and whose `region.startLine` is the physical line of
//! the record, and `partialFingerprints."toolreplay/v1"`: the SHA-256 of the rule id,
//! a NUL byte and the call's fingerprint (SHA-256 of the canonical tool name followed
//! by the canonical arguments) and, for a policy
//! finding, a NUL byte and its [`detail`], in hex, then `:` and the
//! occurrence of that value among the run's results (1, 2, ...). It does not depend
//! on line numbers or indices, so a dashboard follows a finding when calls are added
//! before it. Keys are written sorted, so the output is byte-stable.

use std::collections::HashMap;
use std::io;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use toolreplay_core::ReplayReport;
use toolreplay_core::ScopeReport;
use toolreplay_core::SignatureVerdict;
use toolreplay_core::{
    ArgumentViolation, Budget, FindingKind, Findings, SensitiveResponse, finding_message,
    shown_field,
};
use toolreplay_core::{BrokenField, Verdict};

use super::color::Paint;
use super::{InForce, VerifyReport, text};

/// The SARIF schema the log declares.
pub(crate) const SCHEMA: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// The key of the partial fingerprint of each result.
pub(crate) const FINGERPRINT_KEY: &str = "toolreplay/v1";

/// A rule: id, name, level, short and full description, help.
struct Rule {
    id: &'static str,
    name: &'static str,
    level: &'static str,
    short: &'static str,
    full: &'static str,
    help: &'static str,
}

/// Every rule: the first [`BASE_RULES`] are declared in every log, the next
/// [`POLICY_RULES`] in the logs of scope runs with a policy, the last in those of
/// `verify` with `--head` or `--signature`. A result's `ruleIndex` is its rule's
/// position among the rules its log declares.
const RULES: [Rule; 13] = [
    Rule {
        id: "non-determinism",
        name: "NonDeterminism",
        level: "warning",
        short: "An identical call got a different response.",
        full: "A call identical to an earlier one (the same tool name and the same canonical arguments) returned a response whose canonical encoding differs from the response of the first identical call. A deterministic re-run would leave the recording here.",
        help: "Find out why the tool answered differently: time, randomness, or state changed outside the agent. If the tool changes state, name it with --mutating-tool; if its answers legitimately vary, the recording cannot be replayed deterministically past this call.",
    },
    Rule {
        id: "redundant-call",
        name: "RedundantCall",
        level: "note",
        short: "A call repeats an identical call with no state change between them.",
        full: "A call identical to an earlier one (the same tool name and the same canonical arguments) was made again with no state-changing call since the most recent identical one, so its answer was already known.",
        help: "Reuse the earlier answer instead of calling the tool again. If something the agent does changes state between the calls, name that tool with --mutating-tool.",
    },
    Rule {
        id: "permission-overreach",
        name: "PermissionOverreach",
        level: "error",
        short: "A call to a tool outside the agent's declared scope.",
        full: "The agent called a tool whose name (compared exactly) is not in the allowed_tools of its declared scope.",
        help: "Either the agent must not call this tool, or the scope file must allow it. Scope checks tool names only, never arguments.",
    },
    Rule {
        id: "broken-chain",
        name: "BrokenChain",
        level: "error",
        short: "A link of the sealed transcript does not check out.",
        full: "The first link whose prev is not the previous link's digest, or whose digest does not match its content and position: the sealed transcript was edited, reordered or had links deleted after sealing.",
        help: "Compare the file with the copy that was sealed; every link from this one on is unverified.",
    },
    Rule {
        id: "argument-violation",
        name: "ArgumentViolation",
        level: "error",
        short: "A call's arguments break a rule of the scope's policy.",
        full: "An argument of the call fails the tool's args_schema, names a path that escapes its root, lies outside the rule's root, matches a deny glob or no allow glob, or names a URL that does not parse, has a scheme not allowed, has no host, or whose host matches a deny host or no allow host.",
        help: "Check what the agent was asked to do with this argument; if the call was legitimate, widen the rule in the scope file.",
    },
    Rule {
        id: "budget-exceeded",
        name: "BudgetExceeded",
        level: "warning",
        short: "A call past a call budget of the scope's policy.",
        full: "The call is past the total budget or its tool's budget in the scope's policy. Every recorded call counts, whatever its response, so retries and failed attempts count too.",
        help: "Find out why the agent called so often (retry loops, repeated failures); if the volume is expected, raise the budget.",
    },
    Rule {
        id: "flow-violation",
        name: "FlowViolation",
        level: "error",
        short: "A sink was called after an untrusted source.",
        full: "The call is to a sink of a flow rule of the scope's policy, and a source of that flow was called before it, so what the source returned may have steered it.",
        help: "Review what the source returned and what the sink was asked to do; untrusted content must not drive this tool.",
    },
    Rule {
        id: "sensitive-response",
        name: "SensitiveResponse",
        level: "error",
        short: "A response holds what looks like a secret or personal data.",
        full: "A detector chosen for the tool by the scope's policy matched a string (or a key) of the response, which went back to the model. The report names the detector and the JSON pointer of the field, never what matched.",
        help: "Rotate the secret if it is real, and keep such data out of what the tool returns to the agent.",
    },
    Rule {
        id: "head-differs",
        name: "HeadDiffers",
        level: "error",
        short: "The chain does not end at the pinned head.",
        full: "The sealed transcript's chain is intact, but its head is not the pinned one: links were added after it, or the file was cut or re-sealed.",
        help: "Compare the file with the copy whose head was pinned; pin the new head only if the change is expected.",
    },
    Rule {
        id: "bad-signature",
        name: "BadSignature",
        level: "error",
        short: "The signature does not sign the head of this chain.",
        full: "The SSH signature was made for another namespace, or does not sign the head statement of this chain: the file or the signature was changed.",
        help: "Sign the head again with `toolreplay sign` only if the transcript is the one that should be trusted.",
    },
    Rule {
        id: "untrusted-signature",
        name: "UntrustedSignature",
        level: "error",
        short: "The head is signed by a key that is not trusted.",
        full: "The SSH signature signs the head statement, but its key is not allowed for the identity, for the namespace or at this time in the allowed signers file.",
        help: "Check who signed, and add the key to the allowed signers file only if it belongs to the identity.",
    },
    Rule {
        id: "bad-attestation",
        name: "BadAttestation",
        level: "error",
        short: "The attestation does not attest this file.",
        full: "The DSSE envelope's signature does not verify over its payload, or its in-toto statement is not a ToolReplay session statement, or is about another file or another chain: the file or the envelope was changed.",
        help: "Attest the file again with `toolreplay attest` only if the transcript is the one that should be trusted.",
    },
    Rule {
        id: "untrusted-attestation",
        name: "UntrustedAttestation",
        level: "error",
        short: "The attestation is signed by a key that is not trusted.",
        full: "No key of the allowed signers file allowed for the identity and the namespace toolreplay at this time signs the DSSE envelope.",
        help: "Check who signed, and add the key to the allowed signers file only if it belongs to the identity.",
    },
];

/// The rules of every log.
const BASE_RULES: std::ops::Range<usize> = 0..4;

/// The rules of scope policies.
const POLICY_RULES: std::ops::Range<usize> = 4..8;

/// The rules of `verify --head` and `--signature`.
const TRUST_RULES: std::ops::Range<usize> = 8..11;

/// The rules of `verify --head`, `--signature` and `--attestation`.
const ATTESTED_RULES: std::ops::Range<usize> = 8..13;

/// A rule by id, and its position in `RULES`: every id named here is in the table
/// (a test checks every kind), so a miss is a bug and gives the first rule.
fn rule(id: &str) -> usize {
    let found = RULES.iter().position(|r| r.id == id);
    debug_assert!(found.is_some(), "rule {id} is declared");
    found.unwrap_or(0)
}

/// A path as a URI reference: bytes other than ASCII letters, digits and `-._~/`
/// percent-encoded.
pub(crate) fn uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The partial fingerprints of results, made one at a time in order: the SHA-256 of
/// the rule id, a NUL byte and the call fingerprint (and, for a finding whose kind
/// tells apart several findings on one call, a NUL byte and [`detail`]), in hex,
/// then `:` and its occurrence among the results so far. The one computation of finding
/// fingerprints: baselines use it too. It keeps a count per distinct fingerprint
/// (a digest and a number), never the results.
#[derive(Debug, Default)]
pub(crate) struct Occurrences {
    seen: HashMap<[u8; 32], u64>,
}

impl Occurrences {
    /// The fingerprint of the next result, of rule `rule` on the call `call`, with
    /// the `detail` of its kind.
    pub(crate) fn next(&mut self, rule: &str, detail: &str, call: &[u8; 32]) -> String {
        let mut hasher = Sha256::new();
        hasher.update(rule.as_bytes());
        hasher.update([0]);
        hasher.update(call);
        if !detail.is_empty() {
            hasher.update([0]);
            hasher.update(detail.as_bytes());
        }
        let hash: [u8; 32] = hasher.finalize().into();
        // One lookup per result, so the log takes time linear in its results.
        let occurrence = self.seen.entry(hash).or_insert(0);
        *occurrence += 1;
        format!("{}:{occurrence}", hex::encode(hash))
    }
}

/// What tells apart findings of one rule on one call, for their fingerprints: the
/// detector of a sensitive response, the rule and argument of an argument
/// violation, the budget, the flow. Empty for the kinds of which a call has one
/// (their fingerprints are as they always were).
pub(crate) fn detail(kind: &FindingKind) -> String {
    match kind {
        FindingKind::NonDeterminism { .. }
        | FindingKind::RedundantCall { .. }
        | FindingKind::PermissionOverreach => String::new(),
        FindingKind::SensitiveResponse(SensitiveResponse::Match { detector, .. }) => {
            format!("detector\0{detector}")
        }
        FindingKind::SensitiveResponse(SensitiveResponse::Unscannable { .. }) => {
            "unscannable".to_owned()
        }
        FindingKind::ArgumentViolation(violation) => argument_key(violation),
        FindingKind::BudgetExceeded(exceeded) => match exceeded.budget {
            Budget::Total => "budgets.total".to_owned(),
            Budget::PerTool => "budgets.per_tool".to_owned(),
            Budget::PerRole(role) => format!("budgets.per_tool\0{}", role.key()),
        },
        FindingKind::FlowViolation(flow) => format!("flow\0{}", flow.flow),
    }
}

/// One result before its fingerprint's occurrence is known.
struct Found {
    rule: &'static str,
    /// What tells it apart from other results of its rule on its call.
    detail: String,
    message: String,
    /// The physical line of the record, or `None` for the whole file.
    line: Option<u64>,
    call: [u8; 32],
}

/// The log of `found`, written to `out` one result at a time: the log's head is
/// made as a value with a placeholder for the results, which are written in its
/// place, each indented as serde_json would indent it in the whole log.
fn log(
    file: &str,
    found: impl Iterator<Item = io::Result<Found>>,
    (extra, configuration): (Option<std::ops::Range<usize>>, Option<&InForce>),
    out: &mut dyn io::Write,
) -> io::Result<()> {
    let declared: Vec<usize> = BASE_RULES.chain(extra.into_iter().flatten()).collect();
    let rules: Vec<Value> = declared
        .iter()
        .map(|&i| &RULES[i])
        .map(|r| {
            json!({
                "id": r.id,
                "name": r.name,
                "shortDescription": {"text": r.short},
                "fullDescription": {"text": r.full},
                "help": {"text": r.help},
                "defaultConfiguration": {"level": r.level},
            })
        })
        .collect();
    let mut head = json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "toolreplay",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "results": super::json::Placeholder,
        }],
    });
    if let Some(configuration) = configuration {
        head["runs"][0]["properties"] = properties(configuration);
    }
    let uri = uri(file);
    let mut occurrences = Occurrences::default();
    super::json::document_with_array(
        &head,
        4,
        found,
        |f: &Found, buffer| {
            let fingerprint = occurrences.next(f.rule, &f.detail, &f.call);
            let at = rule(f.rule);
            let index = declared.iter().position(|&i| i == at);
            debug_assert!(index.is_some(), "rule {} is declared in its log", f.rule);
            let location = match f.line {
                Some(line) => json!({
                    "artifactLocation": {"uri": uri},
                    "region": {"startLine": line},
                }),
                None => json!({"artifactLocation": {"uri": uri}}),
            };
            let result = json!({
                "ruleId": f.rule,
                "ruleIndex": index.unwrap_or(0),
                "level": RULES[at].level,
                "message": {"text": f.message},
                "locations": [{"physicalLocation": location}],
                "partialFingerprints": {FINGERPRINT_KEY: fingerprint},
            });
            super::json::pretty_into(&result, buffer);
        },
        out,
    )
}

/// The property bag of a run whose inputs a configuration file set.
pub(crate) fn properties(configuration: &InForce) -> Value {
    json!({"configuration": configuration})
}

/// The log of `found`, as text.
fn log_text(file: &str, found: Vec<Found>, extra: Option<std::ops::Range<usize>>) -> String {
    let mut out = Vec::new();
    let written = log(file, found.into_iter().map(Ok), (extra, None), &mut out);
    debug_assert!(written.is_ok(), "a log in memory is written: {written:?}");
    String::from_utf8_lossy(&out).into_owned()
}

fn from_findings<'a>(
    findings: &'a Findings,
    agent: &'a str,
) -> impl Iterator<Item = io::Result<Found>> + 'a {
    findings.iter().map(move |f| {
        f.map(|f| Found {
            rule: f.kind.name(),
            detail: detail(&f.kind),
            message: format!("index {}: {}", f.index, finding_message(&f, agent)),
            line: Some(f.line),
            call: f.call,
        })
    })
}

/// A SARIF log without results, declaring the rules of every log.
pub(crate) fn empty() -> String {
    log_text("", Vec::new(), None)
}

/// The SARIF log of `replay`, written to `out` as its findings are read back.
pub(crate) fn replay(
    report: &ReplayReport,
    file: &str,
    configuration: Option<&InForce>,
    out: &mut dyn io::Write,
) -> io::Result<()> {
    log(
        file,
        from_findings(&report.findings, ""),
        (None, configuration),
        out,
    )
}

/// The SARIF log of `scope`, written to `out` as its findings are read back.
pub(crate) fn scope(
    report: &ScopeReport,
    file: &str,
    configuration: Option<&InForce>,
    out: &mut dyn io::Write,
) -> io::Result<()> {
    log(
        file,
        from_findings(&report.findings, &report.agent),
        (report.policy.then_some(POLICY_RULES), configuration),
        out,
    )
}

/// The SARIF log of `verify`.
pub(crate) fn verify(report: &VerifyReport, file: &str) -> String {
    let mut found = match &report.verdict {
        Verdict::Intact { .. } => Vec::new(),
        Verdict::Broken {
            position,
            field,
            expected,
            found,
            line,
            call,
            ..
        } => {
            let what = match field {
                BrokenField::Prev => "its prev is not the previous link's digest",
                BrokenField::Digest => "its digest does not match its content",
            };
            vec![Found {
                detail: String::new(),
                rule: "broken-chain",
                message: format!(
                    "index {position}: link is broken: {what} (expected {}, found {})",
                    shown_field(expected),
                    shown_field(found)
                ),
                line: Some(*line),
                call: *call,
            }]
        }
    };
    // Results about the whole file are told apart by the head they found.
    let head_call = |digest: &str| -> [u8; 32] { Sha256::digest(digest.as_bytes()).into() };
    if let Some(check) = report.head.as_ref().filter(|c| !c.verdict.matches()) {
        let mut words = String::new();
        text::head_words(check, Paint::PLAIN, &mut words);
        found.push(Found {
            detail: String::new(),
            rule: "head-differs",
            message: format!("head: {words}"),
            line: None,
            call: head_call(&check.head.digest),
        });
    }
    if let Some(check) = report.signature.as_ref().filter(|c| !c.verdict.is_good()) {
        let rule = match check.verdict {
            SignatureVerdict::Untrusted { .. } => "untrusted-signature",
            _ => "bad-signature",
        };
        let head = match &report.verdict {
            Verdict::Intact { head, .. } => head.as_str(),
            Verdict::Broken { .. } => "",
        };
        found.push(Found {
            detail: String::new(),
            rule,
            message: format!(
                "signature: {}: {}",
                text::signature_word(&check.verdict),
                text::signature_words(check)
            ),
            line: None,
            call: head_call(head),
        });
    }
    if let Some(check) = report.attestation.as_ref().filter(|c| !c.verdict.is_good()) {
        let rule = match super::json::attestation_ids(&check.verdict).0 {
            "not-trusted" => "untrusted-attestation",
            _ => "bad-attestation",
        };
        let head = match &report.verdict {
            Verdict::Intact { head, .. } => head.as_str(),
            Verdict::Broken { .. } => "",
        };
        found.push(Found {
            detail: String::new(),
            rule,
            message: format!(
                "attestation: {}: {}",
                text::attestation_word(&check.verdict),
                text::attestation_words(check)
            ),
            line: None,
            call: head_call(head),
        });
    }
    let rules = if report.asked.attestation {
        Some(ATTESTED_RULES)
    } else {
        (report.asked.head || report.asked.signature).then_some(TRUST_RULES)
    };
    log_text(file, found, rules)
}

/// The part of a result's fingerprint that names the rule an argument violation
/// breaks: a role's rule after its role's name.
fn argument_key(violation: &ArgumentViolation) -> String {
    match violation {
        ArgumentViolation::Unreadable { .. } => "unreadable".to_owned(),
        ArgumentViolation::Schema { argument, keyword } => {
            format!("schema\0{argument}\0{keyword}")
        }
        ArgumentViolation::SchemaCannotEvaluate { argument } => {
            format!("schema-cannot-evaluate\0{argument}")
        }
        ArgumentViolation::Path { rule, argument, .. } => format!("paths\0{rule}\0{argument}"),
        ArgumentViolation::Url { rule, argument, .. } => format!("urls\0{rule}\0{argument}"),
        ArgumentViolation::Command { rule, argument, .. } => {
            format!("commands\0{rule}\0{argument}")
        }
        ArgumentViolation::ByRole { role, violation } => {
            format!("{}\0{}", role.key(), argument_key(violation))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolreplay_core::FindingKind;

    #[test]
    fn every_finding_kind_and_verdict_has_a_rule() {
        let kinds = [
            FindingKind::NonDeterminism { first: 0 }.name(),
            FindingKind::RedundantCall { previous: 0 }.name(),
            FindingKind::PermissionOverreach.name(),
            "broken-chain",
            "argument-violation",
            "budget-exceeded",
            "flow-violation",
            "sensitive-response",
            "head-differs",
            "bad-signature",
            "untrusted-signature",
        ];
        for (i, id) in kinds.iter().enumerate() {
            assert_eq!(RULES.iter().position(|r| r.id == *id), Some(i), "{id}");
        }
    }

    #[test]
    fn paths_become_uri_references() {
        assert_eq!(uri("runs/a-1_b.jsonl"), "runs/a-1_b.jsonl");
        assert_eq!(uri("my run.jsonl"), "my%20run.jsonl");
        assert_eq!(uri("<stdin>"), "%3Cstdin%3E");
        assert_eq!(uri("c:é"), "c%3A%C3%A9");
    }
}
