//! `toolreplay claims`: a sealed session's final answers held against its calls, the
//! prompts and answers read from its context file (docs/graph.md, "The claims
//! layer"). Sessions are written as a live session keeps them: the calls sealed
//! with `seal`, the context file's records placed after the calls' digests.

use insta::assert_snapshot;
use serde_json::{Value, json};

use super::{Dir, lines};

/// A message of the context file: `prompt` or `answer`, after which call, its text.
pub(crate) type Said<'a> = (&'a str, Option<u64>, &'a str);

/// Writes `sessions/S.jsonl` (the `calls`, sealed) and, when `messages` is not
/// `None`, `sessions/S.context.jsonl` (a context record, then the messages, sealed).
fn session(dir: &Dir, calls: &[(&str, Value, Value)], messages: Option<&[Said]>) {
    let records: Vec<Value> = calls
        .iter()
        .enumerate()
        .map(|(i, (tool, args, response))| {
            json!({"index": i, "tool": tool, "args": args, "response": response})
        })
        .collect();
    live_session(dir, &records, messages);
}

/// Writes `sessions/S.jsonl` (the `records`, sealed) and, when `messages` is not
/// `None`, `sessions/S.context.jsonl` (a context record, then the messages, each
/// after its call's index and digest, sealed), as a live session keeps them.
pub(crate) fn live_session(dir: &Dir, records: &[Value], messages: Option<&[Said]>) {
    let plain: String = records.iter().map(|record| format!("{record}\n")).collect();
    dir.write("calls.jsonl", plain);
    std::fs::create_dir_all(dir.path().join("sessions")).expect("a folder");
    let sealed = dir.run(&["seal", "calls.jsonl", "-o", "sessions/S.jsonl"]);
    assert_eq!(sealed.code, 0, "{}", sealed.text());
    let Some(messages) = messages else { return };
    let links = String::from_utf8(dir.read("sessions/S.jsonl")).expect("UTF-8");
    let digests: Vec<String> = links
        .lines()
        .map(|line| {
            let link: Value = serde_json::from_str(line).expect("a link");
            link["digest"].as_str().expect("a digest").to_owned()
        })
        .collect();
    let context = json!({"agent": "claude-code", "cwd": "/p", "from": 0, "home": "/home/dev", "policy_digest": "00"});
    let mut records = vec![json!({"index": 0, "tool": "context", "args": context, "response": {}})];
    for (kind, after, text) in messages {
        let after = after.map_or(
            Value::Null,
            |i| json!({"digest": digests[i as usize], "index": i}),
        );
        let response = if *kind == "prompt" {
            json!({"decision": "allowed", "text": text})
        } else {
            json!({"text": text})
        };
        records.push(json!({"index": records.len(), "tool": kind, "args": {"after": after}, "response": response}));
    }
    let plain: String = records.iter().map(|r| format!("{r}\n")).collect();
    dir.write("context.jsonl", plain);
    let sealed = dir.run(&["seal", "context.jsonl", "-o", "sessions/S.context.jsonl"]);
    assert_eq!(sealed.code, 0, "{}", sealed.text());
}

fn bash(command: &str, stdout: &str) -> (&'static str, Value, Value) {
    (
        "Bash",
        json!({"command": command}),
        json!({"stdout": stdout, "stderr": "", "interrupted": false}),
    )
}

