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

import argparse
import json
import os
import random
import re
import sys
import time

DEFAULT_SEED = 20240601
REPEAT_RATE = 0.88        # share of calls that repeat an earlier call
CHANGED_RESPONSE = 0.97   # share of repeats whose response differs from the first
HISTORY = 4096            # how many recent calls a repeat picks from
MAX_TEXT = 2900           # longest random text of a response, in bytes
CHUNK = 16 << 20          # write buffer

TOOLS = ["read_file", "search", "list_dir", "run_command", "write_file", "fetch_url"]
TOOL_WEIGHTS = [34, 22, 16, 10, 8, 10]
DIRS = ["src", "src/parser", "tests", "docs", "scripts", "crates/core/src", "notes/日本語"]
EXTS = ["rs", "py", "md", "toml", "json", "txt"]
HOSTS = ["docs.rs", "example.com", "crates.io", "github.com", "en.wikipedia.org"]
WORDS = "alpha beta gamma delta index record chain token value parser cache".split()

# Random bytes to printable ASCII (0x20-0x7e), evenly but for the first 66 bytes.
PRINTABLE = bytes(0x20 + b % 95 for b in range(256))


def parse_size(text: str) -> int:
    m = re.fullmatch(r"\s*(\d+)\s*(B|KiB|MiB|GiB)?\s*", text)
    if not m:
        raise argparse.ArgumentTypeError(
            f"invalid size {text!r}: use a number with an optional B, KiB, MiB or GiB suffix")
    n = int(m.group(1))
    mult = {None: 1, "B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}[m.group(2)]
    if n * mult <= 0:
        raise argparse.ArgumentTypeError("size must be positive")
    return n * mult


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
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", type=parse_size, required=True,
                   help="target size, e.g. 10MiB, 1GiB (KiB/MiB/GiB or plain bytes)")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED,
                   help=f"random seed (default {DEFAULT_SEED})")
    p.add_argument("-o", "--output", required=True, help="transcript path to write")
    ns = p.parse_args()

    t0 = time.monotonic()
    g = Gen(ns.seed)
    r = g.rng
    dumps = json.JSONEncoder(ensure_ascii=False).encode
    history: list[tuple[str, dict, dict]] = []
    records = same = changed = distinct = 0
    written = 0
    chunk: list[bytes] = []
    chunk_size = 0
    tmp = ns.output + ".tmp"
    with open(tmp, "wb") as f:
        while written < ns.size:
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
            line = dumps({"index": records, "tool": tool, "args": args,
                          "response": resp}).encode() + b"\n"
            records += 1
            written += len(line)
            chunk.append(line)
            chunk_size += len(line)
            if chunk_size >= CHUNK:
                f.write(b"".join(chunk))
                chunk, chunk_size = [], 0
        f.write(b"".join(chunk))
    os.replace(tmp, ns.output)
    print(f"records: {records}", file=sys.stderr)
    print(f"distinct calls: {distinct}", file=sys.stderr)
    print(f"repeated calls: {same + changed} ({same} same response, {changed} different)",
          file=sys.stderr)
    print(f"bytes: {written}", file=sys.stderr)
    print(f"seconds: {time.monotonic() - t0:.1f}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
