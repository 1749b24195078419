#!/usr/bin/env bash
# Benchmark toolreplay (replay, scope with and without a policy, seal, verify)
# against `openssl dgst -sha256` on generated transcripts of several sizes. See
# bench/README.md.
#
#   bash bench/run.sh                              # 10MiB 100MiB 1GiB, 5 runs each
#   SIZES=10MiB RUNS=3 bash bench/run.sh           # quick check
#   SHAPE=repeats SIZES=1GiB bash bench/run.sh     # the transcript of many findings
#
# Environment: SHAPE (default: bench/gen_transcript.py's transcript; repeats:
# bench/gen_repeats.py's, calls repeating a lot with long lines of random text;
# "default repeats": both), SIZES (default "10MiB 100MiB 1GiB"), RUNS (default 5),
# SEED (default: the generator's), BENCH_DIR (default /tmp/toolreplay-bench),
# REV (default: build the working tree; a commit: build that commit), BIN (a
# toolreplay binary to time instead of building one; not with REV).
#
# The last table, "goals", puts each goal of the performance work beside the
# figure this run measured (medians of RUNS runs, taken side by side).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$here")
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
BENCH_DIR=${BENCH_DIR:-/tmp/toolreplay-bench}
SIZES=${SIZES:-"10MiB 100MiB 1GiB"}
RUNS=${RUNS:-5}
SEED=${SEED:-20240601}
SHAPE=${SHAPE:-default}
COMMANDS=(replay scope scope-policy samples-scope samples-policy seal write verify openssl)
SCOPE="$here/scope.json"    # names only: the plain scope audit
POLICY="$here/policy.json"  # the same scope with a policy using every kind of rule
# The samples' scope and policy, whose ratio is a goal (see the goals table): names
# only, and a policy whose small budgets make a finding of almost every call.
SAMPLES_SCOPE="$repo/samples/scope.json"
SAMPLES_POLICY="$repo/samples/policy.json"

die() { echo "bench: $*" >&2; exit 2; }

# ---- prerequisites -----------------------------------------------------------
command -v openssl >/dev/null 2>&1 ||
    die "openssl not found; it is the reference (install it, e.g. apt-get install openssl)"
[[ -x /usr/bin/time ]] ||
    die "/usr/bin/time not found; GNU time is needed for peak RSS (install it, e.g. apt-get install time)"
/usr/bin/time -f '%e %M' -o /dev/null true 2>/dev/null ||
    die "/usr/bin/time does not accept -f/-o; GNU time is needed (apt-get install time)"
command -v python3 >/dev/null 2>&1 || die "python3 (3.11 or newer) not found"
python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' ||
    die "python3 is $(python3 -V 2>&1 | cut -d' ' -f2); 3.11 or newer is needed"
command -v cargo >/dev/null 2>&1 || die "cargo not found"
[[ ${BASH_VERSINFO[0]} -ge 5 ]] || die "bash 5 or newer is needed (EPOCHREALTIME)"
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive integer, got '$RUNS'"
[[ $RUNS -ge 3 ]] || echo "bench: RUNS=$RUNS: the goals table wants medians of at least 3 runs" >&2
[[ $SEED =~ ^[0-9]+$ ]] || die "SEED must be a non-negative integer, got '$SEED'"
for shape in $SHAPE; do
    [[ $shape == default || $shape == repeats ]] ||
        die "bad shape '$shape' in SHAPE (use default, repeats or both)"
done
for size in $SIZES; do
    [[ $size =~ ^[0-9]+(B|KiB|MiB|GiB)?$ ]] || die "bad size '$size' in SIZES (use e.g. 10MiB, 1GiB)"
done
mkdir -p "$BENCH_DIR"

# ---- machine -------------------------------------------------------------------
cpu=$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//' || true)
if grep -qw sha_ni /proc/cpuinfo; then sha_ni=yes; else sha_ni=no; fi
echo "== machine"
echo "cpus (nproc):  $(nproc)"
echo "cpu model:     ${cpu:-unknown}"
echo "sha_ni flag:   $sha_ni"
echo "memory:        $(awk '/^MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
echo "load average:  $(cut -d' ' -f1-3 /proc/loadavg) (at start)"
echo "kernel:        $(uname -sr)"
echo "openssl:       $(openssl version)"
echo "rustc:         $(rustc --version 2>/dev/null || echo unknown)"

