//! Several inputs at once: files and folders, in a sorted order, each file's report
//! then a summary; the exit status the worst of all; JSON and SARIF holding every
//! file. One file stays exactly as before.

use insta::assert_snapshot;
use serde_json::Value;

use super::{Dir, ROOT, lines, record};

const A: &str = r#"{"q": "a"}"#;

/// `runs/`: a clean run, a run with two findings, a run in a subfolder, a note that
/// is not a transcript, and a hidden file.
fn dir() -> Dir {
    let dir = Dir::new();
    std::fs::create_dir_all(dir.path().join("runs/nested")).expect("folders");
    dir.write(
        "runs/b-clean.jsonl",
        lines(&[&record(0, "search", A, "{}")]),
    );
    dir.write(
        "runs/a-dirty.jsonl",
        lines(&[
            &record(0, "search", A, r#"{"hits": 1}"#),
            &record(1, "search", A, r#"{"hits": 2}"#),
        ]),
    );
    dir.write(
        "runs/nested/c.jsonl",
        lines(&[&record(0, "fetch", A, "{}"), &record(1, "fetch", A, "{}")]),
    );
    dir.write("runs/notes.txt", "not a transcript\n");
    dir.write("runs/.hidden.jsonl", "not read\n");
    dir
}

#[test]
fn a_folder_is_walked_in_order_with_a_glob_and_summarised() {
    assert_snapshot!(dir().run(&["replay", "runs", "--glob", "*.jsonl"]).text(), @r"
    exit: 1
    --- stdout
    == runs/a-dirty.jsonl
    calls: 2
    divergence: index 1
    findings: 2
    index 1: non-determinism: tool 'search' returned a different response than the identical call at index 0
    index 1: redundant-call: tool 'search' repeats the identical call at index 0 with no state change between them

    == runs/b-clean.jsonl
    calls: 1
    divergence: none
    findings: 0

    == runs/nested/c.jsonl
    calls: 2
    divergence: none
    findings: 1
    index 1: redundant-call: tool 'fetch' repeats the identical call at index 0 with no state change between them

    summary:
    files: 3
    findings: 3
    by kind:
      non-determinism: 1
      redundant-call: 2
    by tool:
      'fetch': 1
      'search': 2
    by line:
      runs/a-dirty.jsonl:2: index 1: non-determinism
      runs/a-dirty.jsonl:2: index 1: redundant-call
      runs/nested/c.jsonl:2: index 1: redundant-call
    --- stderr
    ");
}

#[test]
fn files_are_reported_in_the_order_given_and_folders_sorted() {
    let dir = dir();
    assert_snapshot!(
        dir.run(&["replay", "runs/nested/c.jsonl", "runs/b-clean.jsonl"]).text(),
        @r"
    exit: 1
    --- stdout
    == runs/nested/c.jsonl
    calls: 2
    divergence: none
    findings: 1
    index 1: redundant-call: tool 'fetch' repeats the identical call at index 0 with no state change between them

    == runs/b-clean.jsonl
    calls: 1
    divergence: none
    findings: 0

    summary:
    files: 2
    findings: 1
    by kind:
      redundant-call: 1
    by tool:
      'fetch': 1
    by line:
      runs/nested/c.jsonl:2: index 1: redundant-call
    --- stderr
    "
    );
}

#[test]
fn a_file_that_cannot_be_read_makes_the_exit_status_2_and_the_others_are_reported() {
    assert_snapshot!(dir().run(&["replay", "runs"]).text(), @r"
    exit: 2
    --- stdout
    == runs/a-dirty.jsonl
    calls: 2
    divergence: index 1
    findings: 2
    index 1: non-determinism: tool 'search' returned a different response than the identical call at index 0
    index 1: redundant-call: tool 'search' repeats the identical call at index 0 with no state change between them

    == runs/b-clean.jsonl
    calls: 1
    divergence: none
    findings: 0

    == runs/nested/c.jsonl
    calls: 2
    divergence: none
    findings: 1
    index 1: redundant-call: tool 'fetch' repeats the identical call at index 0 with no state change between them

    summary:
    files: 4
    findings: 3
    by kind:
      non-determinism: 1
      redundant-call: 2
    by tool:
      'fetch': 1
      'search': 2
    by line:
      runs/a-dirty.jsonl:2: index 1: non-determinism
      runs/a-dirty.jsonl:2: index 1: redundant-call
      runs/nested/c.jsonl:2: index 1: redundant-call
    errors: 1
    --- stderr
    error: runs/notes.txt:1: invalid JSON: expected `null`, found `o` at column 2
    ");
}

#[test]
fn all_clean_exits_0() {
    assert_snapshot!(dir().run(&["replay", "runs", "--glob", "b-*"]).text(), @r"
    exit: 0
    --- stdout
    == runs/b-clean.jsonl
    calls: 1
    divergence: none
    findings: 0

    summary:
    files: 1
    findings: 0
    by kind:
    by tool:
    by line:
    --- stderr
    ");
}

#[test]
fn json_holds_every_file_and_the_summary() {
    assert_snapshot!(
        dir().run(&["replay", "runs", "--glob", "*.jsonl", "--format", "json"]).text(),
        @r#"
    exit: 1
    --- stdout
    {
      "command": "replay",
      "errors": 0,
      "files": 3,
      "format_version": 1,
      "reports": [
        {
          "calls": 2,
          "command": "replay",
          "divergence": 1,
          "file": "runs/a-dirty.jsonl",
          "findings": [
            {
              "index": 1,
              "kind": "non-determinism",
              "line": 2,
              "message": "tool 'search' returned a different response than the identical call at index 0",
              "related_index": 0,
              "tool": "search"
            },
            {
              "index": 1,
              "kind": "redundant-call",
              "line": 2,
              "message": "tool 'search' repeats the identical call at index 0 with no state change between them",
              "related_index": 0,
              "tool": "search"
            }
          ],
          "format_version": 1
        },
        {
          "calls": 1,
          "command": "replay",
          "divergence": null,
          "file": "runs/b-clean.jsonl",
          "findings": [],
          "format_version": 1
        },
        {
          "calls": 2,
          "command": "replay",
          "divergence": null,
          "file": "runs/nested/c.jsonl",
          "findings": [
            {
              "index": 1,
              "kind": "redundant-call",
              "line": 2,
              "message": "tool 'fetch' repeats the identical call at index 0 with no state change between them",
              "related_index": 0,
              "tool": "fetch"
            }
          ],
          "format_version": 1
        }
      ],
      "summary": {
        "by_kind": {
          "non-determinism": 1,
          "redundant-call": 2
        },
        "by_tool": {
          "fetch": 1,
          "search": 2
        },
        "findings": 3
      }
    }
    --- stderr
    "#
    );
}

#[test]
fn scope_takes_several_files_and_the_scope_file_last_or_by_option() {
    let dir = dir();
    dir.write(
        "scope.json",
        r#"{"agent": "a", "allowed_tools": ["search"]}"#,
    );
    let last = dir.run(&[
        "scope",
        "runs/a-dirty.jsonl",
        "runs/nested/c.jsonl",
        "scope.json",
    ]);
    assert_snapshot!(last.text(), @r"
    exit: 1
    --- stdout
    == runs/a-dirty.jsonl
    calls: 2
    findings: 0

    == runs/nested/c.jsonl
    calls: 2
    findings: 2
    index 0: permission-overreach: tool 'fetch' is not in the declared scope for agent 'a'
    index 1: permission-overreach: tool 'fetch' is not in the declared scope for agent 'a'

    summary:
    files: 2
    findings: 2
    by kind:
      permission-overreach: 2
    by tool:
      'fetch': 2
    by line:
      runs/nested/c.jsonl:1: index 0: permission-overreach
      runs/nested/c.jsonl:2: index 1: permission-overreach
    --- stderr
    ");
    let option = dir.run(&[
        "scope",
        "runs/a-dirty.jsonl",
        "runs/nested/c.jsonl",
        "--scope",
        "scope.json",
    ]);
    assert_eq!(option.text(), last.text());
}

#[test]
fn verify_takes_several_files() {
    let dir = dir();
    let sealed = dir.run(&["seal", "runs/a-dirty.jsonl"]);
    dir.write("sealed.jsonl", &sealed.stdout);
    dir.write(
        "broken.jsonl",
        sealed.stdout.replace("hits\":2", "hits\":3"),
    );
    assert_snapshot!(dir.run(&["verify", "sealed.jsonl", "broken.jsonl"]).text(), @r"
    exit: 1
    --- stdout
    == sealed.jsonl
    chain: intact

    == broken.jsonl
    chain: broken
    first broken link: index 1
    expected: 6aedd51efe66cbeee10b02a05d8282e2f0d243c117e18f125779a50f5dd2443a
    found: de469e90a143576fc0f43a6b1acb9c6b63a98778068509747f1d1575bcd7e73b

    summary:
    files: 2
    intact: 1
    broken: 1
    --- stderr
    ");
}

#[test]
fn summary_of_one_file_follows_its_report() {
    let dir = dir();
    assert_snapshot!(dir.run(&["replay", "runs/a-dirty.jsonl", "--summary"]).text(), @r"
    exit: 1
    --- stdout
    calls: 2
    divergence: index 1
    findings: 2
    index 1: non-determinism: tool 'search' returned a different response than the identical call at index 0
    index 1: redundant-call: tool 'search' repeats the identical call at index 0 with no state change between them

    summary:
    findings: 2
    by kind:
      non-determinism: 1
      redundant-call: 1
    by tool:
      'search': 2
    by line:
      runs/a-dirty.jsonl:2: index 1: non-determinism
      runs/a-dirty.jsonl:2: index 1: redundant-call
    --- stderr
    ");
    assert_snapshot!(
        dir.run(&["replay", "runs/a-dirty.jsonl", "--summary", "--format", "json"]).text(),
        @r"
    exit: 2
    --- stdout
    --- stderr
    error: --summary is for the text report; JSON and SARIF hold each finding's line
    "
    );
}

#[test]
#[ignore = "needs ../shared/data"]
fn sarif_of_several_files_is_one_run_and_valid() {
    let run = dir().run(&["replay", "runs", "--glob", "*.jsonl", "--format", "sarif"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let log: Value = serde_json::from_str(&run.stdout).expect("SARIF is JSON");
    let errors: Vec<String> = super::formats::sarif_validator()
        .iter_errors(&log)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let runs = log["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 1);
    let located: Vec<(&str, &str)> = runs[0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            (
                r["ruleId"].as_str().expect("rule"),
                r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                    .as_str()
                    .expect("uri"),
            )
        })
        .collect();
    assert_eq!(
        located,
        [
            ("non-determinism", "runs/a-dirty.jsonl"),
            ("redundant-call", "runs/a-dirty.jsonl"),
            ("redundant-call", "runs/nested/c.jsonl"),
        ]
    );
}

/// `runs/`: a run with two findings, a run with 40,000 (20,001 reads of one file,
/// each answered differently: the reports of it spill to a temporary file) and a
/// clean run.
fn big_dir() -> Dir {
    let dir = Dir::new();
    std::fs::create_dir_all(dir.path().join("runs")).expect("folder");
    dir.write(
        "runs/a-dirty.jsonl",
        lines(&[
            &record(0, "search", A, r#"{"hits": 1}"#),
            &record(1, "search", A, r#"{"hits": 2}"#),
        ]),
    );
    let big: String = (0..20_001)
        .map(|i| {
            record(
                i,
                "read_file",
                r#"{"path": "a.md"}"#,
                &format!(r#"{{"v": {i}}}"#),
            ) + "\n"
        })
        .collect();
    dir.write("runs/b-big.jsonl", big);
    dir.write(
        "runs/c-clean.jsonl",
        lines(&[&record(0, "search", A, "{}")]),
    );
    dir
}

/// The output of a run too long to show whole: its exit code, stderr, the length and
/// SHA-256 of stdout, and stdout's first and last `shown` lines.
fn outline(run: &super::Run, shown: usize) -> String {
    use sha2::Digest as _;
    let all: Vec<&str> = run.stdout.split_inclusive('\n').collect();
    format!(
        "exit: {}\n--- stderr\n{}--- stdout: {} bytes, {} lines, sha256 {}\n{}...\n{}",
        run.code,
        run.stderr,
        run.stdout.len(),
        all.len(),
        hex::encode(sha2::Sha256::digest(run.stdout.as_bytes())),
        all[..shown].concat(),
        all[all.len() - shown..].concat(),
    )
}

// The lengths and digests below are those of the previous build, which merged the
// files' reports in memory: the streamed document is the same, byte for byte.

#[test]
fn json_of_a_file_with_many_findings_among_others_is_streamed_unchanged() {
    let run = big_dir().run(&["replay", "runs", "--format", "json"]);
    assert_snapshot!(outline(&run, 30));
}

#[test]
fn sarif_of_a_file_with_many_findings_among_others_is_streamed_unchanged() {
    let run = big_dir().run(&["replay", "runs", "--format", "sarif"]);
    assert_snapshot!(outline(&run, 30));
}

/// An MCP log of `calls` calls to `echo`, the last without an answer (a warning).
fn mcp_log(calls: u64) -> String {
    let mut log = String::new();
    for id in 0..calls {
        log.push_str(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"n":{id}}}}}}}"#
        ));
        log.push('\n');
        if id + 1 < calls {
            log.push_str(&format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[]}}}}"#
            ));
            log.push('\n');
        }
    }
    log
}

#[test]
fn what_each_import_tells_stderr_comes_in_the_files_order() {
    // The first log is the longest by far: audited on several cores, the others
    // end before it, but what each tells stderr, its errors too, is in order.
    let dir = Dir::new();
    std::fs::create_dir_all(dir.path().join("logs")).expect("folder");
    dir.write("logs/a.jsonl", mcp_log(20_000));
    dir.write("logs/b.jsonl", mcp_log(2));
    dir.write("logs/c.jsonl", "not a log\n");
    dir.write("logs/d.jsonl", mcp_log(1));
    assert_snapshot!(dir.run(&["replay", "--from", "auto", "logs"]).text(), @r#"
    exit: 2
    --- stdout
    == logs/a.jsonl
    calls: 20000
    divergence: none
    findings: 0

    == logs/b.jsonl
    calls: 2
    divergence: none
    findings: 0

    == logs/d.jsonl
    calls: 1
    divergence: none
    findings: 0

    summary:
    files: 4
    findings: 0
    by kind:
    by tool:
    by line:
    errors: 1
    --- stderr
    note: logs/a.jsonl: detected format mcp
    warning: logs/a.jsonl:39999: call 'echo' (id 19999) has no result; kept with the response {"no_result":true}
    warning: logs/a.jsonl: 1 warning: 1 call without a result
    note: logs/b.jsonl: detected format mcp
    warning: logs/b.jsonl:3: call 'echo' (id 1) has no result; kept with the response {"no_result":true}
    warning: logs/b.jsonl: 1 warning: 1 call without a result
    error: logs/c.jsonl:1: unrecognised input: invalid JSON: expected `null`, found `o` at column 2; expected an agent log of a known format (claude-code, codex, gemini, copilot, cursor, openai, responses, anthropic, mcp, inspect, swe-agent, openhands, cline, otel, or a transcript of this tool; see docs/import.md); name the format with --from
    note: logs/d.jsonl: detected format mcp
    warning: logs/d.jsonl:1: call 'echo' (id 0) has no result; kept with the response {"no_result":true}
    warning: logs/d.jsonl: 1 warning: 1 call without a result
    "#);
}

#[test]
fn a_glob_takes_classes_and_alternatives_and_a_bad_one_is_a_usage_error() {
    let dir = dir();
    let text = dir.runs(&[
        &["replay", "runs", "--glob", "[ab]-*.{jsonl,json}"],
        &["replay", "runs", "--glob", "[a"],
        &["import", "runs", "--out-dir", "out", "--glob", "{a"],
    ]);
    assert_snapshot!(text);
}

#[test]
fn a_folder_of_live_sessions_is_read_without_their_lock_state_context_and_attestation_files() {
    let dir = Dir::new();
    std::fs::create_dir_all(dir.path().join("sessions")).expect("folder");
    dir.write("t.jsonl", lines(&[&record(0, "search", A, "{}")]));
    let sealed = dir.run(&["seal", "t.jsonl"]);
    dir.write("sessions/s1.jsonl", &sealed.stdout);
    dir.write("sessions/s1.jsonl.lock", "");
    dir.write("sessions/s1.jsonl.state", r#"{"version": 1}"#);
    // An attestation beside it, as `attest` names it, is no transcript either.
    dir.write("sessions/s1.jsonl.intoto.jsonl", "{\"payload\": \"\"}\n");
    let context = r#"{"index": 0, "tool": "context", "args": {"agent": "claude-code", "cwd": "/p", "from": 0, "home": null, "policy_digest": "ab"}, "response": {}}"#;
    dir.write("c.jsonl", format!("{context}\n"));
    let context = dir.run(&["seal", "c.jsonl"]);
    // Verified as the sealed file it is; the audits read it with its session.
    dir.write("sessions/s1.context.jsonl", &context.stdout);
    // A lock or state without its session is an ordinary file, read as ever.
    dir.write("sessions/other.state", "not a transcript\n");
    let text = dir.runs(&[
        &["verify", "sessions", "--glob", "s1*"],
        &["replay", "--from", "sealed", "sessions"],
    ]);
    assert_snapshot!(text);
}

#[test]
fn a_claude_code_project_folder_counts_each_subagent_call_once() {
    let dir = Dir::with_claude_code_project();
    let one = dir.run(&["stats", "--from", "claude-code", "projects/p/session.jsonl"]);
    assert!(one.stdout.starts_with("calls: 4\n"), "{}", one.stdout);
    assert_snapshot!(
        dir.run(&["replay", "--from", "claude-code", "projects"])
            .text()
    );
}

#[test]
fn a_claude_code_project_folder_read_with_from_auto_counts_each_subagent_call_once() {
    let dir = Dir::with_claude_code_project();
    // The session is recognised as Claude Code, whose import reads its subagent
    // logs: they are not audited again on their own.
    let auto = dir.runs(&[&["replay", "--from", "auto", "projects"]]);
    // A session that turns out another format reads none: each log is audited on its
    // own, and none is lost.
    let mcp = std::fs::read_to_string(format!("{ROOT}/tests/fixtures/import/mcp.jsonl"))
        .expect("mcp log");
    dir.write("projects/p/session.jsonl", &mcp);
    let other = dir.runs(&[&["replay", "--from", "auto", "projects"]]);
    assert_snapshot!(format!("{auto}{other}"));
}
