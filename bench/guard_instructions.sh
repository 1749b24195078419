#!/usr/bin/env bash
# Instructions of one `toolreplay guard` event, counted by valgrind's callgrind: a
# count that does not depend on the machine's load, beside `toolreplay version` (the
# cost of starting the process). Three rows: the first event of a session (the
# scope file checked whole), a later `PreToolUse` (the scope file read again by its
# digest, only the call's rules compiled) and a later `PostToolUse`, with the
# policy of bench/guard.sh (samples/claude-code-guard.json without its budgets).
# See docs/live.md, "Cost", and bench/README.md.
#
#   bash bench/guard_instructions.sh
#
# Environment: BENCH_DIR (default /tmp/toolreplay-bench-guard-instructions), BIN (a
# toolreplay binary; default: the working tree built with `cargo build --release
# --locked`).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$here")
BENCH_DIR=${BENCH_DIR:-/tmp/toolreplay-bench-guard-instructions}

die() { echo "bench: $*" >&2; exit 2; }
command -v valgrind >/dev/null 2>&1 || die "valgrind not found (Debian: apt-get install valgrind)"
command -v python3 >/dev/null 2>&1 || die "python3 not found"

mkdir -p "$BENCH_DIR"
if [[ -z ${BIN:-} ]]; then
    (cd "$repo" && cargo build --release --locked --quiet) || die "cargo build failed"
    BIN="$repo/target/release/toolreplay"
fi
[[ -x $BIN ]] || die "BIN '$BIN' is not an executable"

cd "$BENCH_DIR"
rm -rf sessions
POLICY="$repo/samples/claude-code-guard.json" python3 - <<'PY'
import json, os

root = "/home/dev/project"
with open(os.environ["POLICY"]) as f:
    policy = json.load(f)
policy.pop("budgets", None)
for rules in policy.get("tools", {}).values():
    for rule in rules.get("paths", []):
        if rule.get("root") == ".":
            rule["root"] = root
with open("scope.json", "w") as f:
    json.dump(policy, f)

def event(name, i, **extra):
    e = {
        "session_id": "bench-session",
        "transcript_path": "/home/dev/.claude/projects/p/bench-session.jsonl",
        "cwd": root,
        "permission_mode": "default",
        "hook_event_name": name,
        "tool_name": "Read",
        "tool_input": {"file_path": f"{root}/src/file{i}.rs"},
        "tool_use_id": f"toolu_{i:08d}",
    }
    e.update(extra)
    return json.dumps(e)

with open("first.json", "w") as f:
    f.write(event("PreToolUse", 1))
with open("first-post.json", "w") as f:
    f.write(event("PostToolUse", 1, tool_response={"type": "text", "file": {"content": "fn main() {}\n"}}))
with open("pre.json", "w") as f:
    f.write(event("PreToolUse", 2))
with open("post.json", "w") as f:
    f.write(event("PostToolUse", 2, tool_response={"type": "text", "file": {"content": "fn main() {}\n"}}))
PY

# The instructions of `BIN ARGS < STDIN`.
count() {
    local stdin=$1
    shift
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$BIN" "$@" <"$stdin" 2>&1 >/dev/null |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

guard=(guard --policy scope.json --dir sessions --no-fsync)
echo "binary: $BIN ($("$BIN" version))"
echo "commit: $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)"
version=$(count /dev/null version)
first=$(count first.json "${guard[@]}")
count first-post.json "${guard[@]}" >/dev/null
pre=$(count pre.json "${guard[@]}")
post=$(count post.json "${guard[@]}")
printf '| %s | %s | %s |\n' "event" "instructions" "above version"
printf '| --- | ---: | ---: |\n'
printf '| %s | %s | %s |\n' "toolreplay version" "$version" "-"
printf '| %s | %s | %s |\n' "first PreToolUse of a session" "$first" "$((first - version))"
printf '| %s | %s | %s |\n' "later PreToolUse" "$pre" "$((pre - version))"
printf '| %s | %s | %s |\n' "later PostToolUse" "$post" "$((post - version))"