# ---- build -----------------------------------------------------------------------
# Default: the working tree. REV=<commit> builds that commit instead, exported with
# `git archive` into BENCH_DIR (the repository is not touched), to get a baseline
# while the working tree changes. Either way the binary is copied into BENCH_DIR so
# that a rebuild during the benchmark cannot change what is measured.
bin="$BENCH_DIR/toolreplay"
if [[ -n ${BIN:-} ]]; then
    [[ -z ${REV:-} ]] || die "BIN and REV name two binaries: give one"
    [[ -x $BIN ]] || die "BIN '$BIN' is not an executable"
    built=$BIN
    rev="$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown), the binary BIN=$BIN"
elif [[ -n ${REV:-} ]]; then
    sha=$(git -C "$repo" rev-parse --verify --quiet "$REV^{commit}") ||
        die "REV '$REV' is not a commit of $repo"
    src="$BENCH_DIR/src-${sha:0:12}"
    if [[ ! -f $src/.exported ]]; then
        rm -rf "$src" && mkdir -p "$src"
        git -C "$repo" archive "$sha" | tar -x -C "$src"
        touch "$src/.exported"
    fi
    (cd "$src" && CARGO_TARGET_DIR="$src/target" cargo build --release --locked) >&2
    built="$src/target/release/toolreplay"
    rev="${sha:0:7} (REV=$REV, built from an exported copy)"
else
    built=$(built_binary)
    rev="$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown), working tree"
    if [[ -n $(git -C "$repo" status --porcelain -- src Cargo.toml Cargo.lock 2>/dev/null) ]]; then
        rev="$rev with uncommitted changes in src/ or Cargo.*"
    fi
fi
cp "$built" "$bin.tmp" && mv "$bin.tmp" "$bin"
echo "toolreplay:    $("$bin" --version), commit $rev"
echo "runs:          $RUNS per command per size, round-robin; seed $SEED"
echo "bench dir:     $BENCH_DIR"
echo

results="$BENCH_DIR/results-$(date +%Y%m%d-%H%M%S).tsv"
printf 'size\tbytes\tcommand\trun\twall_s\ttime_e_s\tmaxrss_kib\tuser_s\tsys_s\n' > "$results"
tfile=$(mktemp "$BENCH_DIR/time.XXXXXX")
efile=$(mktemp "$BENCH_DIR/stderr.XXXXXX")
trap 'rm -f "$tfile" "$efile"' EXIT


