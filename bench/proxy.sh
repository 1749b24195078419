#!/usr/bin/env bash
# What `toolreplay proxy` adds to a tools/call: round trips to a small MCP server
# (tests/fixtures/proxy/fake_server.py, plain Python) straight and through the proxy,
# with and without fsync, and the throughput of a burst of calls. See bench/README.md.
#
#   bash bench/proxy.sh                        # 2000 timed calls, a burst of 10000
#   CALLS=500 BURST=2000 bash bench/proxy.sh   # quick check
#
# Environment: CALLS (default 2000), BURST (default 10000), BENCH_DIR (default
# /tmp/toolreplay-proxy-bench), BIN (default: build target/release/toolreplay).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$here")
CALLS=${CALLS:-2000}
BURST=${BURST:-10000}
BENCH_DIR=${BENCH_DIR:-/tmp/toolreplay-proxy-bench}
server="$repo/tests/fixtures/proxy/fake_server.py"

command -v python3 >/dev/null 2>&1 || { echo "bench: python3 not found" >&2; exit 2; }
if [[ -z "${BIN:-}" ]]; then
    cargo build --release --manifest-path "$repo/Cargo.toml" >&2
    BIN="$repo/target/release/toolreplay"
fi

rm -rf "$BENCH_DIR" && mkdir -p "$BENCH_DIR" && cd "$BENCH_DIR"
cat > scope.json <<'JSON'
{"agent": "bench", "allowed_tools": ["echo"], "policy_version": 1,
 "budgets": {"total": 1000000}, "response_detectors": ["secrets"]}
JSON

run() { # CMD...: the client waits for the proxy to exit, so the next run starts clean
    rm -f s.jsonl s.jsonl.state s.jsonl.lock
    python3 "$here/proxy_bench.py" "$CALLS" "$BURST" -- "$@" 2> stderr.txt ||
        { cat stderr.txt >&2; exit 1; }
}

echo "calls: $CALLS timed one after another, then a burst of $BURST"
echo "machine: $(nproc) cores, $(uname -sr)"
direct=$(run python3 "$server")
echo "direct          $direct"
nofsync=$(run "$BIN" proxy --policy scope.json --seal s.jsonl --no-fsync -- python3 "$server")
echo "proxy no-fsync  $nofsync"
"$BIN" verify s.jsonl >/dev/null
fsync=$(run "$BIN" proxy --policy scope.json --seal s.jsonl -- python3 "$server")
echo "proxy fsync     $fsync"
"$BIN" verify s.jsonl >/dev/null
python3 - "$direct" "$nofsync" "$fsync" <<'PY'
import json, sys
direct, nofsync, fsync = (json.loads(s) for s in sys.argv[1:])
print()
print("| | median | p99 | burst (calls/s) |")
print("| --- | --- | --- | --- |")
for name, r in [("server alone", direct), ("through the proxy, --no-fsync", nofsync), ("through the proxy, fsync", fsync)]:
    print(f"| {name} | {r['median_us']:.0f} µs | {r['p99_us']:.0f} µs | {r['burst_calls_per_s']:.0f} |")
print()
for name, r in [("--no-fsync", nofsync), ("fsync", fsync)]:
    print(f"added by the proxy ({name}): median {r['median_us'] - direct['median_us']:.0f} µs, p99 {r['p99_us'] - direct['p99_us']:.0f} µs")
PY
