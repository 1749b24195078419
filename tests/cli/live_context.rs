//! A guarded session's context: paths read as Claude Code's tools read them (the
//! session's `cwd` and home), prompts checked by `prompt_detectors` and kept with the
//! agent's answers in the sealed `S.context.jsonl`, and the same decisions after the
//! fact from `scope --from sealed`, which reads that file (docs/live.md).

use std::fmt::Write as _;

use insta::assert_snapshot;
use serde_json::{Value, json};

use super::guard::turn_event;
use super::guard::{SESSION, audited_as_decided, base, bash, plain_records, post, pre, read};
use super::{Dir, Run, run_with_stdin_env};

/// A project guarded as `guard init` sets it up: a relative root, the guard's own
/// files and secrets denied, prompts checked for secrets.
const POLICY: &str = r#"{
  "agent": "claude-code",
  "allowed_tools": ["Read", "Write", "Edit", "Bash"],
  "policy_version": 1,
  "prompt_detectors": ["secrets"],
  "response_detectors": ["secrets"],
  "tools": {
    "Read": {"paths": [{"args": ["/file_path"], "root": ".", "deny": ["**/.env", "**/*.pem"]}]},
    "Write": {"paths": [{"args": ["/file_path"], "root": ".", "deny": ["**/.env", ".claude/**"]}]},
    "Edit": {"paths": [{"args": ["/file_path"], "root": ".", "deny": ["**/.env", ".claude/**"]}]}
  }
}
"#;

const GUARD: [&str; 5] = ["guard", "--policy", "scope.json", "--dir", "sessions"];

/// The guard as Claude Code runs it, for the user whose home is `/home/dev`.
fn guard(dir: &Dir, event: String) -> Run {
    run_with_stdin_env(dir.path(), &GUARD, event, &[("HOME", "/home/dev")])
}

/// `event` with its `cwd` set to `cwd`.
fn in_dir(event: String, cwd: &str) -> String {
    let mut value: Value = serde_json::from_str(&event).expect("an event");
    value["cwd"] = cwd.into();
    value.to_string()
}

fn prompt(text: &str) -> String {
    let mut event = base("UserPromptSubmit");
    event.insert("prompt".into(), text.into());
    Value::Object(event).to_string()
}

fn stop(answer: &str) -> String {
    let mut event = base("Stop");
    event.insert("stop_hook_active".into(), false.into());
    event.insert("last_assistant_message".into(), answer.into());
    Value::Object(event).to_string()
}

/// The records of the sealed file at `path` in `dir`, without their seal.
fn records(dir: &Dir, path: &str) -> String {
    plain_records(&String::from_utf8(dir.read(path)).expect("UTF-8"))
}

/// The live invariant on the session (see [`audited_as_decided`]); the audit's
/// text.
fn audited(dir: &Dir) -> String {
    let calls = format!("sessions/{SESSION}.jsonl");
    audited_as_decided(dir, &calls, "scope.json").0.text()
}

/// Claude Code's file tools trim a path and expand `~`; a relative path is read from
/// the session's `cwd`. Each way of naming a file outside the project, or a denied
/// one, is denied live, and the audit after the fact decides the same.
#[test]
fn paths_are_read_as_claude_code_reads_them() {
    let dir = Dir::new();
    dir.write("scope.json", POLICY);
    let project = "/home/dev/project";
    let mut answers = String::new();
    let calls: [(&str, &str, &str); 12] = [
        ("Read", "README.md", project),
        ("Read", "/home/dev/project/src/main.rs", project),
        ("Edit", "main.rs", "/home/dev/project/src"),
        ("Read", "~/.claude/settings.json", project),
        ("Read", "~/.bashrc", project),
        ("Read", " /etc/shadow", project),
        ("Read", "/home/dev/project/.env ", project),
        ("Read", "$HOME/.ssh/id_rsa", project),
        ("Read", "../.env", "/home/dev/project/src"),
        ("Read", "~root/.bashrc", project),
        ("Write", "~/project/.claude/settings.json", project),
        ("Write", "\t.claude/settings.local.json", project),
    ];
    for (i, (tool, path, cwd)) in calls.iter().enumerate() {
        let id = format!("toolu_{i:02}");
        let input = match *tool {
            "Read" => read(path),
            "Edit" => json!({"file_path": path, "old_string": "a", "new_string": "b"}),
            _ => json!({"file_path": path, "content": "x"}),
        };
        let run = guard(&dir, in_dir(pre(&id, tool, input.clone()), cwd));
        let _ = writeln!(answers, "=== {tool} {path:?} in {cwd}\n{}", run.text());
        if run.stdout.is_empty() {
            let done = post(&id, tool, input, json!({"type": "text"}));
            assert_eq!(guard(&dir, in_dir(done, cwd)).code, 0);
        }
    }
    assert_snapshot!("answers", answers);
    let context = records(&dir, &format!("sessions/{SESSION}.context.jsonl"));
    assert_snapshot!("context", context);
    assert_snapshot!("audit", audited(&dir));
    // The evidence graph finds the same, reading the same context.
    let calls = format!("sessions/{SESSION}.jsonl");
    let graph = dir.run(&["graph", &calls, "--scope", "scope.json", "--format", "json"]);
    let graph: Value = serde_json::from_str(&graph.stdout).expect("a graph");
    assert_eq!(
        graph["summary"]["findings_by_kind"],
        json!({"argument-violation": 9})
    );
}

