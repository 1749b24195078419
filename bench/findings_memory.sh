#!/usr/bin/env bash
# Memory against findings: peak RSS of `replay`, `scope` and `scope` with
# bench/policy.json, in text, JSON and SARIF, on a generated transcript where most
# calls repeat an earlier one with another response (so most calls have findings),
# for a base build and the working tree side by side. Prints, for each command, the
# terms of the memory target: 64 MiB + 100 B per distinct call + 16 B per finding,
# and checks that both builds write the same bytes.
#
#   BASE_BIN=/path/to/old/toolreplay bash bench/findings_memory.sh
#   BASE=8103a27 bash bench/findings_memory.sh      # builds BASE from git archive
#   CALLS=200000 DISTINCT=20000 bash bench/findings_memory.sh
#
#   MANY=1 BASE_BIN=... bash bench/findings_memory.sh     # several files instead
#
# With MANY=1 it measures `replay` over MANY_FILES files (default 3) of
# MANY_FINDINGS findings each (default 300000: reads of one file, each answered
# differently), in JSON and SARIF: the report of several files.
#
# BASE_BIN (or BASE) is optional: without either, only the working tree is measured.
# A run over MEM_LIMIT_KB of address space (default 8 GiB) is stopped and shown as
# "over": the base build's SARIF took about 24 KB a result.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$here")
BENCH_DIR=${BENCH_DIR:-/tmp/toolreplay-bench-findings}
CALLS=${CALLS:-1000000}
DISTINCT=${DISTINCT:-100000}
MEM_LIMIT_KB=${MEM_LIMIT_KB:-8388608}
FORMATS=${FORMATS:-"text json sarif"}
mkdir -p "$BENCH_DIR"

if [[ -z "${BIN:-}" ]]; then
    (cd "$repo" && cargo build --release --locked) >&2
    BIN="$repo/target/release/toolreplay"
fi
if [[ -z "${BASE_BIN:-}" && -n "${BASE:-}" ]]; then
    base_src="$BENCH_DIR/base-$BASE"
    if [[ ! -x "$base_src/target/release/toolreplay" ]]; then
        rm -rf "$base_src" && mkdir -p "$base_src"
        git -C "$repo" archive "$BASE" | tar -x -C "$base_src"
        (cd "$base_src" && cargo build --release --locked) >&2
    fi
    BASE_BIN="$base_src/target/release/toolreplay"
fi

# Runs a command, output to a file; prints the peak RSS in KiB, or "over".
peak() {
    local out=$1
    shift
    local status=0
    ( ulimit -v "$MEM_LIMIT_KB"; /usr/bin/time -f '%M' -o "$out.rss" "$@" > "$out" 2> "$out.err" ) || status=$?
    if [[ $status -gt 1 ]] || [[ ! -s "$out.rss" ]] || grep -q 'memory\|alloc' "$out.err" 2>/dev/null; then
        echo over
    else
        tail -1 "$out.rss"
    fi
}

mib() { awk -v k="$1" 'BEGIN { if (k == "over") print "over"; else printf "%.1f", k / 1024 }'; }

# against_base BASE_OUT NEW_OUT ARGS...: with BASE_BIN set, runs it with ARGS into
# BASE_OUT and sets base_kb (its peak, in MiB) and same (whether BASE_OUT and NEW_OUT
# are the same bytes); without, both are "-".
against_base() {
    local base_out=$1 new_out=$2
    shift 2
    base_kb=-
    same=-
    [[ -n "${BASE_BIN:-}" ]] || return 0
    base_kb=$(peak "$base_out" "$BASE_BIN" "$@")
    if [[ $base_kb == over ]]; then
        same="base over limit"
    elif cmp -s "$base_out" "$new_out"; then
        same=yes
    else
        same=NO
    fi
    base_kb=$(mib "$base_kb")
}

if [[ -n "${MANY:-}" ]]; then
    MANY_FILES=${MANY_FILES:-3}
    MANY_FINDINGS=${MANY_FINDINGS:-300000}
    many_dir="$BENCH_DIR/many-$MANY_FILES-$MANY_FINDINGS"
    mkdir -p "$many_dir"
    files=()
    for n in $(seq 1 "$MANY_FILES"); do
        f="$many_dir/run-$n.jsonl"
        if [[ ! -s "$f" ]]; then
            # Every read after the first: non-determinism and redundant-call.
            python3 - "$((MANY_FINDINGS / 2 + 1))" "$n" "$f" <<'PY'
