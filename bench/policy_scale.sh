#!/usr/bin/env bash
# How `scope` scales with the size of a policy: a flow with a million sources,
# 600,000 deny hosts, and a glob list at its bounds (1,000 globs with wildcards and
# 99,000 literal ones). For each policy it times `scope` on an empty transcript
# (reading and compiling the policy) and on CALLS calls, and prints the time per
# call and the peak RSS. Also the memory of `scope` with bench/policy.json on one
# dense line of LINE_MB megabytes (see docs/security.md).
#
#   bash bench/policy_scale.sh                  # release build of the working tree
#   BIN=target/debug/toolreplay CALLS=2000 bash bench/policy_scale.sh
#
# Environment: BIN (default: cargo build --release, then target/release/toolreplay),
# CALLS (default 20000), LINE_MB (default 64; 0 skips the dense line),
# BENCH_DIR (default /tmp/toolreplay-policy-scale).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$here")
BENCH_DIR=${BENCH_DIR:-/tmp/toolreplay-policy-scale}
CALLS=${CALLS:-20000}
LINE_MB=${LINE_MB:-64}

die() { echo "policy_scale: $*" >&2; exit 2; }
[[ -x /usr/bin/time ]] || die "GNU time is needed at /usr/bin/time (apt-get install time)"
command -v python3 >/dev/null 2>&1 || die "python3 not found"
[[ $CALLS =~ ^[0-9]+$ ]] || die "CALLS must be a non-negative integer, got '$CALLS'"
[[ $LINE_MB =~ ^[0-9]+$ ]] || die "LINE_MB must be a non-negative integer, got '$LINE_MB'"

if [[ -z ${BIN:-} ]]; then
    (cd "$repo" && cargo build --release --locked -q) || die "cargo build failed"
    BIN="$repo/target/release/toolreplay"
fi
[[ -x $BIN ]] || die "no binary at $BIN"
mkdir -p "$BENCH_DIR"

python3 - "$BENCH_DIR" "$CALLS" "$LINE_MB" <<'PY'
import json, os, sys
out, calls, line_mb = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def scope(**rules):
    d = {"agent": "a", "allowed_tools": ["fetch_url", "read_file", "send"], "policy_version": 1}
    d.update(rules)
    return d
policies = {
    "flow-1M-sources": scope(flows=[{"name": "f", "sources": [f"src{i}" for i in range(1_000_000)], "sinks": ["send"]}]),
    "deny-hosts-600k": scope(tools={"fetch_url": {"urls": [{"args": ["/url"], "deny_hosts": [f"h{i}.evil.example" for i in range(600_000)] + ["class:private", "10.0.0.0/8"]}]}}),
    "globs-100k": scope(tools={"read_file": {"paths": [{"args": ["/path"], "deny": [f"**/secret{i}/*.k{i % 7}y" for i in range(1_000)] + [f"**/secret{i}.txt" for i in range(99_000)]}]}}),
}
for name, policy in policies.items():
    with open(os.path.join(out, name + ".json"), "w") as f:
        json.dump(policy, f)
with open(os.path.join(out, "empty.jsonl"), "w"):
    pass
with open(os.path.join(out, "calls.jsonl"), "w") as f:
    for i in range(calls):
        tool = ("fetch_url", "read_file", "send", f"src{i}")[i % 4]
        args = {"url": f"https://x{i}.good.example/"} if tool == "fetch_url" else {"path": f"a/b/secret{i * 7}/x{i}.k{(i * 7) % 7 + 1}y"}
        f.write(json.dumps({"index": i, "tool": tool, "args": args, "response": {}}) + "\n")
if line_mb:
    # One record whose response is one dense line: many short strings and numbers;
    # in `dense-hit`, an e-mail address at its end, so the detectors' first pass
    # cannot rule it out and the response is parsed into a tree.
    n = line_mb * 1024 * 1024 // 40
    rows = ",".join(f'{{"id": {i}, "t": "row {i} ok"}}' for i in range(n))
    head = '{"index": 0, "tool": "read_file", "args": {"path": "src/a.rs"}, "response": {"rows": ['
    with open(os.path.join(out, "dense.jsonl"), "w") as f:
        f.write(head + rows + "]}}\n")
    with open(os.path.join(out, "dense-hit.jsonl"), "w") as f:
        f.write(head + rows + '], "note": "mail ana@example.com"}}\n')
PY

measure() { # label transcript policy: prints seconds and peak RSS in KiB
    /usr/bin/time -f '%e %M' -o "$BENCH_DIR/time.txt" "$BIN" scope "$2" "$3" >/dev/null 2>&1 || true
    tail -1 "$BENCH_DIR/time.txt"
}
printf '%-18s %12s %12s %14s %12s\n' policy "read (s)" "RSS (MiB)" "per call (us)" "calls RSS"
for name in flow-1M-sources deny-hosts-600k globs-100k; do
    policy="$BENCH_DIR/$name.json"
    read -r t0 m0 < <(measure empty "$BENCH_DIR/empty.jsonl" "$policy")
    read -r t1 m1 < <(measure calls "$BENCH_DIR/calls.jsonl" "$policy")
    per=$(python3 -c "print(f'{max(0.0, ($t1 - $t0)) / max(1, $CALLS) * 1e6:.1f}')")
    printf '%-18s %12s %12s %14s %12s\n' "$name" "$t0" "$((m0 / 1024))" "$per" "$((m1 / 1024))"
done
if [[ $LINE_MB != 0 ]]; then
    for line in dense dense-hit; do
        size=$(stat -c %s "$BENCH_DIR/$line.jsonl")
        for label in "scope" "scope+policy"; do
            scopefile="$here/scope.json"
            [[ $label == scope+policy ]] && scopefile="$here/policy.json"
            read -r t m < <(measure "$line" "$BENCH_DIR/$line.jsonl" "$scopefile")
            ratio=$(python3 -c "print(f'{$m * 1024 / $size:.1f}')")
            printf '%-9s line %s MiB, %-13s %6s s, peak RSS %6s MiB, %s bytes per input byte\n' \
                "$line" "$((size / 1048576))" "$label" "$t" "$((m / 1024))" "$ratio"
        done
    done
fi
