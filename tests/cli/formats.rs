//! `--format json` and `--format sarif` on `replay`, `scope` and `verify`: the JSON
//! documents deserialise into structs that allow no unknown field, the SARIF logs
//! declare every rule and locate every finding, and `--format text` is the default.

use insta::assert_snapshot;
use serde::Deserialize;
use serde_json::Value;

use super::{Dir, lines, record, run_in_root};

/// Every command on a clean and a dirty sample: `(name, arguments)`.
pub(super) const CASES: [(&str, &[&str]); 6] = [
    ("replay_dirty", &["replay", "samples/session-dirty.jsonl"]),
    ("replay_clean", &["replay", "samples/session-clean.jsonl"]),
    (
        "scope_dirty",
        &["scope", "samples/session-dirty.jsonl", "samples/scope.json"],
    ),
    (
        "scope_clean",
        &["scope", "samples/session-clean.jsonl", "samples/scope.json"],
    ),
    (
        "verify_intact",
        &["verify", "samples/session-dirty.sealed.jsonl"],
    ),
    (
        "verify_broken",
        &["verify", "samples/session-dirty.tampered.jsonl"],
    ),
];

fn with_format<'a>(args: &[&'a str], format: &'a str) -> Vec<&'a str> {
    let mut args = args.to_vec();
    args.extend_from_slice(&["--format", format]);
    args
}

