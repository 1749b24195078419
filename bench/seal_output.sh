#!/usr/bin/env bash
# `seal T -o OUT` of two builds beside `openssl dgst -sha256 T`, taken round-robin
# (base, new, openssl) on each transcript given, so that all three see the machine at
# the same moments; prints per transcript the medians of wall, user and system time,
# CPU time (user + system), the largest peak RSS, and the ratios of the new build to
# the base and to openssl. The sealed files of both builds are compared first.
#
#   bash bench/seal_output.sh BASE_BIN NEW_BIN T.jsonl [T2.jsonl ...]
#   RUNS=3 bash bench/seal_output.sh /tmp/base/toolreplay target/release/toolreplay /tmp/t.jsonl
#
# Environment: RUNS (default 5), OUT_DIR (default a temporary folder, removed at the
# end), where the sealed files are written: on the file system to measure.
set -euo pipefail

die() { echo "seal_output: $*" >&2; exit 2; }
[[ $# -ge 3 ]] || die "usage: seal_output.sh BASE_BIN NEW_BIN TRANSCRIPT..."
[[ -x /usr/bin/time ]] || die "GNU time is needed (apt-get install time)"
command -v openssl > /dev/null || die "openssl is needed"
RUNS=${RUNS:-5}
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive integer"
base=$1 new=$2
shift 2
[[ -x $base && -x $new ]] || die "both binaries must be executable"
if [[ -n ${OUT_DIR:-} ]]; then
    out_dir=$OUT_DIR
    mkdir -p "$out_dir"
else
    out_dir=$(mktemp -d)
    trap 'rm -rf "$out_dir"' EXIT
fi

for transcript in "$@"; do
    [[ -r $transcript ]] || die "cannot read $transcript"
    "$base" seal "$transcript" -o "$out_dir/base.sealed"
    "$new" seal "$transcript" -o "$out_dir/new.sealed"
    cmp "$out_dir/base.sealed" "$out_dir/new.sealed" || die "the sealed files differ"
    rm -f "$out_dir/base.sealed" "$out_dir/new.sealed"
    raw="$out_dir/times"
    : > "$raw"
    for _ in $(seq "$RUNS"); do
        /usr/bin/time -a -o "$raw" -f "base %e %U %S %M" "$base" seal "$transcript" -o "$out_dir/out"
        /usr/bin/time -a -o "$raw" -f "new %e %U %S %M" "$new" seal "$transcript" -o "$out_dir/out"
        /usr/bin/time -a -o "$raw" -f "openssl %e %U %S %M" openssl dgst -sha256 "$transcript" > /dev/null
    done
    rm -f "$out_dir/out"
    echo "== $transcript ($RUNS rounds)"
    python3 - "$raw" <<'EOF'
import statistics as st
import sys

runs = {}
for line in open(sys.argv[1]):
    name, wall, user, system, rss = line.split()
    runs.setdefault(name, []).append((float(wall), float(user), float(system), int(rss) / 1024))
med = lambda name, f: st.median(f(r) for r in runs[name])
print("| command | wall s | user s | sys s | CPU s | peak RSS MiB |")
print("| --- | --- | --- | --- | --- | --- |")
for name in ("base", "new", "openssl"):
    print(f"| {name} | {med(name, lambda r: r[0]):.2f} | {med(name, lambda r: r[1]):.2f} "
          f"| {med(name, lambda r: r[2]):.2f} | {med(name, lambda r: r[1] + r[2]):.2f} "
          f"| {max(r[3] for r in runs[name]):.1f} |")
cpu = lambda name: med(name, lambda r: r[1] + r[2])
wall = lambda name: med(name, lambda r: r[0])
print(f"new / base: CPU {cpu('new') / cpu('base'):.2f}, wall {wall('new') / wall('base'):.2f}; "
      f"x openssl, wall: base {wall('base') / wall('openssl'):.2f}, new {wall('new') / wall('openssl'):.2f}; "
      f"CPU: base {cpu('base') / cpu('openssl'):.2f}, new {cpu('new') / cpu('openssl'):.2f}")
EOF
done