# Prints the tables from the results file: `table SIZE` or `table growth`; sizes
# are named with their shape (`1GiB`, `1GiB-repeats`).
table() {
    python3 - "$results" "$1" <<'PY'
import statistics, sys
path, which = sys.argv[1], sys.argv[2]
rows = [l.rstrip("\n").split("\t") for l in open(path)][1:]
label = {"replay": "toolreplay replay T", "scope": "toolreplay scope T P",
         "scope-policy": "toolreplay scope T POLICY",
         "samples-scope": "scope T samples/scope", "samples-policy": "scope T samples/policy",
         "seal": "toolreplay seal T -o OUT",
         "write": "dd S to OUT, fsync",
         "verify": "toolreplay verify S", "openssl": "openssl dgst -sha256 T"}
order = ["replay", "scope", "scope-policy", "samples-scope", "samples-policy", "seal", "write",
         "verify", "openssl"]
def stats(size, cmd):
    rs = [r for r in rows if r[0] == size and r[2] == cmd]
    wall = [float(r[4]) for r in rs]
    return (int(rs[0][1]), statistics.median(wall), min(wall), max(wall),
            statistics.median(int(r[6]) for r in rs) / 1024,
            statistics.median(float(r[7]) + float(r[8]) for r in rs))
if which == "goals":
    # Each goal of the performance work beside what this run measured: a ratio of
    # medians over the same runs, round-robin, so the load falls on both alike.
    sizes = list(dict.fromkeys(r[0] for r in rows))
    goals = [("verify", "verify", "openssl", 0.70, None),
             ("seal -o", "seal", "openssl", 1.30, None),
             ("replay", "replay", "openssl", 1.10, False),
             ("replay, repeats shape", "replay", "openssl", 1.50, True),
             ("scope samples/policy.json / samples/scope.json", "samples-policy",
              "samples-scope", 2.00, None)]
    print(f"| what | size | runs | median s | ratio | goal | met |")
    print(f"| --- | --- | ---: | ---: | ---: | ---: | --- |")
    for what, cmd, ref, goal, repeats in goals:
        for s in sizes:
            if repeats is not None and s.endswith("-repeats") != repeats:
                continue
            runs = sum(1 for r in rows if r[0] == s and r[2] == cmd)
            med, base = stats(s, cmd)[1], stats(s, ref)[1]
            unit = "x openssl" if ref == "openssl" else "x"
            print(f"| {what} | {s} | {runs} | {med:.3f} | {med / base:.2f} | {goal:.2f} {unit} "
                  f"| {'yes' if med / base <= goal else 'no'} |")
elif which != "growth":
    ref = stats(which, "openssl")[1]
    print(f"{'command':<26} {'median s':>9} {'min-max s':>15} {'x openssl':>10} "
          f"{'MB/s':>8} {'RSS MiB':>8} {'cpu s':>7}")
    for c in order:
        size, med, lo, hi, rss, cpu = stats(which, c)
        print(f"{label[c]:<26} {med:>9.3f} {f'{lo:.3f}-{hi:.3f}':>15} {med / ref:>10.2f} "
              f"{size / med / 1e6:>8.1f} {rss:>8.1f} {cpu:>7.2f}")
    plain, policy = stats(which, "scope"), stats(which, "scope-policy")
    print(f"scope with a policy / plain scope: {policy[1] / plain[1]:.2f}x wall (medians), "
          f"{policy[5] / max(plain[5], 0.01):.2f}x cpu")
    plain, policy = stats(which, "samples-scope"), stats(which, "samples-policy")
    print(f"samples/policy.json / samples/scope.json: {policy[1] / plain[1]:.2f}x wall "
          f"(medians), {policy[5] / max(plain[5], 0.01):.2f}x cpu")
else:
    sizes = list(dict.fromkeys(r[0] for r in rows))
    print(f"{'command':<26} {'size':>7} {'median s':>9} {'s per GiB':>10} "
          f"{'cpu s/GiB':>10} {'RSS MiB':>8}")
    for c in order:
        for s in sizes:
            size, med, lo, hi, rss, cpu = stats(s, c)
            print(f"{label[c]:<26} {s:>7} {med:>9.3f} {med / size * 2**30:>10.2f} "
                  f"{cpu / size * 2**30:>10.2f} {rss:>8.1f}")
PY
}

# Runs one timed command; appends a row to the results file.
measure() { # size bytes name run ok-exit-codes argv...
    local size=$1 bytes=$2 name=$3 run=$4 ok=$5 rc=0 start end e m u s
    shift 5
    start=$EPOCHREALTIME
    # %e elapsed s, %M peak RSS KiB; %U %S (CPU s) show the cost apart from contention.
    /usr/bin/time -f '%e %M %U %S' -o "$tfile" "$@" >/dev/null 2>"$efile" || rc=$?
    end=$EPOCHREALTIME
    if [[ " $ok " != *" $rc "* ]]; then
        cat "$efile" >&2
        die "$name on $size exited $rc (expected $ok): $*"
    fi
    read -r e m u s < <(tail -n1 "$tfile")
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$size" "$bytes" "$name" "$run" \
        "$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.6f", b - a }')" "$e" "$m" "$u" "$s" \
        >> "$results"
}

