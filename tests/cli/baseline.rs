//! Baselines: `--write-baseline FILE` records today's findings, `--baseline FILE`
//! reports only new ones, and a finding keeps its fingerprint across unrelated edits.

use insta::assert_snapshot;

use super::{Dir, lines, record};

const A: &str = r#"{"path": "a"}"#;
const B: &str = r#"{"path": "b"}"#;
const C: &str = r#"{"path": "c"}"#;

/// Today's run: `a` read twice (redundant).
fn today() -> String {
    lines(&[
        &record(0, "read_file", A, r#"{"text": "A"}"#),
        &record(1, "read_file", A, r#"{"text": "A"}"#),
    ])
}

/// Tomorrow's run: calls added before and between (unrelated edits), `a` still read
/// twice, and `c` read twice (new).
fn tomorrow() -> String {
    lines(&[
        &record(0, "list_dir", B, r#"{"entries": []}"#),
        &record(1, "read_file", C, r#"{"text": "C"}"#),
        &record(2, "read_file", A, r#"{"text": "A"}"#),
        &record(3, "read_file", B, r#"{"text": "B"}"#),
        &record(4, "read_file", A, r#"{"text": "A"}"#),
        &record(5, "read_file", C, r#"{"text": "C"}"#),
    ])
}

fn dir() -> Dir {
    let dir = Dir::new();
    dir.write("today.jsonl", today());
    dir.write("tomorrow.jsonl", tomorrow());
    dir
}

#[test]
fn write_baseline_records_the_findings_and_exits_0() {
    let dir = dir();
    let run = dir.run(&["replay", "today.jsonl", "--write-baseline", "base.json"]);
    assert_snapshot!(run.text(), @r"
    exit: 0
    --- stdout
    calls: 2
    divergence: none
    findings: 1
    index 1: redundant-call: tool 'read_file' repeats the identical call at index 0 with no state change between them
    --- stderr
    ");
    assert_snapshot!(String::from_utf8(dir.read("base.json")).expect("UTF-8"), @r#"
    {
      "format_version": 1,
      "fingerprints": [
        "2c8c96154c641d2bc6c3095c3e817f78f56368abf43b720a141b7a60cfbfc3b7:1"
      ]
    }
    "#);
}

#[test]
fn the_same_run_against_its_baseline_has_no_finding() {
    let dir = dir();
    dir.run(&["replay", "today.jsonl", "--write-baseline", "base.json"]);
    assert_snapshot!(dir.run(&["replay", "today.jsonl", "--baseline", "base.json"]).text(), @r"
    exit: 0
    --- stdout
    calls: 2
    divergence: none
    findings: 0
    --- stderr
    ");
}

#[test]
fn after_unrelated_edits_only_the_new_finding_is_reported() {
    let dir = dir();
    dir.run(&["replay", "today.jsonl", "--write-baseline", "base.json"]);
    assert_snapshot!(dir.run(&["replay", "tomorrow.jsonl"]).text(), @r"
    exit: 1
    --- stdout
    calls: 6
    divergence: none
    findings: 2
    index 4: redundant-call: tool 'read_file' repeats the identical call at index 2 with no state change between them
    index 5: redundant-call: tool 'read_file' repeats the identical call at index 1 with no state change between them
    --- stderr
    ");
    assert_snapshot!(dir.run(&["replay", "tomorrow.jsonl", "--baseline", "base.json"]).text(), @r"
    exit: 1
    --- stdout
    calls: 6
    divergence: none
    findings: 1
    index 5: redundant-call: tool 'read_file' repeats the identical call at index 1 with no state change between them
    --- stderr
    ");
}

#[test]
fn scope_takes_a_baseline_too() {
    let dir = dir();
    dir.write(
        "scope.json",
        r#"{"agent": "a", "allowed_tools": ["list_dir"]}"#,
    );
    dir.run(&[
        "scope",
        "today.jsonl",
        "scope.json",
        "--write-baseline",
        "base.json",
    ]);
    assert_snapshot!(
        dir.run(&["scope", "tomorrow.jsonl", "scope.json", "--baseline", "base.json"]).text(),
        @r"
    exit: 1
    --- stdout
    calls: 6
    findings: 3
    index 1: permission-overreach: tool 'read_file' is not in the declared scope for agent 'a'
    index 3: permission-overreach: tool 'read_file' is not in the declared scope for agent 'a'
    index 5: permission-overreach: tool 'read_file' is not in the declared scope for agent 'a'
    --- stderr
    "
    );
}

#[test]
fn a_baseline_and_writing_one_conflict() {
    let dir = dir();
    assert_snapshot!(
        dir.run(&["replay", "today.jsonl", "--baseline", "a.json", "--write-baseline", "b.json"]).text(),
        @r"
    exit: 2
    --- stdout
    --- stderr
    error: the argument '--baseline <FILE>' cannot be used with '--write-baseline <FILE>'

    Usage: toolreplay replay --baseline <FILE> <FILE>...

    For more information, try '--help'.
    "
    );
}

#[test]
fn a_malformed_baseline_is_an_error() {
    let dir = dir();
    dir.write(
        "base.json",
        "{\"format_version\": 1,\n \"fingerprint\": []}\n",
    );
    assert_snapshot!(dir.run(&["replay", "today.jsonl", "--baseline", "base.json"]).text(), @r"
    exit: 2
    --- stdout
    --- stderr
    error: base.json:2: not a baseline: unknown field `fingerprint`, expected `format_version` or `fingerprints`
    ");
    dir.write(
        "bad.json",
        r#"{"format_version": 1, "fingerprints": ["abc:1"]}"#,
    );
    assert_snapshot!(dir.run(&["replay", "today.jsonl", "--baseline", "bad.json"]).text(), @r#"
    exit: 2
    --- stdout
    --- stderr
    error: bad.json: "abc:1" is not a fingerprint (64 hex digits, ':', an occurrence)
    "#);
}

#[test]
fn a_missing_baseline_is_an_error() {
    let dir = dir();
    assert_snapshot!(dir.run(&["replay", "today.jsonl", "--baseline", "none.json"]).text(), @r"
    exit: 2
    --- stdout
    --- stderr
    error: none.json: no such file or directory
    ");
}

#[test]
fn an_accepted_finding_of_one_detector_never_hides_another_detector_on_the_same_call() {
    let dir = Dir::new();
    dir.write(
        "policy.json",
        r#"{"agent": "a", "allowed_tools": ["read_file"], "policy_version": 1, "response_detectors": ["secrets", "personal-data"]}"#,
    );
    // Today the file holds an e-mail address, accepted in the baseline.
    dir.write(
        "today.jsonl",
        lines(&[&record(
            0,
            "read_file",
            A,
            r#"{"text": "mail ann@example.com"}"#,
        )]),
    );
    // Tomorrow the same call's answer holds an AWS key instead: a new finding.
    dir.write(
        "tomorrow.jsonl",
        lines(&[&record(
            0,
            "read_file",
            A,
            r#"{"text": "aws AKIAIOSFODNN7EXAMPLE"}"#,
        )]),
    );
    let written = [
        "scope",
        "today.jsonl",
        "policy.json",
        "--write-baseline",
        "base.json",
    ];
    assert_eq!(dir.run(&written).code, 0);
    let run = dir.run(&[
        "scope",
        "tomorrow.jsonl",
        "policy.json",
        "--baseline",
        "base.json",
    ]);
    assert_snapshot!(run.text(), @r"
    exit: 1
    --- stdout
    calls: 1
    findings: 1
    index 0: sensitive-response: tool 'read_file' response field '/text' matches detector 'aws-access-key-id'
    --- stderr
    ");
    // The accepted one stays accepted.
    let run = dir.run(&[
        "scope",
        "today.jsonl",
        "policy.json",
        "--baseline",
        "base.json",
    ]);
    assert_eq!(run.code, 0, "{}", run.text());
}
