//! Every file under `../shared/data/transcripts/` imported with `--from auto`, as a
//! new user would: each must be detected as its format and give the number of tool
//! calls it holds, and never exit 0 with fewer.
//!
//! The expected counts were worked out from each format's structure, independently
//! of the importer, with `jq` on each file (the expression per format is in
//! [`COUNTED_BY`]); a Claude Code session read from its own folder also holds the
//! calls of its `subagents/agent-*.jsonl`, counted the same way. `strict` says whether
//! the file is a complete, clean log (every call with its result, no damaged line),
//! on which `--strict` must pass too.
//!
//! Like `imports.rs`, this reads data that lives beside the repository, so it is
//! ignored by the plain `cargo test` and run by `cargo test -- --ignored` (as CI
//! does); a missing or unlisted file is a failure.

use crate::cli::{ROOT, run_in_root};

const DATA: &str = "../shared/data/transcripts";

/// How each format's calls were counted, with `jq`, for the table below.
const COUNTED_BY: [(&str, &str); 14] = [
    (
        "claude-code",
        r#"jq -R 'fromjson? | objects | select(.type=="user" or .type=="assistant") | .message.content? | arrays | .[] | objects | select(.type=="tool_use") | .id' F | sort -u | wc -l"#,
    ),
    (
        "openai",
        r#"jq '[.[] | .tool_calls? // [] | length] | add' F"#,
    ),
    (
        "anthropic",
        r#"jq '[.[] | .content | arrays | .[] | select(.type=="tool_use")] | length' F"#,
    ),
    (
        "mcp",
        r#"jq -R 'fromjson? | objects | select(.method=="tools/call")' F | grep -c '^{'"#,
    ),
    (
        "codex",
        r#"jq -c 'select(.type=="response_item" and (.payload.type=="function_call" or .payload.type=="custom_tool_call"))' F | wc -l"#,
    ),
    (
        "copilot",
        r#"jq -c 'select(.type=="tool.execution_start")' F | wc -l"#,
    ),
    (
        "cursor",
        r#"jq -c '.message.content[]? | select(.type=="tool_use")' F | wc -l"#,
    ),
    (
        "gemini",
        r#"jq '[.messages[] | .toolCalls // [] | length] | add' F"#,
    ),
    (
        "inspect",
        r#"jq '[.samples[].messages[] | .tool_calls // [] | length] | add' F"#,
    ),
    (
        "responses",
        r#"jq '[.[] | select(.type=="function_call")] | length' F"#,
    ),
    (
        "openhands",
        r#"jq '[.[] | select(.action != null and .tool_call_metadata != null)] | length' F"#,
    ),
    (
        "swe-agent",
        r#"jq '[.history[] | .tool_calls // [] | length] | add' F"#,
    ),
    (
        "inspect .eval",
        "unzip -p F 'samples/*.json' | jq -s '[.[].messages[] | .tool_calls // [] | length] | add'",
    ),
    (
        "subagents",
        "the session's count plus each subagent log's count",
    ),
];

/// One file: its path under the data, the format it must be detected as, its number
/// of calls, and whether `--strict` passes on it.
struct Expected {
    path: &'static str,
    format: &'static str,
    calls: usize,
    strict: bool,
}

const fn file(path: &'static str, format: &'static str, calls: usize, strict: bool) -> Expected {
    Expected {
        path,
        format,
        calls,
        strict,
    }
}

