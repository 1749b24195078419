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
/// change since call 3: `execute`, and it checks nothing. Replay's findings are
/// `replay`'s on this transcript, by the specification's rules (a plain
/// transcript's default), where `Edit` and `Bash` change no state: call 4 reads the
/// file again and gets the edited text, so 4 repeats 1 and diverges from it, and
/// call 5 repeats call 3.
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
            edge("repeats", "c4", "c1", "replay-redundant-call"),
            edge("repeats", "c5", "c3", "replay-redundant-call"),
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
    assert_eq!(
        graph["summary"]["findings_by_kind"],
        json!({"non-determinism": 1, "redundant-call": 2})
    );
}

/// Each finding of a graph's call nodes, as `(index, audit, kind, message)`.
fn graph_findings(graph: &Value) -> Vec<(u64, String, String, String)> {
    let mut found = Vec::new();
    for node in graph["nodes"].as_array().expect("nodes") {
        if node["type"] != "call" {
            continue;
        }
        for finding in node["findings"].as_array().expect("findings") {
            let text = |key: &str| finding[key].as_str().expect(key).to_owned();
            found.push((
                node["index"].as_u64().expect("index"),
                text("audit"),
                text("kind"),
                text("message"),
            ));
        }
    }
    found
}

/// Each finding of a `--format json` report, as `(index, audit, kind, message)`.
fn report_findings(audit: &str, report: &Value) -> Vec<(u64, String, String, String)> {
    report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|finding| {
            let text = |key: &str| finding[key].as_str().expect(key).to_owned();
            (
                finding["index"].as_u64().expect("index"),
                audit.to_owned(),
                text("kind"),
                text("message"),
            )
        })
        .collect()
}

/// `graph` and `report` judge calls exactly as `replay` and `scope` do with the same
/// input and flags: the same findings, whatever the rules, the added tools and the
/// format read.
pub(super) fn graph_agrees_with_the_audits(dir: &Dir, input: &[&str], scope: Option<&str>) {
    let flag_sets: [&[&str]; 4] = [
        &[],
        &["--rules", "spec"],
        &["--rules", "agent"],
        &["--mutating-tool", "Read", "--volatile-tool", "WebFetch"],
    ];
    for flags in flag_sets {
        let mut args = vec!["graph"];
        args.extend_from_slice(input);
        args.extend_from_slice(flags);
        if let Some(scope) = scope {
            args.extend(["--scope", scope]);
        }
        let graph = dir.run(&args);
        assert_eq!(graph.code, 0, "{}", graph.text());
        let graph: Value = serde_json::from_str(&graph.stdout).expect("JSON");
        let mut replay = vec!["replay", "--format", "json"];
        replay.extend_from_slice(input);
        replay.extend_from_slice(flags);
        let replay: Value = serde_json::from_str(&dir.run(&replay).stdout).expect("JSON");
        let mut expected = report_findings("replay", &replay);
        if let Some(scope) = scope {
            let mut args = vec!["scope", "--format", "json"];
            args.extend_from_slice(input);
            args.push(scope);
            let report: Value = serde_json::from_str(&dir.run(&args).stdout).expect("JSON");
            expected.extend(report_findings("scope", &report));
        }
        expected.sort_by_key(|finding| finding.0);
        assert_eq!(graph_findings(&graph), expected, "{input:?} {flags:?}");
    }
}

#[test]
fn graph_findings_are_replays_and_scopes() {
    let dir = Dir::new();
    for name in [
        "claude-code-session.jsonl",
        "session-dirty.jsonl",
        "session-policy.jsonl",
        "policy.json",
    ] {
        let bytes = std::fs::read(format!("{}/samples/{name}", super::ROOT)).expect("a sample");
        dir.write(name, bytes);
    }
    graph_agrees_with_the_audits(
        &dir,
        &["--from", "claude-code", "claude-code-session.jsonl"],
        None,
    );
    graph_agrees_with_the_audits(&dir, &["session-dirty.jsonl"], None);
    graph_agrees_with_the_audits(&dir, &["session-policy.jsonl"], Some("policy.json"));
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
    let line = json!({"index": 0, "tool": tool, "args": args, "response": {"t": "<!-- </SCRIPT >", "subagent": "</script><b>"}});
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
    // The subagent's name, kept beside the record, reads back too.
    assert_eq!(data["records"][0][4], "</script><b>");
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

/// The same on every real agent log of `../shared/data/transcripts`: the graph's
/// findings are `replay`'s, with each set of rules.
#[test]
#[ignore = "needs ../shared/data"]
fn graph_findings_are_replays_on_the_shared_logs() {
    let root = format!("{}/../shared/data/transcripts", super::ROOT);
    let dir = Dir::new();
    let mut seen = 0;
    for (folder, from) in [
        ("claude-code", "claude-code"),
        ("codex-rollout", "codex"),
        ("gemini-cli", "gemini"),
        ("copilot-cli", "copilot"),
        ("cursor", "cursor"),
        ("openai", "openai"),
        ("openhands", "openhands"),
    ] {
        let mut names: Vec<String> = std::fs::read_dir(format!("{root}/{folder}"))
            .expect("a shared folder")
            .map(|entry| {
                entry
                    .expect("an entry")
                    .file_name()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        names.sort();
        for name in names {
            let bytes = std::fs::read(format!("{root}/{folder}/{name}")).expect("a log");
            let local = format!("{folder}-{name}");
            dir.write(&local, bytes);
            graph_agrees_with_the_audits(&dir, &["--from", from, &local], None);
            seen += 1;
        }
    }
    assert!(seen >= 20, "{seen} logs");
}
