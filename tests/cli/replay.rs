//! `toolreplay replay` (spec section 3): the two finding kinds, their order, the
//! divergence, what makes calls identical, and how names are quoted.

use insta::assert_snapshot;

use super::{Dir, Run, record, replay, run_with_env};

/// A transcript of `calls`, each `(tool, args, response)` with `tool` as the inside
/// of a JSON string and `args` and `response` as JSON text; indices 0, 1, 2, ...
pub(super) fn transcript(calls: &[(&str, &str, &str)]) -> String {
    calls
        .iter()
        .enumerate()
        .map(|(index, (tool, args, response))| {
            format!("{}\n", record(index as u64, tool, args, response))
        })
        .collect()
}

/// `replay t.jsonl EXTRA...` on `calls`.
fn replay_with(calls: &[(&str, &str, &str)], extra: &[&str]) -> Run {
    let dir = Dir::new();
    dir.write("t.jsonl", transcript(calls));
    let mut args = vec!["replay", "t.jsonl"];
    args.extend_from_slice(extra);
    dir.run(&args)
}

/// `replay t.jsonl` on `calls`.
fn replay_calls(calls: &[(&str, &str, &str)]) -> String {
    replay_with(calls, &[]).text()
}

const A: &str = r#"{"path": "a"}"#;
const B: &str = r#"{"path": "b"}"#;
const R1: &str = r#"{"text": "one"}"#;
const R2: &str = r#"{"text": "two"}"#;
const OK: &str = r#"{"ok": true}"#;

// --- the finding kinds

#[test]
fn no_findings_exits_0_with_divergence_none() {
    assert_snapshot!(replay_calls(&[("read_file", A, R1), ("read_file", B, R2),]));
}

#[test]
fn redundant_call_alone() {
    assert_snapshot!(replay_calls(&[
        ("read_file", A, R1),
        ("list_dir", B, R2),
        ("read_file", A, R1),
    ]));
}

#[test]
fn non_determinism_alone() {
    // The write in between keeps the repeat from being redundant.
    assert_snapshot!(replay_calls(&[
        ("read_file", A, R1),
        ("write_file", B, OK),
        ("read_file", A, R2),
    ]));
}

#[test]
fn both_findings_on_one_index() {
    assert_snapshot!(replay_calls(&[("read_file", A, R1), ("read_file", A, R2),]));
}

#[test]
fn findings_are_sorted_by_index_then_kind() {
    assert_snapshot!(replay_calls(&[
        ("search", A, R1),     // 0
        ("read_file", A, R1),  // 1
        ("search", A, R2),     // 2: both, vs 0
        ("read_file", A, R1),  // 3: redundant vs 1
        ("write_file", B, OK), // 4
        ("search", A, R2),     // 5: non-determinism vs 0
        ("read_file", A, R2),  // 6: non-determinism vs 1
        ("read_file", A, R2),  // 7: redundant vs 6, non-determinism vs 1
    ]));
}

#[test]
fn divergence_is_the_first_non_determinism_not_the_first_finding() {
    assert_snapshot!(replay_calls(&[
        ("read_file", A, R1),
        ("read_file", A, R1), // 1: redundant
        ("write_file", B, OK),
        ("search", A, R1),
        ("write_file", B, OK),
        ("search", A, R2), // 5: non-determinism, the divergence
        ("read_file", B, R1),
        ("read_file", B, R1), // 7: redundant
        ("write_file", B, OK),
        ("read_file", A, R2), // 9: non-determinism
    ]));
}

#[test]
fn findings_after_an_input_error_print_nothing() {
    let mut content = transcript(&[("read_file", A, R1), ("read_file", A, R2)]);
    content.push_str("{\"index\": 2}\n");
    assert_snapshot!(replay(content).text());
}

// --- redundant calls

#[test]
fn a_state_change_between_identical_calls_resets_redundancy() {
    assert_snapshot!(replay_calls(&[
        ("read_file", A, R1),
        ("write_file", B, OK),
        ("read_file", A, R1),
    ]));
}