/// Every file of the data, sorted by path.
const FILES: [Expected; 36] = [
    file(
        "anthropic/llm-anthropic-fixed-version.json",
        "anthropic",
        1,
        true,
    ),
    // 186 calls of its own and the 2 of its subagent agent-a881341.
    file(
        "claude-code-subagents/258c7280-ae70-4798-800f-63464d01a85d.jsonl",
        "claude-code",
        188,
        true,
    ),
    file(
        "claude-code-subagents/258c7280-ae70-4798-800f-63464d01a85d/subagents/agent-a881341.jsonl",
        "claude-code",
        2,
        true,
    ),
    file(
        "claude-code-subagents/258c7280-ae70-4798-800f-63464d01a85d/subagents/agent-acompact-fffbd0.jsonl",
        "claude-code",
        0,
        true,
    ),
    // Damaged on purpose (lines that are not entries, calls cut off).
    file("claude-code/log-edge_cases.jsonl", "claude-code", 3, false),
    file(
        "claude-code/log-representative_messages.jsonl",
        "claude-code",
        2,
        true,
    ),
    file("claude-code/log-session_b.jsonl", "claude-code", 0, true),
    file(
        "claude-code/log-todowrite_examples.jsonl",
        "claude-code",
        3,
        true,
    ),
    file(
        "claude-code/viewer-1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl",
        "claude-code",
        12,
        true,
    ),
    file(
        "claude-code/viewer-5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
        "claude-code",
        21,
        true,
    ),
    file(
        "claude-code/viewer-agent-test-hash-123.jsonl",
        "claude-code",
        0,
        true,
    ),
    // The agentsview fixtures end with calls that have no output.
    file(
        "codex-rollout/agentsview-fc_args_1.jsonl",
        "codex",
        1,
        false,
    ),
    file(
        "codex-rollout/agentsview-fc_args_2.jsonl",
        "codex",
        1,
        false,
    ),
    file("codex-rollout/agentsview-fc_stdin.jsonl", "codex", 1, false),
    file(
        "codex-rollout/agentsview-function_calls.jsonl",
        "codex",
        2,
        false,
    ),
    file(
        "codex-rollout/agentsview-standard_session.jsonl",
        "codex",
        0,
        true,
    ),
    file("copilot-cli/agentsessions-events.jsonl", "copilot", 1, true),
    file("cursor/agentsessions-small.jsonl", "cursor", 1, true),
    file("cursor/agentsessions-test-session.jsonl", "cursor", 2, true),
    file(
        "gemini-cli/agentsview-standard_session.json",
        "gemini",
        0,
        true,
    ),
    file(
        "gemini-cli/agentsview-system_messages.json",
        "gemini",
        0,
        true,
    ),
    file(
        "gemini-cli/agentsview-thinking_only.json",
        "gemini",
        0,
        true,
    ),
    // Its one call has no recorded result.
    file("gemini-cli/agentsview-tool_calls.json", "gemini", 1, false),
    file("inspect-ai/log_formats.eval", "inspect", 0, true),
    file("inspect-ai/log_formats.json", "inspect", 0, true),
    file("inspect-ai/log_read_sample.json", "inspect", 0, true),
    // Two `null` lines at its end.
    file("mcp/mcp-recorder-calculator.jsonl", "mcp", 4, false),
    file(
        "openai-responses/llm-test_responses_interleaved_reasoning_between_tool_calls.json",
        "responses",
        3,
        true,
    ),
    file(
        "openai-responses/llm-test_responses_tool_use.json",
        "responses",
        1,
        true,
    ),
    file("openai/tau-bench-airline-0.json", "openai", 8, true),
    file("openai/tau-bench-airline-1.json", "openai", 0, true),
    file("openai/tau-bench-airline-2.json", "openai", 7, true),
    file("openai/tau-bench-airline-3.json", "openai", 20, true),
    file("openai/tau-bench-airline-4.json", "openai", 6, true),
    // Its `finish` action has no observation.
    file("openhands/basic.json", "openhands", 2, false),
    file(
        "swe-agent/function_calling_simple.traj",
        "swe-agent",
        5,
        true,
    ),
];

/// Every file under `dir`, relative to the data, sorted.
fn walk(dir: &std::path::Path, base: &std::path::Path, found: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|err| panic!("{}: {err}", dir.display())) {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            walk(&path, base, found);
        } else {
            let name = path.strip_prefix(base).expect("under the data");
            found.push(name.to_string_lossy().into_owned());
        }
    }
}

#[test]
#[ignore = "needs ../shared/data"]
fn the_table_lists_every_file_of_the_data() {
    let base = std::path::PathBuf::from(format!("{ROOT}/{DATA}"));
    let mut found = Vec::new();
    walk(&base, &base, &mut found);
    found.retain(|name| !name.ends_with(".tsv") && !name.ends_with(".md"));
    found.sort();
    let listed: Vec<&str> = FILES.iter().map(|file| file.path).collect();
    assert_eq!(found, listed);
    // Every format of the table says how its calls were counted.
    for file in &FILES {
        let counted = match file.path.ends_with(".eval") {
            true => "inspect .eval",
            false => file.format,
        };
        assert!(
            COUNTED_BY.iter().any(|(name, _)| *name == counted),
            "{}: how were its calls counted?",
            file.path
        );
    }
}

#[test]
#[ignore = "needs ../shared/data"]
fn every_file_imports_with_auto_to_the_calls_it_holds() {
    for expected in &FILES {
        let path = format!("{DATA}/{}", expected.path);
        let run = run_in_root(&["import", "--from", "auto", &path]);
        let format = expected.format;
        assert_eq!(run.code, 0, "{path}: {}", run.stderr);
        let note = format!("note: {path}: detected format {format}\n");
        assert!(run.stderr.starts_with(&note), "{path}: {}", run.stderr);
        assert_eq!(run.stdout.lines().count(), expected.calls, "{path}: calls");
    }
}

#[test]
#[ignore = "needs ../shared/data"]
fn strict_passes_on_every_complete_log() {
    for expected in FILES.iter().filter(|file| file.strict) {
        let path = format!("{DATA}/{}", expected.path);
        let run = run_in_root(&["import", "--strict", &path]);
        assert_eq!(run.code, 0, "{path}: {}", run.stderr);
        assert_eq!(run.stdout.lines().count(), expected.calls, "{path}: calls");
    }
}

#[test]
#[ignore = "needs ../shared/data"]
fn a_wrong_from_on_any_file_with_calls_is_an_error() {
    // Read as a format it is not, no file with calls may exit 0 with no record.
    for expected in FILES.iter().filter(|file| file.calls > 0) {
        let path = format!("{DATA}/{}", expected.path);
        let format = expected.format;
        for wrong in ["claude-code", "openai", "mcp", "codex", "copilot"] {
            if wrong == format {
                continue;
            }
            let run = run_in_root(&["import", "--from", wrong, &path]);
            assert!(
                run.code == 2 || run.stdout.lines().count() > 0,
                "{path} as {wrong}: exit {} with no record",
                run.code
            );
        }
    }
}
