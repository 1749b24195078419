//! `graph` and `report` (docs/graph.md): the evidence graph of the samples and of
//! hand-worked sessions, roles files, and the report's safety against what a
//! transcript may hold.

use insta::assert_snapshot;
use serde_json::{Value, json};

use super::{Dir, lines, record, run_in_root};

#[test]
fn graph_of_the_dirty_sample() {
    assert_snapshot!(run_in_root(&["graph", "samples/session-dirty.jsonl"]).text());
}

#[test]
fn graph_of_the_clean_sample() {
    assert_snapshot!(
        run_in_root(&["graph", "samples/session-clean.jsonl", "--format", "json"]).text()
    );
}

#[test]
fn graph_of_the_sealed_sample_has_its_digests_and_head() {
    assert_snapshot!(
        run_in_root(&[
            "graph",
            "samples/session-dirty.sealed.jsonl",
            "--scope",
            "samples/scope.json"
        ])
        .text()
    );
}

#[test]
fn graph_of_the_tampered_sample_says_where_the_chain_breaks() {
    let run = run_in_root(&["graph", "samples/session-dirty.tampered.jsonl"]);
    let graph: Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(run.code, 0);
    assert_eq!(
        graph["summary"]["chain"],
        json!({"status": "broken", "first_broken": 3})
    );
}

#[test]
fn graph_of_the_policy_sample_has_flows() {
    assert_snapshot!(
        run_in_root(&[
            "graph",
            "samples/session-policy.jsonl",
            "--scope",
            "samples/policy.json"
        ])
        .text()
    );
}

#[test]
fn graph_of_the_claude_code_sample() {
    assert_snapshot!(
        run_in_root(&[
            "graph",
            "--from",
            "claude-code",
            "samples/claude-code-session.jsonl"
        ])
        .text()
    );
}

#[test]
fn graph_of_the_dirty_sample_as_dot() {
    assert_snapshot!(
        run_in_root(&["graph", "samples/session-dirty.jsonl", "--format", "dot"]).text()
    );
}

#[test]
fn graph_output_is_deterministic() {
    let args = [
        "graph",
        "--from",
        "claude-code",
        "samples/claude-code-session.jsonl",
    ];
    assert_eq!(run_in_root(&args).stdout, run_in_root(&args).stdout);
}

/// The edges of a graph as `(type, from, to, rule)`.
fn edges(graph: &Value) -> Vec<(String, String, String, String)> {
    graph["edges"]
        .as_array()
        .expect("edges")
        .iter()
        .map(|edge| {
            let field = |name: &str| edge[name].as_str().expect(name).to_owned();
            (field("type"), field("from"), field("to"), field("rule"))
        })
        .collect()
}

fn edge(kind: &str, from: &str, to: &str, rule: &str) -> (String, String, String, String) {
    (kind.into(), from.into(), to.into(), rule.into())
}

