//! `toolreplay import` and `--from` on the audit commands: each format's edge cases
//! (fixtures in `tests/fixtures/import/`), the warnings and `--strict`, detection,
//! errors, `--output`, and that `AUDIT --from F x` is `import --from F x` then
//! `AUDIT`.

use insta::assert_snapshot;

use super::{Dir, ROOT, Run, run_with_stdin};

/// The fixtures: file name and format.
const FIXTURES: [(&str, &str); 17] = [
    ("claude-code.jsonl", "claude-code"),
    ("openai.json", "openai"),
    ("openai.jsonl", "openai"),
    ("anthropic.json", "anthropic"),
    ("mcp.jsonl", "mcp"),
    ("codex.jsonl", "codex"),
    ("responses.json", "responses"),
    ("gemini.json", "gemini"),
    ("gemini.jsonl", "gemini"),
    ("copilot.jsonl", "copilot"),
    ("cursor.jsonl", "cursor"),
    ("inspect.json", "inspect"),
    ("inspect.eval", "inspect"),
    ("swe-agent.traj", "swe-agent"),
    ("openhands.json", "openhands"),
    ("cline.json", "cline"),
    ("otel.json", "otel"),
];

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!("{ROOT}/tests/fixtures/import/{name}")).expect("fixture")
}

/// A directory holding the fixture `name`.
fn with_fixture(name: &str) -> Dir {
    let dir = Dir::new();
    dir.write(name, fixture(name));
    dir
}

/// `import ARGS... NAME` in a directory holding the fixture `name`.
fn import(name: &str, args: &[&str]) -> Run {
    let mut all = vec!["import"];
    all.extend_from_slice(args);
    all.push(name);
    with_fixture(name).run(&all)
}

/// `import ARGS... in.jsonl` on `content`.
fn import_text(content: &str, args: &[&str]) -> Run {
    let dir = Dir::new();
    dir.write("in.jsonl", content);
    let mut all = vec!["import"];
    all.extend_from_slice(args);
    all.push("in.jsonl");
    dir.run(&all)
}

// --- each format, with every edge case of its fixture

#[test]
fn claude_code_session_with_every_edge_case() {
    // Split messages and repeated lines are merged, parallel calls keep their order,
    // the sidechain's call is kept where it is, the error result keeps its flag,
    // `summary`, `system`, snapshot lines, text and thinking are dropped, and the
    // unknown entry, the stray result and the interrupted call are warned about.
    assert_snapshot!(import("claude-code.jsonl", &[]).text());
}

#[test]
fn openai_array_with_every_edge_case() {
    // A reused id pairs with the first call of it still waiting.
    assert_snapshot!(import("openai.json", &[]).text());
}

#[test]
fn openai_jsonl_imports_as_the_array_does_with_its_own_lines() {
    let lines = import("openai.jsonl", &["--from", "openai"]);
    let array = import("openai.json", &["--from", "openai"]);
    assert_eq!(lines.stdout, array.stdout);
    assert_snapshot!(lines.text());
}

#[test]
fn anthropic_messages_with_every_edge_case() {
    assert_snapshot!(import("anthropic.json", &[]).text());
}

#[test]
fn mcp_log_with_every_edge_case() {
    assert_snapshot!(import("mcp.jsonl", &[]).text());
}

// --- purity, strictness, output

#[test]
fn importing_twice_gives_identical_bytes() {
    for (name, format) in FIXTURES {
        let first = import(name, &["--from", format]);
        let second = import(name, &["--from", format]);
        assert_eq!(first.code, 0, "{name}");
        assert_eq!(first.stdout, second.stdout, "{name}");
        assert_eq!(first.stderr, second.stderr, "{name}");
    }
}

#[test]
fn every_imported_record_is_a_strict_transcript() {
    for (name, format) in FIXTURES {
        let dir = with_fixture(name);
        let imported = dir.run(&["import", "--from", format, name, "-o", "t.jsonl"]);
        assert_eq!(imported.code, 0, "{name}");
        let replayed = dir.run(&["replay", "t.jsonl", "--format", "json"]);
        assert!(replayed.code < 2, "{name}: {}", replayed.stderr);
    }
}

#[test]
fn strict_makes_warnings_an_error_and_writes_nothing() {
    assert_snapshot!(import("claude-code.jsonl", &["--strict"]).text());
}

#[test]
fn strict_without_warnings_imports() {
    let content = r#"[{"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "ls", "input": {}}]},
{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "a b"}]}]"#;
    assert_snapshot!(import_text(content, &["--strict", "--from", "anthropic"]).text());
}

#[test]
fn output_is_written_atomically_and_nothing_goes_to_stdout() {
    let dir = with_fixture("mcp.jsonl");
    let run = dir.run(&["import", "--from", "mcp", "mcp.jsonl", "-o", "run.jsonl"]);
    assert_snapshot!(run.text());
    let printed = dir.run(&["import", "--from", "mcp", "mcp.jsonl"]);
    assert_eq!(dir.read("run.jsonl"), printed.stdout.as_bytes());
    assert_eq!(dir.entries(), ["mcp.jsonl", "run.jsonl"]);
}

