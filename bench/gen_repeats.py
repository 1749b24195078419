#!/usr/bin/env python3
"""Generate a transcript whose calls repeat a lot, with long lines of random text.

Standard library only (Python 3.11+). The output depends only on --size and
--seed (and this file): the same arguments always give the same bytes.

    python3 bench/gen_repeats.py --size 1GiB --seed 1 -o /tmp/r.jsonl

Each line is one record of the transcript format (specification section 1). The
tools are those of bench/gen_transcript.py (so bench/policy.json has rules for
them), with small args; the responses hold random printable ASCII, up to about
3 KB a line. About 86% of the calls repeat one of the last few thousand calls,
most with a changed response, so `replay` has a finding on most calls (about
850,000 in 985,000 calls at 1 GiB): the shape of a transcript with many findings,
where the cost per call and per finding shows, unlike in bench/gen_transcript.py's
transcript with its few large responses.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Iterator

# The writer, the arguments and the figures are those of bench/gen_transcript.py
# (this file's folder is on the import path when it is run as a script).
from gen_transcript import parse_args, report, write_calls

REPEAT_RATE = 0.88        # share of calls that repeat an earlier call
CHANGED_RESPONSE = 0.97   # share of repeats whose response differs from the first
HISTORY = 4096            # how many recent calls a repeat picks from
MAX_TEXT = 2900           # longest random text of a response, in bytes

TOOLS = ["read_file", "search", "list_dir", "run_command", "write_file", "fetch_url"]
TOOL_WEIGHTS = [34, 22, 16, 10, 8, 10]
DIRS = ["src", "src/parser", "tests", "docs", "scripts", "crates/core/src", "notes/日本語"]
EXTS = ["rs", "py", "md", "toml", "json", "txt"]
HOSTS = ["docs.rs", "example.com", "crates.io", "github.com", "en.wikipedia.org"]
WORDS = "alpha beta gamma delta index record chain token value parser cache".split()

# Random bytes to printable ASCII (0x20-0x7e), evenly but for the first 66 bytes.
PRINTABLE = bytes(0x20 + b % 95 for b in range(256))


class Gen:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.uid = 0

    def text(self) -> str:
        r = self.rng
        n = int(MAX_TEXT * r.random() ** 1.3)
        return r.randbytes(n).translate(PRINTABLE).decode("ascii")

    def args(self, tool: str) -> dict:
        r = self.rng
        self.uid += 1
        u = self.uid
        if tool == "read_file":
            return {"path": f"{r.choice(DIRS)}/{r.choice(WORDS)}_{u}.{r.choice(EXTS)}"}
        if tool == "list_dir":
            return {"path": f"{r.choice(DIRS)}/{u}", "recursive": r.random() < 0.3}
        if tool == "search":
            return {"query": f"{r.choice(WORDS)} {u}", "path": r.choice(DIRS)}
        if tool == "write_file":
            return {"path": f"{r.choice(DIRS)}/{r.choice(WORDS)}_{u}.{r.choice(EXTS)}",
                    "text": self.text()[:200]}
        if tool == "run_command":
            return {"command": f"cargo test {r.choice(WORDS)}_{u}", "cwd": f"/work/{r.choice(DIRS)}"}
        return {"url": f"https://{r.choice(HOSTS)}/{r.choice(WORDS)}/{u}", "method": "GET"}

    def response(self, tool: str) -> dict:
        r = self.rng
        if tool == "read_file":
            return {"text": self.text(), "truncated": False}
        if tool == "list_dir":
            return {"entries": [self.text()[:80] for _ in range(r.randrange(1, 6))]}
        if tool == "search":
            return {"hits": [{"line": r.randrange(1, 4000), "text": self.text()[:600]}
                             for _ in range(r.randrange(0, 4))]}
        if tool == "write_file":
            return {"ok": True, "bytes_written": r.randrange(20, 6000)}
        if tool == "run_command":
            return {"exit_code": 0, "stdout": self.text(), "stderr": ""}
        return {"status": 200, "body": self.text()}


def main() -> int:
    ns = parse_args(__doc__)
    t0 = time.monotonic()
    g = Gen(ns.seed)
    r = g.rng
    history: list[tuple[str, dict, dict]] = []
    same = changed = distinct = 0

    def calls() -> Iterator[tuple[str, dict, dict]]:
        nonlocal same, changed, distinct
        while True:
            if history and r.random() < REPEAT_RATE:
                tool, args, resp = history[-r.randrange(1, min(HISTORY, len(history)) + 1)]
                if r.random() < CHANGED_RESPONSE:
                    resp = g.response(tool)
                    changed += 1
                else:
                    same += 1
            else:
                tool = r.choices(TOOLS, TOOL_WEIGHTS)[0]
                args = g.args(tool)
                resp = g.response(tool)
                history.append((tool, args, resp))
                if len(history) > 2 * HISTORY:
                    del history[:HISTORY]
                distinct += 1  # its args carry a number no other call has
            yield tool, args, resp

    records, written = write_calls(ns.output, ns.size, calls())
    report(records, distinct, same, changed, written, t0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