#[test]
fn redundancy_names_the_most_recent_identical_call() {
    assert_snapshot!(replay_calls(&[
        ("read_file", A, R1),  // 0
        ("write_file", B, OK), // 1
        ("read_file", A, R1),  // 2: not redundant
        ("read_file", A, R1),  // 3: repeats 2
        ("read_file", A, R1),  // 4: repeats 3
    ]));
}

#[test]
fn a_non_mutating_call_in_between_does_not_reset_redundancy() {
    assert_snapshot!(replay_calls(&[
        ("read_file", A, R1),
        ("list_dir", A, R1),
        ("search", B, R1),
        ("read_file", A, R1),
    ]));
}

#[test]
fn an_identical_repeat_of_a_mutating_call_is_never_redundant() {
    assert_snapshot!(replay_calls(&[
        ("write_file", A, OK),
        ("write_file", A, OK),
        ("read_file", B, R1),
        ("write_file", A, OK),
        ("run_command", A, OK),
        ("run_command", A, OK),
    ]));
}

#[test]
fn every_default_mutating_tool_resets_redundancy() {
    assert_snapshot!(replay_calls(&[
        ("read_file", A, R1),
        ("write_file", B, OK),
        ("read_file", A, R1),
        ("delete_file", B, OK),
        ("read_file", A, R1),
        ("create_file", B, OK),
        ("read_file", A, R1),
        ("move_file", B, OK),
        ("read_file", A, R1),
        ("run_command", B, OK),
        ("read_file", A, R1),
        ("append_file", B, OK), // not mutating by default
        ("read_file", A, R1),   // redundant
    ]));
}

#[test]
fn mutating_tool_flag_adds_a_name() {
    let calls = [
        ("read_file", A, R1),
        ("deploy", B, OK),
        ("read_file", A, R1),
    ];
    assert_snapshot!(
        "mutating_tool_flag_adds_a_name_without",
        replay_with(&calls, &[]).text()
    );
    assert_snapshot!(
        "mutating_tool_flag_adds_a_name_with",
        replay_with(&calls, &["--mutating-tool", "deploy"]).text()
    );
}

#[test]
fn mutating_tool_flag_keeps_the_default_set() {
    assert_snapshot!(
        replay_with(
            &[
                ("read_file", A, R1),
                ("write_file", B, OK),
                ("read_file", A, R1),
                ("deploy", B, OK),
                ("deploy", B, OK),
            ],
            &["--mutating-tool", "deploy"]
        )
        .text()
    );
}

#[test]
fn repeated_mutating_tool_flags_add_several_names() {
    assert_snapshot!(
        replay_with(
            &[
                ("read_file", A, R1),
                ("deploy", B, OK),
                ("read_file", A, R1),
                ("restart", B, OK),
                ("read_file", A, R1),
                ("notify", B, OK),
                ("read_file", A, R1), // redundant: notify was not added
            ],
            &["--mutating-tool", "deploy", "--mutating-tool", "restart",]
        )
        .text()
    );
}

#[test]
fn mutating_tool_names_are_case_sensitive() {
    assert_snapshot!(
        replay_with(
            &[
                ("read_file", A, R1),
                ("Write_File", B, OK), // not write_file
                ("read_file", A, R1),
                ("DEPLOY", B, OK), // not deploy
                ("read_file", A, R1),
            ],
            &["--mutating-tool", "deploy"]
        )
        .text()
    );
}

#[test]
fn a_mutating_tool_repeated_identically_still_reports_non_determinism() {
    assert_snapshot!(replay_calls(&[
        ("run_command", A, R1),
        ("run_command", A, R2),
    ]));
}

// --- what makes calls identical