#[test]
fn output_is_left_alone_on_an_error() {
    let dir = with_fixture("mcp.jsonl");
    dir.write("run.jsonl", "kept\n");
    let run = dir.run(&[
        "import",
        "--strict",
        "--from",
        "mcp",
        "mcp.jsonl",
        "-o",
        "run.jsonl",
    ]);
    assert_eq!(run.code, 2);
    assert_eq!(dir.read("run.jsonl"), b"kept\n");
    assert_eq!(dir.entries(), ["mcp.jsonl", "run.jsonl"]);
}

#[test]
fn standard_input_is_named_stdin() {
    let run = run_with_stdin(
        std::path::Path::new(ROOT),
        &["import", "-"],
        fixture("anthropic.json"),
    );
    assert_snapshot!(run.text());
}

// --- detection and errors

#[test]
fn detection_is_told_on_stderr_and_an_explicit_format_is_not() {
    let auto = import("mcp.jsonl", &[]);
    let named = import("mcp.jsonl", &["--from", "mcp"]);
    assert_eq!(auto.stdout, named.stdout);
    assert_eq!(
        auto.stderr,
        format!("note: mcp.jsonl: detected format mcp\n{}", named.stderr)
    );
}

#[test]
fn an_unrecognised_input_names_what_was_expected() {
    assert_snapshot!(import_text("just some notes\n", &[]).text());
}

#[test]
fn an_object_of_no_known_format_is_unrecognised() {
    assert_snapshot!(import_text("{\"event\": \"start\"}\n", &[]).text());
}

#[test]
fn an_empty_input_is_unrecognised_but_imports_empty_with_a_format() {
    assert_snapshot!(import_text("", &[]).text());
    assert_snapshot!(import_text("\n\n", &["--from", "claude-code"]).text());
}

#[test]
fn invalid_json_is_an_error_on_its_line() {
    let content = "{\"type\":\"summary\",\"summary\":\"s\"}\n{\"type\": \"user\", \"message\": {\n";
    assert_snapshot!(import_text(content, &["--from", "claude-code"]).text());
}

#[test]
fn a_duplicate_key_is_an_error() {
    let content = r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"a","name":"t","input":{"p":1,"p":2}}]}}"#;
    assert_snapshot!(import_text(content, &[]).text());
}

#[test]
fn a_tool_use_whose_input_is_not_an_object_is_an_error() {
    let content = r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"a","name":"t","input":"ls"}]}}"#;
    assert_snapshot!(import_text(content, &[]).text());
}

#[test]
fn a_tool_use_without_an_id_is_an_error() {
    let content = r#"[{"role":"assistant","content":[{"type":"tool_use","name":"t","input":{}}]}]"#;
    assert_snapshot!(import_text(content, &["--from", "anthropic"]).text());
}

#[test]
fn openai_arguments_must_be_strict_json_holding_an_object() {
    let call = |arguments: &str| {
        let arguments = serde_json::to_string(arguments).expect("JSON string");
        format!(
            r#"{{"role":"assistant","tool_calls":[{{"id":"c","type":"function","function":{{"name":"t","arguments":{arguments}}}}}]}}"#
        )
    };
    for (name, arguments) in [
        ("single_quotes", "{'path': 'a'}"),
        ("duplicate_key", r#"{"path": "a", "path": "b"}"#),
        ("an_array", "[1, 2]"),
        ("empty", ""),
        ("nan", r#"{"x": NaN}"#),
    ] {
        let run = import_text(&format!("{}\n", call(arguments)), &["--from", "openai"]);
        assert_snapshot!(format!("openai_arguments_{name}"), run.text());
    }
}

#[test]
fn a_tool_message_without_its_call_id_is_an_error() {
    let content = "[{\"role\": \"tool\", \"content\": \"ok\"}]";
    assert_snapshot!(import_text(content, &["--from", "openai"]).text());
}

#[test]
fn a_malformed_call_or_result_is_an_error_naming_the_field() {
    for (format, content, message) in [
        (
            "openai",
            r#"[{"role":"assistant","tool_calls":[{"type":"function","function":{"name":"t","arguments":"{}"}}]}]"#,
            r#"tool_calls[0]: no "id""#,
        ),
        (
            "openai",
            r#"[{"role":"assistant","tool_calls":[{"id":"","function":{"name":"t","arguments":"{}"}}]}]"#,
            r#"tool_calls[0]: "id" must be a non-empty string, found an empty string"#,
        ),
        (
            "openai",
            r#"[{"role":"assistant","tool_calls":[{"id":"c1"}]}]"#,
            r#"tool_calls[0]: no "function""#,
        ),
        (
            "openai",
            r#"[{"role":"assistant","tool_calls":[{"id":"c1","function":[]}]}]"#,
            r#"tool_calls[0]: "function" must be an object, found an array"#,
        ),
        (
            "openai",
            r#"[{"role":"assistant","tool_calls":[{"id":"c1","function":{"arguments":"{}"}}]}]"#,
            r#"tool_calls[0]: no "function.name""#,
        ),
        (
            "openai",
            r#"[{"role":"assistant","tool_calls":[{"id":"c1","function":{"name":7,"arguments":"{}"}}]}]"#,
            r#"tool_calls[0]: "function.name" must be a non-empty string, found an integer"#,
        ),
        (
            "openai",
            r#"[{"role":"assistant","tool_calls":[{"id":"c1","function":{"name":"t"}}]}]"#,
            r#"tool_calls[0]: no "function.arguments""#,
        ),
        (
            "openai",
            r#"[{"role":"assistant","tool_calls":[{"id":"c1","function":{"name":"t","arguments":{}}}]}]"#,
            r#"tool_calls[0]: "function.arguments" must be a string of JSON text, found an object"#,
        ),
        (
            "openai",
            r#"[{"role":"tool","tool_call_id":5,"content":"ok"}]"#,
            r#"tool message: "tool_call_id" must be a non-empty string, found an integer"#,
        ),
        (
            "mcp",
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#,
            r#"tools/call request: no "params""#,
        ),
        (
            "mcp",
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[]}"#,
            r#"tools/call request: "params" must be an object, found an array"#,
        ),
        (
            "mcp",
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":""}}"#,
            r#"tools/call request: "params.name" must be a non-empty string, found an empty string"#,
        ),
        (
            "mcp",
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":[1]}}"#,
            r#"tools/call request: "params.arguments" must be an object, found an array"#,
        ),
        (
            "anthropic",
            r#"[{"role":"assistant","content":[{"type":"tool_use","name":"t","input":{}}]}]"#,
            r#"tool_use block without "id""#,
        ),
        (
            "anthropic",
            r#"[{"role":"assistant","content":[{"type":"tool_use","id":"u1","name":true,"input":{}}]}]"#,
            r#"tool_use block: "name" must be a non-empty string, found a boolean"#,
        ),
        (
            "anthropic",
            r#"[{"role":"user","content":[{"type":"tool_result","content":"ok"}]}]"#,
            r#"tool_result block without "tool_use_id""#,
        ),
        (
            "anthropic",
            r#"[{"role":"user","content":[{"type":"tool_result","tool_use_id":3,"content":"ok"}]}]"#,
            r#"tool_result block: "tool_use_id" must be a non-empty string, found an integer"#,
        ),
    ] {
        let run = import_text(content, &["--from", format]);
        assert_eq!(run.code, 2, "{content}");
        assert_eq!(run.stdout, "", "{content}");
        assert_eq!(
            run.stderr,
            format!("error: in.jsonl:1: {message}\n"),
            "{content}"
        );
    }
}

#[test]
fn an_mcp_tools_call_without_a_name_is_an_error() {
    let content = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{}}}"#;
    assert_snapshot!(import_text(content, &["--from", "mcp"]).text());
}

