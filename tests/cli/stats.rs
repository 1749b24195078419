//! `toolreplay stats`: the tools a transcript calls, and a draft scope file that
//! `scope` accepts.

use insta::assert_snapshot;

use super::{Dir, lines, record};

fn dir() -> Dir {
    let dir = Dir::new();
    dir.write(
        "t.jsonl",
        lines(&[
            &record(0, "search", "{}", "{}"),
            &record(1, "read_file", "{}", "{}"),
            &record(2, "search", "{\"q\": 1}", "{}"),
            &record(3, "it's", "{}", "{}"),
        ]),
    );
    dir
}

#[test]
fn stats_counts_calls_by_tool_most_called_first() {
    assert_snapshot!(dir().run(&["stats", "t.jsonl"]).text(), @r"
    exit: 0
    --- stdout
    calls: 4
    tools: 3
    2 'search'
    1 'it\'s'
    1 'read_file'
    --- stderr
    ");
}

#[test]
fn a_draft_scope_allows_every_tool_called_and_scope_accepts_it() {
    let dir = dir();
    let draft = dir.run(&["stats", "t.jsonl", "--draft-scope", "my-agent"]);
    assert_snapshot!(draft.text(), @r#"
    exit: 0
    --- stdout
    {
      "agent": "my-agent",
      "allowed_tools": [
        "it's",
        "read_file",
        "search"
      ]
    }
    --- stderr
    "#);
    dir.write("scope.json", &draft.stdout);
    assert_snapshot!(dir.run(&["scope", "t.jsonl", "scope.json"]).text(), @r"
    exit: 0
    --- stdout
    calls: 4
    findings: 0
    --- stderr
    ");
}

#[test]
fn stats_of_an_imported_log() {
    assert_snapshot!(
        super::run_in_root(&["stats", "--from", "claude-code", "samples/claude-code-session.jsonl"]).text(),
        @r"
    exit: 0
    --- stdout
    calls: 7
    tools: 5
    2 'Read'
    2 'WebFetch'
    1 'Bash'
    1 'Edit'
    1 'Grep'
    --- stderr
    "
    );
}

#[test]
fn an_empty_agent_is_refused() {
    assert_snapshot!(dir().run(&["stats", "t.jsonl", "--draft-scope", ""]).text(), @r"
    exit: 2
    --- stdout
    --- stderr
    error: --draft-scope needs an agent name: a scope's agent is not empty
    ");
}

#[test]
fn an_invalid_transcript_is_an_error() {
    let dir = Dir::new();
    dir.write("t.jsonl", "{\n");
    assert_snapshot!(dir.run(&["stats", "t.jsonl"]).text(), @r"
    exit: 2
    --- stdout
    --- stderr
    error: t.jsonl:1: invalid JSON: expected a string key, found end of input at column 2
    ");
}