/// A session of two turns: the agent fixes a bug, runs the tests (one fails), and
/// says they all pass; then it is asked about a file and answers with what it read
/// and a number nobody returned.
fn two_turns(dir: &Dir) {
    let calls = [
        (
            "Read",
            json!({"file_path": "/p/src/parse.rs"}),
            json!({"type": "text", "file": {"content": "fn parse() {}\n// 120 lines"}}),
        ),
        (
            "Edit",
            json!({"file_path": "/p/src/parse.rs", "old_string": "a", "new_string": "b"}),
            json!({"filePath": "/p/src/parse.rs"}),
        ),
        bash(
            "cargo test",
            "running 4 tests\ntest result: FAILED. 3 passed; 1 failed; 0 ignored; 0 measured",
        ),
        (
            "Read",
            json!({"file_path": "/p/README.md"}),
            json!({"type": "text", "file": {"content": "# parse\nSee https://docs.example/parse"}}),
        ),
    ];
    session(
        dir,
        &calls,
        Some(&[
            ("prompt", None, "Fix the parser's off-by-one."),
            (
                "answer",
                Some(2),
                "I fixed the off-by-one in `src/parse.rs` and updated src/lexer.rs. I ran `cargo test`: all 4 tests pass.",
            ),
            ("prompt", Some(2), "What does the README say?"),
            (
                "answer",
                Some(3),
                "README.md points to https://docs.example/parse. The parser has 120 lines, 30 of them tests. Thanks!",
            ),
        ]),
    );
}

#[test]
fn claims_as_text_and_json_and_their_exit_codes() {
    let dir = Dir::new();
    two_turns(&dir);
    assert_snapshot!(
        "text",
        dir.runs(&[
            &["claims", "sessions/S.jsonl"],
            &[
                "claims",
                "--from",
                "sealed",
                "sessions/S.jsonl",
                "--fail-on",
                "unsupported"
            ],
        ])
    );
    let run = dir.run(&["claims", "sessions/S.jsonl", "--format", "json"]);
    assert_eq!(run.code, 1);
    assert_snapshot!("json", run.stdout);
}

/// Every claim supported: exit 0, and 0 with --fail-on unsupported.
#[test]
fn supported_claims_exit_0() {
    let dir = Dir::new();
    let calls = [
        ("Edit", json!({"file_path": "/p/src/lib.rs"}), json!({})),
        bash("pytest -q", "....\n4 passed in 0.01s"),
    ];
    session(
        &dir,
        &calls,
        Some(&[
            ("prompt", None, "Fix it."),
            (
                "answer",
                Some(1),
                "Updated `src/lib.rs`; `pytest -q` says 4 passed.",
            ),
        ]),
    );
    assert_snapshot!(
        "supported",
        dir.runs(&[&["claims", "sessions/S.jsonl", "--fail-on", "unsupported"]])
    );
}

/// A plain transcript, a session without its context file, or one whose context
/// file holds no messages: an error, exit 2. Another --from format: not read yet.
#[test]
fn no_messages_is_an_error() {
    let dir = Dir::new();
    session(&dir, &[bash("ls", "a")], None);
    dir.write("context.jsonl", "{\"index\":0,\"tool\":\"context\",\"args\":{\"agent\":\"claude-code\",\"cwd\":null,\"from\":0,\"home\":null,\"policy_digest\":\"00\"},\"response\":{}}\n");
    std::fs::create_dir_all(dir.path().join("empty")).expect("a folder");
    assert_eq!(
        dir.run(&["seal", "context.jsonl", "-o", "empty/S.context.jsonl"])
            .code,
        0
    );
    std::fs::copy(
        dir.path().join("sessions/S.jsonl"),
        dir.path().join("empty/S.jsonl"),
    )
    .expect("a copy");
    // An agent's log with calls and not one text; an MCP log, which has none.
    dir.write(
        "calls_only.json",
        json!([
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "run_command", "input": {"command": "ls"}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "a"}]},
        ])
        .to_string(),
    );
    dir.write(
        "mcp.jsonl",
        lines(&[
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}"#,
        ]),
    );
    assert_snapshot!(
        "no_messages",
        dir.runs(&[
            &["claims", "calls.jsonl"],
            &["claims", "sessions/S.jsonl"],
            &["claims", "empty/S.jsonl"],
            &["claims", "--from", "auto", "calls.jsonl"],
            &["claims", "--from", "sealed", "calls.jsonl"],
            &["claims", "--from", "anthropic", "calls_only.json"],
            &["claims", "--from", "mcp", "mcp.jsonl"],
        ])
    );
}

