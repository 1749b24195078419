//! The examples and exit statuses that end each command's `--help`.

pub(crate) const IMPORT_EXAMPLES: &str = "\
Examples:
  toolreplay import ~/.claude/projects/my-project/session.jsonl > run.jsonl
  toolreplay import --from openai chat.json -o run.jsonl
  toolreplay import --from mcp --strict mcp-log.jsonl
  toolreplay import ~/.claude/projects --glob '*.jsonl' --out-dir transcripts
  toolreplay replay --from claude-code session.jsonl

Exit status: 0 imported (warnings, if any, on stderr), 2 the input is invalid or not
recognised, or --strict and warnings (nothing is written). With --out-dir, the worst
of all: 2 if any input could not be imported (its transcript is not written).";

pub(crate) const STATS_EXAMPLES: &str = "\
Examples:
  toolreplay stats run.jsonl
  toolreplay stats --from claude-code session.jsonl
  toolreplay stats --from claude-code session.jsonl --draft-scope my-agent > scope.json

Exit status: 0 counted, 2 the input is invalid.";

pub(crate) const PROXY_EXAMPLES: &str = "\
Examples:
  toolreplay proxy --policy scope.json --seal session.jsonl -- python3 server.py
  toolreplay proxy --policy scope.json --seal session.jsonl --call-timeout 30s \\
      --pin tools.pin.json -- npx -y @modelcontextprotocol/server-filesystem /data
  toolreplay proxy --policy scope.json --seal session.jsonl \\
      --listen 127.0.0.1:8931 --upstream https://mcp.example.com/mcp

Exit status: 0 the client ended the session (over HTTP, DELETE), 1 a call could not
be sealed, 2 the proxy could not start, 3 the server ended the session, 130 SIGINT,
143 SIGTERM.";

pub(crate) const VERSION_EXAMPLES: &str = "\
Examples:
  toolreplay version
  toolreplay --version";

pub(crate) const DIFF_EXAMPLES: &str = "\
Examples:
  toolreplay diff run-a.jsonl run-b.jsonl
  toolreplay diff sealed-a.jsonl sealed-b.jsonl
  toolreplay diff run-a.jsonl sealed-a.jsonl
  zcat run-b.jsonl.gz | toolreplay diff run-a.jsonl -

Exit status: 0 same, 1 different, 2 the comparison could not run.";

pub(crate) const RECONCILE_EXAMPLES: &str = "\
Examples:
  toolreplay reconcile .claude/toolreplay/SESSION.jsonl ~/.claude/projects/P/SESSION.jsonl
  toolreplay reconcile sealed.jsonl rollout.jsonl --from codex --format json

Exit status: 0 same, 1 different, 2 the comparison could not run.";

pub(crate) const COMPLETIONS_EXAMPLES: &str = "\
Examples:
  toolreplay completions bash > ~/.local/share/bash-completion/completions/toolreplay
  toolreplay completions zsh > ~/.zfunc/_toolreplay
  toolreplay completions fish > ~/.config/fish/completions/toolreplay.fish";

pub(crate) const MAN_EXAMPLES: &str = "\
Examples:
  toolreplay man > toolreplay.1 && man ./toolreplay.1";

pub(crate) const REPLAY_EXAMPLES: &str = "\
Examples:
  toolreplay replay run.jsonl
  toolreplay replay run.jsonl --mutating-tool send_email --mutating-tool git_commit
  toolreplay replay run.jsonl --format sarif > replay.sarif
  toolreplay replay --from claude-code ~/.claude/projects/my-project/session.jsonl
  zcat run.jsonl.gz | toolreplay replay -

Exit status: 0 no findings, 1 findings, 2 the audit could not run.";

pub(crate) const SCOPE_EXAMPLES: &str = "\
Examples:
  toolreplay scope run.jsonl scope.json
  toolreplay scope run.jsonl scope.json --format json
  toolreplay scope run.jsonl policy.json
  toolreplay scope --from claude-code session.jsonl policy.json
  toolreplay scope - scope.json < run.jsonl

Exit status: 0 no findings, 1 findings, 2 the audit could not run.";

pub(crate) const SEAL_EXAMPLES: &str = "\
Examples:
  toolreplay seal run.jsonl > sealed.jsonl
  toolreplay seal run.jsonl -o sealed.jsonl
  agent-run | toolreplay seal - -o sealed.jsonl
  toolreplay seal --append sealed.jsonl new-calls.jsonl

Exit status: 0 sealed, 1 --append refused a broken chain, 2 invalid input (nothing is
written).";

pub(crate) const VERIFY_EXAMPLES: &str = "\
Examples:
  toolreplay verify sealed.jsonl
  toolreplay verify sealed.jsonl --format json
  toolreplay verify sealed.jsonl --format sarif > verify.sarif
  toolreplay verify sealed.jsonl --head pinned-head.txt
  toolreplay verify sealed.jsonl --head pinned-head.txt --format sarif > verify.sarif
  toolreplay verify sealed.jsonl --signature sealed.jsonl.sig \\
      --allowed-signers allowed_signers --identity ci@example.com

Exit status: 0 intact (and the head and signature check out), 1 broken, another head,
or a bad or untrusted signature, 2 the check could not run.";

