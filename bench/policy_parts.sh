#!/usr/bin/env bash
# Where the time of `scope` with bench/policy.json goes: each part of the policy
# (budgets, the tools' argument rules, flows, each group of detectors) on its own,
# over a policy of the same agent and allowed tools alone, on bench's transcripts.
# Prints, for each policy, the median CPU time (user + system) and wall time of
# RUNS runs taken round-robin, the CPU time over the bare policy's, and the number
# of findings. See bench/README.md.
#
#   bash bench/policy_parts.sh                        # 200MiB of both shapes, 5 runs
#   SHAPE=repeats SIZE=50MiB RUNS=3 bash bench/policy_parts.sh
#
# Environment: SHAPE (default "default repeats", as bench/run.sh), SIZE (default
# 200MiB), RUNS (default 5), SEED (default 20240601), BENCH_DIR (default
# /tmp/toolreplay-policy-parts), BIN (default: a release build of the working tree).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$here")
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
SHAPE=${SHAPE:-"default repeats"}
SIZE=${SIZE:-200MiB}
RUNS=${RUNS:-5}
SEED=${SEED:-20240601}
BENCH_DIR=${BENCH_DIR:-/tmp/toolreplay-policy-parts}

die() { echo "policy_parts: $*" >&2; exit 2; }
[[ -x /usr/bin/time ]] || die "GNU time is needed at /usr/bin/time (apt-get install time)"
command -v python3 >/dev/null 2>&1 || die "python3 not found"
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive integer, got '$RUNS'"
[[ $SEED =~ ^[0-9]+$ ]] || die "SEED must be a non-negative integer, got '$SEED'"
[[ $SIZE =~ ^[0-9]+(B|KiB|MiB|GiB)?$ ]] || die "bad SIZE '$SIZE' (use e.g. 50MiB)"
for shape in $SHAPE; do
    [[ $shape == default || $shape == repeats ]] ||
        die "bad shape '$shape' in SHAPE (use default, repeats or both)"
done

if [[ -z ${BIN:-} ]]; then
    BIN=$(built_binary) || die "cargo build failed"
fi
[[ -x $BIN ]] || die "no binary at $BIN"
mkdir -p "$BENCH_DIR"

# The policies: bench/policy.json cut into its parts.
python3 - "$here/policy.json" "$BENCH_DIR" <<'PY'
import json, sys
full = json.load(open(sys.argv[1]))
out = sys.argv[2]
bare = {k: full[k] for k in ("agent", "allowed_tools", "policy_version")}
parts = {
    "bare": {},
    "budgets": {"budgets": full["budgets"]},
    "tools": {"tools": full["tools"]},
    "flows": {"flows": full["flows"]},
    "secrets": {"response_detectors": ["secrets"]},
    "personal-data": {"response_detectors": ["personal-data"]},
    "user-detectors": {
        "custom_detectors": full["custom_detectors"],
        "response_detectors": list(full["custom_detectors"]),
    },
}
for name, part in parts.items():
    with open(f"{out}/{name}.json", "w") as f:
        json.dump({**bare, **part}, f)
PY
cp "$here/scope.json" "$BENCH_DIR/names-only.json"
cp "$here/policy.json" "$BENCH_DIR/all.json"
POLICIES=(names-only bare budgets tools flows secrets personal-data user-detectors all)

for shape in $SHAPE; do
    if [[ $shape == default ]]; then generator="$here/gen_transcript.py"; else generator="$here/gen_repeats.py"; fi
    T="$BENCH_DIR/$shape-$SIZE-seed$SEED.jsonl"
    if [[ ! -s $T || $T -ot $generator || $T -ot $here/gen_transcript.py ]]; then
        echo "generating $T" >&2
        python3 "$generator" --size "$SIZE" --seed "$SEED" -o "$T.part" >/dev/null ||
            die "generating the $shape transcript failed"
        mv "$T.part" "$T"
    fi
    results="$BENCH_DIR/results-$shape.txt"
    : >"$results"
    for ((run = 1; run <= RUNS; run++)); do
        for policy in "${POLICIES[@]}"; do
            /usr/bin/time -o "$BENCH_DIR/time" -f '%U %S %e' \
                "$BIN" scope "$T" --scope "$BENCH_DIR/$policy.json" >/dev/null 2>&1 || [[ $? == 1 ]] ||
                die "scope with $policy.json failed"
            echo "$policy $(tail -1 "$BENCH_DIR/time")" >>"$results"
        done
    done
    findings=()
    for policy in "${POLICIES[@]}"; do
        # The text report's second line: `findings: N`.
        count=$("$BIN" scope "$T" --scope "$BENCH_DIR/$policy.json" 2>/dev/null |
            sed -n 's/^findings: //p') || true
        findings+=("$policy=$count")
    done
    echo "== $shape transcript, $SIZE, medians of $RUNS"
    python3 - "$results" "${findings[@]}" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, user, system, wall = line.split()
    rows.setdefault(name, []).append((float(user) + float(system), float(wall)))
found = dict(arg.split("=", 1) for arg in sys.argv[2:])
cpu = {name: statistics.median(c for c, _ in r) for name, r in rows.items()}
print(f"{'policy':<16} {'cpu s':>7} {'wall s':>7} {'cpu over bare':>14} {'findings':>9}")
for name, r in rows.items():
    wall = statistics.median(w for _, w in r)
    print(f"{name:<16} {cpu[name]:>7.3f} {wall:>7.3f} {cpu[name] - cpu['bare']:>+14.3f} {found.get(name, '?'):>9}")
PY
done
