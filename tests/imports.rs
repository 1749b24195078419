//! Imports of the real logs in `../shared/data/transcripts/`: Claude Code sessions,
//! OpenAI (tau-bench) runs, an Anthropic conversation and an MCP session.
//!
//! Each file is imported with the real binary and checked against an independent
//! reading of it with serde_json: the same calls in the same order, each with the
//! response made of its own result. The replay report of each is snapshotted, and
//! `replay --from` must equal `import` then `replay --rules agent` (and with
//! `--rules spec`, `import` then plain `replay`).
//!
//! These tests read data that lives beside the repository, not in it, so they are
//! ignored by the plain `cargo test` and run by `cargo test -- --ignored` (as CI
//! does), where a missing file is a failure, never a skip.

use std::collections::BTreeMap;
use std::path::Path;

use insta::assert_snapshot;
use serde_json::{Value, json};

use crate::cli::{Dir, ROOT, Run, run_in_root};

const DATA: &str = "../shared/data/transcripts";

/// Every real file, with its format.
const FILES: [(&str, &str); 14] = [
    ("anthropic/llm-anthropic-fixed-version.json", "anthropic"),
    ("claude-code/log-edge_cases.jsonl", "claude-code"),
    (
        "claude-code/log-representative_messages.jsonl",
        "claude-code",
    ),
    ("claude-code/log-session_b.jsonl", "claude-code"),
    ("claude-code/log-todowrite_examples.jsonl", "claude-code"),
    (
        "claude-code/viewer-1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl",
        "claude-code",
    ),
    (
        "claude-code/viewer-5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
        "claude-code",
    ),
    (
        "claude-code/viewer-agent-test-hash-123.jsonl",
        "claude-code",
    ),
    ("mcp/mcp-recorder-calculator.jsonl", "mcp"),
    ("openai/tau-bench-airline-0.json", "openai"),
    ("openai/tau-bench-airline-1.json", "openai"),
    ("openai/tau-bench-airline-2.json", "openai"),
    ("openai/tau-bench-airline-3.json", "openai"),
    ("openai/tau-bench-airline-4.json", "openai"),
];

/// The real files, each with its format and bytes; a missing file fails.
fn files() -> Vec<(String, &'static str, Vec<u8>)> {
    FILES
        .iter()
        .map(|&(name, format)| {
            let path = format!("{ROOT}/{DATA}/{name}");
            let bytes = std::fs::read(&path).unwrap_or_else(|err| panic!("{path}: {err}"));
            (format!("{DATA}/{name}"), format, bytes)
        })
        .collect()
}

/// `(tool, args, response)` of each call, as docs/import.md's mapping makes them.
type Expected = Vec<(String, Value, Value)>;

/// A response made of a result's content and error flag.
fn content_response(result: &serde_json::Map<String, Value>, error_key: &str) -> Value {
    let mut response = serde_json::Map::new();
    if let Some(content) = result.get("content") {
        response.insert("content".to_owned(), content.clone());
    }
    if result.get(error_key) == Some(&Value::Bool(true)) {
        response.insert("is_error".to_owned(), Value::Bool(true));
    }
    Value::Object(response)
}

/// Content blocks of Anthropic messages and Claude Code entries: calls by first
/// appearance of their id, results by the first for each id.
fn blocks_expected(messages: &[Value]) -> Expected {
    let mut calls: Vec<(String, String, Value)> = Vec::new();
    let mut results: BTreeMap<String, Value> = BTreeMap::new();
    for message in messages {
        let Some(blocks) = message.get("content").and_then(Value::as_array) else {
            continue;
        };
        for block in blocks {
            match block.get("type").and_then(Value::as_str) {
                Some("tool_use") => {
                    let id = block["id"].as_str().expect("id").to_owned();
                    if !calls.iter().any(|(seen, _, _)| *seen == id) {
                        let name = block["name"].as_str().expect("name").to_owned();
                        calls.push((id, name, block["input"].clone()));
                    }
                }
                Some("tool_result") => {
                    let id = block["tool_use_id"].as_str().expect("id").to_owned();
                    let result = block.as_object().expect("object");
                    results
                        .entry(id)
                        .or_insert_with(|| content_response(result, "is_error"));
                }
                _ => {}
            }
        }
    }
    calls
        .into_iter()
        .map(|(id, name, input)| {
            let response = results
                .get(&id)
                .cloned()
                .unwrap_or_else(|| json!({"no_result": true}));
            (name, input, response)
        })
        .collect()
}