#[test]
fn an_mcp_response_with_result_and_error_is_an_error() {
    let content = concat!(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}"#,
        "\n"
    );
    assert_snapshot!(import_text(content, &["--from", "mcp"]).text());
}

#[test]
fn arguments_too_deep_for_a_record_are_an_error() {
    let deep = format!("{}{}", "[".repeat(127), "]".repeat(127));
    let arguments = serde_json::to_string(&format!(r#"{{"a":{deep}}}"#)).expect("JSON");
    let content = format!(
        r#"{{"role":"assistant","tool_calls":[{{"id":"c","function":{{"name":"t","arguments":{arguments}}}}}]}}"#
    );
    assert_snapshot!(import_text(&content, &["--from", "openai"]).text());
}

#[test]
fn a_json_array_that_is_not_of_messages_is_an_error() {
    assert_snapshot!(import_text("[1, 2, 3]\n", &[]).text());
    assert_snapshot!(import_text("{\"messages\": []}\n", &["--from", "anthropic"]).text());
}

#[test]
fn a_missing_input_is_an_error() {
    assert_snapshot!(Dir::new().run(&["import", "nope.jsonl"]).text());
}

// --- --from on the audit commands

/// `AUDIT --from F x` gives what `import --from F x -o t.jsonl` then `AUDIT t.jsonl`
/// gives: the same stdout and exit code, and the import's stderr.
fn assert_same_as_import_then(audit: &[&str], name: &str, format: &str) {
    let dir = with_fixture(name);
    dir.write(
        "scope.json",
        r#"{"agent": "a", "allowed_tools": ["read_file", "Read"]}"#,
    );
    let imported = dir.run(&["import", "--from", format, name, "-o", "t.jsonl"]);
    let mut then: Vec<&str> = audit.to_vec();
    then.insert(1, "t.jsonl");
    let after = dir.run(&then);
    let mut direct: Vec<&str> = audit.to_vec();
    direct.insert(1, name);
    direct.extend_from_slice(&["--from", format]);
    let direct = dir.run(&direct);
    assert_eq!(direct.code, after.code, "{audit:?} {name}");
    assert_eq!(
        direct.stdout,
        after.stdout.replace("t.jsonl", name),
        "{audit:?} {name}"
    );
    assert_eq!(direct.stderr, imported.stderr, "{audit:?} {name}");
}

#[test]
fn audits_with_from_are_import_then_the_audit() {
    for (name, format) in FIXTURES {
        assert_same_as_import_then(&["replay"], name, format);
        assert_same_as_import_then(&["replay", "--mutating-tool", "Edit"], name, format);
        assert_same_as_import_then(&["scope", "scope.json"], name, format);
        assert_same_as_import_then(&["seal"], name, format);
    }
}

#[test]
fn replay_from_claude_code() {
    let dir = with_fixture("claude-code.jsonl");
    let run = dir.run(&["replay", "--from", "claude-code", "claude-code.jsonl"]);
    assert_snapshot!(run.text());
}

#[test]
fn replay_from_auto_says_what_it_detected() {
    let dir = with_fixture("anthropic.json");
    assert_snapshot!(
        dir.run(&["replay", "--from", "auto", "anthropic.json"])
            .text()
    );
}

#[test]
fn replay_from_strict_refuses_warnings() {
    let dir = with_fixture("mcp.jsonl");
    let run = dir.run(&["replay", "--from", "mcp", "--strict", "mcp.jsonl"]);
    assert_snapshot!(run.text());
}

#[test]
fn replay_from_in_json_names_the_input_and_the_lines_of_the_calls_in_it() {
    // JSON and SARIF reports place a finding on its call's line in the input, not on
    // a line of the transcript made of it.
    let dir = with_fixture("mcp.jsonl");
    let run = dir.run(&["replay", "--from", "mcp", "mcp.jsonl", "--format", "json"]);
    assert_snapshot!(run.text());
}

#[test]
fn scope_from_in_json_places_findings_in_the_input() {
    let dir = with_fixture("openai.json");
    dir.write(
        "scope.json",
        r#"{"agent": "agent", "allowed_tools": ["get_user"]}"#,
    );
    let run = dir.run(&[
        "scope",
        "--from",
        "openai",
        "openai.json",
        "scope.json",
        "--format",
        "json",
    ]);
    assert_snapshot!(run.text());
}

#[test]
fn replay_from_standard_input() {
    let run = run_with_stdin(
        std::path::Path::new(ROOT),
        &["replay", "--from", "mcp", "-"],
        fixture("mcp.jsonl"),
    );
    assert_snapshot!(run.text());
}

#[test]
fn replay_from_an_invalid_input_names_it() {
    let dir = Dir::new();
    dir.write("chat.json", "[{\"role\": \"tool\"}]");
    assert_snapshot!(dir.run(&["replay", "--from", "openai", "chat.json"]).text());
}

#[test]
fn scope_from_claude_code() {
    let dir = with_fixture("claude-code.jsonl");
    dir.write(
        "scope.json",
        r#"{"agent": "shop-fixer", "allowed_tools": ["Read", "Grep", "Task", "Bash"]}"#,
    );
    let run = dir.run(&[
        "scope",
        "claude-code.jsonl",
        "scope.json",
        "--from",
        "claude-code",
    ]);
    assert_snapshot!(run.text());
}

#[test]
fn seal_from_writes_the_output_file() {
    let dir = with_fixture("anthropic.json");
    let run = dir.run(&[
        "seal",
        "--from",
        "anthropic",
        "anthropic.json",
        "-o",
        "sealed.jsonl",
    ]);
    assert_eq!(
        run.text(),
        "exit: 0\n--- stdout\n--- stderr\nwarning: anthropic.json:57: skipped content block of type \"server_tool_use\"\nwarning: anthropic.json: 1 warning: 1 skipped item\n"
    );
    let verified = dir.run(&["verify", "sealed.jsonl"]);
    assert_eq!(
        verified.text(),
        "exit: 0\n--- stdout\nchain: intact\n--- stderr\n"
    );
}

#[test]
fn seal_append_from_imports_the_new_calls() {
    let dir = with_fixture("mcp.jsonl");
    dir.write("anthropic.json", fixture("anthropic.json"));
    let sealed = dir.run(&[
        "seal",
        "--from",
        "anthropic",
        "anthropic.json",
        "-o",
        "s.jsonl",
    ]);
    assert_eq!(sealed.code, 0);
    let appended = dir.run(&["seal", "--append", "s.jsonl", "--from", "mcp", "mcp.jsonl"]);
    assert_snapshot!(appended.text());
    let verified = dir.run(&["verify", "s.jsonl"]);
    assert_eq!(verified.stdout, "chain: intact\n");
    let whole = dir.run(&["diff", "s.jsonl", "s.jsonl"]);
    assert_eq!(whole.stdout, "runs: same\ncalls: 9\n");
}

#[test]
fn diff_from_imports_both_runs() {
    let dir = with_fixture("openai.json");
    dir.write("openai.jsonl", fixture("openai.jsonl"));
    let same = dir.run(&["diff", "openai.json", "openai.jsonl", "--from", "openai"]);
    assert_snapshot!(same.text());
}

#[test]
fn diff_from_tells_where_two_imports_differ() {
    let dir = with_fixture("anthropic.json");
    let text = String::from_utf8(fixture("anthropic.json")).expect("UTF-8");
    dir.write("edited.json", text.replace("Oslo", "Bergen"));
    let run = dir.run(&[
        "diff",
        "anthropic.json",
        "edited.json",
        "--from",
        "anthropic",
    ]);
    assert_snapshot!(run.text());
}

#[test]
fn strict_needs_from() {
    let dir = with_fixture("mcp.jsonl");
    assert_snapshot!(dir.run(&["replay", "--strict", "mcp.jsonl"]).text());
}

#[test]
fn without_from_audits_read_a_strict_transcript_as_before() {
    // A Claude Code session is not a transcript: the error of the transcript reader.
    let dir = with_fixture("claude-code.jsonl");
    assert_snapshot!(dir.run(&["replay", "claude-code.jsonl"]).text());
}

#[test]
fn sealed_file_commands_do_not_take_from() {
    let dir = with_fixture("mcp.jsonl");
    // verify says what to do instead (tests/cli/hints.rs); head is a usage error.
    let run = dir.run(&["verify", "--from", "mcp", "mcp.jsonl"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.starts_with("error: verify takes no --from"),
        "{}",
        run.stderr
    );
    let run = dir.run(&["head", "--from", "mcp", "mcp.jsonl"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .starts_with("error: unexpected argument '--from' found"),
        "{}",
        run.stderr
    );
}

// --- hostile and odd inputs

#[test]
fn a_million_levels_of_nesting_is_one_error() {
    let deep = format!("{}{}\n", "[".repeat(1_000_000), "]".repeat(1_000_000));
    for format in ["auto", "claude-code", "openai", "anthropic", "mcp"] {
        let run = import_text(&deep, &["--from", format]);
        assert_eq!(
            run.text(),
            "exit: 2\n--- stdout\n--- stderr\nerror: in.jsonl:1: nesting deeper than 128 levels of objects and arrays at column 129\n",
            "{format}"
        );
    }
}

#[test]
fn a_byte_order_mark_crlf_line_ends_and_blank_lines_are_read_as_in_transcripts() {
    let content = concat!(
        "\u{feff}{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"t\"}}\r\n",
        "\r\n",
        "  \t\n",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"ok\":true}}\r\n"
    );
    assert_snapshot!(import_text(content, &[]).text());
}

#[test]
fn invalid_utf8_is_an_error_on_its_line() {
    let dir = Dir::new();
    dir.write(
        "in.jsonl",
        b"{\"type\":\"summary\"}\n{\"type\":\"user\",\"x\":\"\xff\"}\n",
    );
    assert_snapshot!(dir.run(&["import", "in.jsonl"]).text());
}

// --- the formats added for issue 15: each fixture, detected, with its mapping

#[test]
fn every_new_format_is_detected_and_imported() {
    for (name, format) in &FIXTURES[5..] {
        let run = import(name, &[]);
        assert_eq!(run.code, 0, "{name}: {}", run.stderr);
        assert!(
            run.stderr
                .starts_with(&format!("note: {name}: detected format {format}\n")),
            "{name}: {}",
            run.stderr
        );
        assert_snapshot!(format!("new_format_{format}_{name}"), run.text());
    }
}

// --- never a silent zero

#[test]
fn a_codex_rollout_read_as_claude_code_is_an_error_naming_codex() {
    assert_snapshot!(import("codex.jsonl", &["--from", "claude-code"]).text());
}

#[test]
fn a_claude_code_session_read_as_openai_is_an_error_naming_claude_code() {
    assert_snapshot!(import("claude-code.jsonl", &["--from", "openai"]).text());
}

#[test]
fn a_wrong_from_on_an_audit_is_the_same_error() {
    let dir = with_fixture("copilot.jsonl");
    assert_snapshot!(
        dir.run(&["replay", "--from", "mcp", "copilot.jsonl"])
            .text()
    );
}

#[test]
fn two_formats_in_one_input_are_ambiguous() {
    let mut content = String::from_utf8(fixture("cursor.jsonl")).expect("UTF-8");
    content.push_str(&String::from_utf8(fixture("codex.jsonl")).expect("UTF-8"));
    assert_snapshot!(import_text(&content, &[]).text());
}

#[test]
fn an_object_of_no_known_format_among_known_lines_does_not_decide() {
    // Detection looks at every line: the Codex lines decide, not the first line.
    let mut content = String::from("{\"note\": \"exported\"}\n");
    content.push_str(&String::from_utf8(fixture("codex.jsonl")).expect("UTF-8"));
    let run = import_text(&content, &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr
            .starts_with("note: in.jsonl: detected format codex\n")
    );
}

#[test]
fn anthropic_messages_with_a_system_message_are_anthropic() {
    let content = r#"[{"role": "system", "content": "be brief"},
{"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "ls", "input": {}}]},
{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "a"}]}]"#;
    assert_snapshot!(import_text(content, &[]).text());
}

#[test]
fn mcp_messages_without_jsonrpc_are_warned_about() {
    let content = concat!(
        r#"{"id": 1, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 1}}}"#,
        "\n",
        r#"{"id": 1, "result": {"content": [{"type": "text", "text": "1"}]}}"#,
        "\n"
    );
    assert_snapshot!(import_text(content, &[]).text());
    let strict = import_text(content, &["--strict"]);
    assert_eq!(strict.code, 2);
}

#[test]
fn an_inspect_eval_log_imports_as_its_json_form_does() {
    let zipped = import("inspect.eval", &["--from", "inspect"]);
    let json = import("inspect.json", &["--from", "inspect"]);
    assert_eq!(zipped.stdout, json.stdout);
}

#[test]
fn a_zip_that_is_no_eval_log_or_read_as_another_format_is_an_error() {
    assert_snapshot!(import_text("PK\u{3}\u{4}rest of a zip", &[]).text());
    assert_snapshot!(import("inspect.eval", &["--from", "openai"]).text());
}

// --- shapes: documents, request bodies, exports

#[test]
fn a_pretty_printed_request_body_imports_its_messages() {
    let content = r#"{
  "model": "gpt-4o",
  "tools": [{"type": "function", "function": {"name": "ls", "parameters": {}}}],
  "messages": [
    {"role": "user", "content": "list"},
    {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "a b"}
  ]
}
"#;
    assert_snapshot!(import_text(content, &[]).text());
}

#[test]
fn a_claude_code_export_of_loglines_imports() {
    let session = String::from_utf8(fixture("session.jsonl")).expect("UTF-8");
    let lines: Vec<&str> = session.lines().collect();
    let content = format!(
        "{{\n  \"loglines\": [\n    {}\n  ]\n}}\n",
        lines.join(",\n    ")
    );
    assert_snapshot!(import_text(&content, &[]).text());
}

// --- this project's own transcripts

#[test]
fn plain_and_sealed_transcripts_are_recognised() {
    let dir = with_fixture("mcp.jsonl");
    dir.run(&["import", "--from", "mcp", "mcp.jsonl", "-o", "t.jsonl"]);
    let sealed = dir.run(&["seal", "t.jsonl", "-o", "sealed.jsonl"]);
    assert_eq!(sealed.code, 0, "{}", sealed.stderr);
    let plain = dir.run(&["import", "t.jsonl"]);
    assert_eq!(plain.stdout.as_bytes(), dir.read("t.jsonl"));
    assert_eq!(plain.stderr, "note: t.jsonl: detected format transcript\n");
    let unsealed = dir.run(&["import", "sealed.jsonl"]);
    assert_eq!(unsealed.stdout.as_bytes(), dir.read("t.jsonl"));
    assert_eq!(
        unsealed.stderr,
        "note: sealed.jsonl: detected format sealed\n"
    );
    let replayed = dir.run(&["replay", "--from", "sealed", "sealed.jsonl"]);
    let direct = dir.run(&["replay", "t.jsonl"]);
    assert_eq!(replayed.stdout, direct.stdout);
}

#[test]
fn a_sealed_transcript_with_a_broken_chain_imports_nothing() {
    let dir = with_fixture("mcp.jsonl");
    dir.run(&["import", "--from", "mcp", "mcp.jsonl", "-o", "t.jsonl"]);
    dir.run(&["seal", "t.jsonl", "-o", "sealed.jsonl"]);
    let sealed = String::from_utf8(dir.read("sealed.jsonl")).expect("UTF-8");
    dir.write(
        "sealed.jsonl",
        sealed.replacen("\"read_file\"", "\"rm\"", 1),
    );
    assert_snapshot!(
        dir.run(&["replay", "--from", "auto", "sealed.jsonl"])
            .text()
    );
}

// --- Claude Code subagents

/// A directory holding the session fixture and its subagents folder.
fn with_session() -> Dir {
    let dir = with_fixture("session.jsonl");
    let folder = dir.path().join("session/subagents");
    std::fs::create_dir_all(&folder).expect("subagents folder");
    for name in ["agent-abc123.jsonl", "agent-acompact-1.jsonl"] {
        let bytes = fixture(&format!("session/subagents/{name}"));
        std::fs::write(folder.join(name), bytes).expect("subagent log");
    }
    dir
}

#[test]
fn subagent_calls_come_after_the_call_that_started_them() {
    assert_snapshot!(
        with_session()
            .run(&["import", "--strict", "session.jsonl"])
            .text()
    );
}

#[test]
fn subagents_not_read_are_warned_about() {
    let run = run_with_stdin(
        Dir::new().path(),
        &["import", "-"],
        fixture("session.jsonl"),
    );
    assert_snapshot!(run.text());
}

#[test]
fn an_early_codex_rollout_reads_as_responses_items() {
    // Before the {timestamp, type, payload} lines, a rollout was Responses items one
    // a line, after a line of session metadata, with `record_type` lines between.
    assert_snapshot!(import("codex-early.jsonl", &["--strict"]).text());
}

#[test]
fn a_cline_history_whose_calls_are_xml_in_the_text_is_an_error() {
    // Cline's older prompt format: results Cline gave back, and no tool_use block.
    let content = r#"[
  {"role": "user", "content": [{"type": "text", "text": "<task>read it</task>"}]},
  {"role": "assistant", "content": [{"type": "text", "text": "<read_file>\n<path>a.txt</path>\n</read_file>"}]},
  {"role": "user", "content": [{"type": "text", "text": "[read_file for 'a.txt'] Result:"}, {"type": "text", "text": "hello"}]}
]
"#;
    assert_snapshot!(import_text(content, &[]).text());
}

