#!/usr/bin/env bash
# What a command rule costs on the strings that cost its shell parser the most: the
# shapes on which the parser's backtracking takes time exponential in their length
# (each refused by its budget of steps, see docs/policy.md), long but ordinary
# scripts, and many words with wildcards held against `protect`. Each is one Bash
# call judged by `scope` with samples/claude-code-guard.json, `guard init`'s policy.
# Prints, for each, its length, the median wall time of RUNS runs taken round-robin,
# and the verdict. See bench/README.md.
#
#   bash bench/commands.sh
#   RUNS=9 BIN=target/release/toolreplay bash bench/commands.sh
#
# Environment: RUNS (default 5), BENCH_DIR (default /tmp/toolreplay-commands), BIN
# (default: a release build of the working tree).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$here")
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
RUNS=${RUNS:-5}
BENCH_DIR=${BENCH_DIR:-/tmp/toolreplay-commands}

die() { echo "commands: $*" >&2; exit 2; }
command -v python3 >/dev/null 2>&1 || die "python3 not found"
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive integer, got '$RUNS'"

if [[ -z ${BIN:-} ]]; then
    BIN=$(built_binary) || die "cargo build failed"
fi
[[ -x $BIN ]] || die "no binary at $BIN"
mkdir -p "$BENCH_DIR"

BIN=$BIN RUNS=$RUNS BENCH_DIR=$BENCH_DIR POLICY="$repo/samples/claude-code-guard.json" \
    python3 - <<'EOF'
import json, os, statistics, subprocess, time

bench = os.environ["BENCH_DIR"]
binary, policy, runs = os.environ["BIN"], os.environ["POLICY"], int(os.environ["RUNS"])


def legacy(k, middle=""):
    # `$[` and runs of `(` in a substitution in a double-quoted string, quoted `)`
    # among them (found by fuzzing the policy target).
    return ("\"$($[" + "(" * k + "')'( ( ')' ( " + middle
            + "( ')' ( ( ')' ( ')' ( ??( ')' ( ')' ( ')' (?????])\" ")


def nest(k, opening, closing):
    return "x " + opening * k + "e" + closing * k


body = " ".join(["This is for the case if we want `it`, while it works for all."] * 9)
shapes = [
    ("$[ and 4 ( in a substitution", legacy(4)),
    ("$[ and 14 ( in a substitution", legacy(14)),
    ("the same, 20 KB ${name} among them", legacy(9, "${" + "a" * 20000 + "} ")),
    ("the same, 20 KB of blanks among them", legacy(9, " " * 20000)),
    ("26 ( in a row", "(" * 26 + "x"),
    ("(( then 40 ( ')'", "(( " + "( ')' " * 40 + "x"),
    ("13 substitutions nested in quotes", nest(13, "\"c $(", ")\"")),
    ("30 substitutions nested in quotes", nest(30, "\"c $(", ")\"")),
    ("5 subscripts with substitutions", nest(5, "${D[$(", ")]}")),
    ("a pull request body, 9 times if/for/while", "gh pr create --title x --body \"$(cat <<'EOF'\n" + body + "\nEOF\n)\""),
    ("60 KB script of 700 if-blocks", "\n".join(
        f'if [ -f "f{i}.txt" ]; then echo "found $i: $(wc -l < f{i}.txt)" | tee -a log; fi'
        for i in range(700))[:60000]),
    ("55 KB here-document with expansions", "cat > x.txt <<EOF\n"
        + "line $HOME ${USER} $(date) text\n" * 1500 + "EOF"),
    ("52 KB double-quoted string of expansions", "echo \"" + "word $x ${y} \\\" more " * 2500 + "\""),
    ("63 KB of words a* (protect)", "ls " + "a* " * 21000),
    ("3000 distinct wildcard paths (protect)",
        "ls " + " ".join(".claude/s*{a%d,b}*n" % i for i in range(3000))),
]

files = []
for at, (name, command) in enumerate(shapes):
    path = os.path.join(bench, f"command-{at}.jsonl")
    with open(path, "w") as out:
        out.write(json.dumps({"index": 0, "tool": "Bash", "args": {"command": command},
                              "response": {}}) + "\n")
    files.append(path)

times = [[] for _ in shapes]
verdicts = [""] * len(shapes)
for _ in range(runs):
    for at, path in enumerate(files):
        start = time.perf_counter()
        done = subprocess.run([binary, "scope", path, "--scope", policy],
                              capture_output=True, text=True)
        times[at].append(time.perf_counter() - start)
        if done.returncode not in (0, 1):
            raise SystemExit(f"commands: scope failed on {shapes[at][0]}: {done.stderr}")
        line = next((l for l in done.stdout.splitlines() if l.startswith("index 0:")), "")
        verdict = line.split("argument '/command' ", 1)[-1] if line else "allowed"
        verdicts[at] = verdict[:70]

print(f"{'command':<46} {'bytes':>6} {'median ms':>10}  verdict")
for (name, command), samples, verdict in zip(shapes, times, verdicts):
    print(f"{name:<46} {len(command.encode()):>6} "
          f"{statistics.median(samples) * 1000:>10.1f}  {verdict}")
EOF