fn expected(format: &str, bytes: &[u8]) -> Expected {
    let text = std::str::from_utf8(bytes).expect("UTF-8");
    let lines = || {
        text.lines()
            .filter(|line| !line.trim().is_empty())
            .map(|line| serde_json::from_str::<Value>(line).expect("JSON line"))
    };
    match format {
        "anthropic" => {
            let messages: Vec<Value> = serde_json::from_str(text).expect("JSON array");
            blocks_expected(&messages)
        }
        "claude-code" => {
            let messages: Vec<Value> = lines()
                .filter(|entry| {
                    matches!(
                        entry.get("type").and_then(Value::as_str),
                        Some("user" | "assistant")
                    )
                })
                .filter_map(|entry| entry.get("message").cloned())
                .collect();
            blocks_expected(&messages)
        }
        "openai" => {
            let messages: Vec<Value> = serde_json::from_str(text).expect("JSON array");
            let mut calls: Vec<(String, String, Value, Option<Value>)> = Vec::new();
            for message in &messages {
                for call in message
                    .get("tool_calls")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    let function = &call["function"];
                    let args: Value = serde_json::from_str(
                        function["arguments"].as_str().expect("arguments text"),
                    )
                    .expect("arguments JSON");
                    calls.push((
                        call["id"].as_str().expect("id").to_owned(),
                        function["name"].as_str().expect("name").to_owned(),
                        args,
                        None,
                    ));
                }
                if message["role"] == "tool" {
                    let id = message["tool_call_id"].as_str().expect("tool_call_id");
                    let waiting = calls
                        .iter_mut()
                        .find(|(call_id, _, _, response)| call_id == id && response.is_none())
                        .expect("a call waiting for this result");
                    waiting.3 = Some(content_response(
                        message.as_object().expect("object"),
                        "is_error",
                    ));
                }
            }
            calls
                .into_iter()
                .map(|(_, name, args, response)| {
                    (
                        name,
                        args,
                        response.unwrap_or_else(|| json!({"no_result": true})),
                    )
                })
                .collect()
        }
        "mcp" => {
            let messages: Vec<Value> = lines().collect();
            let mut calls = Vec::new();
            for message in &messages {
                if message.get("method") == Some(&json!("tools/call")) {
                    let id = &message["id"];
                    let response = messages
                        .iter()
                        .find(|m| m.get("method").is_none() && m.get("id") == Some(id))
                        .map(|m| match (m.get("result"), m.get("error")) {
                            (Some(result @ Value::Object(_)), _) => result.clone(),
                            (Some(result), _) => json!({"content": result}),
                            (None, Some(error)) => json!({"error": error, "is_error": true}),
                            (None, None) => panic!("a response without result or error"),
                        })
                        .unwrap_or_else(|| json!({"no_result": true}));
                    let params = &message["params"];
                    calls.push((
                        params["name"].as_str().expect("name").to_owned(),
                        params.get("arguments").cloned().unwrap_or(json!({})),
                        response,
                    ));
                }
            }
            calls
        }
        other => panic!("no format {other}"),
    }
}

/// The records of an imported transcript, read with serde_json.
fn records(transcript: &str) -> Expected {
    transcript
        .lines()
        .enumerate()
        .map(|(index, line)| {
            let record: Value = serde_json::from_str(line).expect("a JSON record");
            assert_eq!(record["index"], json!(index));
            (
                record["tool"].as_str().expect("tool").to_owned(),
                record["args"].clone(),
                record["response"].clone(),
            )
        })
        .collect()
}

fn import(name: &str, format: &str) -> Run {
    run_in_root(&["import", "--from", format, name])
}

/// The warnings about calls without a result, in the files that have them: the
/// edge-case session has a result whose message misspells `content` (so it is never
/// read) and a call nothing answers.
const UNANSWERED: [(&str, &[&str]); 1] = [(
    "claude-code/log-edge_cases.jsonl",
    &[
        ":9: call 'MultiEdit' (id \"tool_edge_002\") has no result",
        ":17: call 'TodoWrite' (id \"toolu_todowrite_002\") has no result",
    ],
)];