/// A context file names the digest of the link each message follows: one that is
/// another session's (or was edited to follow another link) is refused by
/// `claims`, `graph` and `report`, naming the link, never read against calls it
/// does not belong to.
#[test]
fn a_context_file_of_another_session_is_refused() {
    let dir = Dir::new();
    let said: &[Said] = &[
        ("prompt", None, "list it"),
        ("answer", Some(0), "It holds `a`."),
    ];
    session(&dir, &[bash("ls", "a")], Some(said));
    let context = dir.read("sessions/S.context.jsonl");
    // The same messages after the first link of another session.
    session(&dir, &[bash("ls -la", "a b")], None);
    dir.write("sessions/S.context.jsonl", &context);
    // A session shorter than the link the answer follows.
    std::fs::create_dir_all(dir.path().join("short")).expect("a folder");
    dir.write("short/S.jsonl", "");
    dir.write("short/S.context.jsonl", &context);
    assert_snapshot!(
        dir.runs(&[
            &["claims", "sessions/S.jsonl"],
            &["graph", "sessions/S.jsonl"],
            &["report", "sessions/S.jsonl", "-o", "r.html"],
            &["claims", "short/S.jsonl"],
        ])
        .replace(&digest_of(&dir, "sessions/S.jsonl"), "[DIGEST]")
    );
    assert!(!dir.entries().contains(&"r.html".to_owned()));
}

/// The digest of the first link of the sealed file `path`.
fn digest_of(dir: &Dir, path: &str) -> String {
    let links = String::from_utf8(dir.read(path)).expect("UTF-8");
    let first: Value = serde_json::from_str(links.lines().next().expect("a link")).expect("JSON");
    first["digest"].as_str().expect("a digest").to_owned()
}

/// With its context file beside it, a session's graph gains its claims layer:
/// request nodes framing the phases of their turns, claim nodes with their
/// verdicts, `supports` edges from the evidence calls; DOT draws them too.
#[test]
fn the_graph_gains_the_claims_layer() {
    let dir = Dir::new();
    two_turns(&dir);
    let run = dir.run(&["graph", "sessions/S.jsonl"]);
    assert_eq!(run.code, 0, "{}", run.text());
    let graph: Value = serde_json::from_str(&run.stdout).expect("a graph");
    let layer: Vec<&Value> = graph["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .filter(|node| node["type"] == "request" || node["type"] == "claim")
        .collect();
    let edges: Vec<&Value> = graph["edges"]
        .as_array()
        .expect("edges")
        .iter()
        .filter(|edge| edge["type"] == "frames" || edge["type"] == "supports")
        .collect();
    let shown = json!({"summary": graph["summary"]["claims"], "nodes": layer, "edges": edges});
    assert_snapshot!("graph", serde_json::to_string_pretty(&shown).expect("JSON"));
    let dot = dir
        .run(&["graph", "sessions/S.jsonl", "--format", "dot"])
        .stdout;
    let drawn: Vec<&str> = dot
        .lines()
        .filter(|line| line.contains("compound") || line.contains("r0") || line.contains("k0"))
        .collect();
    assert_snapshot!("dot", drawn.join("\n"));
}

/// A Claude Code session file: its calls imported as `import` reads them, its
/// prompts and the assistant's texts read beside them; the sample's final answer
/// names numbers its calls returned.
#[test]
fn claims_of_a_claude_code_session() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let run = super::run(
        root,
        &[
            "claims",
            "--from",
            "claude-code",
            "samples/claude-code-session.jsonl",
        ],
    );
    assert_snapshot!("claude_code_sample", run.text());
    // A session written for a contradicted claim: the agent edits, runs the tests,
    // one fails, and it says they pass.
    let dir = Dir::new();
    let entry = |kind: &str, content: Value| {
        json!({"type": kind, "isSidechain": false, "message": {"role": kind, "content": content}})
            .to_string()
    };
    let log = [
        entry("user", json!("Fix the parser.")),
        entry("assistant", json!([{"type": "tool_use", "id": "t1", "name": "Edit", "input": {"file_path": "/p/src/parse.rs", "old_string": "a", "new_string": "b"}}])),
        entry("user", json!([{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}])),
        entry("assistant", json!([{"type": "tool_use", "id": "t2", "name": "Bash", "input": {"command": "npx jest"}}])),
        entry("user", json!([{"type": "tool_result", "tool_use_id": "t2", "content": "Tests:       1 failed, 11 passed, 12 total"}])),
        entry("assistant", json!([{"type": "text", "text": "Fixed src/parse.rs; all 12 tests pass."}])),
    ]
    .join("\n");
    dir.write("session.jsonl", log + "\n");
    assert_snapshot!(
        "claude_code_written",
        dir.runs(&[&["claims", "--from", "claude-code", "session.jsonl"]])
    );
}

