#!/usr/bin/env bash
# Benchmark `toolreplay claims` on a large generated live session: SIZE_MB
# megabytes (default 100) of calls in Claude Code's tools (reads of big files,
# searches, edits, test runs whose output holds a cargo summary), sealed with
# `seal`, and beside it a context file of TURNS turns (default 200) whose final
# answers make claims of every atom kind. Prints the session's size, the number of
# claims, and the wall time and peak memory (maximum resident set size, from
# /usr/bin/time -v) of `claims` (best of RUNS), then of `graph` for comparison.
# Then the same for an agent's log of another format, read by `claims --from`: a
# Codex CLI rollout of SIZE_MB megabytes with TURNS turns (each a user prompt, the
# calls, the agent's final message), imported in one pass with its conversation.
#
#   bash bench/claims.sh
#   SIZE_MB=10 RUNS=1 bash bench/claims.sh
#
# Environment: SIZE_MB (default 100), TURNS (default 200), RUNS (default 3),
# BENCH_DIR (default /tmp/toolreplay-bench-claims), BIN (default: build the release
# binary).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$here")
source "$here/lib.sh"
SIZE_MB=${SIZE_MB:-100}
TURNS=${TURNS:-200}
RUNS=${RUNS:-3}
BENCH_DIR=${BENCH_DIR:-/tmp/toolreplay-bench-claims}

die() { echo "bench: $*" >&2; exit 2; }
command -v python3 >/dev/null 2>&1 || die "python3 not found"
[[ -x /usr/bin/time ]] || die "/usr/bin/time (GNU time) not found"
[[ $SIZE_MB =~ ^[1-9][0-9]*$ ]] || die "SIZE_MB must be a positive integer, got '$SIZE_MB'"
[[ $TURNS =~ ^[1-9][0-9]*$ ]] || die "TURNS must be a positive integer, got '$TURNS'"
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive integer, got '$RUNS'"

if [[ -z ${BIN:-} ]]; then
    BIN=$(built_binary)
fi
mkdir -p "$BENCH_DIR/sessions"
calls="$BENCH_DIR/calls.jsonl"
context="$BENCH_DIR/context.jsonl"
session="$BENCH_DIR/sessions/S.jsonl"

# The calls: a fixed pattern, so the same SIZE_MB gives the same bytes.
python3 - "$SIZE_MB" "$calls" <<'PY'
import json, sys
size, path = int(sys.argv[1]) << 20, sys.argv[2]
files = [f"src/mod{i // 20}/file{i}.rs" for i in range(400)]
body = "\n".join(f"    let value_{n} = compute({n} * 17); // line {n}" for n in range(120))
written, i = 0, 0
with open(path, "w") as out:
    while written < size:
        f = files[(i * 7) % len(files)]
        step = i % 10
        if step < 5:
            tool, args, resp = "Read", {"file_path": "/p/" + f}, {"type": "text", "file": {"content": body}}
        elif step < 7:
            hits = "\n".join(files[(i + k * 13) % len(files)] + f":{k}: compute" for k in range(40))
            tool, args, resp = "Grep", {"pattern": "compute", "path": "/p/src"}, {"content": hits}
        elif step < 9:
            tool, args, resp = "Edit", {"file_path": "/p/" + f, "old_string": "a", "new_string": "b"}, {"filePath": "/p/" + f}
        else:
            failed = 1 if i % 20 == 9 else 0
            status = "FAILED" if failed else "ok"
            tool, args, resp = "Bash", {"command": "cargo test"}, {"stdout": f"running {i % 500} tests\n" + "test x ... ok\n" * 50 + f"test result: {status}. {i % 500} passed; {failed} failed; 0 ignored", "stderr": "", "interrupted": False}
        line = json.dumps({"index": i, "tool": tool, "args": args, "response": resp}) + "\n"
        out.write(line)
        written += len(line)
        i += 1

PY
"$BIN" seal "$calls" -o "$session"
count=$(wc -l < "$session")

# The context: TURNS prompts spread over the calls, each with a final answer that
# claims a change, a pass, a count, a command, a number and a quoted string; the
# answers are placed after real calls, the digests read from the sealed session.
python3 - "$session" "$TURNS" "$context" <<'PY'
import json, sys
session, turns, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
digests = [json.loads(line)["digest"] for line in open(session)]
n = len(digests)
records = [{"index": 0, "tool": "context", "args": {"agent": "claude-code", "cwd": "/p", "from": 0, "home": "/home/dev", "policy_digest": "00"}, "response": {}}]
def after(i):
    return None if i < 0 else {"digest": digests[i], "index": i}
for t in range(turns):
    start = t * n // turns - 1
    end = (t + 1) * n // turns - 1
    records.append({"index": len(records), "tool": "prompt", "args": {"after": after(start)}, "response": {"decision": "allowed", "text": f"Task {t}: fix the parser."}})
    f = f"src/mod{t % 20}/file{(t * 3) % 400}.rs"
    answer = (f"I updated `{f}` and src/never/touched.rs. I ran `cargo test`: all tests pass, {t % 500} passed.\n"
              f"- The file has {t * 17} values and \"compute\" is called in it.\n"
              f"- See https://docs.example/{t} for `compute({t} * 17)`.")
    records.append({"index": len(records), "tool": "answer", "args": {"after": after(end)}, "response": {"text": answer}})
