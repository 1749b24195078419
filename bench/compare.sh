#!/usr/bin/env bash
# Two builds side by side: every command of bench/run.sh, run round-robin with the
# binary of BASE (a commit) and of the working tree on one generated transcript, so
# that both see the same machine at the same moments; prints each command's median
# wall time for both, their ratio, and the median peak RSS. Also checks that both
# give the same output, byte for byte.
#
#   BASE=9b26827 bash bench/compare.sh             # 1GiB, 5 rounds
#   BASE=HEAD~3 SIZE=100MiB RUNS=3 bash bench/compare.sh
#
# Environment: BASE (required), SIZE (default 1GiB), RUNS (default 5), SEED,
# BENCH_DIR (default /tmp/toolreplay-bench).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$here")
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
BENCH_DIR=${BENCH_DIR:-/tmp/toolreplay-bench}
SIZE=${SIZE:-1GiB}
RUNS=${RUNS:-5}
SEED=${SEED:-20240601}
die() { echo "compare: $*" >&2; exit 2; }
[[ -n ${BASE:-} ]] || die "set BASE to the commit to compare with"
[[ -x /usr/bin/time ]] || die "GNU time is needed (apt-get install time)"
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive integer"
mkdir -p "$BENCH_DIR"

sha=$(git -C "$repo" rev-parse --verify --quiet "$BASE^{commit}") || die "BASE '$BASE' is not a commit"
src="$BENCH_DIR/src-${sha:0:12}"
if [[ ! -f $src/.exported ]]; then
    rm -rf "$src" && mkdir -p "$src"
    git -C "$repo" archive "$sha" | tar -x -C "$src"
    touch "$src/.exported"
fi
(cd "$src" && CARGO_TARGET_DIR="$src/target" cargo build --release --locked) >&2
new=$(built_binary)
cp "$src/target/release/toolreplay" "$BENCH_DIR/base"
cp "$new" "$BENCH_DIR/new"

T="$BENCH_DIR/transcript-$SIZE-seed$SEED.jsonl"
[[ -f $T ]] || python3 "$here/gen_transcript.py" --size "$SIZE" --seed "$SEED" -o "$T"
S="$BENCH_DIR/compare-sealed.jsonl"
"$BENCH_DIR/base" seal "$T" -o "$S"
results="$BENCH_DIR/compare-$(date +%Y%m%d-%H%M%S).tsv"
tfile=$(mktemp "$BENCH_DIR/time.XXXXXX")
trap 'rm -f "$tfile" "$BENCH_DIR"/compare-out-*' EXIT

# Same output, byte for byte, from both builds.
for args in "replay $T" "scope $T $here/scope.json" "scope $T $here/policy.json" "verify $S"; do
    # shellcheck disable=SC2086
    cmp -s <("$BENCH_DIR/base" $args || true) <("$BENCH_DIR/new" $args || true) ||
        die "the builds differ on: $args"
done
"$BENCH_DIR/new" seal "$T" -o "$BENCH_DIR/compare-out-new"
cmp -s "$S" "$BENCH_DIR/compare-out-new" || die "the builds seal differently"

echo "base: ${sha:0:7}; new: $(git -C "$repo" rev-parse --short HEAD) (working tree); $SIZE, $RUNS rounds"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) (at start)"
for ((run = 1; run <= RUNS; run++)); do
    for cmd in replay scope scope-policy seal verify; do
        for build in base new; do
            bin="$BENCH_DIR/$build"
            case $cmd in
                replay) argv=("$bin" replay "$T") ;;
                scope) argv=("$bin" scope "$T" "$here/scope.json") ;;
                scope-policy) argv=("$bin" scope "$T" "$here/policy.json") ;;
                seal) rm -f "$BENCH_DIR/compare-out-$build"
                      argv=("$bin" seal "$T" -o "$BENCH_DIR/compare-out-$build") ;;
                verify) argv=("$bin" verify "$S") ;;
            esac
            /usr/bin/time -f '%e %M' -o "$tfile" "${argv[@]}" >/dev/null || true
            printf '%s\t%s\t%s\n' "$cmd" "$build" "$(tail -n1 "$tfile" | tr ' ' '\t')" >> "$results"
        done
    done
done
python3 - "$results" <<'PY'
import statistics, sys
rows = [l.split("\t") for l in open(sys.argv[1]).read().splitlines()]
print(f"{'command':<14} {'base s':>8} {'new s':>8} {'new/base':>9} {'base MiB':>9} {'new MiB':>8}")
for cmd in dict.fromkeys(r[0] for r in rows):
    med = {b: statistics.median(float(r[2]) for r in rows if r[0] == cmd and r[1] == b) for b in ("base", "new")}
    rss = {b: statistics.median(int(r[3]) for r in rows if r[0] == cmd and r[1] == b) / 1024 for b in ("base", "new")}
    print(f"{cmd:<14} {med['base']:>8.3f} {med['new']:>8.3f} {med['new'] / med['base']:>9.3f} {rss['base']:>9.1f} {rss['new']:>8.1f}")
PY
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) (at end)"
echo "raw results: $results"
