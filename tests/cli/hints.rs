//! Errors that say what to do, each met on real files: an agent's log read without
//! `--from`, an unsealed transcript given to `verify`, policy fields without
//! `policy_version`, an unknown detector, a misspelt field or tool, `verify --from`;
//! and `diff --format json` and `diff --all`.

use insta::assert_snapshot;

use super::{Dir, lines, record, run_in_root};

#[test]
fn a_claude_code_session_without_from_suggests_from() {
    assert_snapshot!(run_in_root(&["replay", "samples/claude-code-session.jsonl"]).text(), @r#"
    exit: 2
    --- stdout
    --- stderr
    error: samples/claude-code-session.jsonl:1: unknown field "leafUuid"; this looks like an agent's log (claude-code), not a transcript: add --from claude-code
    "#);
}

#[test]
fn an_openai_file_without_from_suggests_from() {
    let dir = Dir::new();
    dir.write(
        "chat.json",
        "[\n{\"role\": \"assistant\", \"tool_calls\": [{\"id\": \"c1\", \"type\": \"function\", \"function\": {\"name\": \"f\", \"arguments\": \"{}\"}}]},\n{\"role\": \"tool\", \"tool_call_id\": \"c1\", \"content\": \"ok\"}\n]\n",
    );
    assert_snapshot!(dir.run(&["replay", "chat.json"]).text(), @r"
    exit: 2
    --- stdout
    --- stderr
    error: chat.json:1: invalid JSON: expected a JSON value, found end of input at column 2; this looks like an agent's log (openai), not a transcript: add --from openai
    ");
    assert_snapshot!(dir.run(&["stats", "chat.json"]).text(), @r"
    exit: 2
    --- stdout
    --- stderr
    error: chat.json:1: invalid JSON: expected a JSON value, found end of input at column 2; this looks like an agent's log (openai), not a transcript: add --from openai
    ");
}

#[test]
fn a_plain_invalid_transcript_has_no_hint() {
    let dir = Dir::new();
    dir.write("t.jsonl", "{\"index\": 0}\n");
    assert_snapshot!(dir.run(&["replay", "t.jsonl"]).text(), @r#"
    exit: 2
    --- stdout
    --- stderr
    error: t.jsonl:1: missing field "tool"
    "#);
}

#[test]
fn verify_of_an_unsealed_transcript_suggests_seal() {
    assert_snapshot!(run_in_root(&["verify", "samples/session-clean.jsonl"]).text(), @r#"
    exit: 2
    --- stdout
    --- stderr
    error: samples/session-clean.jsonl:1: missing field "prev": not a sealed transcript; seal it first (toolreplay seal samples/session-clean.jsonl -o sealed.jsonl)
    "#);
}

#[test]
fn verify_from_says_to_seal_first() {
    assert_snapshot!(
        run_in_root(&["verify", "--from", "claude-code", "samples/claude-code-session.jsonl"]).text(),
        @r"
    exit: 2
    --- stdout
    --- stderr
    error: verify takes no --from: it reads sealed transcripts, which only seal writes; seal the log first (toolreplay seal --from FORMAT LOG -o sealed.jsonl), then verify sealed.jsonl
    "
    );
}

fn scope_with(policy: &str) -> String {
    scope_on(&[&record(0, "read_file", "{}", "{}")], policy)
}

/// `scope t.jsonl p.json` on a transcript of `records` and the scope file `policy`.
fn scope_on(records: &[&str], policy: &str) -> String {
    let dir = Dir::new();
    dir.write("t.jsonl", lines(records));
    dir.write("p.json", policy);
    dir.run(&["scope", "t.jsonl", "p.json"]).text()
}

#[test]
fn policy_fields_without_policy_version_say_it_is_needed() {
    assert_snapshot!(
        scope_with("{\"agent\": \"a\", \"allowed_tools\": [\"read_file\"],\n\"budgets\": {\"total\": 1}}\n"),
        @r#"
    exit: 2
    --- stdout
    --- stderr
    error: p.json:2: unknown field "budgets": policy fields need "policy_version": 1
    "#
    );
}

#[test]
fn a_misspelt_field_suggests_the_near_one() {
    assert_snapshot!(scope_with("{\"agent\": \"a\", \"allowed_tool\": [\"read_file\"]}\n"), @r#"
    exit: 2
    --- stdout
    --- stderr
    error: p.json:1: unknown field "allowed_tool": did you mean "allowed_tools"?
    "#);
}

#[test]
fn an_unknown_detector_lists_the_valid_names() {
    assert_snapshot!(
        scope_with("{\"agent\": \"a\", \"allowed_tools\": [\"read_file\"], \"policy_version\": 1,\n\"response_detectors\": [\"secret\"]}\n"),
        @r"
    exit: 2
    --- stdout
    --- stderr
    error: p.json:2: response_detectors[0]: unknown detector 'secret'; valid names: secrets, personal-data, aws-access-key-id, bearer-token, email-address, github-token, gitlab-token, google-api-key, high-entropy-assignment, payment-card, phone-number, private-key, slack-token
    "
    );
}

#[test]
fn a_misspelt_tool_in_tools_suggests_the_allowed_one() {
    assert_snapshot!(
        scope_with("{\"agent\": \"a\", \"allowed_tools\": [\"read_file\"], \"policy_version\": 1,\n\"tools\": {\"raed_file\": {\"paths\": []}}}\n"),
        @r"
    exit: 2
    --- stdout
    --- stderr
    error: p.json: tools: 'raed_file' is not in allowed_tools nor called: did you mean 'read_file'?
    "
    );
}

/// A tool near an allowed one is not taken for a misspelling when the transcript
/// calls it: its calls are outside the scope, and the rules for it apply.
#[test]
fn a_near_tool_that_is_called_is_not_misspelt() {
    let records = [
        record(0, "read_file", "{}", "{}"),
        record(1, "raed_file", "{}", "{}"),
    ];
    let policy = "{\"agent\": \"a\", \"allowed_tools\": [\"read_file\"], \"policy_version\": 1,\n\"tools\": {\"raed_file\": {\"paths\": []}}}\n";
    assert_snapshot!(scope_on(&[&records[0], &records[1]], policy), @r"
    exit: 1
    --- stdout
    calls: 2
    findings: 1
    index 1: permission-overreach: tool 'raed_file' is not in the declared scope for agent 'a'
    --- stderr
    ");
}

#[test]
fn a_rule_for_a_tool_far_from_every_allowed_one_is_accepted() {
    assert_snapshot!(
        scope_with("{\"agent\": \"a\", \"allowed_tools\": [\"read_file\"], \"policy_version\": 1,\n\"tools\": {\"send_email\": {\"paths\": []}}}\n"),
        @r"
    exit: 0
    --- stdout
    calls: 1
    findings: 0
    --- stderr
    "
    );
}

#[test]
fn replay_from_help_does_not_speak_of_both_runs() {
    let help = run_in_root(&["replay", "--help"]);
    assert!(!help.stdout.contains("both runs"), "{}", help.stdout);
}

fn two_runs() -> Dir {
    let dir = Dir::new();
    dir.write(
        "a.jsonl",
        lines(&[
            &record(0, "search", "{\"q\": 1}", "{}"),
            &record(1, "search", "{\"q\": 2}", "{}"),
            &record(2, "fetch", "{}", "{}"),
        ]),
    );
    dir.write(
        "b.jsonl",
        lines(&[
            &record(0, "search", "{\"q\": 1}", "{\"x\": 1}"),
            &record(1, "search", "{\"q\": 2}", "{}"),
            &record(2, "read", "{}", "{}"),
            &record(3, "fetch", "{}", "{}"),
            &record(4, "fetch", "{}", "{}"),
        ]),
    );
    dir
}

#[test]
fn diff_all_lists_every_difference() {
    assert_snapshot!(two_runs().run(&["diff", "a.jsonl", "b.jsonl", "--all"]).text(), @r"
    exit: 1
    --- stdout
    runs: differ
    calls: 3 and 5
    first difference: index 0
    differs: response
    a: line 1: tool 'search'
    b: line 1: tool 'search'
    differences: 3
    index 0: response: a: line 1: tool 'search'; b: line 1: tool 'search'
    index 2: tool: a: line 3: tool 'fetch'; b: line 3: tool 'read'
    index 3: a ended: b: line 4: tool 'fetch'
    --- stderr
    ");
}

#[test]
fn diff_format_json() {
    let dir = two_runs();
    assert_snapshot!(dir.run(&["diff", "a.jsonl", "b.jsonl", "--format", "json"]).text(), @r#"
    exit: 1
    --- stdout
    {
      "a": "a.jsonl",
      "b": "b.jsonl",
      "calls_a": 3,
      "calls_b": 5,
      "command": "diff",
      "first_difference": {
        "a": {
          "line": 1,
          "tool": "search"
        },
        "b": {
          "line": 1,
          "tool": "search"
        },
        "differs": [
          "response"
        ],
        "index": 0
      },
      "format_version": 1,
      "runs": "differ"
    }
    --- stderr
    "#);
    assert_snapshot!(
        dir.run(&["diff", "a.jsonl", "a.jsonl", "--format", "json", "--all"]).text(),
        @r#"
    exit: 0
    --- stdout
    {
      "a": "a.jsonl",
      "b": "a.jsonl",
      "calls_a": 3,
      "calls_b": 3,
      "command": "diff",
      "differences": [],
      "first_difference": null,
      "format_version": 1,
      "more_differences": 0,
      "runs": "same"
    }
    --- stderr
    "#
    );
    assert_snapshot!(dir.run(&["diff", "a.jsonl", "b.jsonl", "--format", "sarif"]).text(), @r"
    exit: 2
    --- stdout
    --- stderr
    error: diff reports as text or json; SARIF is for findings (replay, scope, verify)
    ");
}

#[test]
fn a_sealed_transcript_without_from_says_to_add_from_sealed() {
    let run = super::run_in_root(&[
        "scope",
        "samples/session-dirty.sealed.jsonl",
        "samples/scope.json",
    ]);
    insta::assert_snapshot!(run.text());
    let run = super::run_in_root(&[
        "scope",
        "--from",
        "sealed",
        "samples/session-dirty.sealed.jsonl",
        "samples/scope.json",
    ]);
    insta::assert_snapshot!("sealed_with_from", run.text());
}