#[test]
fn every_responses_request_and_response_body_is_read() {
    // A log of request bodies one a line, and a stored exchange holding both its
    // `input` and its `output`: every item of every body is read, none dropped after
    // the first body.
    let content = concat!(
        r#"{"model": "m", "input": [{"type": "function_call", "call_id": "a", "name": "read", "arguments": "{\"p\": 1}"}, {"type": "function_call_output", "call_id": "a", "output": "one"}]}"#,
        "\n",
        r#"{"model": "m", "input": [{"type": "function_call", "call_id": "b", "name": "read", "arguments": "{\"p\": 2}"}], "output": [{"type": "function_call_output", "call_id": "b", "output": "two"}]}"#,
        "\n",
        r#"{"model": "m", "output": [{"type": "function_call", "call_id": "c", "name": "list", "arguments": "{}"}, {"type": "function_call_output", "call_id": "c", "output": "three"}]}"#,
        "\n",
    );
    assert_snapshot!(import_text(content, &["--from", "responses", "--strict"]).text());
}

// --- no silent loss: every call a log holds is read or warned about

#[test]
fn a_computer_use_agent_log_imports_each_action_as_a_call() {
    // An OpenAI Responses log of a computer-use agent: each `computer_call` is a call
    // of `computer` with its action, its `computer_call_output` the result; an item
    // whose type names a tool call not understood is warned about.
    assert_snapshot!(import("computer-use.json", &[]).text());
}