for shape in $SHAPE; do
for gsize in $SIZES; do
    if [[ $shape == default ]]; then
        generator="$here/gen_transcript.py" name=transcript size=$gsize
    else
        generator="$here/gen_repeats.py" name=repeats size="$gsize-repeats"
    fi
    # Both generators write through bench/gen_transcript.py, so its hash counts too.
    gen_hash=$(cat "$generator" "$here/gen_transcript.py" | sha256sum | cut -c1-16)
    T="$BENCH_DIR/$name-$gsize-seed$SEED.jsonl"
    S="$BENCH_DIR/sealed-$size-seed$SEED.jsonl"
    OUT="$BENCH_DIR/out-$size.jsonl"
    FLOOR="$BENCH_DIR/floor-$size.jsonl"
    want="size=$gsize seed=$SEED generator=$gen_hash"
    if [[ -f $T && -f $T.meta && "$(head -n1 "$T.meta")" == "$want" &&
          "$(sed -n 2p "$T.meta")" == "bytes=$(stat -c %s "$T")" ]]; then
        echo "== $size: reusing $T" >&2
    else
        echo "== $size: generating $T" >&2
        rm -f "$T.meta"
        python3 "$generator" --size "$gsize" --seed "$SEED" -o "$T" 2>"$efile" ||
            { cat "$efile" >&2; die "generating $T failed"; }
        cat "$efile" >&2
        { echo "$want"; echo "bytes=$(stat -c %s "$T")"; cat "$efile"; } > "$T.meta"
    fi
    bytes=$(stat -c %s "$T")
    distinct=$(sed -n 's/^distinct calls: //p' "$T.meta")

    # Untimed sanity pass, which also warms the page cache: replay must accept the
    # transcript (exit 0 or 1, never 2), the seal must verify intact.
    rc=0
    "$bin" replay "$T" > "$efile" || rc=$?
    [[ $rc == 0 || $rc == 1 ]] || die "replay rejected $T (exit $rc)"
    calls=$(sed -n 's/^calls: //p' "$efile")
    findings=$(sed -n 's/^findings: //p' "$efile")
    rc=0
    "$bin" scope "$T" "$SCOPE" > "$efile" || rc=$?
    [[ $rc == 0 || $rc == 1 ]] || die "scope rejected $T (exit $rc)"
    scope_findings=$(sed -n 's/^findings: //p' "$efile")
    rc=0
    "$bin" scope "$T" "$POLICY" > "$efile" || rc=$?
    [[ $rc == 0 || $rc == 1 ]] || die "scope with the policy rejected $T (exit $rc)"
    policy_findings=$(sed -n 's/^findings: //p' "$efile")
    for scope_file in "$SAMPLES_SCOPE" "$SAMPLES_POLICY"; do
        rc=0
        "$bin" scope "$T" "$scope_file" > "$efile" || rc=$?
        [[ $rc == 0 || $rc == 1 ]] || die "scope with $scope_file rejected $T (exit $rc)"
    done
    "$bin" seal "$T" -o "$S" || die "sealing $T failed"
    [[ "$("$bin" verify "$S")" == "chain: intact" ]] || die "verify of fresh seal $S is not intact"

    echo "== $size: T = $bytes bytes, $calls records, $distinct distinct calls," \
         "$findings replay findings, $scope_findings scope findings," \
         "$policy_findings with the policy; S = $(stat -c %s "$S") bytes"
    for ((run = 1; run <= RUNS; run++)); do
        for name in "${COMMANDS[@]}"; do
            case $name in
                replay)  measure "$size" "$bytes" replay "$run" "0 1" "$bin" replay "$T" ;;
                scope)   measure "$size" "$bytes" scope "$run" "0 1" "$bin" scope "$T" "$SCOPE" ;;
                scope-policy)
                         measure "$size" "$bytes" scope-policy "$run" "0 1" \
                             "$bin" scope "$T" "$POLICY" ;;
                samples-scope)
                         measure "$size" "$bytes" samples-scope "$run" "0 1" \
                             "$bin" scope "$T" "$SAMPLES_SCOPE" ;;
                samples-policy)
                         measure "$size" "$bytes" samples-policy "$run" "0 1" \
                             "$bin" scope "$T" "$SAMPLES_POLICY" ;;
                seal)    rm -f "$OUT"
                         measure "$size" "$bytes" seal "$run" "0" "$bin" seal "$T" -o "$OUT" ;;
                # What writing the sealed file's bytes costs on this disk, with the
                # fsync seal -o makes before its rename: the floor under seal -o.
                write)   rm -f "$FLOOR"
                         measure "$size" "$bytes" write "$run" "0" \
                             dd if="$S" of="$FLOOR" bs=1M conv=fsync status=none ;;
                verify)  measure "$size" "$bytes" verify "$run" "0" "$bin" verify "$S" ;;
                openssl) measure "$size" "$bytes" openssl "$run" "0" openssl dgst -sha256 "$T" ;;
            esac
        done
    done
    cmp -s "$OUT" "$S" || die "seal -o output differs from the first seal of $T"
    rm -f "$OUT" "$FLOOR"
    table "$size"
    echo
done
done

echo "== growth (medians; linear time shows as a constant 's per GiB', flat memory as a constant RSS)"
table growth
echo
echo "== goals (medians of $RUNS runs each, taken side by side in this run)"
table goals
echo
echo "load average:  $(cut -d' ' -f1-3 /proc/loadavg) (at end)"
echo "raw results:   $results"
