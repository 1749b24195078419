//! The claims of the real sessions in `../shared/data/transcripts/` that hold a
//! conversation, every format, snapshotted: each claim of each final answer, its
//! verdict, atoms and evidence calls, as `claims --from auto` gives them.
//!
//! Like `imports` and `graphs`, these read data beside the repository: ignored by
//! the plain `cargo test`, run by `cargo test -- --ignored` (as CI does), where a
//! missing file is a failure.
//!
//! Verdicts checked by reading the sessions (calls as `import` numbers them):
//!
//! - `openai/tau-bench-airline-0`: turn 4 says the flights cost "$255" and the
//!   remaining balance is "$5"; call #3 (`calculate`) returned `255.0`, so $255 is
//!   supported (a whole float is the number), and no call returned 5: unsupported.
//!   Turn 5's "$55" is call #6's `55.0`, "$305" the total call #5's error names.
//!   Turn 1's "$30 per passenger" is the policy's, in the system prompt, which is not
//!   a call: unsupported. Before the rules read `$55` as a number and `55.0` as 55,
//!   these amounts were no atoms or unsupported.
//!   Turn 6's "May 20, 2024" is one date atom, held by call #7's `2024-05-20`.
//! - `openai/tau-bench-airline-2`: the refunds "$6,594" and "$3,925" are the
//!   `-6594` and `-3925` payments calls #4 and #5 (`update_reservation_flights`)
//!   returned, and the "$10,519" saved is call #6's `10519.0`: supported (they were
//!   unsupported until a number with thousands separators was searched without
//!   them); "7803" is the card's `last_four` in #0. The new totals "$241", "$465"
//!   and the old "$3,538", "$2,210" are the agent's own sums, in no call:
//!   unsupported.
//! - `openai/tau-bench-airline-3`: turn 2's "May 27" (the agent says it found no
//!   Denver to Houston flight that day) was supported by the minutes of a
//!   `created_at` `12:27:05` in #7; a number inside a time or date is no longer that
//!   number, and the date is held by #5's `2024-05-27` (the reservation's outbound
//!   day; its return was May 28, so the agent was right). The fares of turn 3
//!   ($112, $438, $130, $378, $80, $338, $142, $297, $170, $246) are all in
//!   `search_onestop_flight` (#9); "5 hours" is `calculate`'s `5.0` (#12); $109 is
//!   HAT229's economy fare in #9; "Total Cost: $239" is the agent's sum:
//!   unsupported. The balances $157, $113, $250, $250 and the card numbers
//!   (7091239, 6276644, 8544743, 9932251, "ending in 9725") are in
//!   `get_user_details` (#0) and the reservations read after it: supported; the
//!   gift card numbers were no atoms while `**` clung to them. The option headings
//!   "**Flight Option 1:**" are labels, no claims. Turn 9's "one checked bag has
//!   been added" is false (no call added one) but holds no atom: no claim.
//! - `openai/tau-bench-airline-4`: "$209" is the payment #4 recorded, "6437" the
//!   Visa's `last_four` in #0: supported. The dates `2024-05-25` are no atoms.
//! - `claude-code/log-edge_cases`: a markdown demonstration; its `inline code` and
//!   the table's "Cell 1 | Cell 2 | Cell 3" are in no call (the first is in the
//!   user's prompt, which is no evidence): unsupported, as a reviewer would have it
//!   (they claim nothing the calls did). The local command's caveat and
//!   `<local-command-stdout>` the log writes as the user's are no prompts: 4 turns,
//!   not 6.
//! - `swe-agent/function_calling_simple`: the issue is the user's first message (an
//!   "observation" before any call); the answer's "`8.2`" is what
//!   `python tests/missing_colon.py` printed (call #3): supported.
//! - `openhands/basic`: the `finish` answer's "2048", "2 or 4" appear in the game
//!   written by call #0 (`str_replace_editor` create): supported; it tells the user
//!   to run `pip install keyboard`, which no call ran: unsupported (the sentence is
//!   advice, and the rules read a command as a claim that it ran; left so).
//! - `claude-code-subagents/258c7280-...` (with its subagent logs): "87 tests, 0
//!   failures" is `mix test`'s last line in call #177; `origin/spotter-gqc` is in
//!   `git status` (#186); `GET /api/review-context/:token` is in no call (the route
//!   is written `get("/review-context/:token", ...)` in the `/api` scope):
//!   unsupported. `Tmux.launch_project_review/3` names the function the code
//!   defines and calls as `Tmux.launch_project_review(project.id, token, port)`:
//!   it was unsupported until the rules searched a function with its arity by its
//!   name; now supported by the call that writes it (#168). The small counts
//!   ("6 new builder tests, 4 controller tests, 1 LiveView test") are supported by
//!   any call holding those numbers whole: weak evidence, known.
//! - `claude-code/viewer-5c0375b4-...`: "Next.js" read as a path (a name with a
//!   `.js` extension), unsupported, until product names in prose were no paths. The
//!   answer lists what its update of `CLAUDE.md` says: the versions 15.5.2 and
//!   19.1.0 are what that `MultiEdit` (#19) writes, and are in the `package.json`
//!   read at #8 and #14: supported by #19. "TypeScript 5" is #19's "TypeScript 5"
//!   too. `npm run type-check` and `npm run start` are lines of `CLAUDE.md` the
//!   agent says it removed and added, commands no call ran: unsupported (the rules
//!   read a command as a claim that it ran).
//! - `anthropic/llm-anthropic-fixed-version`, `openai/tau-bench-airline-1`,
//!   `claude-code/log-session_b`, `claude-code/log-todowrite_examples` and the
//!   Inspect AI logs: no answer text, or answers without a checkable atom
//!   (questions to the user, courtesies): turns, and no claims.
//! - `claude-code/log-representative_messages`: turn 1 predicts the output
//!   "Hello, Alice!" before any run: unsupported; turn 2, after the run (#1),
//!   supported.
//! - `claude-code/viewer-1af7fc5e-...`: "I've created a basic CLAUDE.md file" is
//!   contradicted: the one `Write` of `CLAUDE.md` (#10) was refused ("Claude
//!   requested permissions to write ... but you haven't granted it yet",
//!   `is_error`), so no call created it. It read as supported by #10 until the rules
//!   took a failed call for no change.
//! - Cursor, Copilot CLI, Gemini CLI, Codex and Responses sessions there hold
//!   prompts and answers with no checkable atom: turns, and no claims.