#[test]
fn a_gemini_file_of_whole_sessions_one_a_line_imports_their_calls() {
    // Each line the recording's whole session object: its `messages` are read, a
    // message written again on a later line of the same session read once.
    assert_snapshot!(import("gemini-sessions.jsonl", &[]).text());
}

#[test]
fn openhands_evaluation_output_imports_each_instance_history() {
    // `output.jsonl`: one instance a line, its `history` the events; ids are each
    // instance's own, so the second instance's observation of id 3 answers no call of
    // the first.
    assert_snapshot!(import("openhands-output.jsonl", &[]).text());
}

#[test]
fn an_mcp_capture_of_wrapped_messages_imports_the_messages() {
    // `{"seq", "t", "dir", "msg": {JSON-RPC}}` a line.
    assert_snapshot!(import("mcp-wrapped.jsonl", &[]).text());
}

#[test]
fn every_envelope_member_is_unwrapped_but_two_messages_are_not_one() {
    let content = concat!(
        r#"{"direction": "outgoing", "message": {"jsonrpc": "2.0", "id": "a", "method": "tools/call", "params": {"name": "one", "arguments": {}}}}"#,
        "\n",
        r#"{"direction": "incoming", "payload": {"jsonrpc": "2.0", "id": "a", "result": {"content": []}}}"#,
        "\n",
        r#"{"ts": "2025-01-01T00:00:00Z", "data": [{"jsonrpc": "2.0", "id": "b", "method": "tools/call", "params": {"name": "two", "arguments": {"x": 1}}}]}"#,
        "\n",
        r#"{"ts": "2025-01-01T00:00:01Z", "data": [{"jsonrpc": "2.0", "id": "b", "result": {"content": [], "isError": true}}]}"#,
        "\n",
        r#"{"msg": {"jsonrpc": "2.0", "id": "c", "result": {}}, "payload": {"jsonrpc": "2.0", "id": "d", "result": {}}}"#,
        "\n",
    );
    assert_snapshot!(import_text(content, &[]).text());
}

