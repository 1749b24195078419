"""The Python package on N small transcripts in one process against N processes of
the command, each `replay --format json`: bench/python.sh runs it.

    python bench/python.py BINARY FOLDER RUNS

Prints, for each side, every run's seconds and their median, and checks that both
give the same reports."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import toolreplay


def main() -> None:
    binary, folder, runs = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
    paths = sorted(str(p) for p in folder.glob("*.jsonl"))
    package, command = [], []
    for _ in range(runs):
        start = time.perf_counter()
        ours = [toolreplay.replay(p) for p in paths]
        package.append(time.perf_counter() - start)
        start = time.perf_counter()
        theirs = [
            json.loads(
                subprocess.run(
                    [binary, "replay", p, "--format", "json"],
                    capture_output=True,
                    check=False,
                ).stdout
            )
            for p in paths
        ]
        command.append(time.perf_counter() - start)
        if ours != theirs:
            sys.exit("the package and the command disagree")
    print(f"transcripts: {len(paths)}, runs: {runs}")
    print("| side | runs (s) | median (s) | per transcript (ms) |")
    print("| --- | --- | --- | --- |")
    for name, times in (("package, one process", package), ("command, a process each", command)):
        median = statistics.median(times)
        shown = ", ".join(f"{t:.3f}" for t in times)
        print(f"| {name} | {shown} | {median:.3f} | {1000 * median / len(paths):.3f} |")
    print(f"speed-up: {statistics.median(command) / statistics.median(package):.1f}x")


if __name__ == "__main__":
    main()
