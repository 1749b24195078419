//! The evidence graph of the real Claude Code sessions in
//! `../shared/data/transcripts/claude-code/`, snapshotted: what the built-in roles
//! make of real tool calls.
//!
//! Like `imports`, these read data beside the repository: ignored by the plain
//! `cargo test`, run by `cargo test -- --ignored` (as CI does), where a missing file
//! is a failure.

use insta::assert_snapshot;

use crate::cli::run_in_root;

const DIR: &str = "../shared/data/transcripts/claude-code";

/// Every Claude Code session there.
const SESSIONS: [&str; 7] = [
    "log-edge_cases",
    "log-representative_messages",
    "log-session_b",
    "log-todowrite_examples",
    "viewer-1af7fc5e-8455-4414-9ccd-011d40f70b2a",
    "viewer-5c0375b4-57a5-4f26-b12d-d022ee4e51b7",
    "viewer-agent-test-hash-123",
];

#[test]
#[ignore = "reads ../shared/data; run with cargo test -- --ignored"]
fn graph_of_every_claude_code_session() {
    for name in SESSIONS {
        let path = format!("{DIR}/{name}.jsonl");
        let args = ["graph", "--from", "claude-code", path.as_str()];
        let run = run_in_root(&args);
        assert_eq!(run.code, 0, "{path}: {}", run.stderr);
        // The same bytes every time.
        assert_eq!(run.stdout, run_in_root(&args).stdout, "{path}");
        assert_snapshot!(format!("graph_claude-code_{name}"), run.text());
    }
}