#[test]
fn an_mcp_tools_call_without_an_id_is_kept_without_a_result() {
    let content = concat!(
        r#"{"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "delete_file", "arguments": {"path": "old.txt"}}}"#,
        "\n",
        r#"{"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": 1}}"#,
        "\n",
    );
    assert_snapshot!(import_text(content, &[]).text());
}

#[test]
fn a_subagent_call_reusing_a_session_id_with_other_content_is_kept() {
    // The session holds toolu_same as a sidechain entry (the same call: read once)
    // and toolu_other for another call; the subagent log uses both ids.
    let dir = Dir::new();
    let call = |id: &str, url: &str| {
        format!(
            r#"{{"type":"assistant","isSidechain":true,"agentId":"abc","message":{{"id":"m_{id}","role":"assistant","content":[{{"type":"tool_use","id":"{id}","name":"WebFetch","input":{{"url":"{url}"}}}}]}}}}"#
        )
    };
    let result = |id: &str, text: &str| {
        format!(
            r#"{{"type":"user","isSidechain":true,"agentId":"abc","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"{id}","content":"{text}"}}]}}}}"#
        )
    };
    let session = [
        call("toolu_same", "https://a.example"),
        result("toolu_same", "A"),
        call("toolu_other", "https://b.example"),
        result("toolu_other", "B"),
    ]
    .join("\n");
    let subagent = [
        call("toolu_same", "https://a.example"),
        result("toolu_same", "A"),
        call("toolu_other", "https://c.example"),
        result("toolu_other", "C"),
    ]
    .join("\n");
    dir.write("s.jsonl", session + "\n");
    std::fs::create_dir_all(dir.path().join("s/subagents")).expect("folder");
    dir.write("s/subagents/agent-abc.jsonl", subagent + "\n");
    assert_snapshot!(dir.run(&["import", "s.jsonl"]).text());
}

