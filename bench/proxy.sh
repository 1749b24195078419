#!/usr/bin/env bash
# What `toolreplay proxy` adds to a tools/call: round trips to a small MCP server
# (tests/fixtures/proxy/fake_server.py, plain Python) straight and through the proxy,
# with and without fsync, and the throughput of a burst of calls. See bench/README.md.
#
#   bash bench/proxy.sh                        # 2000 timed calls, a burst of 10000
#   CALLS=500 BURST=2000 bash bench/proxy.sh   # quick check
#
# Environment: CALLS (default 2000), BURST (default 10000), BENCH_DIR (default
# /tmp/toolreplay-proxy-bench), BIN (default: build target/release/toolreplay),
# SDK_CALLS (default 300: round trips per SDK row, and rounds per goal run), RUNS
# (default 3: runs of the goal's sessions). With the MCP SDKs (see below), the last
# table puts the goal beside its figure: the proxy adds under 0.1 ms to the median
# round trip of the SDK's client to server-filesystem over stdio, without fsync, and
# under 0.5 ms to the p99; beside it, what a relay that only copies (bench/relay.rs,
# built with rustc) adds.
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

# --- With the official MCP Python SDK's client, over stdio and Streamable HTTP:
# tests/mcp/server.py (FastMCP; over HTTP by tests/mcp/server_http.py) and the
# reference server @modelcontextprotocol/server-filesystem (stdio; through the proxy
# also served over HTTP by --listen). Round trips one after another, and calls per
# second with 8 in flight. Needs TOOLREPLAY_MCP_PYTHON (a Python with
# tests/mcp/requirements.txt) and TOOLREPLAY_MCP_NPM (node_modules/.bin of
# `npm ci --prefix tests/mcp/npm`), as .ci/run sets them.
SDK_CALLS=${SDK_CALLS:-300}
RUNS=${RUNS:-3}
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || { echo "bench: RUNS must be a positive integer, got '$RUNS'" >&2; exit 2; }
if [[ -z "${TOOLREPLAY_MCP_PYTHON:-}" || -z "${TOOLREPLAY_MCP_NPM:-}" ]]; then
    echo
    echo "not measured with the SDK: TOOLREPLAY_MCP_PYTHON and TOOLREPLAY_MCP_NPM are not both set"
    exit 0
fi
py=$TOOLREPLAY_MCP_PYTHON
export PYTHONDONTWRITEBYTECODE=1
echo "remember the milk" > notes.txt
free_port() { "$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_port() { # PORT: until something listens on it
    for _ in $(seq 200); do
        "$py" -c "import socket,sys; socket.create_connection(('127.0.0.1', $1), 1)" 2>/dev/null && return 0
        sleep 0.05
    done
    echo "bench: nothing listens on port $1" >&2; exit 1
}
fresh() { rm -f s.jsonl s.jsonl.state s.jsonl.lock; }
sdk() { # TOOL ARGS MODE TARGET...
    [[ "$3" == http ]] || fresh
    "$py" "$here/proxy_sdk_bench.py" "$SDK_CALLS" "$@" 2>> sdk-stderr.txt || { tail -20 sdk-stderr.txt >&2; exit 1; }
}
listening() { # ARGS...: a proxy listening on a free port; sets proxy_pid and proxy_url
    fresh
    : > proxy-stderr.txt
    "$BIN" proxy --policy sdk-scope.json --seal s.jsonl --listen 127.0.0.1:0 "$@" 2> proxy-stderr.txt &
    proxy_pid=$!
    for _ in $(seq 200); do
        proxy_url=$(sed -n 's/^toolreplay proxy: listening on //p' proxy-stderr.txt)
        [[ -n "$proxy_url" ]] && return 0
        sleep 0.05
    done
    echo "bench: the proxy did not listen" >&2; exit 1
}
cat > sdk-scope.json <<'JSON'
{"agent": "bench", "allowed_tools": ["read_file", "read_text_file"], "policy_version": 1,
 "budgets": {"total": 1000000}, "response_detectors": ["secrets"]}
JSON
rows=()
measure_row() { rows+=("$1|$2"); echo "$1  $2"; }
py_server="$repo/tests/mcp/server.py"
read_args='{"path": "notes.txt"}'
echo
echo "with the MCP Python SDK client: $SDK_CALLS calls one after another, then $SDK_CALLS with 8 in flight"
measure_row "server.py, stdio, direct" "$(sdk read_file "$read_args" stdio "$py" "$py_server")"
measure_row "server.py, stdio, proxy --no-fsync" "$(sdk read_file "$read_args" stdio "$BIN" proxy --policy sdk-scope.json --seal s.jsonl --no-fsync -- "$py" "$py_server")"
measure_row "server.py, stdio, proxy fsync" "$(sdk read_file "$read_args" stdio "$BIN" proxy --policy sdk-scope.json --seal s.jsonl -- "$py" "$py_server")"
port=$(free_port)
"$py" "$repo/tests/mcp/server_http.py" "$port" 2>/dev/null &
server_pid=$!
trap 'kill "$server_pid" 2>/dev/null || true' EXIT
wait_port "$port"
upstream="http://127.0.0.1:$port/mcp"
measure_row "server.py, HTTP, direct" "$(sdk read_file "$read_args" http "$upstream")"
for fsync in --no-fsync ""; do
    listening --upstream "$upstream" $fsync
    measure_row "server.py, HTTP to HTTP, proxy ${fsync:-fsync}" "$(sdk read_file "$read_args" http "$proxy_url")"
    wait "$proxy_pid"
