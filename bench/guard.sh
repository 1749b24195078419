#!/usr/bin/env bash
# Time per event of `toolreplay guard` (one process per Claude Code hook event, as
# Claude Code runs it) on sessions that already hold 10, 1,000 and 10,000 calls:
# median and p99 of the wall time of each event, process start included, with
# fsync (the default) and with --no-fsync. See docs/live.md, "Cost".
#
#   bash bench/guard.sh                       # 10 1000 10000 prior calls, 200 events each, 3 runs
#   PRIOR="10 10000" EVENTS=50 bash bench/guard.sh
#
# The last table puts the goal beside its figure: a PreToolUse, --no-fsync, costs
# under 1 ms above `toolreplay version`, flat in the session's length.
#
# Environment: PRIOR (default "10 1000 10000"), EVENTS (timed events per session and
# mode, default 200: half PreToolUse, half PostToolUse), RUNS (default 3: every row
# measured RUNS times, round-robin; the tables give medians over the runs), BENCH_DIR (default
# /tmp/toolreplay-bench-guard), BIN (a toolreplay binary to time; default: build the
# working tree with `cargo build --release --locked`).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$here")
BENCH_DIR=${BENCH_DIR:-/tmp/toolreplay-bench-guard}
PRIOR=${PRIOR:-"10 1000 10000"}
EVENTS=${EVENTS:-200}
RUNS=${RUNS:-3}

die() { echo "bench: $*" >&2; exit 2; }
command -v python3 >/dev/null 2>&1 || die "python3 not found"
[[ $EVENTS =~ ^[1-9][0-9]*$ ]] || die "EVENTS must be a positive integer, got '$EVENTS'"
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive integer, got '$RUNS'"
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

BIN="$BIN" BENCH_DIR="$BENCH_DIR" PRIOR="$PRIOR" EVENTS="$EVENTS" RUNS="$RUNS" \
    POLICY="$repo/samples/claude-code-guard.json" python3 - <<'PY'
import json, os, shutil, subprocess, statistics, time

bin_ = os.environ["BIN"]
bench = os.environ["BENCH_DIR"]
events = int(os.environ["EVENTS"])
runs = int(os.environ["RUNS"])
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

# One run: every session and mode, then the floor (starting the binary at all).
def one_run():
    rows = {}
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
            pre, post = [], []
            for i in range(1, events // 2 + 1):
                pre.append(guard(args, event("PreToolUse", i)) / 1e6)
                post.append(guard(args, event("PostToolUse", i, tool_response=response)) / 1e6)
            check = subprocess.run([bin_, "verify", os.path.join(sessions, f"{SESSION}.jsonl")],
                                   capture_output=True)
            if check.stdout != b"chain: intact\n":
                raise SystemExit("bench: the session does not verify")
            rows[(prior, mode)] = (pre, post)
    floor = [guard([bin_, "version"], b"") / 1e6 for _ in range(100)]
    return rows, floor

results = [one_run() for _ in range(runs)]
median = statistics.median

print(f"| prior calls | mode | events | median ms | p99 ms | min-max ms |")
print(f"| ---: | --- | ---: | ---: | ---: | ---: |")
for key in results[0][0]:
    prior, mode = key
    per_run = [rows[key][0] + rows[key][1] for rows, _ in results]
    every = [t for run in per_run for t in run]
    print(f"| {prior:,} | {mode} | {len(every)} | {median([median(r) for r in per_run]):.2f} "
          f"| {median([p99(r) for r in per_run]):.2f} | {min(every):.2f}-{max(every):.2f} |")
floors = [floor for _, floor in results]
every = [t for floor in floors for t in floor]
print(f"| - | `toolreplay version` (process start) | {len(every)} | "
      f"{median([median(f) for f in floors]):.2f} | {median([p99(f) for f in floors]):.2f} "
      f"| {min(every):.2f}-{max(every):.2f} |")

# The goal: a PreToolUse without fsync, above `toolreplay version` measured in the
# same run; the median over the runs of each run's difference of medians.
print()
print(f"goals (medians of {runs} runs, each run's PreToolUse --no-fsync median minus its "
      f"`toolreplay version` median):")
print()
print("| what | median ms | goal | met |")
print("| --- | ---: | --- | --- |")
added = {}
for (prior, mode) in results[0][0]:
    if mode != "--no-fsync":
        continue
    added[prior] = median([median(rows[(prior, mode)][0]) - median(floor)
                           for rows, floor in results])
    met = "yes" if added[prior] < 1.0 else "no"
    print(f"| PreToolUse above version, {prior:,} prior calls | {added[prior]:.2f} | < 1 ms | {met} |")
if len(added) > 1:
    spread = max(added.values()) - min(added.values())
    print(f"| flat: largest minus smallest of the rows above | {spread:.2f} | < 0.10 ms | "
          f"{'yes' if spread < 0.1 else 'no'} |")
PY