import sys
calls, n, path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
with open(path, "w") as out:
    for i in range(calls):
        out.write('{"index": %d, "tool": "read_file", "args": {"path": "run%s.md"}, "response": {"text": "v%d"}}\n' % (i, n, i))
PY
        fi
        files+=("$f")
    done
    printf '\n| files | findings each | format | base peak MiB | new peak MiB | output MiB | same bytes |\n'
    printf '| --- | --- | --- | --- | --- | --- | --- |\n'
    for format in json sarif; do
        new_out="$BENCH_DIR/many-new.$format"
        new_kb=$(peak "$new_out" "$BIN" replay "${files[@]}" --format "$format")
        against_base "$BENCH_DIR/many-base.$format" "$new_out" replay "${files[@]}" --format "$format"
        rm -f "$BENCH_DIR/many-base.$format"
        size=$(awk -v b="$(stat -c %s "$new_out")" 'BEGIN { printf "%.1f", b / 1048576 }')
        printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$MANY_FILES" "$MANY_FINDINGS" "$format" "$base_kb" "$(mib "$new_kb")" "$size" "$same"
        rm -f "$new_out"
    done
    exit 0
fi

t="$BENCH_DIR/findings-$CALLS-$DISTINCT.jsonl"
if [[ ! -s "$t" ]]; then
    python3 - "$CALLS" "$DISTINCT" "$t" <<'PY'
import random, sys
calls, distinct, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rng = random.Random(7)
with open(path, "w") as out:
    for i in range(calls):
        r = rng.random()
        if r < 0.88:
            # A read of one of `distinct` files, answered differently each time:
            # non-determinism and redundant-call; a ticket id now and then.
            k = rng.randrange(distinct)
            text = "line %d of f%d" % (i, k)
            if i % 50 == 0:
                text += " TICKET-%06d" % (i % 1000000)
            line = '{"index": %d, "tool": "read_file", "args": {"path": "docs/f%d.md"}, "response": {"text": "%s"}}' % (i, k, text)
        elif r < 0.98:
            # Outside allowed_tools, a denied host, past its budget, a flow's source.
            k = rng.randrange(distinct)
            line = '{"index": %d, "tool": "fetch_url", "args": {"url": "https://evil.example.org/p%d"}, "response": {"status": %d}}' % (i, k, i)
        else:
            # State changes, and a flow's sink after the source.
            line = '{"index": %d, "tool": "run_command", "args": {"command": "make", "cwd": "/work/x%d"}, "response": {"code": 0}}' % (i, rng.randrange(distinct))
        out.write(line + "\n")
PY
fi
size=$(stat -c %s "$t")
echo "transcript: $t ($CALLS calls, $size bytes)"

# The number of distinct calls (tool and arguments): what the per-call term counts.
distinct_calls=$(python3 - "$t" <<'PY'
import json, sys
seen = set()
with open(sys.argv[1]) as f:
    for line in f:
        r = json.loads(line)
        seen.add((r["tool"], json.dumps(r["args"], sort_keys=True)))
print(len(seen))
PY
)

printf '\n| command | format | findings | base peak MiB | new peak MiB | target MiB | same bytes |\n'
printf '| --- | --- | --- | --- | --- | --- | --- |\n'
for cmd in replay scope policy; do
    case $cmd in
        replay) args=(replay "$t") ;;
        scope) args=(scope "$t" "$here/scope.json") ;;
        policy) args=(scope "$t" "$here/policy.json") ;;
    esac
    for format in $FORMATS; do
        new_out="$BENCH_DIR/new-$cmd.$format"
        new_kb=$(peak "$new_out" "$BIN" "${args[@]}" --format "$format")
        findings=$({ "$BIN" "${args[@]}" || true; } | sed -n 's/^findings: //p' | head -1)
        against_base "$BENCH_DIR/base-$cmd.$format" "$new_out" "${args[@]}" --format "$format"
        target=$(awk -v d="$distinct_calls" -v f="$findings" 'BEGIN { printf "%.1f", 64 + (100 * d + 16 * f) / 1048576 }')
        label=$cmd
        [[ $cmd == policy ]] && label="scope + policy.json"
        printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$label" "$format" "$findings" "$base_kb" "$(mib "$new_kb")" "$target" "$same"
    done
done
echo
echo "distinct calls: $distinct_calls; target = 64 MiB + 100 B x distinct calls + 16 B x findings"