/// The formats whose logs hold the conversation, each with a session written in its
/// real shape (tests/fixtures/claims/): the user asks for a fix and the tests, the
/// agent edits `src/parse.rs`, runs `cargo test` (one test fails), and answers "I
/// fixed the parser in `src/parse.rs`. I also updated `src/lexer.rs`. All tests
/// pass. It now handles 17 cases.": a supported change, a contradicted change (no
/// call touched `src/lexer.rs`), a contradicted pass, an unsupported number. What
/// each format's harness writes besides (system prompts, reasoning, injected
/// environment, an informational message saying "All tests pass") gives no claim.
/// Cursor records no result of its calls: its pass is unsupported, not supported by
/// a run whose output nobody saw. Cline and OpenHands give the final answer as a
/// call's argument (`attempt_completion`, `finish`): that call is no evidence of it.
const FORMATS: [(&str, &str); 11] = [
    ("claude-code", "claude-code.jsonl"),
    ("codex", "codex.jsonl"),
    ("gemini", "gemini.json"),
    ("copilot", "copilot.jsonl"),
    ("cursor", "cursor.jsonl"),
    ("openai", "openai.json"),
    ("responses", "responses.json"),
    ("anthropic", "anthropic.json"),
    ("cline", "cline.json"),
    ("openhands", "openhands.json"),
    ("swe-agent", "swe-agent.traj"),
];

#[test]
fn claims_of_every_format_with_a_conversation() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for (format, file) in FORMATS {
        let path = format!("tests/fixtures/claims/{file}");
        let named = super::run(root, &["claims", "--from", format, &path]);
        assert_snapshot!(format!("format_{format}"), named.text());
        // Recognised as import recognises it, the same claims.
        let auto = super::run(root, &["claims", "--from", "auto", &path]);
        assert_eq!(auto.code, named.code, "{format}");
        assert_eq!(auto.stdout, named.stdout, "{format}");
    }
}

/// The JSON report of a format other than Claude Code's: each claim's atoms, the
/// calls that support them and the run that contradicts the pass.
#[test]
fn claims_of_a_codex_rollout_as_json() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let run = super::run(
        root,
        &[
            "claims",
            "--from",
            "codex",
            "tests/fixtures/claims/codex.jsonl",
            "--format",
            "json",
        ],
    );
    assert_snapshot!("codex_json", run.text());
}

/// `graph` and `report` read an imported log's conversation as `claims` does: the
/// graph of a Gemini CLI session has its request and claim nodes, and the report
/// shows its claims.
#[test]
fn the_graph_and_report_of_an_imported_log_have_its_claims() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let run = super::run(
        root,
        &[
            "graph",
            "--from",
            "gemini",
            "tests/fixtures/claims/gemini.json",
            "--format",
            "dot",
        ],
    );
    assert_snapshot!("gemini_dot", run.text());
    let dir = Dir::new();
    let source = root.join("tests/fixtures/claims/openhands.json");
    let source = source.to_str().expect("UTF-8");
    let report = dir.run(&["report", "--from", "openhands", source, "-o", "r.html"]);
    assert_eq!(report.code, 0, "{}", report.text());
    let html = String::from_utf8(dir.read("r.html")).expect("UTF-8");
    assert!(
        html.contains("I also updated"),
        "the report shows the claims"
    );
    assert!(html.contains("contradicted"), "with their verdicts");
}