/// Without a known home, a `~` path under a rule with a root cannot be placed, and
/// is denied (fail closed).
#[test]
fn a_path_the_guard_cannot_place_is_denied() {
    let dir = Dir::new();
    dir.write("scope.json", POLICY);
    let homeless = |event: String| run_with_stdin_env(dir.path(), &GUARD, event, &[]);
    let run = homeless(in_dir(pre("toolu_1", "Read", read("~/.bashrc")), "/p"));
    assert_snapshot!(run.text(), @r#"
    exit: 0
    --- stdout
    {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"toolreplay denied this call (index 0) by the scope policy: tool 'Read' argument '/file_path' path '~/.bashrc' cannot be placed: the session's home directory is not known (paths[0])"}}
    --- stderr
    "#);
}

/// The first checkpoint: a prompt is checked by `prompt_detectors` before the model
/// sees it, blocked with a reason when one matches, and kept, blocked or not, with
/// the agent's final answer and the session's context, in the sealed context file.
#[test]
fn prompts_are_checked_and_kept_with_the_answers() {
    let dir = Dir::new();
    dir.write("scope.json", POLICY);
    let mut answers = String::new();
    let mut show = |step: &str, run: &Run| {
        let _ = writeln!(answers, "=== {step}\n{}", run.text());
    };
    let cwd = "/home/dev/project";
    show(
        "a prompt, first in the session",
        &guard(&dir, in_dir(prompt("List the tests."), cwd)),
    );
    let ls = bash("ls tests");
    show(
        "Bash",
        &guard(&dir, in_dir(pre("toolu_1", "Bash", ls.clone()), cwd)),
    );
    show(
        "Bash done",
        &guard(
            &dir,
            in_dir(
                post(
                    "toolu_1",
                    "Bash",
                    ls,
                    json!({"stdout": "cli\n", "stderr": ""}),
                ),
                cwd,
            ),
        ),
    );
    show(
        "a Bash call that never finishes",
        &guard(&dir, in_dir(pre("toolu_2", "Bash", bash("sleep 100")), cwd)),
    );
    show(
        "the answer",
        &guard(&dir, in_dir(stop("There is one test folder, cli."), cwd)),
    );
    show(
        "a prompt with a key",
        &guard(
            &dir,
            in_dir(
                prompt(
                    "Deploy with AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                ),
                cwd,
            ),
        ),
    );
    show(
        "a prompt from another folder",
        &guard(
            &dir,
            in_dir(prompt("Now the docs."), "/home/dev/project/docs"),
        ),
    );
    assert_snapshot!("prompts", answers);
    let context = records(&dir, &format!("sessions/{SESSION}.context.jsonl"));
    assert_snapshot!("prompts_context", context);
    let calls = records(&dir, &format!("sessions/{SESSION}.jsonl"));
    assert_snapshot!("prompts_calls", calls);
    audited(&dir);
}

/// A prompt that cannot be checked (the policy cannot be read, the event cannot be
/// held) is blocked: fail closed. `--fail-open` lets it through, told.
#[test]
fn a_prompt_that_cannot_be_checked_is_blocked() {
    let dir = Dir::new();
    let broken = ["guard", "--policy", "none.json", "--dir", "sessions"];
    let run = run_with_stdin_env(dir.path(), &broken, turn_event("UserPromptSubmit"), &[]);
    assert_snapshot!(run.text(), @r"
    exit: 2
    --- stdout
    --- stderr
    error: policy none.json: no such file or directory
    ");
    let open = [
        "guard",
        "--policy",
        "none.json",
        "--dir",
        "sessions",
        "--fail-open",
    ];
    let run = run_with_stdin_env(dir.path(), &open, turn_event("UserPromptSubmit"), &[]);
    assert_eq!(run.code, 1);
    let unreadable = r#"{"session_id": "s", "hook_event_name": "UserPromptSubmit", "cwd": "/p", "prompt": "\ud800"}"#;
    dir.write("scope.json", POLICY);
    let run = run_with_stdin_env(dir.path(), &GUARD, unreadable, &[]);
    assert_eq!(run.code, 2, "{}", run.text());
}

/// A writer killed part way through an append to the context file leaves a torn
/// last line: the next event cuts it, says so, and the session goes on.
#[test]
fn a_torn_context_file_is_cut_and_the_session_goes_on() {
    let dir = Dir::new();
    dir.write("scope.json", POLICY);
    let cwd = "/home/dev/project";
    assert_eq!(guard(&dir, in_dir(prompt("First."), cwd)).code, 0);
    let file = format!("sessions/{SESSION}.context.jsonl");
    let whole = dir.read(&file);
    dir.write(&file, [&whole[..], b"{\"args\":{\"after\":nu"].concat());
    let run = guard(&dir, in_dir(prompt("Second."), cwd));
    assert_eq!(
        run.text(),
        format!(
            "exit: 0\n--- stdout\n--- stderr\nnote: sessions/{SESSION}.context.jsonl: cut a torn last line of 19 bytes left by an interrupted writer\n"
        )
    );
    assert_snapshot!(records(&dir, &file), @r#"
    {"args":{"agent":"claude-code","cwd":"/home/dev/project","from":0,"home":"/home/dev","policy_digest":"54c0ea953199d9f062a7aabf38a156a31a3418ce87f1b6972e2b71f76dbeae2b"},"index":0,"response":{},"tool":"context"}
    {"args":{"after":null},"index":1,"response":{"decision":"allowed","text":"First."},"tool":"prompt"}
    {"args":{"after":null},"index":2,"response":{"decision":"allowed","text":"Second."},"tool":"prompt"}
    "#);
    audited(&dir);
}

/// A guarded session's kept prompts and answers are what `claims` reads: the agent
/// edits a file, runs the tests (one fails) and answers that they all pass; the
/// claim is contradicted (exit 1), the change supported.
#[test]
fn claims_read_a_guarded_session() {
    let dir = Dir::new();
    dir.write("scope.json", POLICY);
    let project = "/home/dev/project";
    assert_eq!(
        guard(&dir, in_dir(prompt("Fix the parser."), project)).code,
        0
    );
    let edit = json!({"file_path": "src/parse.rs", "old_string": "a", "new_string": "b"});
    let run = bash("cargo test");
    let output = "running 2 tests\ntest result: FAILED. 1 passed; 1 failed; 0 ignored";
    let steps = [
        (
            "toolu_1",
            "Edit",
            edit,
            json!({"filePath": "/home/dev/project/src/parse.rs"}),
        ),
        (
            "toolu_2",
            "Bash",
            run,
            json!({"stdout": output, "stderr": "", "interrupted": false}),
        ),
    ];
    for (id, tool, input, response) in steps {
        assert_eq!(
            guard(&dir, in_dir(pre(id, tool, input.clone()), project)).code,
            0
        );
        let done = post(id, tool, input, response);
        assert_eq!(guard(&dir, in_dir(done, project)).code, 0);
    }
    let answer = "I updated `src/parse.rs` and ran `cargo test`. All tests pass.";
    assert_eq!(guard(&dir, in_dir(stop(answer), project)).code, 0);
    let calls = format!("sessions/{SESSION}.jsonl");
    assert_snapshot!("claims", dir.runs(&[&["claims", &calls]]));
}