use insta::assert_snapshot;

use crate::cli::run_in_root;

const DIR: &str = "../shared/data/transcripts";

/// Every real session of a format with a conversation (and a few without one, whose
/// `claims` is the error that says so).
const SESSIONS: [&str; 34] = [
    "anthropic/llm-anthropic-fixed-version.json",
    "claude-code-subagents/258c7280-ae70-4798-800f-63464d01a85d.jsonl",
    "claude-code/log-edge_cases.jsonl",
    "claude-code/log-representative_messages.jsonl",
    "claude-code/log-session_b.jsonl",
    "claude-code/log-todowrite_examples.jsonl",
    "claude-code/viewer-1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl",
    "claude-code/viewer-5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
    "claude-code/viewer-agent-test-hash-123.jsonl",
    "codex-rollout/agentsview-fc_args_1.jsonl",
    "codex-rollout/agentsview-fc_args_2.jsonl",
    "codex-rollout/agentsview-fc_stdin.jsonl",
    "codex-rollout/agentsview-function_calls.jsonl",
    "codex-rollout/agentsview-standard_session.jsonl",
    "copilot-cli/agentsessions-events.jsonl",
    "cursor/agentsessions-small.jsonl",
    "cursor/agentsessions-test-session.jsonl",
    "gemini-cli/agentsview-standard_session.json",
    "gemini-cli/agentsview-system_messages.json",
    "gemini-cli/agentsview-thinking_only.json",
    "gemini-cli/agentsview-tool_calls.json",
    "inspect-ai/log_formats.json",
    "inspect-ai/log_read_sample.json",
    "mcp/mcp-recorder-calculator.jsonl",
    "openai-responses/llm-test_responses_interleaved_reasoning_between_tool_calls.json",
    "openai-responses/llm-test_responses_tool_use.json",
    "openai/tau-bench-airline-0.json",
    "openai/tau-bench-airline-1.json",
    "openai/tau-bench-airline-2.json",
    "openai/tau-bench-airline-3.json",
    "openai/tau-bench-airline-4.json",
    "openhands/basic.json",
    "swe-agent/function_calling_simple.traj",
    "inspect-ai/log_formats.eval",
];

#[test]
#[ignore = "reads ../shared/data; run with cargo test -- --ignored"]
fn claims_of_every_real_session() {
    for name in SESSIONS {
        let path = format!("{DIR}/{name}");
        assert!(
            std::path::Path::new(&path).is_file(),
            "{path} is missing: the shared data must be beside the repository"
        );
        let run = run_in_root(&["claims", "--from", "auto", path.as_str()]);
        assert!(matches!(run.code, 0..=2), "{path}: {}", run.stderr);
        let short = name.replace(['/', '.'], "_");
        assert_snapshot!(format!("claims_{short}"), run.text());
    }
}
