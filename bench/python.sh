#!/usr/bin/env bash
# The Python package on COUNT (default 1000) small transcripts in one process
# against COUNT processes of the command (`replay --format json` each), RUNS
# (default 3) times: medians side by side. PYTHON is a Python with the package
# installed (default: .venv-wheel/bin/python, which .ci/run makes); BINARY the
# command (default: target/release/toolreplay).
set -euo pipefail
cd "$(dirname "$0")/.."
COUNT="${COUNT:-1000}" RUNS="${RUNS:-3}"
PYTHON="${PYTHON:-.venv-wheel/bin/python}" BINARY="${BINARY:-target/release/toolreplay}"
BENCH_DIR="${BENCH_DIR:-/tmp/toolreplay-bench-python}"
for tool in "$PYTHON" "$BINARY"; do
  [ -x "$tool" ] || { echo "bench/python.sh: $tool is missing (see bench/README.md)" >&2; exit 2; }
done
"$PYTHON" -c 'import toolreplay' || { echo "bench/python.sh: no toolreplay package in $PYTHON" >&2; exit 2; }
rm -rf "$BENCH_DIR" && mkdir -p "$BENCH_DIR"
# Small transcripts: the bundled samples, by turns, each made different by its name.
samples=(samples/session-clean.jsonl samples/session-dirty.jsonl samples/session-policy.jsonl samples/session-commands.jsonl)
for i in $(seq 1 "$COUNT"); do
  cp "${samples[$((i % ${#samples[@]}))]}" "$BENCH_DIR/t$(printf '%05d' "$i").jsonl"
done
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
"$PYTHON" bench/python.py "$BINARY" "$BENCH_DIR" "$RUNS"