#[test]
#[ignore = "needs ../shared/data"]
fn the_data_holds_exactly_these_files() {
    let mut found = Vec::new();
    for dir in ["anthropic", "claude-code", "mcp", "openai"] {
        let path = format!("{ROOT}/{DATA}/{dir}");
        for entry in std::fs::read_dir(&path).unwrap_or_else(|err| panic!("{path}: {err}")) {
            let name = entry.expect("entry").file_name();
            found.push(format!("{dir}/{}", name.to_string_lossy()));
        }
    }
    found.sort();
    let listed: Vec<String> = FILES.iter().map(|(name, _)| (*name).to_owned()).collect();
    assert_eq!(found, listed);
}

#[test]
#[ignore = "needs ../shared/data"]
fn every_real_file_imports_its_calls_each_with_its_own_result() {
    for (name, format, bytes) in files() {
        let run = import(&name, format);
        assert_eq!(run.code, 0, "{name}: {}", run.stderr);
        let expected = expected(format, &bytes);
        let imported = records(&run.stdout);
        assert_eq!(imported.len(), expected.len(), "{name}: the call count");
        for (i, (got, want)) in imported.iter().zip(&expected).enumerate() {
            assert_eq!(got, want, "{name}: call {i}");
        }
        let unanswered: Vec<&str> = run
            .stderr
            .lines()
            .filter(|line| line.ends_with("; kept with the response {\"no_result\":true}"))
            .collect();
        let listed = UNANSWERED
            .iter()
            .find(|(file, _)| name.ends_with(file))
            .map_or(&[][..], |(_, warnings)| *warnings);
        assert_eq!(unanswered.len(), listed.len(), "{name}: {}", run.stderr);
        for (line, want) in unanswered.iter().zip(listed) {
            assert!(line.contains(want), "{name}: {line}");
        }
        assert!(
            !run.stderr.contains("has no call before it")
                && !run.stderr.contains("answers no request"),
            "{name}: a result without its call: {}",
            run.stderr
        );
    }
}

#[test]
#[ignore = "needs ../shared/data"]
fn every_real_file_is_detected_as_its_format() {
    for (name, format, _) in files() {
        let run = run_in_root(&["import", &name]);
        assert!(
            run.stderr
                .starts_with(&format!("note: {name}: detected format {format}\n")),
            "{name}: {}",
            run.stderr
        );
        assert_eq!(run.stdout, import(&name, format).stdout, "{name}");
    }
}

#[test]
#[ignore = "needs ../shared/data"]
fn importing_a_real_file_twice_gives_identical_bytes() {
    for (name, format, _) in files() {
        let (first, second) = (import(&name, format), import(&name, format));
        assert_eq!(first.stdout, second.stdout, "{name}");
        assert_eq!(first.stderr, second.stderr, "{name}");
    }
}

#[test]
#[ignore = "needs ../shared/data"]
fn replay_from_each_real_file() {
    for (name, format, _) in files() {
        let run = run_in_root(&["replay", "--from", format, &name]);
        let short = Path::new(&name)
            .file_stem()
            .expect("file name")
            .to_string_lossy()
            .into_owned();
        assert_snapshot!(format!("replay_{format}_{short}"), run.text());
    }
}

#[test]
#[ignore = "needs ../shared/data"]
fn replay_from_a_real_file_is_import_then_replay() {
    for (name, format, _) in files() {
        let direct = run_in_root(&["replay", "--from", format, &name]);
        let imported = import(&name, format);
        let dir = Dir::new();
        dir.write("t.jsonl", &imported.stdout);
        let after = dir.run(&["replay", "--rules", "agent", "t.jsonl"]);
        assert_eq!(
            (direct.code, &direct.stdout, &direct.stderr),
            (after.code, &after.stdout, &imported.stderr),
            "{name}"
        );
        let spec = run_in_root(&["replay", "--from", format, "--rules", "spec", &name]);
        let plain = dir.run(&["replay", "t.jsonl"]);
        assert_eq!(
            (spec.code, &spec.stdout, &spec.stderr),
            (plain.code, &plain.stdout, &imported.stderr),
            "{name}"
        );
        let sealed_direct = run_in_root(&["seal", "--from", format, &name]);
        let sealed_after = dir.run(&["seal", "t.jsonl"]);
        assert_eq!(sealed_direct.stdout, sealed_after.stdout, "{name}");
    }
}