pub(crate) const SIGN_EXAMPLES: &str = "\
Examples:
  toolreplay sign sealed.jsonl --key ~/.ssh/id_ed25519
  TOOLREPLAY_KEY_PASSPHRASE=... toolreplay sign sealed.jsonl --key ci_key

Exit status: 0 signed (to SEALED.sig), 1 the chain is broken, 2 the key or input is
unusable.";

pub(crate) const ATTEST_EXAMPLES: &str = "\
Examples:
  toolreplay attest sealed.jsonl --key ~/.ssh/id_ed25519
  toolreplay attest sealed.jsonl --key ci_key --scope scope.json -o session.intoto.jsonl
  toolreplay verify sealed.jsonl --attestation sealed.jsonl.intoto.jsonl --allowed-signers allowed_signers

Exit status: 0 attested (to SEALED.intoto.jsonl), 2 the chain is broken, or the key or
an input is unusable.";

pub(crate) const HEAD_EXAMPLES: &str = "\
Examples:
  toolreplay head sealed.jsonl > pinned-head.txt
  toolreplay head sealed.jsonl | ssh-keygen -Y sign -f ~/.ssh/id_ed25519 -n toolreplay

Exit status: 0 printed, 1 the chain is broken, 2 the input is unusable.";

/// The examples of `graph --help`.
pub(crate) const GRAPH_EXAMPLES: &str = "\
Examples:
  toolreplay graph run.jsonl > graph.json
  toolreplay graph sealed.jsonl --scope policy.json
  toolreplay graph --from claude-code session.jsonl --roles roles.json
  toolreplay graph run.jsonl --format dot | dot -Tsvg > graph.svg

Exit status: 0 printed (findings and a broken chain are in the graph), 2 the input is
invalid.";

/// The examples of `export --help`.
pub(crate) const EXPORT_EXAMPLES: &str = "\
Examples:
  toolreplay export --format otlp session.jsonl -o spans.json
  toolreplay export --format otlp --with-content --scope policy.json sealed.jsonl
  toolreplay export --format otlp sealed.jsonl | curl -sS -H 'Content-Type: application/json' \\
    --data-binary @- http://localhost:4318/v1/traces

Exit status: 0 written, 2 the input is invalid (a broken chain included).";

/// The examples of `claims --help`.
pub(crate) const CLAIMS_EXAMPLES: &str = "\
Examples:
  toolreplay claims sessions/S.jsonl
  toolreplay claims --from sealed sessions/S.jsonl --format json
  toolreplay claims sessions/S.jsonl --fail-on unsupported
  toolreplay claims --from claude-code session.jsonl

Exit status: 0 no claim contradicted, 1 a claim contradicted (or, with --fail-on
unsupported, unsupported), 2 the input is unusable or holds no messages.";

/// The examples of `report --help`.
pub(crate) const REPORT_EXAMPLES: &str = "\
Examples:
  toolreplay report run.jsonl -o report.html
  toolreplay report sealed.jsonl --scope policy.json -o report.html
  toolreplay report --from claude-code session.jsonl -o report.html

Exit status: 0 written (findings and a broken chain are in the report), 2 the input
is invalid or the file cannot be written (nothing is written).";

/// The examples of `toolreplay guard --help`.
pub(crate) const GUARD_EXAMPLES: &str = "\
Examples:
  toolreplay guard --print-settings
  toolreplay guard --print-settings --policy scope.json --dir sessions
  toolreplay guard --policy scope.json --dir sessions < event.json
  toolreplay guard init
  toolreplay guard check

Reads one Claude Code hook event (PreToolUse, PostToolUse, PostToolUseFailure,
UserPromptSubmit, Stop, SessionEnd) on stdin and seals the session's calls into
DIR/<session_id>.jsonl.

Exit status: 0 answered (a denial is JSON on stdout), 2 the call cannot be decided or
recorded (blocked, the reason on stderr), 1 the same with --fail-open.";

pub(crate) const GUARD_INIT_EXAMPLES: &str = "\
Examples:
  toolreplay guard init
  toolreplay guard init --project ../app --dry-run
  toolreplay guard init --force
  toolreplay guard init --agent codex

Writes .claude/toolreplay-scope.json (kept when it exists, unless --force) and adds
the hooks running `toolreplay guard` for PreToolUse, PostToolUse, PostToolUseFailure,
UserPromptSubmit, Stop and SessionEnd to .claude/settings.json, once. With --agent,
the agent's own: .codex/hooks.json, .gemini/settings.json, .cursor/hooks.json or
.github/hooks/toolreplay.json, and a policy in the agent's tool names beside them
(.github/toolreplay-scope.json for Copilot CLI).

Exit status: 0 done, 2 a file cannot be read or written (a hooks file that is not a
JSON object, or not of version 1 for Cursor and Copilot CLI, is left as it is).";

pub(crate) const GUARD_CHECK_EXAMPLES: &str = "\
Examples:
  toolreplay guard check
  toolreplay guard check --project ../app
  toolreplay guard check --agent gemini

Exit status: 0 the hooks and the policy are in place, 1 something is missing or the
policy does not read (one line each, with what to run), 2 the hooks file
(.claude/settings.json, or that of --agent) cannot be read or is not a JSON object.";
