#!/usr/bin/env bash
# Benchmark opening the report of a large Claude Code session in headless Chromium:
# a generated session of CALLS calls (default 10,000) in turns of 100 calls, each
# turn a prompt, reads, searches, edits and test runs, and a final answer whose
# sentences are claims (paths, commands, numbers, a stated test outcome). Prints the
# time `report --from claude-code` takes, the page's size, and the median of RUNS
# (default 5, at least 3) openings of the page in Chromium: the time the page's
# script says it took from navigation start to a drawn page (summary, claims,
# the drawn timeline, the first 200 rows of each list, styles and layout forced:
# `data-render-ms`), and the wall time of the whole browser run (start-up included).
#
#   bash bench/report.sh
#   CALLS=1000 RUNS=3 bash bench/report.sh
#
# Environment: CALLS (default 10000), RUNS (default 5), BENCH_DIR (default
# /tmp/toolreplay-bench-report), BIN (default: build the release binary).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$here")
source "$here/lib.sh"
CALLS=${CALLS:-10000}
RUNS=${RUNS:-5}
BENCH_DIR=${BENCH_DIR:-/tmp/toolreplay-bench-report}

die() { echo "bench: $*" >&2; exit 2; }
command -v python3 >/dev/null 2>&1 || die "python3 not found"
command -v chromium >/dev/null 2>&1 || die "chromium not found (apt-get install chromium)"
[[ $CALLS =~ ^[1-9][0-9]*$ ]] || die "CALLS must be a positive integer, got '$CALLS'"
[[ $RUNS =~ ^[1-9][0-9]*$ ]] && ((RUNS >= 3)) || die "RUNS must be an integer of at least 3, got '$RUNS'"
[[ ${BASH_VERSINFO[0]} -ge 5 ]] || die "bash 5 or newer is needed (EPOCHREALTIME)"

if [[ -z ${BIN:-} ]]; then
    BIN=$(built_binary)
fi
mkdir -p "$BENCH_DIR"
session="$BENCH_DIR/session-$CALLS.jsonl"

# The session: a fixed pattern over 200 files, so the same CALLS give the same bytes.
python3 - "$CALLS" "$session" <<'PY'
import json, sys
calls, path = int(sys.argv[1]), sys.argv[2]
files = [f"src/mod{i // 20}/file{i}.py" for i in range(200)]
body = "\n".join(f"    line {n}: value = compute({n})" for n in range(40))
out = open(path, "w")
def entry(kind, content):
    out.write(json.dumps({"type": kind, "isSidechain": False, "message": {"role": kind, "content": content}}) + "\n")
for i in range(calls):
    if i % 100 == 0:
        entry("user", f"Task {i // 100}: tidy the compute calls of module {i // 100 % 10}.")
    f = files[(i * 7) % len(files)]
    step = i % 10
    if step in (0, 1, 2, 3):
        tool, args, resp = "Read", {"file_path": f}, f"# {f}\n{body}\n"
    elif step in (4, 5):
        hits = "\n".join(files[(i + k * 13) % len(files)] + f":{k}: match" for k in range(8))
        tool, args, resp = "Grep", {"pattern": f"compute{i % 50}", "path": "src"}, hits
    elif step in (6, 7):
        tool, args, resp = "Edit", {"file_path": f, "old_string": "value", "new_string": f"v{i}"}, f"The file {f} has been updated."
    else:
        tool, args, resp = "Bash", {"command": "pytest -q"}, f"{i % 97} passed in 0.{i % 10}1s"
    entry("assistant", [{"type": "tool_use", "id": f"t{i}", "name": tool, "input": args}])
    entry("user", [{"type": "tool_result", "tool_use_id": f"t{i}", "content": resp}])
    if i % 100 == 99 or i == calls - 1:
        g = files[(i * 7) % len(files)]
        entry("assistant", [{"type": "text", "text":
            f"I updated {g} and ran `pytest -q`: {i % 97} passed. "
            f"I also changed src/never/touched.py. The search found `compute{i % 50}` in 8 files."}])
out.close()
PY

median() { sort -n | awk '{a[NR] = $1} END {m = int((NR + 1) / 2); if (NR % 2) print a[m]; else printf "%.3f\n", (a[m] + a[m + 1]) / 2}'; }
size() { stat -c %s "$1"; }

echo "session: $CALLS calls, $(size "$session") bytes ($session)"
times=()
for ((r = 0; r < RUNS; r++)); do
    start=$EPOCHREALTIME
    "$BIN" report --from claude-code "$session" -o "$BENCH_DIR/report.html"
    end=$EPOCHREALTIME
    times+=("$(python3 -c "print(f'{$end - $start:.3f}')")")
done
echo "report: median $(printf '%s\n' "${times[@]}" | median) s of $RUNS, $(size "$BENCH_DIR/report.html") bytes"

profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
render=()
wall=()
for ((r = 0; r < RUNS; r++)); do
    start=$EPOCHREALTIME
    dom=$(chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
        --disable-component-update --disable-sync --no-first-run --window-size=1400,1000 \
        --user-data-dir="$profile" --dump-dom "file://$BENCH_DIR/report.html" 2>/dev/null)
    end=$EPOCHREALTIME
    ms=$(grep -o 'data-render-ms="[0-9]*"' <<<"$dom" | grep -o '[0-9]*' || true)
    [[ -n $ms ]] || die "the page did not finish rendering"
    grep -q 'data-errors=' <<<"$dom" && die "the page recorded an error"
    phases=$(grep -o '<g class="g-phase ' <<<"$dom" | wc -l)
    claims=$(grep -o '<g class="g-claim ' <<<"$dom" | wc -l)
    render+=("$ms")
    wall+=("$(python3 -c "print(f'{$end - $start:.3f}')")")
done
echo "drawn: $phases phase blocks, $claims claim marks"
echo "page drawn in chromium (navigation start to laid out, median of $RUNS): $(printf '%s\n' "${render[@]}" | median) ms"
echo "whole chromium run (start-up, load, draw, dump; median of $RUNS): $(printf '%s\n' "${wall[@]}" | median) s"
