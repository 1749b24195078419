//! The configuration file `toolreplay.toml`: found from the current folder upwards,
//! its defaults used, the command line winning, and strict about what it holds.

use insta::assert_snapshot;

use super::{Dir, lines, record, run};

const A: &str = r#"{"q": "a"}"#;

/// A transcript with a repeated search that answers differently, and a repeated write.
fn transcript() -> String {
    lines(&[
        &record(0, "search", A, r#"{"hits": 1}"#),
        &record(1, "search", A, r#"{"hits": 2}"#),
        &record(2, "send", A, "{}"),
        &record(3, "send", A, "{}"),
    ])
}

/// A folder whose configuration reads OpenAI chats, holding `chat` as chat.json.
fn openai_chat(chat: &str) -> Dir {
    let dir = Dir::new();
    dir.write("toolreplay.toml", "from = \"openai\"\n");
    dir.write("chat.json", chat);
    dir
}

/// An OpenAI chat of one call and its result.
const CLEAN_CHAT: &str = r#"[{"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}, {"role": "tool", "tool_call_id": "c1", "content": "ok"}]"#;

fn dir_with(config: &str) -> Dir {
    let dir = Dir::new();
    dir.write("t.jsonl", transcript());
    dir.write("toolreplay.toml", config);
    dir
}

#[test]
fn without_a_configuration_the_specification_s_defaults_hold() {
    let dir = Dir::new();
    dir.write("t.jsonl", transcript());
    assert_snapshot!(dir.run(&["replay", "t.jsonl"]).text(), @r"
    exit: 1
    --- stdout
    calls: 4
    divergence: index 1
    findings: 3
    index 1: non-determinism: tool 'search' returned a different response than the identical call at index 0
    index 1: redundant-call: tool 'search' repeats the identical call at index 0 with no state change between them
    index 3: redundant-call: tool 'send' repeats the identical call at index 2 with no state change between them
    --- stderr
    ");
}

#[test]
fn mutating_and_volatile_tools_and_the_format_come_from_the_configuration() {
    let dir =
        dir_with("mutating_tools = [\"send\"]\nvolatile_tools = [\"search\"]\nformat = \"json\"\n");
    assert_snapshot!(dir.run(&["replay", "t.jsonl"]).text(), @r#"
    exit: 0
    --- stdout
    {
      "format_version": 1,
      "command": "replay",
      "configuration": {
        "file": "toolreplay.toml",
        "sets": [
          "mutating_tools",
          "volatile_tools"
        ]
      },
      "file": "t.jsonl",
      "calls": 4,
      "divergence": null,
      "findings": []
    }
    --- stderr
    note: toolreplay.toml sets mutating_tools, volatile_tools for this audit (--no-config ignores it)
    "#);
}

#[test]
fn the_command_line_wins_and_adds_tools() {
    let dir = dir_with("mutating_tools = [\"send\"]\nformat = \"json\"\n");
    assert_snapshot!(
        dir.run(&["replay", "t.jsonl", "--format", "text", "--volatile-tool", "search"]).text(),
        @"
    exit: 0
    --- stdout
    calls: 4
    divergence: none
    findings: 0
    --- stderr
    note: toolreplay.toml sets mutating_tools for this audit (--no-config ignores it)
    "
    );
}

#[test]
fn no_config_ignores_the_file() {
    let dir = dir_with("volatile_tools = [\"search\"]\nunknown = 1\n");
    assert_snapshot!(dir.run(&["replay", "t.jsonl", "--no-config"]).text(), @r"
    exit: 1
    --- stdout
    calls: 4
    divergence: index 1
    findings: 3
    index 1: non-determinism: tool 'search' returned a different response than the identical call at index 0
    index 1: redundant-call: tool 'search' repeats the identical call at index 0 with no state change between them
    index 3: redundant-call: tool 'send' repeats the identical call at index 2 with no state change between them
    --- stderr
    ");
}

#[test]
fn the_file_is_found_in_a_folder_above() {
    let dir = dir_with("volatile_tools = [\"search\"]\nmutating_tools = [\"send\"]\n");
    std::fs::create_dir_all(dir.path().join("a/b")).expect("folders");
    assert_snapshot!(run(&dir.path().join("a/b"), &["replay", "../../t.jsonl"]).text(), @"
    exit: 0
    --- stdout
    calls: 4
    divergence: none
    findings: 0
    --- stderr
    note: ../../toolreplay.toml sets mutating_tools, volatile_tools for this audit (--no-config ignores it)
    ");
}

#[test]
fn the_scope_file_is_relative_to_the_configuration_s_folder() {
    let dir = dir_with("scope = \"scope.json\"\n");
    dir.write(
        "scope.json",
        r#"{"agent": "a", "allowed_tools": ["search"]}"#,
    );
    std::fs::create_dir_all(dir.path().join("sub")).expect("folder");
    assert_snapshot!(run(&dir.path().join("sub"), &["scope", "../t.jsonl"]).text(), @"
    exit: 1
    --- stdout
    calls: 4
    findings: 2
    index 2: permission-overreach: tool 'send' is not in the declared scope for agent 'a'
    index 3: permission-overreach: tool 'send' is not in the declared scope for agent 'a'
    --- stderr
    note: ../toolreplay.toml sets scope for this audit (--no-config ignores it)
    ");
}

#[test]
fn scope_without_a_scope_file_says_where_to_give_one() {
    let dir = Dir::new();
    dir.write("t.jsonl", transcript());
    assert_snapshot!(dir.run(&["scope", "t.jsonl"]).text(), @r#"
    exit: 2
    --- stdout
    --- stderr
    error: no scope file: give SCOPE, or scope = "FILE" in toolreplay.toml
    "#);
}

#[test]
fn from_comes_from_the_configuration() {
    let dir = openai_chat(CLEAN_CHAT);
    assert_snapshot!(dir.run(&["replay", "chat.json"]).text(), @"
    exit: 0
    --- stdout
    calls: 1
    divergence: none
    findings: 0
    --- stderr
    note: toolreplay.toml sets from for this audit (--no-config ignores it)
    ");
}

#[test]
fn an_unknown_key_is_an_error_naming_the_file_and_line() {
    let dir = dir_with("format = \"json\"\n\nmutating_tool = [\"send\"]\n");
    assert_snapshot!(dir.run(&["replay", "t.jsonl"]).text(), @r"
    exit: 2
    --- stdout
    --- stderr
    error: toolreplay.toml:3: unknown field `mutating_tool`, expected one of `from`, `format`, `scope`, `rules`, `mutating_tools`, `volatile_tools`, `otlp`
    ");
}

#[test]
fn an_unknown_value_is_an_error_naming_the_valid_ones() {
    let dir = dir_with("rules = \"spec\"\nformat = \"yaml\"\n");
    assert_snapshot!(dir.run(&["replay", "t.jsonl"]).text(), @r#"
    exit: 2
    --- stdout
    --- stderr
    error: toolreplay.toml:2: invalid format "yaml": expected one of text, json, sarif
    "#);
}

#[test]
fn a_wrong_type_is_an_error() {
    let dir = dir_with("volatile_tools = \"search\"\n");
    assert_snapshot!(dir.run(&["replay", "t.jsonl"]).text(), @r#"
    exit: 2
    --- stdout
    --- stderr
    error: toolreplay.toml:1: invalid type: string "search", expected a sequence
    "#);
}

#[test]
fn invalid_toml_is_an_error() {
    let dir = dir_with("format = \n");
    assert_snapshot!(dir.run(&["replay", "t.jsonl"]).text(), @r"
    exit: 2
    --- stdout
    --- stderr
    error: toolreplay.toml:1: string values must be quoted, expected literal string
    ");
}

/// An OpenAI chat whose second call has no result: one import warning.
const CHAT_WITH_A_WARNING: &str = r#"[{"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}, {"id": "c2", "type": "function", "function": {"name": "g", "arguments": "{}"}}]}, {"role": "tool", "tool_call_id": "c1", "content": "ok"}]"#;

#[test]
fn strict_applies_to_the_from_of_the_configuration() {
    let dir = openai_chat(CHAT_WITH_A_WARNING);
    assert_snapshot!(dir.run(&["replay", "--strict", "chat.json"]).text(), @r#"
    exit: 2
    --- stdout
    --- stderr
    note: toolreplay.toml sets from for this audit (--no-config ignores it)
    warning: chat.json:1: call 'g' (id "c2") has no result; kept with the response {"no_result":true}
    error: chat.json: 1 warning: 1 call without a result; --strict allows none
    "#);
    assert_snapshot!(dir.run(&["seal", "--strict", "chat.json"]).text(), @r#"
    exit: 2
    --- stdout
    --- stderr
    warning: chat.json:1: call 'g' (id "c2") has no result; kept with the response {"no_result":true}
    error: chat.json: 1 warning: 1 call without a result; --strict allows none
    "#);
}

#[test]
fn strict_with_the_from_of_the_configuration_passes_a_clean_log() {
    let dir = openai_chat(CLEAN_CHAT);
    assert_snapshot!(dir.run(&["replay", "--strict", "chat.json"]).text(), @"
    exit: 0
    --- stdout
    calls: 1
    divergence: none
    findings: 0
    --- stderr
    note: toolreplay.toml sets from for this audit (--no-config ignores it)
    ");
}

#[test]
fn strict_without_any_from_says_where_to_give_one() {
    let dir = Dir::new();
    dir.write("t.jsonl", transcript());
    assert_snapshot!(dir.run(&["replay", "--strict", "t.jsonl"]).text(), @r#"
    exit: 2
    --- stdout
    --- stderr
    error: --strict needs an import to apply to: give --from FORMAT, or from = "FORMAT" in toolreplay.toml
    "#);
}

#[test]
fn strict_with_the_configuration_ignored_needs_from_on_the_command_line() {
    let dir = dir_with("from = \"openai\"\n");
    assert_snapshot!(dir.run(&["scope", "--strict", "--no-config", "t.jsonl", "s.json"]).text(), @r#"
    exit: 2
    --- stdout
    --- stderr
    error: --strict needs an import to apply to: give --from FORMAT, or from = "FORMAT" in toolreplay.toml
    "#);
}

#[test]
fn the_configuration_that_changes_a_verdict_is_named_in_sarif_runs_of_one_file_or_many() {
    let dir = dir_with("volatile_tools = [\"search\"]\nformat = \"sarif\"\n");
    dir.write("u.jsonl", transcript());
    let expected = serde_json::json!({
        "configuration": {"file": "toolreplay.toml", "sets": ["volatile_tools"]}
    });
    for args in [
        &["replay", "t.jsonl"][..],
        &["replay", "t.jsonl", "u.jsonl"],
    ] {
        let run = dir.run(args);
        assert_eq!(run.code, 1, "{}", run.text());
        let log: serde_json::Value = serde_json::from_str(&run.stdout).expect("a SARIF log");
        assert_eq!(log["runs"][0]["properties"], expected, "{args:?}");
        assert_eq!(
            run.stderr,
            "note: toolreplay.toml sets volatile_tools for this audit (--no-config ignores it)\n"
        );
    }
    // A format alone changes no verdict: nothing is said, nothing is added.
    let dir = dir_with("format = \"sarif\"\n");
    let run = dir.run(&["replay", "t.jsonl"]);
    assert_eq!(run.stderr, "");
    let log: serde_json::Value = serde_json::from_str(&run.stdout).expect("a SARIF log");
    assert!(log["runs"][0].get("properties").is_none());
}