#[test]
fn identical_ignores_key_order_and_whitespace() {
    assert_snapshot!(replay_calls(&[
        (
            "search",
            r#"{"q": "x", "n": [1, 2], "o": {"b": 1, "a": 2}}"#,
            R1
        ),
        ("search", r#"{"o":{"a":2,"b":1},"n":[1,2],"q":"x"}"#, R1),
        (
            "search",
            "{ \"n\" :\t[ 1 ,2 ] , \"o\" : { \"a\" : 2 , \"b\" : 1 } , \"q\" : \"x\" }",
            R1
        ),
    ]));
}

#[test]
fn identical_ignores_how_a_string_is_escaped() {
    assert_snapshot!(replay_calls(&[
        ("read_file", r#"{"path": "caf\u00e9"}"#, R1),
        ("read_file", r#"{"path": "café"}"#, R1),
        ("read_file", r#"{"p\u0061th": "caf\u00E9"}"#, R1),
        ("read_file", r#"{"path": "\ud83d\ude00\/"}"#, R1),
        ("read_file", r#"{"path": "😀/"}"#, R1),
    ]));
}

#[test]
fn identical_distinguishes_integers_from_floats() {
    assert_snapshot!(replay_calls(&[
        ("read_file", r#"{"n": 1}"#, R1),
        ("read_file", r#"{"n": 1.0}"#, R1),   // differs from 1
        ("read_file", r#"{"n": 1.00}"#, R1),  // same as 1.0
        ("read_file", r#"{"n": 10e-1}"#, R1), // same as 1.0
        ("read_file", r#"{"n": -0}"#, R1),
        ("read_file", r#"{"n": 0}"#, R1), // same as -0
        ("read_file", r#"{"n": -0.0}"#, R1),
        ("read_file", r#"{"n": 0.0}"#, R1), // differs from -0.0
    ]));
}

#[test]
fn identical_compares_big_integers_exactly() {
    assert_snapshot!(replay_calls(&[
        ("read_file", r#"{"n": 18446744073709551623}"#, R1),
        ("read_file", r#"{"n": 18446744073709551622}"#, R1), // differs
        ("read_file", r#"{"n": 18446744073709551623}"#, R1), // same as 0
        ("read_file", r#"{"n": 18446744073709551623.0}"#, R1), // a float: differs
    ]));
}

#[test]
fn identical_compares_floats_by_value() {
    assert_snapshot!(replay_calls(&[
        ("read_file", r#"{"n": 1e16}"#, R1),
        ("read_file", r#"{"n": 10000000000000000.0}"#, R1), // same float
        ("read_file", r#"{"n": 0.1}"#, R1),
        ("read_file", r#"{"n": 0.10000000000000001}"#, R1), // same float
        ("read_file", r#"{"n": 0.1000000000000001}"#, R1),  // another float
    ]));
}

#[test]
fn identical_requires_the_same_args() {
    assert_snapshot!(replay_calls(&[
        ("read_file", r#"{"path": "a"}"#, R1),
        ("read_file", r#"{"path": "a", "encoding": null}"#, R1),
        ("read_file", r#"{"path": ["a"]}"#, R1),
        ("read_file", r#"{"path": "A"}"#, R1),
        ("read_file", "{}", R1),
    ]));
}

#[test]
fn tool_names_are_case_sensitive() {
    assert_snapshot!(replay_calls(&[
        ("read_file", A, R1),
        ("Read_File", A, R2),
        ("READ_FILE", A, R2),
        ("read_file ", A, R2),
    ]));
}

#[test]
fn responses_are_compared_by_canonical_encoding() {
    assert_snapshot!(replay_calls(&[
        (
            "search",
            A,
            r#"{"hits": [1, 2], "meta": {"b": "é", "a": null}}"#
        ),
        ("write_file", B, OK),
        (
            "search",
            A,
            r#"{"meta":{"a":null,"b":"\u00e9"},"hits":[1,2]}"#
        ),
        ("write_file", B, OK),
        (
            "search",
            A,
            r#"{"meta":{"a":null,"b":"\u00e9"},"hits":[2,1]}"#
        ), // differs
    ]));
}

// --- non-determinism compares with the first occurrence

#[test]
fn non_determinism_compares_with_the_first_occurrence_even_after_mutations() {
    assert_snapshot!(replay_calls(&[
        ("read_file", A, R1), // 0: first
        ("write_file", B, OK),
        ("read_file", A, R2), // 2: differs from 0
        ("write_file", B, OK),
        ("read_file", A, R2), // 4: same as 2 but differs from 0
        ("write_file", B, OK),
        ("read_file", A, R1), // 6: same as 0: nothing
    ]));
}

#[test]
fn non_determinism_of_a_repeated_call_names_the_first_occurrence() {
    assert_snapshot!(replay_calls(&[
        ("read_file", A, R1), // 0
        ("read_file", A, R1), // 1: redundant vs 0
        ("read_file", A, R2), // 2: redundant vs 1, non-determinism vs 0
    ]));
}

#[test]
fn divergence_is_the_first_non_determinism_index() {
    assert_snapshot!(replay_calls(&[
        ("read_file", A, R1),
        ("read_file", B, R1),
        ("write_file", B, OK),
        ("read_file", B, R2), // 3: first non-determinism
        ("read_file", A, R2), // 4
    ]));
}

// --- names in reports

#[test]
fn tool_names_are_quoted_in_reports() {
    // Each tool is called twice in a row, so each gives one redundant-call line.
    let names = [
        r"it's",
        r"back\\slash",
        r"line\nbreak",
        r"car\rriage",
        r"tab\there",
        r"nul\u0000",
        r"unit\u001f",
        r"del\u007f",
        r"nel\u0085",
        r"c1 end\u009f",
        r"nbsp\u00a0",
        r"ls\u2028",
        r"ps\u2029",
        "café",
        "日本語",
        r"emoji\ud83d\ude00",
        r#"dq\"x"#,
        r"mixed'\\'\n",
    ];
    let calls: Vec<(&str, &str, &str)> = names
        .iter()
        .flat_map(|name| [(*name, A, R1), (*name, A, R1)])
        .collect();
    let run = replay_with(&calls, &[]);
    // One line per finding, whatever the name holds.
    assert_eq!(
        run.stdout.lines().count(),
        3 + names.len(),
        "{}",
        run.stdout
    );
    assert_snapshot!(run.text());
}

// --- agent rules and volatile tools

/// A session: a read, an edit, the read again (another answer), the read once more
/// (another answer, nothing changed), and a poll twice.
const SESSION: [(&str, &str, &str); 6] = [
    ("Read", A, R1),
    ("Edit", A, OK),
    ("Read", A, R2),
    ("Read", A, R1),
    ("BashOutput", B, R1),
    ("BashOutput", B, R2),
];

#[test]
fn a_plain_transcript_is_judged_by_the_specification_s_rules() {
    assert_snapshot!(replay_calls(&SESSION), @r"
    exit: 1
    --- stdout
    calls: 6
    divergence: index 2
    findings: 5
    index 2: non-determinism: tool 'Read' returned a different response than the identical call at index 0
    index 2: redundant-call: tool 'Read' repeats the identical call at index 0 with no state change between them
    index 3: redundant-call: tool 'Read' repeats the identical call at index 2 with no state change between them
    index 5: non-determinism: tool 'BashOutput' returned a different response than the identical call at index 4
    index 5: redundant-call: tool 'BashOutput' repeats the identical call at index 4 with no state change between them
    --- stderr
    ");
}

#[test]
fn rules_agent_compares_since_the_last_state_change_and_spares_volatile_tools() {
    assert_snapshot!(replay_with(&SESSION, &["--rules", "agent"]).text(), @r"
    exit: 1
    --- stdout
    calls: 6
    divergence: index 3
    findings: 2
    index 3: non-determinism: tool 'Read' returned a different response than the identical call at index 2
    index 3: redundant-call: tool 'Read' repeats the identical call at index 2 with no state change between them
    --- stderr
    ");
}

#[test]
fn volatile_tool_spares_a_tool_under_the_specification_s_rules() {
    assert_snapshot!(replay_with(&SESSION, &["--volatile-tool", "Read"]).text(), @r"
    exit: 1
    --- stdout
    calls: 6
    divergence: index 5
    findings: 2
    index 5: non-determinism: tool 'BashOutput' returned a different response than the identical call at index 4
    index 5: redundant-call: tool 'BashOutput' repeats the identical call at index 4 with no state change between them
    --- stderr
    ");
}

/// `calls` identical searches, each answered differently: two findings on every call
/// but the first.
fn searches_answered_differently(calls: u64) -> String {
    (0..calls)
        .map(|i| {
            format!(
                "{}\n",
                record(i, "search", r#"{"q": "x"}"#, &format!(r#"{{"hits": {i}}}"#))
            )
        })
        .collect()
}

/// Findings past the few MiB kept in memory go to a temporary file: when it cannot
/// be made, the report fails before any of it is written, in every format.
#[test]
fn findings_that_cannot_be_kept_fail_the_report_before_it_starts() {
    let calls = 60_001u64;
    let dir = Dir::new();
    dir.write("t.jsonl", searches_answered_differently(calls));
    // Scope: every call outside the declared tools, each finding with a long name.
    let tool = "a_tool_with_a_name_long_enough_to_fill_the_memory_kept".repeat(2);
    let text: String = (0..calls)
        .map(|i| format!("{}\n", record(i, &tool, "{}", "{}")))
        .collect();
    dir.write("s.jsonl", text);
    dir.write(
        "scope.json",
        r#"{"agent": "a", "allowed_tools": ["search"]}"#,
    );
    let missing = dir.path().join("missing");
    let tmpdir = missing.to_str().expect("UTF-8 path");
    for format in ["text", "json", "sarif"] {
        for args in [
            &["replay", "t.jsonl", "--format", format][..],
            &["scope", "s.jsonl", "scope.json", "--format", format],
        ] {
            let run = run_with_env(dir.path(), args, &[("TMPDIR", tmpdir)]);
            insta::allow_duplicates! {
                assert_snapshot!(run.text(), @r"
                exit: 2
                --- stdout
                --- stderr
                error: cannot write a temporary file: the findings could not be kept in a temporary file
                ");
            }
        }
    }
}

/// Findings past the few MiB kept in memory are kept in a temporary file and read
/// back in order: every report format, the summary and baselines see all of them,
/// each once, in order.
#[test]
fn findings_past_memory_are_all_reported_in_order() {
    let calls = 60_001u64;
    let dir = Dir::new();
    dir.write("t.jsonl", searches_answered_differently(calls));
    let findings = 2 * (calls - 1);
    let last = calls - 1;

    let run = dir.run(&["replay", "t.jsonl", "--summary"]);
    assert_eq!(run.code, 1);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(
        lines[..3],
        [
            format!("calls: {calls}"),
            "divergence: index 1".to_owned(),
            format!("findings: {findings}")
        ]
    );
    assert_eq!(
        lines[3 + findings as usize - 1],
        format!(
            "index {last}: redundant-call: tool 'search' repeats the identical call at index {} with no state change between them",
            last - 1
        )
    );
    assert_eq!(
        lines.last().copied(),
        Some(&*format!("  t.jsonl:{calls}: index {last}: redundant-call"))
    );
    assert!(lines.contains(&&*format!("findings: {findings}")));

    let json: serde_json::Value =
        serde_json::from_str(&dir.run(&["replay", "t.jsonl", "--format", "json"]).stdout)
            .expect("JSON");
    let found = json["findings"].as_array().expect("findings");
    assert_eq!(found.len() as u64, findings);
    assert_eq!(found[found.len() - 2]["kind"], "non-determinism");
    assert_eq!(found[found.len() - 1]["index"], last);

    let sarif: serde_json::Value =
        serde_json::from_str(&dir.run(&["replay", "t.jsonl", "--format", "sarif"]).stdout)
            .expect("SARIF");
    let results = sarif["runs"][0]["results"].as_array().expect("results");
    assert_eq!(results.len() as u64, findings);
    let occurrence = |result: &serde_json::Value| {
        let fingerprint = result["partialFingerprints"]["toolreplay/v1"]
            .as_str()
            .expect("one");
        fingerprint
            .rsplit(':')
            .next()
            .expect("occurrence")
            .to_owned()
    };
    assert_eq!(
        occurrence(&results[results.len() - 1]),
        (calls - 1).to_string()
    );

    let written = dir.run(&["replay", "t.jsonl", "--write-baseline", "b.json"]);
    assert_eq!(written.code, 0);
    let again = dir.run(&["replay", "t.jsonl", "--baseline", "b.json"]);
    assert_eq!(
        again.text(),
        "exit: 0\n--- stdout\ncalls: 60001\ndivergence: index 1\nfindings: 0\n--- stderr\n"
    );
}
