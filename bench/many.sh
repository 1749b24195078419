#!/usr/bin/env bash
# One process over many small transcripts (`toolreplay replay DIR`) against one
# process per transcript (`for f in DIR/*; do toolreplay replay "$f"; done`), with
# the outputs checked to hold the same reports; then one process importing many
# small agent logs (`toolreplay import DIR --out-dir OUT`) against one process per
# log (`toolreplay import "$f" -o OUT/...`), with the transcripts checked to be the
# same bytes.
#
#   bash bench/many.sh                       # 1000 files of 20 calls, 3 runs
#   FILES=200 CALLS=50 RUNS=5 bash bench/many.sh
#   ONLY=import bash bench/many.sh           # only the import comparison
#   BIN=target/debug/toolreplay bash bench/many.sh   # an existing binary, no build
set -euo pipefail

FILES=${FILES:-1000}
CALLS=${CALLS:-20}
RUNS=${RUNS:-3}
ONLY=${ONLY:-}
BENCH_DIR=${BENCH_DIR:-/tmp/toolreplay-bench-many}
root=$(cd "$(dirname "$0")/.." && pwd)

if [[ -z "${BIN:-}" ]]; then
    (cd "$root" && cargo build --release --locked --quiet)
    BIN="$root/target/release/toolreplay"
fi
[[ -x "$BIN" ]] || { echo "many.sh: no binary at $BIN" >&2; exit 2; }

rm -rf "$BENCH_DIR"
mkdir -p "$BENCH_DIR/runs"
echo "machine: $(nproc) cores, $(uname -sr); binary: $BIN"
now() { date +%s.%N; }
# The median of the numbers given.
median() {
    printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {
        if (NR % 2) print a[(NR + 1) / 2]; else printf "%.3f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

if [[ "$ONLY" != import ]]; then
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

echo "transcripts: $FILES of $CALLS calls each"

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
fi

if [[ "$ONLY" != replay ]]; then
# Small OpenAI chat logs (a JSON array of messages), each call answered, read with
# --from auto as a user would.
mkdir -p "$BENCH_DIR/logs"
python3 - "$BENCH_DIR/logs" "$FILES" "$CALLS" <<'PY'
import json, random, sys
folder, files, calls = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(20240602)
tools = ["read_file", "search", "list_dir", "write_file"]
for n in range(files):
    messages = [{"role": "user", "content": "do the task"}]
    for i in range(calls):
        call_id = f"call_{n}_{i}"
        args = json.dumps({"path": f"f{rng.randrange(8)}.txt"})
        messages.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": call_id, "type": "function",
             "function": {"name": rng.choice(tools), "arguments": args}}]})
        messages.append({"role": "tool", "tool_call_id": call_id,
                         "content": f"v{rng.randrange(3)}"})
    with open(f"{folder}/log-{n:05d}.json", "w") as out:
        json.dump(messages, out)
PY
echo "agent logs: $FILES OpenAI chats of $CALLS calls each"

ones=(); manys=()
for run in $(seq "$RUNS"); do
    rm -rf "$BENCH_DIR/one-out" "$BENCH_DIR/many-out"
    mkdir -p "$BENCH_DIR/many-out"
    start=$(now)
    "$BIN" import "$BENCH_DIR/logs" --out-dir "$BENCH_DIR/one-out" \
        > "$BENCH_DIR/import-one.txt" 2> "$BENCH_DIR/import-one.err"
    one=$(echo "$(now) - $start" | bc)
    start=$(now)
    for f in "$BENCH_DIR"/logs/*.json; do
        name=$(basename "$f" .json)
        "$BIN" import "$f" -o "$BENCH_DIR/many-out/$name.jsonl"
    done 2> "$BENCH_DIR/import-many.err"
    many=$(echo "$(now) - $start" | bc)
    echo "import run $run: one process ${one}s, $FILES processes ${many}s"
    ones+=("$one"); manys+=("$many")
done

# The same transcripts, byte for byte, and the same notes on stderr.
if ! diff -r -q "$BENCH_DIR/one-out/logs" "$BENCH_DIR/many-out" > /dev/null; then
    echo "many.sh: the imported transcripts differ" >&2
    exit 1
fi
if ! cmp -s "$BENCH_DIR/import-one.err" "$BENCH_DIR/import-many.err"; then
    echo "many.sh: the import diagnostics differ" >&2
    exit 1
fi
one=$(median "${ones[@]}"); many=$(median "${manys[@]}")
echo "import median: one process ${one}s, $FILES processes ${many}s, ratio $(echo "scale=1; $many / $one" | bc)x"
fi