with open(path, "w") as out:
    for r in records:
        out.write(json.dumps(r) + "\n")
PY
"$BIN" seal "$context" -o "$BENCH_DIR/sessions/S.context.jsonl"

measure() { # best wall time and peak RSS of RUNS runs of "$@", output to /dev/null
    local best_t= best_m= t m log
    log=$(mktemp)
    for ((r = 0; r < RUNS; r++)); do
        /usr/bin/time -v "$@" > /dev/null 2> "$log" || true
        t=$(grep 'Elapsed (wall clock)' "$log" | awk '{print $NF}')
        m=$(grep 'Maximum resident set size' "$log" | awk '{print $NF}')
        t=$(python3 -c "p='$t'.split(':'); print(f'{sum(float(x) * 60 ** i for i, x in enumerate(reversed(p))):.2f}')")
        if [[ -z $best_t ]] || python3 -c "import sys; sys.exit(not ($t < $best_t))"; then best_t=$t; fi
        if [[ -z $best_m ]] || ((m < best_m)); then best_m=$m; fi
    done
    rm -f "$log"
    echo "${best_t} s, peak memory $((best_m / 1024)) MiB"
}

claims=$("$BIN" claims "$session" --format json | python3 -c 'import json, sys; c = json.load(sys.stdin)["counts"]; print(f"{sum(c.values())} claims ({c})")' || true)
echo "session: $count calls, $(stat -c %s "$session") bytes; $TURNS turns, $claims"
echo "claims: $(measure "$BIN" claims "$session")"
echo "claims --format json: $(measure "$BIN" claims "$session" --format json)"
echo "graph (for comparison, the session read whole): $(measure "$BIN" graph "$session")"

# A Codex CLI rollout of the same size: response_item lines of the user's prompts,
# shell calls and their outputs (cargo test, one run in twenty failing), patches,
# and each turn's final assistant message.
rollout="$BENCH_DIR/rollout.jsonl"
python3 - "$SIZE_MB" "$TURNS" "$rollout" <<'PY'
import json, sys
size, turns, path = int(sys.argv[1]) << 20, int(sys.argv[2]), sys.argv[3]
body = "\n".join(f"    let value_{n} = compute({n} * 17); // line {n}" for n in range(120))
per_turn = max(1, size // turns)
def line(kind, payload):
    return json.dumps({"timestamp": "2025-01-01T00:00:00Z", "type": kind, "payload": payload}) + "\n"
written, i = 0, 0
with open(path, "w") as out:
    out.write(line("session_meta", {"id": "bench", "cwd": "/p"}))
    for t in range(turns):
        f = f"src/mod{t % 20}/file{(t * 3) % 400}.rs"
        text = line("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": f"Task {t}: fix the parser."}]})
        out.write(text)
        start = written
        written += len(text)
        while written - start < per_turn:
            step = i % 10
            if step < 6:
                args, output = {"command": ["bash", "-lc", f"cat {f}"]}, body
            elif step < 9:
                patch = f"*** Begin Patch\n*** Update File: {f}\n@@\n-a\n+b\n*** End Patch\n"
                call = {"type": "custom_tool_call", "call_id": f"c{i}", "name": "apply_patch", "input": patch}
                result = {"type": "custom_tool_call_output", "call_id": f"c{i}", "output": "Success. Updated the following files:\nM " + f}
                text = line("response_item", call) + line("response_item", result)
                out.write(text)
                written += len(text)
                i += 1
                continue
            else:
                failed = 1 if i % 20 == 9 else 0
                status = "FAILED" if failed else "ok"
                args = {"command": ["bash", "-lc", "cargo test"]}
                output = f"running {t % 500} tests\n" + "test x ... ok\n" * 50 + f"test result: {status}. {t % 500} passed; {failed} failed; 0 ignored"
            call = {"type": "function_call", "name": "shell", "arguments": json.dumps(args), "call_id": f"c{i}"}
            result = {"type": "function_call_output", "call_id": f"c{i}", "output": json.dumps({"output": output, "metadata": {"exit_code": 0}})}
            text = line("response_item", call) + line("response_item", result)
            out.write(text)
            written += len(text)
            i += 1
        answer = (f"I updated `{f}` and src/never/touched.rs. I ran `cargo test`: all tests pass, {t % 500} passed.\n"
                  f"- The file has {t * 17} values and \"compute\" is called in it.")
        text = line("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": answer}]})
        out.write(text)
        written += len(text)
PY
claims=$("$BIN" claims --from codex "$rollout" --format json 2>/dev/null | python3 -c 'import json, sys; c = json.load(sys.stdin)["counts"]; print(f"{sum(c.values())} claims ({c})")' || true)
echo "codex rollout: $(wc -l < "$rollout") lines, $(stat -c %s "$rollout") bytes; $TURNS turns, $claims"
echo "claims --from codex: $(measure "$BIN" claims --from codex "$rollout")"
echo "import --from codex (for comparison): $(measure "$BIN" import --from codex "$rollout")"
