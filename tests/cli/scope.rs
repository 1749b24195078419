//! `toolreplay scope` (spec section 4): the findings, and the strict scope file.

use insta::assert_snapshot;

use super::{Dir, Run, lines, record};

/// A transcript calling `tools` in turn (each the inside of a JSON string).
fn calling(tools: &[&str]) -> String {
    tools
        .iter()
        .enumerate()
        .map(|(index, tool)| {
            format!(
                "{}\n",
                record(index as u64, tool, r#"{"path": "a"}"#, r#"{"ok": true}"#)
            )
        })
        .collect()
}

/// `scope t.jsonl scope.json` with those two files.
fn scope_of(transcript: &str, scope: impl AsRef<[u8]>) -> Run {
    let dir = Dir::new();
    dir.write("t.jsonl", transcript);
    dir.write("scope.json", scope);
    dir.run(&["scope", "t.jsonl", "scope.json"])
}

/// `scope` of a three-call transcript with the scope file `scope`.
fn with_scope(scope: impl AsRef<[u8]>) -> String {
    scope_of(&calling(&["read_file", "search", "read_file"]), scope).text()
}

const READER: &str =
    r#"{"agent": "docs-reader", "allowed_tools": ["read_file", "list_dir", "search"]}"#;

// --- findings

#[test]
fn calls_within_scope_have_no_findings() {
    assert_snapshot!(scope_of(&calling(&["read_file", "search", "list_dir"]), READER).text());
}

#[test]
fn every_call_outside_scope_is_a_finding() {
    assert_snapshot!(
        scope_of(
            &calling(&["write_file", "read_file", "delete_file", "write_file"]),
            READER
        )
        .text()
    );
}

#[test]
fn tool_names_in_scope_are_case_sensitive() {
    assert_snapshot!(
        scope_of(
            &calling(&["Read_File", "read_file", "SEARCH", "search ", "list_dir"]),
            READER
        )
        .text()
    );
}

#[test]
fn scope_checks_names_never_arguments() {
    let transcript = lines(&[
        &record(0, "read_file", r#"{"path": "/etc/shadow"}"#, "{}"),
        &record(
            1,
            "search",
            r#"{"query": "rm -rf /", "tool": "write_file"}"#,
            "{}",
        ),
    ]);
    assert_snapshot!(scope_of(&transcript, READER).text());
}

#[test]
fn an_empty_allowed_list_makes_every_call_a_finding() {
    assert_snapshot!(with_scope(r#"{"agent": "nobody", "allowed_tools": []}"#));
}

#[test]
fn a_scope_file_over_several_lines_with_crlf_and_bom_is_accepted() {
    assert_snapshot!(with_scope(
        "\u{feff}{\r\n  \"allowed_tools\": [\r\n    \"read_file\"\r\n  ],\r\n  \"agent\": \"docs-reader\"\r\n}\r\n"
    ));
}

#[test]
fn agent_and_tool_names_are_quoted_in_reports() {
    let scope = r#"{"agent": "it's \\ a\nnew\u2028agent\u007f\u0085 é", "allowed_tools": []}"#;
    let run = scope_of(
        &calling(&[r"o'brien", r"back\\slash", r"tab\t", r"nel\u0085", "日本"]),
        scope,
    );
    assert_eq!(run.stdout.lines().count(), 2 + 5, "{}", run.stdout);
    assert_snapshot!(run.text());
}

#[test]
fn an_empty_transcript_has_no_calls() {
    assert_snapshot!(scope_of("", READER).text());
}

// --- the scope file is strict

#[test]
fn rejects_a_scope_without_agent() {
    assert_snapshot!(with_scope(r#"{"allowed_tools": ["read_file"]}"#));
}

#[test]
fn rejects_a_scope_without_allowed_tools() {
    assert_snapshot!(with_scope(r#"{"agent": "docs-reader"}"#));
}

#[test]
fn rejects_an_unknown_scope_field() {
    assert_snapshot!(with_scope(
        r#"{"agent": "docs-reader", "allowed_tools": [], "denied_tools": []}"#
    ));
}

#[test]
fn rejects_an_empty_agent() {
    assert_snapshot!(with_scope(r#"{"agent": "", "allowed_tools": []}"#));
}

#[test]
fn rejects_a_numeric_agent() {
    assert_snapshot!(with_scope(r#"{"agent": 5, "allowed_tools": []}"#));
}

#[test]
fn rejects_a_null_agent() {
    assert_snapshot!(with_scope(r#"{"agent": null, "allowed_tools": []}"#));
}

#[test]
fn rejects_allowed_tools_as_a_string() {
    assert_snapshot!(with_scope(
        r#"{"agent": "docs-reader", "allowed_tools": "read_file"}"#
    ));
}

#[test]
fn rejects_allowed_tools_as_an_object() {
    assert_snapshot!(with_scope(
        r#"{"agent": "docs-reader", "allowed_tools": {"read_file": true}}"#
    ));
}

#[test]
fn rejects_a_non_string_element() {
    assert_snapshot!(with_scope(
        r#"{"agent": "docs-reader", "allowed_tools": ["read_file", 5]}"#
    ));
}

#[test]
fn rejects_a_null_element() {
    assert_snapshot!(with_scope(
        r#"{"agent": "docs-reader", "allowed_tools": [null]}"#
    ));
}

#[test]
fn rejects_a_duplicate_key_in_the_scope() {
    assert_snapshot!(with_scope(
        r#"{"agent": "docs-reader", "allowed_tools": [], "agent": "other"}"#
    ));
}

#[test]
fn rejects_a_scope_that_is_not_an_object() {
    assert_snapshot!(with_scope(r#"["read_file"]"#));
}

#[test]
fn rejects_an_empty_scope_file() {
    assert_snapshot!(with_scope(""));
}

#[test]
fn rejects_two_objects_in_the_scope_file() {
    assert_snapshot!(with_scope(
        "{\"agent\": \"a\", \"allowed_tools\": []}\n{\"agent\": \"b\", \"allowed_tools\": []}\n"
    ));
}

#[test]
fn rejects_invalid_json_in_the_scope() {
    assert_snapshot!(with_scope(
        r#"{"agent": "a", "allowed_tools": [read_file]}"#
    ));
}

#[test]
fn rejects_a_lone_surrogate_in_the_scope() {
    assert_snapshot!(with_scope(r#"{"agent": "a\ud800", "allowed_tools": []}"#));
}

#[test]
fn rejects_nan_in_the_scope() {
    assert_snapshot!(with_scope(r#"{"agent": "a", "allowed_tools": [NaN]}"#));
}

#[test]
fn rejects_invalid_utf8_in_the_scope() {
    assert_snapshot!(with_scope(
        b"{\n  \"agent\": \"a\xe9\",\n  \"allowed_tools\": []\n}\n"
    ));
}

#[test]
fn reports_the_line_of_an_error_in_a_multi_line_scope_file() {
    assert_snapshot!(with_scope(
        "{\n  \"agent\": \"docs-reader\",\n  \"allowed_tools\": [\"read_file\", 5]\n}\n"
    ));
}

#[test]
fn reports_the_line_of_a_duplicate_key_in_a_multi_line_scope_file() {
    assert_snapshot!(with_scope(
        "{\n  \"agent\": \"docs-reader\",\n  \"agent\": \"other\",\n  \"allowed_tools\": []\n}\n"
    ));
}

#[test]
fn reports_the_line_of_an_unknown_field_in_a_multi_line_scope_file() {
    assert_snapshot!(with_scope(
        "{\n  \"agent\": \"docs-reader\",\n  \"tools\": [],\n  \"allowed_tools\": []\n}\n"
    ));
}

#[test]
fn reports_the_line_of_a_syntax_error_in_a_multi_line_scope_file() {
    assert_snapshot!(with_scope(
        "{\n  \"agent\": \"docs-reader\",\n  \"allowed_tools\": [NaN]\n}\n"
    ));
}

#[test]
fn reports_a_missing_field_on_the_line_where_the_object_opens() {
    assert_snapshot!(with_scope("\n\n{\n  \"agent\": \"docs-reader\"\n}\n"));
}

// --- where an imported log's calls ran

/// A Claude Code session whose `Read` calls, each with its entry's `cwd`, read
/// `file_path`: `(cwd, file_path)` in turn.
fn claude_code_reads(reads: &[(&str, &str)]) -> String {
    reads
        .iter()
        .enumerate()
        .map(|(at, (cwd, path))| {
            format!(
                concat!(
                    r#"{{"type": "assistant", "cwd": "{cwd}", "sessionId": "s", "uuid": "a{at}", "#,
                    r#""message": {{"role": "assistant", "content": [{{"type": "tool_use", "id": "toolu_{at}", "name": "Read", "input": {{"file_path": "{path}"}}}}]}}}}"#,
                    "\n",
                    r#"{{"type": "user", "cwd": "{cwd}", "sessionId": "s", "uuid": "u{at}", "#,
                    r#""message": {{"role": "user", "content": [{{"type": "tool_result", "tool_use_id": "toolu_{at}", "content": "x"}}]}}}}"#,
                    "\n"
                ),
                cwd = cwd,
                at = at,
                path = path
            )
        })
        .collect()
}

#[test]
fn a_claude_code_logs_relative_paths_are_read_from_its_cwd() {
    // `../a.txt` from /p/src is /p/a.txt, inside the root; `a.txt` from /tmp is
    // outside it; `src/../.env` from /p is /p/.env, denied; a relative root is read
    // from the directory the session started in (the first entry's cwd, /p/src).
    let dir = Dir::new();
    dir.write(
        "session.jsonl",
        claude_code_reads(&[
            ("/p/src", "../a.txt"),
            ("/tmp", "a.txt"),
            ("/p", "src/../.env"),
            ("/p", "/p/src/b.rs"),
        ]),
    );
    dir.write(
        "absolute.json",
        r#"{"agent": "a", "allowed_tools": ["Read"], "policy_version": 1,
            "tools": {"Read": {"paths": [{"args": ["/file_path"], "root": "/p", "deny": ["**/.env"]}]}}}"#,
    );
    dir.write(
        "relative.json",
        r#"{"agent": "a", "allowed_tools": ["Read"], "policy_version": 1,
            "tools": {"Read": {"paths": [{"args": ["/file_path"], "root": "."}]}}}"#,
    );
    assert_snapshot!(dir.runs(&[
        &[
            "scope",
            "session.jsonl",
            "absolute.json",
            "--from",
            "claude-code"
        ],
        &[
            "scope",
            "session.jsonl",
            "relative.json",
            "--from",
            "claude-code"
        ],
        &["import", "session.jsonl", "--from", "claude-code"],
    ]));
}
