#!/usr/bin/env bash
# Import speed: MB/s of `toolreplay import` on a large Claude Code session and a large
# Codex CLI rollout, beside `jq -c .` on the same file (a JSON parser that only
# re-prints each line: a floor for any reader of these logs). See bench/README.md.
#
#   bash bench/import.sh                       # 100MiB inputs, 3 runs each
#   SIZE=10MiB RUNS=1 bash bench/import.sh     # quick check
#   BIN=target/debug/toolreplay SIZE=2MiB RUNS=1 bash bench/import.sh   # no build
#
# The inputs are made by repeating real content: the Claude Code session of
# ../shared/data/transcripts/claude-code/ (its tool ids made unique per repeat, so
# every call is imported, none merged as a repeat), and the Codex rollout fixture of
# tests/fixtures/import/ (its call ids made unique likewise).
#
# Environment: SIZE (default 100MiB; KiB, MiB, GiB), RUNS (default 3),
# BENCH_DIR (default /tmp/toolreplay-bench-import), BIN (default: build release).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$here")
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
SIZE=${SIZE:-100MiB}
RUNS=${RUNS:-3}
BENCH_DIR=${BENCH_DIR:-/tmp/toolreplay-bench-import}
CLAUDE="$repo/../shared/data/transcripts/claude-code/viewer-5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"
CODEX="$repo/tests/fixtures/import/codex.jsonl"

die() { echo "bench: $*" >&2; exit 2; }

command -v jq >/dev/null 2>&1 || die "jq not found; it is the reference (apt-get install jq)"
command -v python3 >/dev/null 2>&1 || die "python3 not found"
[[ ${BASH_VERSINFO[0]} -ge 5 ]] || die "bash 5 or newer is needed (EPOCHREALTIME)"
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive integer, got '$RUNS'"
[[ -f $CLAUDE ]] || die "$CLAUDE is missing (../shared/data)"
[[ -f $CODEX ]] || die "$CODEX is missing"
case $SIZE in
    *KiB) bytes=$(( ${SIZE%KiB} * 1024 )) ;;
    *MiB) bytes=$(( ${SIZE%MiB} * 1024 * 1024 )) ;;
    *GiB) bytes=$(( ${SIZE%GiB} * 1024 * 1024 * 1024 )) ;;
    *) die "SIZE must end with KiB, MiB or GiB, got '$SIZE'" ;;
esac

if [[ -z ${BIN:-} ]]; then
    BIN=$(built_binary)
fi
[[ -x $BIN ]] || die "$BIN is not an executable"

mkdir -p "$BENCH_DIR"

# repeat SOURCE OUT PATTERN: repeats SOURCE's lines until OUT holds at least `bytes`
# bytes, making every id matching PATTERN unique to its repeat.
repeat() {
    python3 - "$1" "$2" "$3" "$bytes" <<'PY'
import re, sys
source, out, pattern, size = sys.argv[1], sys.argv[2], re.compile(sys.argv[3]), int(sys.argv[4])
lines = open(source, encoding="utf-8").read().splitlines()
written, n = 0, 0
with open(out, "w", encoding="utf-8") as f:
    while written < size:
        for line in lines:
            text = pattern.sub(lambda m: f"{m.group(0)}_r{n}", line) + "\n"
            f.write(text)
            written += len(text.encode("utf-8"))
        n += 1
PY
}

claude="$BENCH_DIR/claude-code-$SIZE.jsonl"
codex="$BENCH_DIR/codex-$SIZE.jsonl"
[[ -f $claude ]] || repeat "$CLAUDE" "$claude" 'toolu_[A-Za-z0-9]+|"uuid": ?"[^"]+|"parentUuid": ?"[^"]+|msg_[A-Za-z0-9]+'
[[ -f $codex ]] || repeat "$CODEX" "$codex" 'call_[0-9]+'

# best SECONDS of RUNS runs of a command, its output to /dev/null
best() {
    local best=
    for _ in $(seq "$RUNS"); do
        local start=$EPOCHREALTIME
        "$@" >/dev/null 2>&1 || die "failed: $*"
        local end=$EPOCHREALTIME
        local took
        took=$(python3 -c "print(f'{$end - $start:.3f}')")
        if [[ -z $best ]] || python3 -c "import sys; sys.exit(not ($took < $best))"; then
            best=$took
        fi
    done
    echo "$best"
}

printf '%-12s %-10s %10s %10s %10s\n' input command MB seconds MB/s
for input in "$claude:claude-code" "$codex:codex"; do
    file=${input%%:*}
    format=${input##*:}
    size=$(stat -c %s "$file")
    mb=$(python3 -c "print(f'{$size / 1e6:.1f}')")
    calls=$("$BIN" import --from "$format" "$file" 2>/dev/null | wc -l)
    [[ $calls -gt 0 ]] || die "no call imported from $file"
    for command in import jq; do
        case $command in
            import) took=$(best "$BIN" import --from "$format" "$file") ;;
            jq) took=$(best jq -c . "$file") ;;
        esac
        rate=$(python3 -c "print(f'{$size / 1e6 / max($took, 1e-9):.1f}')")
        printf '%-12s %-10s %10s %10s %10s\n' "$format" "$command" "$mb" "$took" "$rate"
    done
    echo "($format: $calls calls)"
done
