#!/usr/bin/env bash
# Time per event of `toolreplay guard` (one process per Claude Code hook event, as
# Claude Code runs it) on sessions that already hold 10, 1,000 and 10,000 calls:
# median and p99 of the wall time of each event, process start included, with
# fsync (the default) and with --no-fsync. See docs/live.md, "Cost".
#
#   bash bench/guard.sh                       # 10 1000 10000 prior calls, 200 events each
#   PRIOR="10 10000" EVENTS=50 bash bench/guard.sh
#
# Environment: PRIOR (default "10 1000 10000"), EVENTS (timed events per session and
# mode, default 200: half PreToolUse, half PostToolUse), BENCH_DIR (default
# /tmp/toolreplay-bench-guard), BIN (a toolreplay binary to time; default: build the
# working tree with `cargo build --release --locked`).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$here")
BENCH_DIR=${BENCH_DIR:-/tmp/toolreplay-bench-guard}
PRIOR=${PRIOR:-"10 1000 10000"}
EVENTS=${EVENTS:-200}

die() { echo "bench: $*" >&2; exit 2; }
command -v python3 >/dev/null 2>&1 || die "python3 not found"
[[ $EVENTS =~ ^[1-9][0-9]*$ ]] || die "EVENTS must be a positive integer, got '$EVENTS'"
for n in $PRIOR; do
    [[ $n =~ ^[0-9]+$ ]] || die "PRIOR must hold non-negative integers, got '$n'"
done

mkdir -p "$BENCH_DIR"
if [[ -z ${BIN:-} ]]; then
    (cd "$repo" && cargo build --release --locked --quiet) || die "cargo build failed"
    cp "$repo/target/release/toolreplay" "$BENCH_DIR/toolreplay"
    BIN="$BENCH_DIR/toolreplay"
fi
[[ -x $BIN ]] || die "BIN '$BIN' is not an executable"

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
echo "disk of $BENCH_DIR: $(df -hT "$BENCH_DIR" | awk 'NR==2 {print $2}')"
echo "binary: $BIN ($("$BIN" version))"
echo "commit: $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo

BIN="$BIN" BENCH_DIR="$BENCH_DIR" PRIOR="$PRIOR" EVENTS="$EVENTS" \
    POLICY="$repo/samples/claude-code-guard.json" python3 - <<'PY'
import json, os, shutil, subprocess, statistics, time

bin_ = os.environ["BIN"]
bench = os.environ["BENCH_DIR"]
events = int(os.environ["EVENTS"])
root = "/home/dev/project"

# The sample policy without its budgets, so that no prior call count denies.
with open(os.environ["POLICY"]) as f:
    policy = json.load(f)
policy.pop("budgets", None)
# Its roots are relative to the project: here, the sessions' `cwd`.
for rules in policy.get("tools", {}).values():
    for rule in rules.get("paths", []):
        if rule.get("root") == ".":
            rule["root"] = root
policy_path = os.path.join(bench, "scope.json")
with open(policy_path, "w") as f:
    json.dump(policy, f)

SESSION = "bench-session"

def event(name, i, **extra):
    e = {
        "session_id": SESSION,
        "transcript_path": f"/home/dev/.claude/projects/p/{SESSION}.jsonl",
        "cwd": root,
        "permission_mode": "default",
        "hook_event_name": name,
        "tool_name": "Read",
        "tool_input": {"file_path": f"{root}/src/file{i % 97}.rs"},
        "tool_use_id": f"toolu_{i:08d}",
    }
    e.update(extra)
    return json.dumps(e).encode()

def prepare(prior, sessions):
    """A session of `prior` calls sealed by `seal`, its state rebuilt by one
    untimed event pair."""
    shutil.rmtree(sessions, ignore_errors=True)
    os.makedirs(sessions)
    plain = os.path.join(sessions, "plain.jsonl")
    with open(plain, "w") as f:
        for i in range(prior):
            f.write(json.dumps({
                "index": i, "tool": "Read",
                "args": {"file_path": f"{root}/src/file{i % 97}.rs"},
                "response": {"type": "text", "file": {"content": "x" * 200, "numLines": 1}},
            }) + "\n")
    sealed = os.path.join(sessions, f"{SESSION}.jsonl")
    with open(sealed, "wb") as out:
        subprocess.run([bin_, "seal", plain], stdout=out, check=True)
    os.remove(plain)

def guard(args, payload):
    start = time.perf_counter_ns()
    run = subprocess.run(args, input=payload, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    elapsed = time.perf_counter_ns() - start
    if run.returncode != 0:
        raise SystemExit(f"bench: guard exited {run.returncode}: {run.stderr.decode()}")
    return elapsed

def p99(values):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]

rows = []
for prior in [int(n) for n in os.environ["PRIOR"].split()]:
    for mode in ["fsync", "--no-fsync"]:
        sessions = os.path.join(bench, f"sessions-{prior}")
        prepare(prior, sessions)
        args = [bin_, "guard", "--policy", policy_path, "--dir", sessions]
        if mode != "fsync":
            args.append("--no-fsync")
        response = {"type": "text", "file": {"content": "x" * 200, "numLines": 1}}
        # Untimed: the first event rebuilds the state from the file.
        guard(args, event("PreToolUse", 0))
        guard(args, event("PostToolUse", 0, tool_response=response))
        times = []
        for i in range(1, events // 2 + 1):
            times.append(guard(args, event("PreToolUse", i)))
            times.append(guard(args, event("PostToolUse", i, tool_response=response)))
        check = subprocess.run([bin_, "verify", os.path.join(sessions, f"{SESSION}.jsonl")],
                               capture_output=True)
        if check.stdout != b"chain: intact\n":
            raise SystemExit("bench: the session does not verify")
        ms = [t / 1e6 for t in times]
        rows.append((prior, mode, len(ms), statistics.median(ms), p99(ms), min(ms), max(ms)))

# The floor: starting the binary at all.
floor = [guard([bin_, "version"], b"") / 1e6 for _ in range(100)]

print(f"| prior calls | mode | events | median ms | p99 ms | min-max ms |")
print(f"| ---: | --- | ---: | ---: | ---: | ---: |")
for prior, mode, n, med, p, lo, hi in rows:
    print(f"| {prior:,} | {mode} | {n} | {med:.2f} | {p:.2f} | {lo:.2f}-{hi:.2f} |")
print(f"| - | `toolreplay version` (process start) | 100 | {statistics.median(floor):.2f} | {p99(floor):.2f} | {min(floor):.2f}-{max(floor):.2f} |")
PY