/// A directory holding the session `persisted.jsonl` and its `tool-results` folder,
/// with a link in it to a file outside it.
fn with_persisted() -> Dir {
    let dir = with_fixture("persisted.jsonl");
    let folder = dir.path().join("persisted/tool-results");
    std::fs::create_dir_all(&folder).expect("tool-results folder");
    for name in [
        "toolu_b1.txt",
        "mcp-files-read_file-1771474681460.txt",
        "toolu_b7.txt",
    ] {
        let bytes = fixture(&format!("persisted/tool-results/{name}"));
        std::fs::write(folder.join(name), bytes).expect("result file");
    }
    dir.write("secret.txt", "a secret outside the session's folder\n");
    std::os::unix::fs::symlink("../../secret.txt", folder.join("toolu_b5.txt")).expect("link");
    dir
}

#[test]
fn results_kept_in_files_beside_the_session_are_read_from_its_folder_only() {
    // The whole result is read from the session's own tool-results folder; a file
    // not there, a path elsewhere (~/.ssh/id_rsa) and a link out of the folder are
    // never read: the reference stays the result, with a warning.
    let run = with_persisted().run(&["import", "persisted.jsonl"]);
    assert!(!run.stdout.contains("a secret"), "{}", run.stdout);
    assert_snapshot!(run.text());
}

#[test]
fn results_kept_in_files_are_not_read_from_standard_input() {
    let run = run_with_stdin(
        Dir::new().path(),
        &["import", "-"],
        fixture("persisted.jsonl"),
    );
    assert_snapshot!(run.text());
}