done
kill "$server_pid"; wait "$server_pid" 2>/dev/null || true
fs="$TOOLREPLAY_MCP_NPM/mcp-server-filesystem"
measure_row "server-filesystem, stdio, direct" "$(sdk read_text_file "{\"path\": \"$PWD/notes.txt\"}" stdio "$fs" "$PWD")"
for fsync in --no-fsync ""; do
    measure_row "server-filesystem, stdio, proxy ${fsync:-fsync}" "$(sdk read_text_file "{\"path\": \"$PWD/notes.txt\"}" stdio "$BIN" proxy --policy sdk-scope.json --seal s.jsonl $fsync -- "$fs" "$PWD")"
done
for fsync in --no-fsync ""; do
    listening $fsync -- "$fs" "$PWD"
    measure_row "server-filesystem, HTTP client, proxy ${fsync:-fsync}" "$(sdk read_text_file "{\"path\": \"$PWD/notes.txt\"}" http "$proxy_url")"
    wait "$proxy_pid"
done
"$py" - "${rows[@]}" <<'PY'
import json, sys
print()
print("| | median | p99 | 8 in flight (calls/s) |")
print("| --- | --- | --- | --- |")
for row in sys.argv[1:]:
    name, figures = row.split("|", 1)
    r = json.loads(figures)
    print(f"| {name} | {r['median_us'] / 1000:.2f} ms | {r['p99_us'] / 1000:.2f} ms | {r['in_flight_calls_per_s']:.0f} |")
PY

# --- The goal: what the proxy adds (--no-fsync) to the SDK client's round trip to
# server-filesystem over stdio. RUNS runs of bench/proxy_paired.py: one client with
# three sessions, taking turns call by call (so that what the machine does meanwhile
# falls on all three alike): the server straight, behind bench/relay.rs (a relay that
# only copies: the floor of any process in the path), and behind the proxy. Each
# run's added median and p99 are the differences from the straight session's; the
# table gives the median over the runs, and each process's CPU time per call.
rustc -O --edition 2021 "$here/relay.rs" -o relay ||
    { echo "bench: cannot build bench/relay.rs with rustc" >&2; exit 1; }
goal_runs=()
fs_args="{\"path\": \"$PWD/notes.txt\"}"
for ((run = 1; run <= RUNS; run++)); do
    fresh
    goal_runs+=("$("$py" "$here/proxy_paired.py" "$SDK_CALLS" read_text_file "$fs_args" \
        straight :: "$fs" "$PWD" :: relay :: "$PWD/relay" "$fs" "$PWD" \
        :: proxy :: "$BIN" proxy --policy sdk-scope.json --seal s.jsonl --no-fsync -- "$fs" "$PWD" \
        2>> sdk-stderr.txt)" ) || { tail -20 sdk-stderr.txt >&2; exit 1; }
    "$BIN" verify s.jsonl >/dev/null
done
"$py" - "$SDK_CALLS" "${goal_runs[@]}" <<'PY'
import json, statistics, sys
calls, runs = sys.argv[1], [json.loads(r) for r in sys.argv[2:]]
added = {(who, key): [] for who in ("relay", "proxy") for key in ("median_us", "p99_us")}
print()
print(f"goals: server-filesystem over stdio, the SDK's client, --no-fsync; {len(runs)} runs "
      f"of {calls} rounds, each a call straight, one through bench/relay.rs and one "
      f"through the proxy, in turn")
print()
print("| run | straight median | relay median | proxy median | straight p99 | relay p99 "
      "| proxy p99 | CPU per call: server, relay, proxy |")
print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")


def cpu(figures, who):
    """The CPU time per call of the session's first process, in µs."""
    spent = figures[who]["cpu_us_per_call"]
    return "?" if not spent else f"{next(iter(spent.values())):.0f} µs"


for i, run in enumerate(runs, 1):
    for who in ("relay", "proxy"):
        for key in ("median_us", "p99_us"):
            added[(who, key)].append(run[who][key] - run["straight"][key])
    ms = lambda who, key: f"{run[who][key] / 1000:.3f} ms"
    print(f"| {i} | {ms('straight', 'median_us')} | {ms('relay', 'median_us')} "
          f"| {ms('proxy', 'median_us')} | {ms('straight', 'p99_us')} | {ms('relay', 'p99_us')} "
          f"| {ms('proxy', 'p99_us')} | {cpu(run, 'straight')}, {cpu(run, 'relay')}, "
          f"{cpu(run, 'proxy')} |")
print()
print("| what | median over the runs | goal | met |")
print("| --- | ---: | --- | --- |")
for who, key, name, goal in [
        ("relay", "median_us", "a relay that only copies adds to the median round trip", None),
        ("proxy", "median_us", "the proxy adds to the median round trip", 0.1),
        ("relay", "p99_us", "a relay that only copies adds to the p99 round trip", None),
        ("proxy", "p99_us", "the proxy adds to the p99 round trip", 0.5)]:
    value = statistics.median(added[(who, key)]) / 1000
    met = "" if goal is None else ("yes" if value < goal else "no")
    print(f"| {name} | {value:.3f} ms | {'' if goal is None else f'< {goal} ms'} | {met} |")
PY
