#!/usr/bin/env bash
# One process over many small transcripts (`toolreplay replay DIR`) against one
# process per transcript (`for f in DIR/*; do toolreplay replay "$f"; done`), with
# the outputs checked to hold the same reports.
#
#   bash bench/many.sh                       # 1000 transcripts of 20 calls, 3 runs
#   FILES=200 CALLS=50 RUNS=5 bash bench/many.sh
#   BIN=target/debug/toolreplay bash bench/many.sh   # an existing binary, no build
set -euo pipefail

FILES=${FILES:-1000}
CALLS=${CALLS:-20}
RUNS=${RUNS:-3}
BENCH_DIR=${BENCH_DIR:-/tmp/toolreplay-bench-many}
root=$(cd "$(dirname "$0")/.." && pwd)

if [[ -z "${BIN:-}" ]]; then
    (cd "$root" && cargo build --release --locked --quiet)
    BIN="$root/target/release/toolreplay"
fi
[[ -x "$BIN" ]] || { echo "many.sh: no binary at $BIN" >&2; exit 2; }

rm -rf "$BENCH_DIR"
mkdir -p "$BENCH_DIR/runs"
python3 - "$BENCH_DIR/runs" "$FILES" "$CALLS" <<'PY'
import json, random, sys
folder, files, calls = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(20240601)
tools = ["read_file", "search", "list_dir", "write_file"]
for n in range(files):
    with open(f"{folder}/run-{n:05d}.jsonl", "w") as out:
        for i in range(calls):
            tool = rng.choice(tools)
            args = {"path": f"f{rng.randrange(8)}.txt"}
            response = {"text": f"v{rng.randrange(3)}"}
            out.write(json.dumps({"index": i, "tool": tool, "args": args, "response": response}) + "\n")
PY

echo "machine: $(nproc) cores, $(uname -sr); binary: $BIN"
echo "transcripts: $FILES of $CALLS calls each"

now() { date +%s.%N; }
best_one=""; best_many=""
for run in $(seq "$RUNS"); do
    start=$(now)
    "$BIN" replay "$BENCH_DIR/runs" > "$BENCH_DIR/one.txt" || true
    one=$(echo "$(now) - $start" | bc)
    start=$(now)
    for f in "$BENCH_DIR"/runs/*.jsonl; do
        "$BIN" replay "$f" || true
    done > "$BENCH_DIR/many.txt"
    many=$(echo "$(now) - $start" | bc)
    echo "run $run: one process ${one}s, $FILES processes ${many}s"
    if [[ -z "$best_one" ]] || (( $(echo "$one < $best_one" | bc) )); then best_one=$one; fi
    if [[ -z "$best_many" ]] || (( $(echo "$many < $best_many" | bc) )); then best_many=$many; fi
done

# The same reports: the one-process output without its headers, blank lines and
# summary equals the per-process outputs end to end.
sed -e '/^== /d' -e '/^$/d' -e '/^summary:$/,$d' "$BENCH_DIR/one.txt" > "$BENCH_DIR/one.reports"
if ! cmp -s "$BENCH_DIR/one.reports" "$BENCH_DIR/many.txt"; then
    echo "many.sh: the reports differ" >&2
    exit 1
fi
echo "best: one process ${best_one}s, $FILES processes ${best_many}s, ratio $(echo "scale=1; $best_many / $best_one" | bc)x"
