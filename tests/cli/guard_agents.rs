//! `toolreplay guard --agent A` for each of the five agents: one session of the
//! payloads each agent documents (tests/fixtures/hooks/A/), changed only in the tool,
//! its input and its result, driven through the real binary one process per event:
//! a prompt, allowed calls, a call denied by each kind of rule, a failed call, two
//! calls at once, a subagent's call where the agent reports one, a prompt with a
//! secret, the end of the turn and of the session. Each answer is the agent's
//! documented one (snapshots); the sealed file verifies, and `scope --from sealed`
//! after the fact finds exactly what the live decisions found.

use std::path::Path;

use insta::assert_snapshot;
use serde_json::{Map, Value, json};

use super::guard::{audited_as_decided, plain_records};
use super::{Dir, ROOT, Run, run_with_stdin};

/// What a session step asks of the agent.
#[derive(Clone, Copy)]
enum Step<'a> {
    Prompt(&'a str),
    Before(&'a str, &'a Call),
    After(&'a str, &'a Call, &'a Value),
    Failed(&'a str, &'a Call, &'a str),
    /// Cursor's failure event for a call a hook denied.
    Refused(&'a str, &'a Call, &'a str),
    Stop(&'a str),
    End,
    /// The end of the session, naming the agent's log.
    EndWithLog(&'a str),
}

/// A call: the tool as the agent names it, and its input.
struct Call {
    tool: String,
    input: Value,
    /// The subagent making it, where the agent reports one.
    subagent: Option<String>,
}

impl Call {
    fn new(tool: &str, input: Value) -> Call {
        Call {
            tool: tool.to_owned(),
            input,
            subagent: None,
        }
    }
}

/// How one agent names things: its fixtures and its tools.
struct Agent {
    name: &'static str,
    /// The session id of its fixtures.
    session: &'static str,
    shell: &'static str,
    read: (&'static str, &'static str),
    write: (&'static str, &'static str),
    fetch: (&'static str, &'static str),
    /// A tool the policy does not allow.
    other: &'static str,
    /// Whether its hook events say which subagent makes a call.
    subagents: bool,
    /// A result of a shell command in the agent's shape.
    shell_result: fn(&str) -> Value,
    /// A file's content as the read tool's result in the agent's shape.
    read_result: fn(&str) -> Value,
}

fn fixture(agent: &str, name: &str) -> Map<String, Value> {
    let path = format!("{ROOT}/tests/fixtures/hooks/{agent}/{name}");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{path}: {err}"));
    match serde_json::from_str(&text) {
        Ok(Value::Object(map)) => map,
        other => panic!("{path}: not an object: {other:?}"),
    }
}

const AGENTS: [Agent; 5] = [
    Agent {
        name: "claude-code",
        session: "5f0c8a52-1d3e-4f4b-9a8e-0b7c2d6e9f10",
        shell: "Bash",
        read: ("Read", "file_path"),
        write: ("Write", "file_path"),
        fetch: ("WebFetch", "url"),
        other: "mcp__mail__send",
        subagents: true,
        shell_result: |out| json!({"stdout": out, "stderr": "", "interrupted": false, "isImage": false}),
        read_result: |content| json!({"type": "text", "file": {"filePath": "/home/dev/proj/src/main.rs", "content": content, "numLines": 1, "startLine": 1, "totalLines": 1}}),
    },
    Agent {
        name: "codex",
        session: "019a7c3e-5b1d-7f20-9c4e-2f6a1d8e0b33",
        shell: "Bash",
        read: ("mcp__fs__read_text_file", "path"),
        write: ("mcp__fs__write_file", "path"),
        fetch: ("mcp__fetch__fetch", "url"),
        other: "mcp__mail__send",
        subagents: true,
        shell_result: |out| json!(out),
        read_result: |content| json!({"content": [{"type": "text", "text": content}], "isError": false}),
    },
    Agent {
        name: "gemini",
        session: "8f14e45f-ceea-467f-a0e6-1c3b2d9a7e55",
        shell: "run_shell_command",
        read: ("read_file", "file_path"),
        write: ("write_file", "file_path"),
        fetch: ("web_fetch", "prompt"),
        other: "mcp__mail__send",
        subagents: false,
        shell_result: |out| json!({"llmContent": format!("Command: ls\nDirectory: (root)\nOutput: {out}\nError: (none)\nExit Code: 0"), "returnDisplay": out}),
        read_result: |content| json!({"llmContent": content, "returnDisplay": ""}),
    },
    Agent {
        name: "cursor",
        session: "74676b03-1c2d-4e5f-8a9b-0c1d2e3f4a5b",
        shell: "Shell",
        read: ("Read", "file_path"),
        write: ("Write", "file_path"),
        fetch: ("MCP:fetch", "url"),
        other: "MCP:send_mail",
        subagents: false,
        shell_result: |out| json!(json!({"output": out, "exitCode": 0}).to_string()),
        read_result: |content| json!(content),
    },
    Agent {
        name: "copilot",
        session: "c3a1f0d2-7b8e-4c9a-b1d2-e3f4a5b6c7d8",
        shell: "bash",
        read: ("view", "path"),
        write: ("create", "path"),
        fetch: ("web_fetch", "url"),
        other: "mail-send",
        subagents: false,
        shell_result: |out| json!({"resultType": "success", "textResultForLlm": out}),
        read_result: |content| json!({"resultType": "success", "textResultForLlm": content}),
    },
];

impl Agent {
    /// The policy of the session, in this agent's tool names: path rules on the
    /// read tool, a budget of two shell commands, a flow from the fetch tool to the
    /// write tool, and secrets in prompts and results.
    fn policy(&self) -> String {
        let policy = json!({
            "agent": self.name,
            "allowed_tools": [self.shell, self.read.0, self.write.0, self.fetch.0],
            "policy_version": 1,
            "budgets": {"per_tool": {self.shell: 2}},
            "flows": [{"name": "fetched-then-written", "sources": [self.fetch.0], "sinks": [self.write.0]}],
            "prompt_detectors": ["secrets"],
            "response_detectors": ["secrets"],
            "tools": {
                self.read.0: {"paths": [{"args": [format!("/{}", self.read.1)], "root": "/home/dev/proj", "deny": ["**/.env"]}]}
            }
        });
        serde_json::to_string_pretty(&policy).expect("JSON")
    }

    fn shell(&self, command: &str) -> Call {
        let input = match self.name {
            "claude-code" | "copilot" => json!({"command": command, "description": "Run it"}),
            "cursor" => json!({"command": command, "working_directory": "/home/dev/proj"}),
            _ => json!({"command": command}),
        };
        Call::new(self.shell, input)
    }

    fn read(&self, path: &str) -> Call {
        Call::new(self.read.0, json!({self.read.1: path}))
    }

    fn write(&self, path: &str) -> Call {
        let content = if self.name == "copilot" {
            "file_text"
        } else {
            "content"
        };
        Call::new(
            self.write.0,
            json!({self.write.1: path, content: "notes\n"}),
        )
    }

    fn fetch(&self) -> Call {
        let url = "https://example.com/docs/changelog";
        let value = if self.fetch.1 == "prompt" {
            format!("Summarize {url}")
        } else {
            url.to_owned()
        };
        Call::new(self.fetch.0, json!({self.fetch.1: value}))
    }

    /// The hook event of `step`, in this agent's documented shape, and the event
    /// its hook entry names (`--event`, for Copilot CLI).
    fn event(&self, step: Step<'_>) -> (String, String) {
        let name = self.name;
        let (file, event) = match (name, step) {
            (_, Step::Prompt(_)) => (
                "prompt.json",
                [
                    "UserPromptSubmit",
                    "UserPromptSubmit",
                    "BeforeAgent",
                    "beforeSubmitPrompt",
                    "userPromptSubmitted",
                ],
            ),
            (_, Step::Before(..)) => (
                "pre-tool-shell.json",
                [
                    "PreToolUse",
                    "PreToolUse",
                    "BeforeTool",
                    "preToolUse",
                    "preToolUse",
                ],
            ),
            ("codex", Step::Failed(..)) => (
                "post-tool-shell-nonzero.json",
                ["", "PostToolUse", "", "", ""],
            ),
            ("gemini", Step::Failed(..)) => {
                ("post-tool-shell-error.json", ["", "", "AfterTool", "", ""])
            }
            (_, Step::After(..)) => (
                "post-tool-shell.json",
                [
                    "PostToolUse",
                    "PostToolUse",
                    "AfterTool",
                    "postToolUse",
                    "postToolUse",
                ],
            ),
            (_, Step::Failed(..) | Step::Refused(..)) => (
                "post-tool-failure.json",
                [
                    "PostToolUseFailure",
                    "",
                    "",
                    "postToolUseFailure",
                    "postToolUseFailure",
                ],
            ),
            ("cursor", Step::Stop(_)) => (
                "after-agent-response.json",
                ["", "", "", "afterAgentResponse", ""],
            ),
            (_, Step::Stop(_)) => ("stop.json", ["Stop", "Stop", "AfterAgent", "", "agentStop"]),
            (_, Step::End | Step::EndWithLog(_)) => (
                "session-end.json",
                ["SessionEnd", "", "SessionEnd", "sessionEnd", "sessionEnd"],
            ),
        };
        let at = AGENTS
            .iter()
            .position(|a| a.name == name)
            .expect("an agent");
        let hook = event[at].to_owned();
        assert!(!hook.is_empty(), "{name} has no such event");
        let mut event = fixture(name, file);
        let copilot = name == "copilot";
        let set_call = |event: &mut Map<String, Value>, id: &str, call: &Call| {
            if copilot {
                event.insert("toolName".into(), call.tool.as_str().into());
                event.insert("toolArgs".into(), call.input.to_string().into());
            } else {
                event.insert("tool_name".into(), call.tool.as_str().into());
                event.insert("tool_input".into(), call.input.clone());
                if event.contains_key("tool_use_id") {
                    event.insert("tool_use_id".into(), id.into());
                }
            }
            match &call.subagent {
                Some(agent) => {
                    event.insert("agent_id".into(), agent.as_str().into());
                    event.insert("agent_type".into(), "Explore".into());
                }
                None => {
                    event.remove("agent_id");
                    event.remove("agent_type");
                }
            }
        };
        match step {
            Step::Prompt(text) => {
                event.insert("prompt".into(), text.into());
            }
            Step::Before(id, call) => set_call(&mut event, id, call),
            Step::After(id, call, result) => {
                set_call(&mut event, id, call);
                let key = match name {
                    "cursor" => "tool_output",
                    "copilot" => "toolResult",
                    _ => "tool_response",
                };
                event.insert(key.into(), result.clone());
            }
            Step::Failed(id, call, error) => {
                set_call(&mut event, id, call);
                match name {
                    "codex" => {
                        event.insert("tool_response".into(), format!("{error}\n").into());
                    }
                    "gemini" => {
                        let response = json!({"llmContent": format!("Error: {error}"), "returnDisplay": error, "error": error});
                        event.insert("tool_response".into(), response);
                    }
                    "cursor" => {
                        event.insert("error_message".into(), error.into());
                        event.insert("failure_type".into(), "error".into());
                    }
                    _ => {
                        event.insert("error".into(), error.into());
                    }
                }
            }
            Step::Refused(id, call, message) => {
                set_call(&mut event, id, call);
                event.insert("error_message".into(), message.into());
                event.insert("failure_type".into(), "permission_denied".into());
                event.insert("duration".into(), 0.into());
            }
            Step::Stop(text) => {
                let key = match name {
                    "gemini" => "prompt_response",
                    "cursor" => "text",
                    _ => "last_assistant_message",
                };
                if name != "copilot" {
                    event.insert(key.into(), text.into());
                }
            }
            Step::End => {}
            Step::EndWithLog(log) => {
                event.insert("transcript_path".into(), log.into());
            }
        }
        (Value::Object(event).to_string(), hook)
    }
}

/// The session every agent goes through, one guard process per event, in order:
/// each step and the guard's answer as text, and each hook event's name with the
/// guard's run.
fn session(agent: &Agent, dir: &Dir) -> (String, Vec<(String, Run)>) {
    let ls = agent.shell("ls");
    let main = agent.read("/home/dev/proj/src/main.rs");
    let env = agent.read("/home/dev/proj/.env");
    let other = Call::new(
        agent.other,
        json!({"to": "someone@example.com", "body": "hi"}),
    );
    let first = agent.read("/home/dev/proj/README.md");
    let second = agent.read("/home/dev/proj/Cargo.toml");
    let tests = agent.shell("cargo test");
    let build = agent.shell("cargo build");
    let fetch = agent.fetch();
    let write = agent.write("/home/dev/proj/NOTES.md");
    let mut by_subagent = agent.read("/home/dev/proj/docs/guide.md");
    by_subagent.subagent = Some("a1b2c3d4e5f6a7b8c".to_owned());
    let listing = (agent.shell_result)("Cargo.toml\nsrc");
    let source = (agent.read_result)("fn main() {}\n");
    let secret = (agent.read_result)("token = AKIAIOSFODNN7EXAMPLE\n");
    let page = (agent.read_result)("Changelog: version 2 is out.");
    let mut steps = vec![
        ("a prompt", Step::Prompt("Tidy up the project")),
        ("a shell command, allowed", Step::Before("call_1", &ls)),
        ("its result", Step::After("call_1", &ls, &listing)),
        ("a file read, allowed", Step::Before("call_2", &main)),
        ("its result", Step::After("call_2", &main, &source)),
        ("a path rule denies", Step::Before("call_3", &env)),
    ];
    if agent.name == "cursor" {
        steps.push((
            "Cursor's failure event for the denied call",
            Step::Refused("call_3", &env, "Blocked by a hook"),
        ));
    }
    steps.extend([
        ("a tool not allowed", Step::Before("call_4", &other)),
        (
            "two calls at once: the first",
            Step::Before("call_5", &first),
        ),
        ("the second", Step::Before("call_6", &second)),
        (
            "the second's result first, holding a secret",
            Step::After("call_6", &second, &secret),
        ),
        ("the first's result", Step::After("call_5", &first, &source)),
        ("a command that fails", Step::Before("call_7", &tests)),
        (
            "its failure",
            Step::Failed("call_7", &tests, "2 tests failed"),
        ),
        (
            "a third shell command: over the budget",
            Step::Before("call_8", &build),
        ),
        ("a fetch", Step::Before("call_9", &fetch)),
        ("its result", Step::After("call_9", &fetch, &page)),
        (
            "a write after the fetch: the flow denies",
            Step::Before("call_10", &write),
        ),
    ]);
    if agent.subagents {
        steps.push(("a subagent's read", Step::Before("call_11", &by_subagent)));
        steps.push(("its result", Step::After("call_11", &by_subagent, &source)));
    }
    steps.extend([
        (
            "the answer of the turn",
            Step::Stop("The project is tidy; two tests fail."),
        ),
        (
            "a prompt holding a secret",
            Step::Prompt("Use the key AKIAIOSFODNN7EXAMPLE to deploy"),
        ),
    ]);
    if agent.name != "codex" {
        // Codex documents no event at the end of a session.
        steps.push(("the end of the session", Step::End));
    }
    let policy = format!("{}.json", agent.name);
    dir.write(&policy, agent.policy());
    let mut out = String::new();
    let mut runs = Vec::new();
    for (what, step) in steps {
        let (payload, hook) = agent.event(step);
        let mut args = vec![
            "guard", "--agent", agent.name, "--policy", &policy, "--dir", "sessions",
        ];
        if agent.name == "copilot" {
            args.extend(["--event", &hook]);
        }
        let run = run_with_stdin(dir.path(), &args, payload);
        out.push_str(&format!("## {hook}: {what}\n{}", run.text()));
        runs.push((hook, run));
    }
    (out, runs)
}

/// Each agent's session: its answers, its sealed records, and the audit after the
/// fact agreeing with every live decision.
fn guarded(name: &str) {
    let agent = AGENTS.iter().find(|a| a.name == name).expect("an agent");
    let dir = Dir::new();
    let (answers, _) = session(agent, &dir);
    let file = format!("sessions/{}.jsonl", agent.session);
    let sealed = String::from_utf8(dir.read(&file)).expect("UTF-8");
    let context = String::from_utf8(dir.read(&format!("sessions/{}.context.jsonl", agent.session)))
        .expect("UTF-8");
    let (report, denied) = audited_as_decided(&dir, &file, &format!("{name}.json"));
    assert_eq!(denied, 4, "{name}: one denial by each kind of rule");
    assert_snapshot!(
        format!("guard_{name}"),
        format!(
            "{answers}# sealed records\n{}# context records\n{}# scope --from sealed\n{}",
            plain_records(&sealed),
            plain_records(&context),
            report.text()
        )
    );
}

#[test]
fn claude_code_session() {
    guarded("claude-code");
}

#[test]
fn codex_session() {
    guarded("codex");
}

#[test]
fn gemini_session() {
    guarded("gemini");
}

#[test]
fn cursor_session() {
    guarded("cursor");
}

#[test]
fn copilot_session() {
    guarded("copilot");
}

/// Codex treats an answer with a field its output schema does not have as a failed
/// hook and runs the tool: every answer the guard gives in the Codex session is
/// valid against the schema Codex publishes for its event
/// (tests/fixtures/hooks/codex-schema/), checked by the Python `jsonschema`
/// package in the virtual environment `.ci/run` makes.
#[test]
#[ignore = "needs TOOLREPLAY_MCP_PYTHON, a Python with jsonschema (.ci/run sets it)"]
fn codex_answers_are_valid_against_its_schemas() {
    let python = std::env::var("TOOLREPLAY_MCP_PYTHON")
        .expect("TOOLREPLAY_MCP_PYTHON names a Python with jsonschema (.ci/run sets it)");
    let agent = AGENTS.iter().find(|a| a.name == "codex").expect("codex");
    let dir = Dir::new();
    let (_, runs) = session(agent, &dir);
    let mut answers = Vec::new();
    for (hook, run) in &runs {
        assert_eq!(run.code, 0, "{hook}: {}", run.text());
        let schema = match hook.as_str() {
            "PreToolUse" => "pre-tool-use",
            "PostToolUse" => "post-tool-use",
            "UserPromptSubmit" => "user-prompt-submit",
            "Stop" => "stop",
            other => panic!("no schema for {other}"),
        };
        if !run.stdout.is_empty() {
            let answer: Value = serde_json::from_str(&run.stdout).expect("one JSON answer");
            answers.push(json!({"schema": schema, "answer": answer}));
        }
    }
    assert_eq!(
        answers.len(),
        6,
        "four denials, a flagged result, a blocked prompt"
    );
    dir.write("answers.json", Value::Array(answers).to_string());
    let script = r#"
import json, sys
from jsonschema import Draft7Validator
folder = sys.argv[1]
failed = 0
for item in json.load(open("answers.json")):
    schema = json.load(open(f"{folder}/{item['schema']}.command.output.schema.json"))
    for error in Draft7Validator(schema).iter_errors(item["answer"]):
        failed += 1
        print(item["schema"], error.message)
print("checked", len(json.load(open("answers.json"))), "failed", failed)
sys.exit(1 if failed else 0)
"#;
    let output = std::process::Command::new(python)
        .args([
            "-c",
            script,
            &format!("{ROOT}/tests/fixtures/hooks/codex-schema"),
        ])
        .current_dir(dir.path())
        .output()
        .expect("run Python");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(stdout, "checked 6 failed 0\n");
}

/// What only some agents send: each answered as that agent documents, or refused
/// with one `error:` line (exit 2, which denies a call before it runs).
#[test]
fn each_agents_own_cases() {
    let dir = Dir::new();
    dir.write("policy.json", AGENTS[3].policy());
    let mut out = String::new();
    let mut run = |what: &str, agent: &str, event: Option<&str>, payload: String| {
        let mut args = vec![
            "guard",
            "--agent",
            agent,
            "--policy",
            "policy.json",
            "--dir",
            "sessions",
        ];
        if let Some(event) = event {
            args.extend(["--event", event]);
        }
        let run = run_with_stdin(dir.path(), &args, payload);
        out.push_str(&format!("## {agent}: {what}\n{}", run.text()));
    };
    let copilot = fixture("copilot", "pre-tool-shell.json");
    run(
        "an event without --event",
        "copilot",
        None,
        Value::Object(copilot.clone()).to_string(),
    );
    let mut bad = copilot.clone();
    bad.insert("toolArgs".into(), "{\"command\": ".into());
    run(
        "toolArgs that is not JSON",
        "copilot",
        Some("preToolUse"),
        Value::Object(bad).to_string(),
    );
    let mut list = copilot.clone();
    list.insert("toolArgs".into(), "[1, 2]".into());
    run(
        "toolArgs that is no object",
        "copilot",
        Some("preToolUse"),
        Value::Object(list).to_string(),
    );
    let mut object = copilot;
    object.insert("toolArgs".into(), json!({"command": "rm -rf dist"}));
    run(
        "toolArgs as an object",
        "copilot",
        Some("preToolUse"),
        Value::Object(object).to_string(),
    );
    let vscode = fixture("copilot", "pre-tool-shell-vscode-format.json");
    run(
        "the VS Code compatible form",
        "copilot",
        None,
        Value::Object(vscode).to_string(),
    );
    for name in [
        "before-shell-execution.json",
        "before-mcp-execution-url.json",
        "before-read-file.json",
        "after-file-edit.json",
        "session-start.json",
    ] {
        let event = fixture("cursor", name);
        run(name, "cursor", None, Value::Object(event).to_string());
    }
    for name in ["session-start.json", "notification.json"] {
        run(
            name,
            "gemini",
            None,
            Value::Object(fixture("gemini", name)).to_string(),
        );
    }
    let mut unnamed = fixture("cursor", "pre-tool-shell.json");
    unnamed.remove("conversation_id");
    run(
        "no conversation_id",
        "cursor",
        None,
        Value::Object(unnamed).to_string(),
    );
    // Only the call read from an object was decided (and denied: `bash` is not
    // Cursor's); the other events were refused or are no calls.
    let mut files: Vec<String> = std::fs::read_dir(dir.path().join("sessions"))
        .expect("sessions")
        .map(|entry| {
            entry
                .expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    files.sort();
    out.push_str(&format!("# sessions/\n{}\n", files.join("\n")));
    let sealed = format!("sessions/{}.jsonl", AGENTS[4].session);
    out.push_str(&plain_records(
        &String::from_utf8(dir.read(&sealed)).expect("UTF-8"),
    ));
    assert_snapshot!(out);
}

/// The sealed records a session of `agent` should hold (tests/fixtures/reconcile/),
/// played back to the guard as the agent's hook events: each call decided, then
/// completed (a failure as a failure, a subagent's call with its `agent_id`); a
/// denied call only decided, and the policy must deny it.
fn played(agent: &Agent, dir: &Dir, records: &str, policy: &str) -> String {
    dir.write("policy.json", policy);
    let mut out = String::new();
    for (n, line) in records.lines().enumerate() {
        let record: Value = serde_json::from_str(line).expect("a record");
        let mut input = record["args"].clone();
        if let Some(Value::String(text)) = input.get("toolArgs") {
            input = serde_json::from_str(text).expect("toolArgs");
        }
        let mut response = record["response"].clone();
        if agent.name == "cursor"
            && let Some(Value::String(output)) = response.get("content")
        {
            // Cursor's `tool_output` is a string, which the record holds so.
            response = Value::String(output.clone());
        }
        let subagent = response
            .as_object_mut()
            .and_then(|members| members.remove("subagent"))
            .and_then(|id| id.as_str().map(str::to_owned));
        let call = Call {
            tool: record["tool"].as_str().expect("a tool").to_owned(),
            input,
            subagent,
        };
        let id = format!("call_{n}");
        let mut steps = vec![Step::Before(&id, &call)];
        let message = response["error"]["message"].as_str().map(str::to_owned);
        if response["toolreplay"]["outcome"] == "denied" {
        } else if let Some(message) = &message {
            steps.push(Step::Failed(&id, &call, message));
        } else {
            steps.push(Step::After(&id, &call, &response));
        }
        for step in steps {
            let (payload, hook) = agent.event(step);
            let mut args = vec![
                "guard",
                "--agent",
                agent.name,
                "--policy",
                "policy.json",
                "--dir",
                "sessions",
            ];
            if agent.name == "copilot" {
                args.extend(["--event", &hook]);
            }
            let run = run_with_stdin(dir.path(), &args, payload);
            assert_eq!(run.code, 0, "{}", run.text());
            out.push_str(&format!("{hook} {}: {}", record["tool"], run.stdout));
            if !run.stdout.ends_with('\n') {
                out.push('\n');
            }
        }
    }
    out
}

/// A session guarded from each agent's documented hook payloads is the same as a
/// log of that same session in the agent's own format (tests/fixtures/reconcile/):
/// at its end the guard holds the log against it (Claude Code, Gemini CLI and
/// Cursor name their log then) and keeps the report, `same`, in the context file; for Codex and
/// Copilot CLI `toolreplay reconcile` says so. A log that lost a call is told, on
/// stderr and in the record.
#[test]
fn guarded_sessions_reconcile_with_the_agents_own_log() {
    const ALLOW: &str = r#""allowed_tools": ["Bash", "Read", "Write", "Glob", "Edit", "mcp__docs__search", "WebFetch", "Task", "Grep", "run_shell_command", "read_file", "bash", "view", "apply_patch", "Shell"], "policy_version": 1"#;
    let cases = [
        (
            "claude-code",
            "claude-code.log.jsonl",
            r#", "tools": {"Write": {"paths": [{"args": ["/file_path"], "deny": ["**/.env"]}]}}"#,
        ),
        ("gemini", "gemini.session.json", ""),
        (
            "cursor",
            "cursor.transcript.jsonl",
            r#", "tools": {"Read": {"paths": [{"args": ["/file_path"], "deny": ["**/.env"]}]}}"#,
        ),
        (
            "codex",
            "codex.rollout.jsonl",
            r#", "tools": {"Bash": {"commands": [{"args": ["/command"], "deny": ["rm **"]}]}}"#,
        ),
        ("copilot", "copilot.events.jsonl", ""),
    ];
    let mut out = String::new();
    for (name, log, rules) in cases {
        let agent = AGENTS.iter().find(|a| a.name == name).expect("an agent");
        let fixtures = format!("{ROOT}/tests/fixtures/reconcile");
        let records = std::fs::read_to_string(format!("{fixtures}/{name}.hooks.jsonl"))
            .expect("the hook records");
        let policy = format!(r#"{{"agent": "{name}", {ALLOW}{rules}}}"#);
        for lost in [false, true] {
            let dir = Dir::new();
            let mut text = std::fs::read_to_string(format!("{fixtures}/{log}")).expect("the log");
            if name == "claude-code" {
                copy_dir(
                    &Path::new(&fixtures).join("claude-code.log"),
                    &dir.path().join("log"),
                );
            }
            if lost {
                // The log loses the first call: its call and its result.
                text = match name {
                    "gemini" => {
                        let mut session: Value = serde_json::from_str(&text).expect("JSON");
                        let messages = session["messages"].as_array_mut().expect("messages");
                        let at = messages
                            .iter()
                            .position(|m| m.get("toolCalls").is_some())
                            .expect("a call");
                        let calls = messages[at]["toolCalls"].as_array_mut().expect("calls");
                        calls.remove(0);
                        session.to_string()
                    }
                    _ => {
                        let ids = ["\"toolu_0\"", "\"call_1\"", "\"c1\"", "\"command\":\"ls\""];
                        text.lines()
                            .filter(|line| !ids.iter().any(|id| line.contains(id)))
                            .map(|line| format!("{line}\n"))
                            .collect()
                    }
                };
            }
            let log_name = if name == "claude-code" {
                "log.jsonl".to_owned()
            } else {
                log.to_owned()
            };
            dir.write(&log_name, &text);
            let answers = played(agent, &dir, &records, &policy);
            let session = format!("sessions/{}.jsonl", agent.session);
            let report = if matches!(name, "claude-code" | "gemini" | "cursor") {
                let log_path = dir.path().join(&log_name);
                let (payload, _) = agent.event(Step::EndWithLog(log_path.to_str().expect("UTF-8")));
                let args = [
                    "guard",
                    "--agent",
                    name,
                    "--policy",
                    "policy.json",
                    "--dir",
                    "sessions",
                ];
                let run = run_with_stdin(dir.path(), &args, payload);
                let context = String::from_utf8(
                    dir.read(&format!("sessions/{}.context.jsonl", agent.session)),
                )
                .expect("UTF-8");
                let last: Value = serde_json::from_str(context.lines().last().expect("a record"))
                    .expect("a link");
                assert_eq!(last["tool"], "reconcile", "{name}");
                let shown = run.text().replace(&dir.path().display().to_string(), "DIR");
                format!(
                    "{shown}reconcile record: {} ({} matched, {} differences)\n",
                    last["response"]["result"],
                    last["response"]["matched"],
                    last["response"]["differences"]
                        .as_array()
                        .map_or(0, Vec::len),
                )
            } else {
                let from = if name == "codex" { "codex" } else { "copilot" };
                dir.run(&["reconcile", &session, &log_name, "--from", from])
                    .text()
            };
            out.push_str(&format!(
                "## {name}{}\n{answers}{report}",
                if lost {
                    ", the log lost its first call"
                } else {
                    ""
                }
            ));
        }
    }
    assert_snapshot!(out);
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a folder");
    for entry in std::fs::read_dir(from).expect("a folder") {
        let entry = entry.expect("an entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("a type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).expect("a copy");
        }
    }
}

/// Cursor sends `afterAgentResponse` after an assistant message, which may come
/// before the results of the calls it made: the answer is kept and the calls stay
/// pending for their results; `stop` ends the turn.
#[test]
fn a_cursor_answer_does_not_end_the_turn() {
    let agent = &AGENTS[3];
    let dir = Dir::new();
    dir.write("policy.json", agent.policy());
    let ls = agent.shell("ls");
    let listing = (agent.shell_result)("Cargo.toml");
    let mut out = String::new();
    for step in [
        Step::Before("call_1", &ls),
        Step::Stop("Listing the files."),
        Step::After("call_1", &ls, &listing),
    ] {
        let (payload, hook) = agent.event(step);
        let args = [
            "guard",
            "--agent",
            "cursor",
            "--policy",
            "policy.json",
            "--dir",
            "sessions",
        ];
        out.push_str(&format!(
            "## {hook}\n{}",
            run_with_stdin(dir.path(), &args, payload).text()
        ));
    }
    let sealed =
        String::from_utf8(dir.read(&format!("sessions/{}.jsonl", agent.session))).expect("UTF-8");
    let context = String::from_utf8(dir.read(&format!("sessions/{}.context.jsonl", agent.session)))
        .expect("UTF-8");
    out.push_str(&format!(
        "# sealed\n{}# context\n{}",
        plain_records(&sealed),
        plain_records(&context)
    ));
    assert_snapshot!(out);
}

/// A call whose after-call event holds an input that cannot be read still ran: it is
/// sealed (input `{}`, its result unrecordable, saying why) and the agent told,
/// never an error that leaves it unrecorded; before a call the same input is denied.
#[test]
fn a_call_whose_input_cannot_be_read_after_it_ran_is_still_sealed() {
    let mut out = String::new();
    for (agent, before, after) in [
        (&AGENTS[0], "pre-tool-shell.json", "post-tool-shell.json"),
        (&AGENTS[4], "pre-tool-shell.json", "post-tool-shell.json"),
    ] {
        let dir = Dir::new();
        dir.write("policy.json", agent.policy());
        let (key, bad) = match agent.name {
            "copilot" => ("toolArgs", json!("{\"command\": ")),
            _ => ("tool_input", json!("ls")),
        };
        for (file, event) in [(before, "preToolUse"), (after, "postToolUse")] {
            let mut payload = fixture(agent.name, file);
            payload.insert(key.into(), bad.clone());
            let mut args = vec![
                "guard",
                "--agent",
                agent.name,
                "--policy",
                "policy.json",
                "--dir",
                "sessions",
            ];
            if agent.name == "copilot" {
                args.extend(["--event", event]);
            }
            let run = run_with_stdin(dir.path(), &args, Value::Object(payload).to_string());
            out.push_str(&format!("## {} {file}\n{}", agent.name, run.text()));
        }
        let file = format!("sessions/{}.jsonl", agent.session);
        assert_eq!(dir.run(&["verify", &file]).code, 0);
        out.push_str(&plain_records(
            &String::from_utf8(dir.read(&file)).expect("UTF-8"),
        ));
    }
    assert_snapshot!(out);
}
