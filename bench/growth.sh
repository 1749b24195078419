#!/usr/bin/env bash
# How time and memory grow with the size of a transcript, and verify with 1 to 4
# threads: for each size (10MiB, 100MiB, 1GiB) and shape (bench/gen_transcript.py's
# transcript and bench/gen_repeats.py's), the median wall time, CPU time and peak
# RSS of every command of bench/run.sh, per GiB, beside openssl; then `verify` of
# the sealed 1 GiB file with TOOLREPLAY_THREADS=1,2,3,4 (the thread count of the
# parallel parse, where the build reads it). See bench/README.md.
#
#   bash bench/growth.sh                               # 3 sizes x 2 shapes, 3 runs
#   SIZES="10MiB 100MiB" RUNS=1 bash bench/growth.sh   # quick check
#
# Environment: SIZES (default "10MiB 100MiB 1GiB"), SHAPE (default "default
# repeats"), RUNS (default 3), THREADS (default "1 2 3 4"), SEED, BENCH_DIR
# (default /tmp/toolreplay-bench), REV (as for bench/run.sh).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BENCH_DIR=${BENCH_DIR:-/tmp/toolreplay-bench}
export BENCH_DIR
export SIZES=${SIZES:-"10MiB 100MiB 1GiB"}
export SHAPE=${SHAPE:-"default repeats"}
export RUNS=${RUNS:-3}
THREADS=${THREADS:-"1 2 3 4"}
SEED=${SEED:-20240601}
die() { echo "growth: $*" >&2; exit 2; }
for t in $THREADS; do
    [[ $t =~ ^[1-9][0-9]*$ ]] || die "THREADS must hold positive integers, got '$t'"
done

# Every command at every size and shape, and the growth table at the end.
bash "$here/run.sh"

# verify with 1 to 4 threads on the largest sealed file of each shape (run.sh made
# them, and left its binary in BENCH_DIR).
bin="$BENCH_DIR/toolreplay"
largest=${SIZES##* }
tfile=$(mktemp "$BENCH_DIR/time.XXXXXX")
trap 'rm -f "$tfile"' EXIT
echo "== verify by thread count (TOOLREPLAY_THREADS), median of $RUNS"
printf '%-22s %8s %10s %10s %9s %9s\n' file threads "median s" "x 1 thread" "cpu s" "RSS MiB"
for shape in $SHAPE; do
    label=$largest
    [[ $shape == repeats ]] && label="$largest-repeats"
    S="$BENCH_DIR/sealed-$label-seed$SEED.jsonl"
    [[ -f $S ]] || die "no sealed file $S (bench/run.sh makes it)"
    one=""
    for t in $THREADS; do
        walls=() cpus=() rsss=()
        for ((run = 1; run <= RUNS; run++)); do
            start=$EPOCHREALTIME
            TOOLREPLAY_THREADS=$t /usr/bin/time -f '%M %U %S' -o "$tfile" "$bin" verify "$S" >/dev/null
            end=$EPOCHREALTIME
            read -r m u s < <(tail -n1 "$tfile")
            walls+=("$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.6f", b - a }')")
            cpus+=("$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')")
            rsss+=("$m")
        done
        median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
        wall=$(median "${walls[@]}")
        [[ -n $one ]] || one=$wall
        printf '%-22s %8s %10.3f %10.2f %9.2f %9.1f\n' "$label" "$t" "$wall" \
            "$(awk -v a="$wall" -v b="$one" 'BEGIN { print a / b }')" \
            "$(median "${cpus[@]}")" "$(awk -v m="$(median "${rsss[@]}")" 'BEGIN { print m / 1024 }')"
    done
done