/// A search names a file; the file is read, then edited, then the tests run; then
/// the file is read again and a test command runs with no change before it.
///
/// Worked by hand: artifacts are `src/app.py` (a0, first named by call 1),
/// the test command (a1) and `grep app` has no path. Call 0's response names
/// `src/app.py`, which call 1 then uses first: 0 informs 1. Call 2 produces
/// `src/app.py` through `docs/../src/app.py`; call 3 runs the tests after that
/// change, so it checks a0 and is `validate`; call 5 runs them again with no
/// change since call 3: `execute`, and it checks nothing. Call 4 reads the file
/// again and gets the edited text: replay's non-determinism, so 4 diverges from 1.
#[test]
fn hand_worked_session_has_exactly_these_edges() {
    let dir = Dir::new();
    dir.write(
        "t.jsonl",
        lines(&[
            &record(
                0,
                "Grep",
                r#"{"pattern": "app"}"#,
                r#"{"content": "src/app.py:3: def app():"}"#,
            ),
            &record(1, "Read", r#"{"file_path": "src/app.py"}"#, r#"{"content": "def app(): pass"}"#),
            &record(
                2,
                "Edit",
                r#"{"file_path": "docs/../src/app.py", "old_string": "pass", "new_string": "return 1"}"#,
                r#"{"content": "ok"}"#,
            ),
            &record(3, "Bash", r#"{"command": "pytest -q"}"#, r#"{"content": "1 passed"}"#),
            &record(4, "Read", r#"{"file_path": "src/app.py"}"#, r#"{"content": "def app(): return 1"}"#),
            &record(5, "Bash", r#"{"command": "pytest -q"}"#, r#"{"content": "1 passed"}"#),
        ]),
    );
    let run = dir.run(&["graph", "t.jsonl"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let graph: Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(
        edges(&graph),
        [
            edge("uses", "c1", "a0", "role-uses"),
            edge("uses", "c3", "a1", "role-uses"),
            edge("uses", "c4", "a0", "role-uses"),
            edge("uses", "c5", "a1", "role-uses"),
            edge("produces", "c2", "a0", "role-produces"),
            edge("checked_by", "a0", "c3", "execute-after-change"),
            edge("informs", "c0", "c1", "response-names"),
            edge("diverges", "c4", "c1", "replay-non-determinism"),
        ]
    );
    let nodes = graph["nodes"].as_array().expect("nodes");
    let names: Vec<&str> = nodes
        .iter()
        .filter(|node| node["type"] == "artifact")
        .map(|node| node["name"].as_str().expect("name"))
        .collect();
    assert_eq!(names, ["src/app.py", "pytest -q"]);
    let phases: Vec<(&str, Vec<u64>)> = nodes
        .iter()
        .filter(|node| node["type"] == "phase")
        .map(|node| {
            (
                node["phase"].as_str().expect("phase"),
                node["calls"]
                    .as_array()
                    .expect("calls")
                    .iter()
                    .map(|c| c.as_u64().expect("index"))
                    .collect(),
            )
        })
        .collect();
    assert_eq!(
        phases,
        [
            ("inspect", vec![0, 1]),
            ("change", vec![2]),
            ("validate", vec![3]),
            ("inspect", vec![4]),
            ("execute", vec![5]),
        ]
    );
    // Edit changes state for the replay audit: the second read is no repeat, but
    // its other response is non-determinism, as `replay` defines it.
    assert_eq!(
        graph["summary"]["findings_by_kind"],
        json!({"non-determinism": 1})
    );
}

/// A patch names its files; a command given as words is one artifact.
#[test]
fn codex_patches_and_commands() {
    let dir = Dir::new();
    dir.write(
        "t.jsonl",
        lines(&[
            &record(
                0,
                "apply_patch",
                r#"{"patch": "*** Begin Patch\n*** Update File: a.go\n*** Add File: b/c.go\n*** End Patch"}"#,
                r#"{"content": "Done"}"#,
            ),
            &record(1, "shell", r#"{"command": ["go", "test", "./..."]}"#, r#"{"content": "ok"}"#),
        ]),
    );
    let run = dir.run(&["graph", "t.jsonl"]);
    let graph: Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(
        edges(&graph),
        [
            edge("uses", "c1", "a2", "role-uses"),
            edge("produces", "c0", "a0", "patch-names"),
            edge("produces", "c0", "a1", "patch-names"),
            edge("checked_by", "a0", "c1", "execute-after-change"),
            edge("checked_by", "a1", "c1", "execute-after-change"),
        ]
    );
    assert_eq!(graph["nodes"][4]["name"], "go test ./...");
}

/// A roles file adds a role, removes one and sets a root.
#[test]
fn a_roles_file_adds_overrides_and_removes() {
    let dir = Dir::new();
    dir.write(
        "t.jsonl",
        lines(&[
            &record(0, "deploy", r#"{"target": "prod"}"#, r#"{}"#),
            &record(1, "Read", r#"{"file_path": "/w/p/a.md"}"#, r#"{}"#),
            &record(2, "read_file", r#"{"path": "/w/p/a.md"}"#, r#"{}"#),
        ]),
    );
    dir.write(
        "roles.json",
        r#"{"roles_version": 1, "root": "/w/p",
            "tools": {"deploy": {"action": "execute", "kind": "command", "uses": ["/target"]},
                      "Read": null}}"#,
    );
    let run = dir.run(&["graph", "t.jsonl", "--roles", "roles.json"]);
    assert_snapshot!(run.text());
}

#[test]
fn roles_file_errors_name_the_line_and_field() {
    let dir = Dir::new();
    dir.write("t.jsonl", record(0, "t", "{}", "{}") + "\n");
    let cases = [
        r#"{"tools": {}}"#,
        "{\"roles_version\": 1,\n \"tools\": {\"x\": {\"action\": \"run\", \"kind\": \"file\"}}}",
        "{\"roles_version\": 1,\n \"tools\": {\"x\": {\"action\": \"inspect\"}}}",
        "{\"roles_version\": 1,\n \"tools\": {\"x\": {\"action\": \"inspect\", \"kind\": \"file\", \"uses\": [\"path\"]}}}",
        "{\"roles_version\": 2}",
        "{\"roles_version\": 1, \"colour\": 1}",
        "{\"roles_version\": 1, \"root\": \"rel\"}",
        "[1]",
        "{\"roles_version\": 1,",
    ];
    let mut out = String::new();
    for case in cases {
        dir.write("roles.json", case);
        out.push_str(
            &dir.run(&["graph", "t.jsonl", "--roles", "roles.json"])
                .text(),
        );
    }
    assert_snapshot!(out);
}

#[test]
fn bad_inputs_are_one_error_line() {
    let dir = Dir::new();
    dir.write(
        "t.jsonl",
        "{\"index\": 1, \"tool\": \"t\", \"args\": {}, \"response\": {}}\n",
    );
    let mut out = dir.run(&["graph", "t.jsonl"]).text();
    out.push_str(&dir.run(&["graph", "missing.jsonl"]).text());
    out.push_str(&dir.run(&["graph", "-", "--roles", "-"]).text());
    dir.write("g.jsonl", record(0, "t", "{}", "{}") + "\n");
    out.push_str(
        &dir.run(&["report", "g.jsonl", "-o", "no/such/dir/r.html"])
            .text(),
    );
    out.push_str(&dir.run(&["report", "g.jsonl", "-o", "."]).text());
    assert_snapshot!(out);
    assert_eq!(dir.entries(), ["g.jsonl", "t.jsonl"]);
}

/// What a transcript holds cannot end the data's script element, open a comment
/// or break a line of the script: the page has exactly its own two scripts.
#[test]
fn hostile_names_cannot_inject_markup() {
    let dir = Dir::new();
    let tool = "</script><img src=x onerror=alert(1)><!--";
    let args = json!({"path": "</script><script>alert(2)</script>", "u": "\u{2028}\u{2029}&lt;"});
    let line =
        json!({"index": 0, "tool": tool, "args": args, "response": {"t": "<!-- </SCRIPT >"}});
    dir.write("t.jsonl", format!("{line}\n"));
    dir.write("x<b>'\".jsonl", format!("{line}\n"));
    let run = dir.run(&["report", "x<b>'\".jsonl", "-o", "r.html"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let html = String::from_utf8(dir.read("r.html")).expect("UTF-8");
    let lower = html.to_lowercase();
    assert_eq!(lower.matches("<script").count(), 2);
    assert_eq!(lower.matches("</script").count(), 2);
    assert_eq!(lower.matches("<img").count(), 0);
    assert_eq!(lower.matches("<b>").count(), 0);
    assert_eq!(html.matches("<!--").count(), 0);
    assert!(!html.contains('\u{2028}') && !html.contains('\u{2029}'));
    // The data reads back as it was written.
    let start = html
        .find("<script type=\"application/json\" id=\"data\">")
        .expect("data")
        + 42;
    let end = start + html[start..].find("</script>").expect("end");
    let data: Value = serde_json::from_str(&html[start..end]).expect("JSON");
    assert_eq!(data["graph"]["nodes"][0]["tool"], tool);
    let written: Value =
        serde_json::from_str(data["records"][0][0].as_str().expect("args")).expect("JSON");
    assert_eq!(written, args);
}

#[test]
fn report_is_written_atomically_and_deterministically() {
    let dir = Dir::new();
    let run = run_in_root(&[
        "report",
        "samples/session-dirty.sealed.jsonl",
        "-o",
        &dir.path().join("a.html").to_string_lossy(),
    ]);
    assert_snapshot!(run.text());
    let again = run_in_root(&[
        "report",
        "samples/session-dirty.sealed.jsonl",
        "-o",
        &dir.path().join("b.html").to_string_lossy(),
    ]);
    assert_eq!(again.code, 0);
    assert_eq!(dir.read("a.html"), dir.read("b.html"));
    assert_eq!(dir.entries(), ["a.html", "b.html"]);
}

/// Names in DOT are quoted strings whatever they hold.
#[test]
fn dot_quotes_every_name() {
    let dir = Dir::new();
    let line = json!({"index": 0, "tool": "a\"b\\c\nd\u{1}", "args": {}, "response": {}});
    let read =
        json!({"index": 1, "tool": "read_file", "args": {"path": "x\" -> y"}, "response": {}});
    dir.write("t.jsonl", format!("{line}\n{read}\n"));
    assert_snapshot!(dir.run(&["graph", "t.jsonl", "--format", "dot"]).text());
}

#[test]
fn the_tools_of_other_agents_have_roles_built_in() {
    // Gemini CLI's read_file, replace and run_shell_command; Cursor's edit_file;
    // OpenHands' execute_bash: a read, two edits of the read file, a test run.
    let dir = Dir::new();
    dir.write(
        "t.jsonl",
        lines(&[
            &record(
                0,
                "read_file",
                r#"{"file_path": "/w/a.py"}"#,
                r#"{"text": "x"}"#,
            ),
            &record(
                1,
                "replace",
                r#"{"file_path": "/w/a.py", "old_string": "x", "new_string": "y"}"#,
                "{}",
            ),
            &record(2, "edit_file", r#"{"target_file": "/w/a.py"}"#, "{}"),
            &record(
                3,
                "run_shell_command",
                r#"{"command": "pytest"}"#,
                r#"{"out": "ok"}"#,
            ),
            &record(4, "execute_bash", r#"{"command": "git diff"}"#, "{}"),
        ]),
    );
    insta::assert_snapshot!(dir.run(&["graph", "t.jsonl"]).text());
}