// --- the JSON schema, as docs/output.md documents it

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FindingJson {
    kind: String,
    index: u64,
    line: u64,
    tool: String,
    related_index: Option<u64>,
    message: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ReplayJson {
    format_version: u32,
    command: String,
    file: String,
    calls: u64,
    divergence: Option<u64>,
    findings: Vec<FindingJson>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScopeJson {
    format_version: u32,
    command: String,
    file: String,
    scope: String,
    agent: String,
    calls: u64,
    findings: Vec<FindingJson>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BrokenJson {
    index: u64,
    line: u64,
    tool: String,
    field: String,
    expected: String,
    found: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct VerifyJson {
    format_version: u32,
    command: String,
    file: String,
    chain: String,
    links: Option<u64>,
    head: Option<String>,
    first_broken: Option<BrokenJson>,
}

/// The keys of a JSON object in the order written.
fn key_order(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.trim_start().strip_prefix('"'))
        .filter_map(|l| l.split_once("\":").map(|(k, _)| k.to_owned()))
        .collect()
}

#[test]
fn text_is_the_default_and_byte_identical_to_format_text() {
    for (name, args) in CASES {
        let plain = run_in_root(args);
        let text = run_in_root(&with_format(args, "text"));
        assert_eq!(plain.text(), text.text(), "{name}");
    }
}

#[test]
fn json_of_every_command_clean_and_with_findings() {
    for (name, args) in CASES {
        let run = run_in_root(&with_format(args, "json"));
        assert_snapshot!(format!("json_{name}"), run.text());
    }
}

#[test]
fn json_replay_deserialises_with_lines_and_related_indices() {
    let run = run_in_root(&["replay", "samples/session-dirty.jsonl", "--format", "json"]);
    assert_eq!(run.code, 1);
    let report: ReplayJson = serde_json::from_str(&run.stdout).expect("replay JSON schema");
    assert_eq!(report.format_version, 1);
    assert_eq!(report.command, "replay");
    assert_eq!(report.file, "samples/session-dirty.jsonl");
    assert_eq!((report.calls, report.divergence), (6, Some(5)));
    let got: Vec<_> = report
        .findings
        .iter()
        .map(|f| {
            (
                f.kind.as_str(),
                f.index,
                f.line,
                f.tool.as_str(),
                f.related_index,
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("redundant-call", 2, 3, "read_file", Some(1)),
            ("non-determinism", 5, 6, "search", Some(3)),
        ]
    );
    assert_eq!(
        report.findings[1].message,
        "tool 'search' returned a different response than the identical call at index 3"
    );
    assert_eq!(
        key_order(&run.stdout)[..6],
        [
            "format_version",
            "command",
            "file",
            "calls",
            "divergence",
            "findings"
        ]
    );
}

#[test]
fn json_line_is_the_physical_line_counting_blank_lines() {
    let dir = Dir::new();
    let text = format!(
        "\n{}\n   \n\n{}\n",
        record(0, "read_file", "{}", "{}"),
        record(1, "read_file", "{}", "{}")
    );
    dir.write("t.jsonl", text);
    let run = dir.run(&["replay", "t.jsonl", "--format", "json"]);
    let report: ReplayJson = serde_json::from_str(&run.stdout).expect("replay JSON schema");
    assert_eq!(report.findings.len(), 1);
    assert_eq!((report.findings[0].index, report.findings[0].line), (1, 5));
}

#[test]
fn json_scope_deserialises() {
    let run = run_in_root(&[
        "scope",
        "samples/session-dirty.jsonl",
        "samples/scope.json",
        "--format",
        "json",
    ]);
    let report: ScopeJson = serde_json::from_str(&run.stdout).expect("scope JSON schema");
    assert_eq!(report.format_version, 1);
    assert_eq!(report.command, "scope");
    assert_eq!(report.file, "samples/session-dirty.jsonl");
    assert_eq!(report.scope, "samples/scope.json");
    assert_eq!((report.agent.as_str(), report.calls), ("docs-reader", 6));
    let f = &report.findings[0];
    assert_eq!(
        (
            f.kind.as_str(),
            f.index,
            f.line,
            f.tool.as_str(),
            f.related_index
        ),
        ("permission-overreach", 4, 5, "write_file", None)
    );
}

#[test]
fn json_verify_deserialises_intact_and_broken() {
    let intact = run_in_root(&[
        "verify",
        "samples/session-dirty.sealed.jsonl",
        "--format",
        "json",
    ]);
    let report: VerifyJson = serde_json::from_str(&intact.stdout).expect("verify JSON schema");
    assert_eq!(
        (report.format_version, report.command.as_str()),
        (1, "verify")
    );
    assert_eq!(report.file, "samples/session-dirty.sealed.jsonl");
    assert_eq!((report.chain.as_str(), report.links), ("intact", Some(6)));
    let sealed = std::fs::read_to_string(format!(
        "{}/samples/session-dirty.sealed.jsonl",
        super::ROOT
    ))
    .expect("sealed sample");
    let last: Value = serde_json::from_str(sealed.lines().last().expect("a link")).expect("link");
    assert_eq!(report.head.as_deref(), last["digest"].as_str());
    assert!(report.first_broken.is_none());

    let broken = run_in_root(&[
        "verify",
        "samples/session-dirty.tampered.jsonl",
        "--format",
        "json",
    ]);
    assert_eq!(broken.code, 1);
    let report: VerifyJson = serde_json::from_str(&broken.stdout).expect("verify JSON schema");
    assert_eq!(
        (report.chain.as_str(), report.links, report.head),
        ("broken", None, None)
    );
    let b = report.first_broken.expect("first broken link");
    assert_eq!(
        (b.index, b.line, b.tool.as_str(), b.field.as_str()),
        (3, 4, "search", "digest")
    );
    assert_eq!(
        b.found,
        "0f4692975fe1c349dd7a602937df65ece15a1dce4e7576e98348caf2b02779f9"
    );
    assert_eq!(
        b.expected,
        "a82651225d0c53b99067e150bb65de2f17b3c5546d2b11c89ab15303914264a2"
    );
}

#[test]
fn json_verify_names_a_broken_prev() {
    let dir = Dir::new();
    let sealed = run_in_root(&["seal", "samples/session-clean.jsonl"]).stdout;
    let edited = sealed.replacen(&"0".repeat(64), &"1".repeat(64), 1);
    dir.write("s.jsonl", edited);
    let run = dir.run(&["verify", "s.jsonl", "--format", "json"]);
    let report: VerifyJson = serde_json::from_str(&run.stdout).expect("verify JSON schema");
    let b = report.first_broken.expect("first broken link");
    assert_eq!((b.index, b.line, b.field.as_str()), (0, 1, "prev"));
    assert_eq!((b.expected, b.found), ("0".repeat(64), "1".repeat(64)));
}

#[test]
fn input_errors_are_the_same_whatever_the_format() {
    let dir = Dir::new();
    dir.write("t.jsonl", lines(&[&record(0, "a", "{}", "{}"), "{}"]));
    for format in ["text", "json", "sarif"] {
        let run = dir.run(&["replay", "t.jsonl", "--format", format]);
        assert_eq!(
            run.text(),
            "exit: 2\n--- stdout\n--- stderr\nerror: t.jsonl:2: missing field \"index\"\n"
        );
    }
}

#[test]
fn an_unknown_format_is_a_usage_error() {
    let run = run_in_root(&["replay", "samples/session-clean.jsonl", "--format", "xml"]);
    assert_snapshot!(run.text());
}

// --- SARIF

#[test]
fn sarif_of_every_command_clean_and_with_findings() {
    for (name, args) in CASES {
        let run = run_in_root(&with_format(args, "sarif"));
        assert_snapshot!(format!("sarif_{name}"), run.text());
    }
}

fn sarif(args: &[&str], dir: Option<&Dir>) -> Value {
    let args = with_format(args, "sarif");
    let run = match dir {
        Some(dir) => dir.run(&args),
        None => run_in_root(&args),
    };
    assert!(run.stderr.is_empty(), "{}", run.stderr);
    serde_json::from_str(&run.stdout).expect("SARIF is JSON")
}

#[test]
fn sarif_declares_every_rule_in_every_run_and_empty_results_when_clean() {
    for (name, args) in CASES {
        let log = sarif(args, None);
        assert_eq!(log["version"], "2.1.0", "{name}");
        let runs = log["runs"].as_array().expect("runs");
        assert_eq!(runs.len(), 1, "{name}");
        let rules: Vec<&str> = runs[0]["tool"]["driver"]["rules"]
            .as_array()
            .expect("rules")
            .iter()
            .map(|r| r["id"].as_str().expect("rule id"))
            .collect();
        assert_eq!(
            rules,
            [
                "non-determinism",
                "redundant-call",
                "permission-overreach",
                "broken-chain"
            ],
            "{name}"
        );
        let results = runs[0]["results"].as_array().expect("results is an array");
        let clean = name.ends_with("clean") || name.ends_with("intact");
        assert_eq!(results.is_empty(), clean, "{name}");
    }
}

fn locations_and_fingerprints(log: &Value) -> Vec<(String, u64, String)> {
    log["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            let location = &r["locations"][0]["physicalLocation"];
            (
                location["artifactLocation"]["uri"]
                    .as_str()
                    .expect("uri")
                    .to_owned(),
                location["region"]["startLine"].as_u64().expect("startLine"),
                r["partialFingerprints"]["toolreplay/v1"]
                    .as_str()
                    .expect("fingerprint")
                    .to_owned(),
            )
        })
        .collect()
}

#[test]
fn sarif_fingerprints_follow_the_call_not_its_line() {
    let dir = Dir::new();
    let calls = [
        record(0, "read_file", r#"{"path": "a"}"#, "{}"),
        record(1, "read_file", r#"{"path": "a"}"#, "{}"),
        record(2, "read_file", r#"{"path": "a"}"#, "{}"),
    ];
    dir.write("a.jsonl", lines(&[&calls[0], &calls[1], &calls[2]]));
    // The same calls after a blank line and with the args written differently.
    dir.write(
        "my run.jsonl",
        format!("\n{}", lines(&[&calls[0], &calls[1], &calls[2]]))
            .replace(r#"{"path": "a"}"#, r#"{ "path":"a" }"#),
    );
    let a = locations_and_fingerprints(&sarif(&["replay", "a.jsonl"], Some(&dir)));
    let b = locations_and_fingerprints(&sarif(&["replay", "my run.jsonl"], Some(&dir)));
    assert_eq!(a.len(), 2);
    assert_eq!((a[0].0.as_str(), a[0].1, a[1].1), ("a.jsonl", 2, 3));
    assert_eq!((b[0].0.as_str(), b[0].1, b[1].1), ("my%20run.jsonl", 3, 4));
    // Two redundant calls of the same call: the same digest, occurrences 1 and 2.
    assert!(a[0].2.ends_with(":1") && a[1].2.ends_with(":2"));
    assert_eq!(a[0].2[..64], a[1].2[..64]);
    assert_eq!((&a[0].2, &a[1].2), (&b[0].2, &b[1].2));
}

/// Every SARIF log the tests produce, by name: the samples' and edge cases'.
pub(super) fn every_sarif_log() -> Vec<(String, Value)> {
    let mut logs: Vec<(String, Value)> = CASES
        .iter()
        .map(|(name, args)| (name.to_string(), sarif(args, None)))
        .collect();
    let dir = Dir::new();
    dir.write(
        "odd 'name'.jsonl",
        lines(&[
            &record(0, "it's\\u2028a\\ttool", "{}", "{}"),
            &record(1, "it's\\u2028a\\ttool", "{}", r#"{"x": 1}"#),
        ]),
    );
    dir.write("scope.json", r#"{"agent": "a\nb", "allowed_tools": []}"#);
    logs.push((
        "odd_replay".into(),
        sarif(&["replay", "odd 'name'.jsonl"], Some(&dir)),
    ));
    logs.push((
        "odd_scope".into(),
        sarif(&["scope", "odd 'name'.jsonl", "scope.json"], Some(&dir)),
    ));
    // A head check that differs: a result about the whole file, without a region.
    logs.push((
        "verify_head_differs".into(),
        sarif(
            &[
                "verify",
                "samples/session-dirty.sealed.jsonl",
                "--head",
                "0f4692975fe1c349dd7a602937df65ece15a1dce4e7576e98348caf2b02779f9",
            ],
            None,
        ),
    ));
    logs
}

#[test]
fn sarif_of_odd_names_keeps_them_in_messages() {
    let logs = every_sarif_log();
    let (_, odd) = logs
        .iter()
        .find(|(n, _)| n == "odd_scope")
        .expect("odd scope");
    let results = odd["runs"][0]["results"].as_array().expect("results");
    assert_eq!(
        results[0]["message"]["text"],
        r"index 0: tool 'it\'s\u2028a\u0009tool' is not in the declared scope for agent 'a\u000ab'"
    );
    assert_eq!(
        results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "odd%20%27name%27.jsonl"
    );
}

/// A validator of the OASIS SARIF 2.1.0 schema in `../shared/data` (a missing file
/// fails the test).
pub(super) fn sarif_validator() -> jsonschema::Validator {
    let path = format!(
        "{}/../shared/data/sarif/sarif-schema-2.1.0.json",
        super::ROOT
    );
    let schema_text = std::fs::read_to_string(&path)
        .unwrap_or_else(|err| panic!("{path}: {err}: the SARIF schema is needed"));
    let schema: Value = serde_json::from_str(&schema_text).expect("the schema is JSON");
    jsonschema::draft7::new(&schema).expect("the schema compiles")
}

#[test]
#[ignore = "needs ../shared/data"]
fn every_sarif_log_is_valid_against_the_sarif_2_1_0_schema() {
    let validator = sarif_validator();
    let logs = every_sarif_log();
    assert_eq!(logs.len(), 9);
    for (name, log) in &logs {
        let errors: Vec<String> = validator.iter_errors(log).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{name}: {errors:#?}");
    }
    // The validator does reject what is not SARIF.
    let mut bad = logs[0].1.clone();
    bad["runs"][0]["results"] = serde_json::json!([{"level": "fatal"}]);
    assert!(!validator.is_valid(&bad));
}
