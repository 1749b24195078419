//! Real Claude Code sessions (`../shared/data/transcripts/claude-code/` and
//! `claude-code-subagents/`, a 186-call session and its subagents), replayed with the
//! defaults only: the reports are pinned, and what they hold is what a reader of the
//! session would not call expected behaviour. The same sessions under the
//! specification's rules (`--rules spec`) are pinned too, to show what the agent rules
//! leave out.
//!
//! Like `imports`, these read data beside the repository: ignored by the plain
//! `cargo test`, run by `cargo test -- --ignored`, where a missing file fails.

use std::path::Path;

use insta::assert_snapshot;

use crate::cli::{ROOT, run_in_root};

const DATA: &str = "../shared/data/transcripts";

/// The sessions, by path under [`DATA`].
const SESSIONS: [&str; 10] = [
    "claude-code/log-edge_cases.jsonl",
    "claude-code/log-representative_messages.jsonl",
    "claude-code/log-session_b.jsonl",
    "claude-code/log-todowrite_examples.jsonl",
    "claude-code/viewer-1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl",
    "claude-code/viewer-5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
    "claude-code/viewer-agent-test-hash-123.jsonl",
    "claude-code-subagents/258c7280-ae70-4798-800f-63464d01a85d.jsonl",
    "claude-code-subagents/258c7280-ae70-4798-800f-63464d01a85d/subagents/agent-a881341.jsonl",
    "claude-code-subagents/258c7280-ae70-4798-800f-63464d01a85d/subagents/agent-acompact-fffbd0.jsonl",
];

fn short(name: &str) -> String {
    Path::new(name)
        .file_stem()
        .expect("file name")
        .to_string_lossy()
        .into_owned()
}

#[test]
#[ignore = "needs ../shared/data"]
fn real_sessions_with_the_defaults_only() {
    for name in SESSIONS {
        let path = format!("{DATA}/{name}");
        assert!(Path::new(ROOT).join(&path).is_file(), "{path} is missing");
        let run = run_in_root(&["replay", "--from", "claude-code", &path]);
        assert_snapshot!(
            format!("agent_{}", short(name)),
            format!("exit: {}\n{}", run.code, run.stdout)
        );
    }
}

#[test]
#[ignore = "needs ../shared/data"]
fn real_sessions_under_the_specification_s_rules() {
    for name in SESSIONS {
        let path = format!("{DATA}/{name}");
        let run = run_in_root(&["replay", "--from", "claude-code", "--rules", "spec", &path]);
        assert_snapshot!(
            format!("spec_{}", short(name)),
            format!("exit: {}\n{}", run.code, run.stdout)
        );
    }
}