#[test]
fn a_log_whose_calls_none_were_read_is_an_error() {
    // An OpenHands event with a call's metadata but an action the reader does not
    // take for a call: no record read where the log holds a call is an error (exit
    // 2), never `0 records` with exit 0.
    let content = r#"[{"id": 1, "source": "agent", "action": {"kind": "run"}, "tool_call_metadata": {"function_name": "execute_bash"}, "args": {"command": "ls"}}]
"#;
    assert_snapshot!(import_text(content, &[]).text());
}

#[test]
fn a_streamed_responses_log_imports_the_items_its_events_carry() {
    // Each `response.output_item.done` event's item, read once: the same items in
    // the `response.completed` event are not read again.
    assert_snapshot!(import("responses-stream.jsonl", &[]).text());
}

#[test]
fn a_log_of_each_responses_last_event_imports_their_output() {
    let content = concat!(
        r#"{"type": "response.completed", "sequence_number": 3, "response": {"id": "resp_1", "status": "completed", "output": [{"type": "function_call", "call_id": "c1", "name": "ls", "arguments": "{}"}]}}"#,
        "\n",
        r#"{"type": "response.completed", "sequence_number": 9, "response": {"id": "resp_2", "status": "completed", "output": [{"type": "function_call", "call_id": "c2", "name": "cat", "arguments": "{\"p\": 1}"}]}}"#,
        "\n",
    );
    assert_snapshot!(import_text(content, &[]).text());
}

#[test]
fn a_log_of_chat_completions_imports_the_messages_of_their_choices() {
    // The API's responses, one a line: each choice's message is the envelope's
    // content, its tool_calls the calls; the next request's tool message answers.
    let content = concat!(
        r#"{"id": "chatcmpl-1", "object": "chat.completion", "created": 1735689600, "model": "gpt-4o", "choices": [{"index": 0, "message": {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]}, "finish_reason": "tool_calls"}], "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}"#,
        "\n",
        r#"{"role": "tool", "tool_call_id": "call_1", "content": "sunny"}"#,
        "\n",
        r#"{"id": "chatcmpl-2", "object": "chat.completion", "created": 1735689601, "model": "gpt-4o", "choices": [{"index": 0, "message": {"role": "assistant", "content": "It is sunny."}, "finish_reason": "stop"}]}"#,
        "\n",
    );
    assert_snapshot!(import_text(content, &[]).text());
}

#[test]
fn an_openhands_call_whose_action_is_no_name_is_warned_about() {
    let content = r#"[
  {"id": 1, "source": "agent", "action": "run", "tool_call_metadata": {"function_name": "execute_bash"}, "args": {"command": "ls"}},
  {"id": 2, "source": "agent", "action": {"kind": "run"}, "tool_call_metadata": {"function_name": "execute_bash"}, "args": {"command": "rm -rf /"}}
]
"#;
    assert_snapshot!(import_text(content, &[]).text());
}

#[test]
fn a_tool_results_folder_that_is_a_link_is_never_read() {
    let dir = Dir::new();
    let reference = "<persisted-output>\\nOutput too large (60KB). Full output saved to: /home/u/.claude/projects/p/s/tool-results/toolu_1.txt\\n</persisted-output>";
    dir.write(
        "s.jsonl",
        format!(
            "{}\n{}\n",
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{}}]}}"#,
            format_args!(
                r#"{{"type":"user","message":{{"content":[{{"type":"tool_result","tool_use_id":"toolu_1","content":"{reference}"}}]}}}}"#
            )
        ),
    );
    std::fs::create_dir_all(dir.path().join("outside")).expect("folder");
    std::fs::create_dir_all(dir.path().join("s")).expect("folder");
    dir.write(
        "outside/toolu_1.txt",
        "a secret outside the session's folder\n",
    );
    std::os::unix::fs::symlink("../outside", dir.path().join("s/tool-results")).expect("link");
    let run = dir.run(&["import", "s.jsonl"]);
    assert!(!run.stdout.contains("a secret"), "{}", run.stdout);
    assert_snapshot!(run.text());
}

#[test]
fn a_tools_call_in_an_envelope_no_reader_unwraps_is_never_a_silent_zero() {
    // `frame` is no envelope member MCP reads: the line is skipped, and since the
    // log holds a call and none was read, the import is an error, not 0 records.
    let content = concat!(
        r#"{"dir": "c2s", "frame": {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "delete_file", "arguments": {}}}}"#,
        "\n",
    );
    assert_snapshot!(import_text(content, &["--from", "mcp"]).text());
}

#[test]
fn results_kept_in_files_are_read_with_their_session_in_folder_walks_not_as_inputs() {
    let dir = Dir::new();
    std::fs::create_dir_all(dir.path().join("logs/persisted/tool-results")).expect("folders");
    dir.write("logs/persisted.jsonl", fixture("persisted.jsonl"));
    for name in [
        "toolu_b1.txt",
        "mcp-files-read_file-1771474681460.txt",
        "toolu_b7.txt",
    ] {
        dir.write(
            &format!("logs/persisted/tool-results/{name}"),
            fixture(&format!("persisted/tool-results/{name}")),
        );
    }
    let one = dir.run(&["import", "logs/persisted.jsonl"]);
    let text = dir.runs(&[
        &["import", "logs", "--out-dir", "out"],
        &["replay", "--from", "claude-code", "logs"],
    ]);
    assert_eq!(dir.read("out/logs/persisted.jsonl"), one.stdout.as_bytes());
    assert_snapshot!(text);
}
