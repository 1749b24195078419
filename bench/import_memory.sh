#!/usr/bin/env bash
# Import memory: peak resident memory (GNU time's "Maximum resident set size") of
# `toolreplay import -o` on inputs made to stress it, in MB and in bytes per input
# byte; with BASE set, beside another build (an earlier commit), whose transcript
# must be byte for byte the same. See docs/import.md, "Memory".
#
#   bash bench/import_memory.sh
#   BASE=/path/to/older/toolreplay bash bench/import_memory.sh
#   BIN=target/release/toolreplay bash bench/import_memory.sh   # no build
#
# The inputs (made once in BENCH_DIR, about 400 MB in all):
#   text     a Claude Code session whose one tool result is a 100 MB string
#   objects  a Claude Code session whose one tool result is an array of 4 million
#            small objects (32 MB)
#   openai   a pretty-printed JSON array of OpenAI chat messages, 30,000 calls with
#            their results (about 120 MB)
#   anthropic  a JSON array of Anthropic messages, 30,000 calls whose results are
#            lists of content blocks (about 110 MB)
#
# Environment: BIN (default: build release), BASE (default: none),
# BENCH_DIR (default /tmp/toolreplay-bench-import-memory).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$here")
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
BENCH_DIR=${BENCH_DIR:-/tmp/toolreplay-bench-import-memory}

die() { echo "bench: $*" >&2; exit 2; }

command -v python3 >/dev/null 2>&1 || die "python3 not found"
[[ -x /usr/bin/time ]] || die "/usr/bin/time not found (apt-get install time)"

if [[ -z ${BIN:-} ]]; then
    BIN=$(built_binary)
fi
[[ -x $BIN ]] || die "$BIN is not an executable"
[[ -z ${BASE:-} || -x $BASE ]] || die "$BASE is not an executable"

mkdir -p "$BENCH_DIR"

# make KIND OUT: writes the input KIND to OUT.
make() {
    python3 - "$1" "$2" <<'PY'
import json, sys
kind, out = sys.argv[1], sys.argv[2]

def claude(content):
    call = {"type": "assistant", "uuid": "u1", "sessionId": "s", "message": {
        "role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1",
        "name": "Bash", "input": {"command": "cat big"}}]}}
    result = {"type": "user", "uuid": "u2", "sessionId": "s", "message": {
        "role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
        "content": "CONTENT"}]}}
    return json.dumps(call) + "\n" + json.dumps(result).replace('"CONTENT"', content) + "\n"

with open(out, "w", encoding="utf-8") as f:
    if kind == "text":
        f.write(claude(json.dumps("x" * 100_000_000)))
    elif kind == "objects":
        f.write(claude("[" + ",".join(['{"a":1}'] * 4_000_000) + "]"))
    elif kind == "openai":
        messages = [{"role": "system", "content": "be brief"}]
        for i in range(30_000):
            args = json.dumps({"path": f"/src/file{i}.py", "n": i})
            messages.append({"role": "assistant", "content": None, "tool_calls": [{
                "id": f"call_{i}", "type": "function",
                "function": {"name": "read_file", "arguments": args}}]})
            lines = [{"line": j, "text": f"def f{j}(x): return x + {j}"} for j in range(40)]
            messages.append({"role": "tool", "tool_call_id": f"call_{i}",
                             "content": json.dumps(lines)})
        json.dump(messages, f, indent=1)
    elif kind == "anthropic":
        messages = []
        for i in range(30_000):
            messages.append({"role": "assistant", "content": [{"type": "tool_use",
                "id": f"toolu_{i}", "name": "read_file", "input": {"path": f"/src/f{i}.py"}}]})
            blocks = [{"type": "text", "text": f"def f{j}(x): return x + {j}"} for j in range(60)]
            messages.append({"role": "user", "content": [{"type": "tool_result",
                "tool_use_id": f"toolu_{i}", "content": blocks}]})
        json.dump(messages, f)
PY
}

# peak BIN INPUT FORMAT OUT: the peak resident memory in KB of importing INPUT.
peak() {
    /usr/bin/time -o "$BENCH_DIR/time.txt" -f '%M' "$1" import --from "$3" "$2" -o "$4" \
        2>/dev/null || die "failed: $1 import --from $3 $2"
    tail -1 "$BENCH_DIR/time.txt"
}

mb() { python3 -c "print(f'{$1 / 1e6:.0f}')"; }
ratio() { python3 -c "print(f'{$1 / $2:.1f}')"; }

if [[ -n ${BASE:-} ]]; then
    printf '%-10s %8s %12s %8s %12s %8s\n' input MB before/MB per-byte after/MB per-byte
else
    printf '%-10s %8s %12s %8s\n' input MB peak/MB per-byte
fi
for input in text:claude-code:jsonl objects:claude-code:jsonl openai:openai:json anthropic:anthropic:json; do
    IFS=: read -r kind format ext <<<"$input"
    file="$BENCH_DIR/$kind.$ext"
    [[ -f $file ]] || make "$kind" "$file"
    size=$(stat -c %s "$file")
    after=$(( $(peak "$BIN" "$file" "$format" "$BENCH_DIR/after.jsonl") * 1024 ))
    if [[ -n ${BASE:-} ]]; then
        before=$(( $(peak "$BASE" "$file" "$format" "$BENCH_DIR/before.jsonl") * 1024 ))
        cmp -s "$BENCH_DIR/before.jsonl" "$BENCH_DIR/after.jsonl" ||
            die "$kind: the two builds wrote different transcripts"
        printf '%-10s %8s %12s %8s %12s %8s\n' "$kind" "$(mb "$size")" \
            "$(mb "$before")" "$(ratio "$before" "$size")" "$(mb "$after")" "$(ratio "$after" "$size")"
    else
        printf '%-10s %8s %12s %8s\n' "$kind" "$(mb "$size")" "$(mb "$after")" "$(ratio "$after" "$size")"
    fi
done
