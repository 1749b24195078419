#!/usr/bin/env bash
# Benchmark `toolreplay graph` and `toolreplay report` on a generated session of
# CALLS calls (default 10,000) in Claude Code's tools: reads, searches whose
# responses name files, edits, and test runs. Prints the time of each command
# (best of RUNS), the size of its output, and the time the report's page takes to
# render in headless Chromium (when chromium is installed): the page writes the
# time from navigation start to the end of its script into `data-render-ms`.
#
#   bash bench/graph.sh
#   CALLS=1000 RUNS=3 bash bench/graph.sh
#
# Environment: CALLS (default 10000), RUNS (default 5), BENCH_DIR (default
# /tmp/toolreplay-bench-graph), BIN (default: build the release binary).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$here")
CALLS=${CALLS:-10000}
RUNS=${RUNS:-5}
BENCH_DIR=${BENCH_DIR:-/tmp/toolreplay-bench-graph}

die() { echo "bench: $*" >&2; exit 2; }
command -v python3 >/dev/null 2>&1 || die "python3 not found"
[[ $CALLS =~ ^[1-9][0-9]*$ ]] || die "CALLS must be a positive integer, got '$CALLS'"
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive integer, got '$RUNS'"
[[ ${BASH_VERSINFO[0]} -ge 5 ]] || die "bash 5 or newer is needed (EPOCHREALTIME)"

if [[ -z ${BIN:-} ]]; then
    cargo build --release --quiet --manifest-path "$repo/Cargo.toml"
    BIN="$repo/target/release/toolreplay"
fi
mkdir -p "$BENCH_DIR"
session="$BENCH_DIR/session-$CALLS.jsonl"

# The session: a fixed pattern over 200 files, so the same CALLS give the same bytes.
python3 - "$CALLS" "$session" <<'EOF'
import json, sys
calls, path = int(sys.argv[1]), sys.argv[2]
files = [f"src/mod{i // 20}/file{i}.py" for i in range(200)]
body = "\n".join(f"    line {n}: value = compute({n})" for n in range(40))
with open(path, "w") as out:
    for i in range(calls):
        f = files[(i * 7) % len(files)]
        step = i % 10
        if step in (0, 1, 2, 3):
            tool, args, resp = "Read", {"file_path": f}, {"content": f"# {f}\n{body}\n"}
        elif step in (4, 5):
            hits = "\n".join(files[(i + k * 13) % len(files)] + f":{k}: match" for k in range(8))
            tool, args, resp = "Grep", {"pattern": f"compute{i % 50}", "path": "src"}, {"content": hits}
        elif step in (6, 7):
            tool, args, resp = "Edit", {"file_path": f, "old_string": "value", "new_string": f"v{i}"}, {"content": f"The file {f} has been updated."}
        else:
            tool, args, resp = "Bash", {"command": "pytest -q"}, {"content": f"{i % 97} passed"}
        out.write(json.dumps({"index": i, "tool": tool, "args": args, "response": resp}) + "\n")
EOF

best() { # best wall time in seconds of RUNS runs of "$@"
    local min= start end elapsed
    for ((r = 0; r < RUNS; r++)); do
        start=$EPOCHREALTIME
        "$@"
        end=$EPOCHREALTIME
        elapsed=$(python3 -c "print(f'{$end - $start:.3f}')")
        if [[ -z $min ]] || python3 -c "import sys; sys.exit(not ($elapsed < $min))"; then
            min=$elapsed
        fi
    done
    echo "$min"
}

size() { stat -c %s "$1"; }

echo "session: $CALLS calls, $(size "$session") bytes ($session)"
t=$(best sh -c "'$BIN' graph '$session' > '$BENCH_DIR/graph.json'")
echo "graph --format json: ${t} s, $(size "$BENCH_DIR/graph.json") bytes"
t=$(best sh -c "'$BIN' graph '$session' --format dot > '$BENCH_DIR/graph.dot'")
echo "graph --format dot: ${t} s, $(size "$BENCH_DIR/graph.dot") bytes"
t=$(best "$BIN" report "$session" -o "$BENCH_DIR/report.html")
echo "report: ${t} s, $(size "$BENCH_DIR/report.html") bytes"

if command -v chromium >/dev/null 2>&1; then
    profile=$(mktemp -d)
    trap 'rm -rf "$profile"' EXIT
    min=
    for ((r = 0; r < RUNS; r++)); do
        ms=$(chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
            --disable-component-update --disable-sync --no-first-run \
            --user-data-dir="$profile" --dump-dom "file://$BENCH_DIR/report.html#call-$((CALLS / 2))" \
            2>/dev/null | grep -o 'data-render-ms="[0-9]*"' | grep -o '[0-9]*')
        [[ -n $ms ]] || die "the page did not finish rendering"
        if [[ -z $min ]] || ((ms < min)); then min=$ms; fi
    done
    echo "render in chromium (navigation start to end of script, best of $RUNS): ${min} ms"
else
    echo "render in chromium: skipped (chromium not installed)"
fi
