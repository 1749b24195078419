#!/usr/bin/env bash
# Output formats on many findings: times `replay` in text, JSON and SARIF on
# transcripts with 50,000 and 200,000 findings (every call repeats the first with
# another response), with the peak RSS of each run, and prints the ratio of the two
# times for each format: about 4 when the time is linear in the findings (and the
# same peak RSS for both when memory does not grow with them).
#
#   bash bench/sarif.sh                 # release build of the working tree
#   COUNTS="10000 40000" bash bench/sarif.sh
#   BIN=/path/to/toolreplay bash bench/sarif.sh   # an existing binary, no build
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$here")
BENCH_DIR=${BENCH_DIR:-/tmp/toolreplay-bench}
COUNTS=${COUNTS:-"50000 200000"}
mkdir -p "$BENCH_DIR"
if [[ -n "${BIN:-}" ]]; then
    bin=$BIN
else
    (cd "$repo" && cargo build --release --locked) >&2
    bin="$repo/target/release/toolreplay"
fi
declare -A took
for n in $COUNTS; do
    t="$BENCH_DIR/findings-$n.jsonl"
    python3 - "$n" "$t" <<'PY'
import sys
n, path = int(sys.argv[1]), sys.argv[2]
with open(path, "w") as out:
    for i in range(n + 1):
        out.write('{"index": %d, "tool": "search", "args": {"q": "x"}, "response": {"hits": %d}}\n' % (i, i))
PY
    for format in text json sarif; do
        start=$EPOCHREALTIME
        /usr/bin/time -f '%M' -o "$BENCH_DIR/sarif.rss" \
            "$bin" replay "$t" --format "$format" > /dev/null || [[ $? == 1 ]]
        end=$EPOCHREALTIME
        took[$n,$format]=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')
        rss=$(awk '{ v = $1 } END { printf "%.1f", v / 1024 }' "$BENCH_DIR/sarif.rss")
        echo "findings $n, --format $format: ${took[$n,$format]} s, peak RSS $rss MiB"
    done
done
set -- $COUNTS
if [[ $# -ge 2 ]]; then
    for format in text json sarif; do
        awk -v a="${took[$1,$format]}" -v b="${took[$2,$format]}" -v f="$format" -v x="$1" -v y="$2" \
            'BEGIN { printf "%s: %s findings take %.2fx the time of %s (%.1fx the findings)\n", f, y, b / a, x, y / x }'
    done
fi
