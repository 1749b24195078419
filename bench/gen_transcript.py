#!/usr/bin/env python3
"""Generate a large, realistic, valid toolreplay transcript for benchmarking.

Standard library only (Python 3.11+). The output depends only on --size and
--seed (and this file): the same arguments always give the same bytes.

    python3 bench/gen_transcript.py --size 1GiB --seed 1 -o /tmp/t.jsonl

Each line is one record of the transcript format (specification section 1):
{"index": N, "tool": ..., "args": {...}, "response": {...}}, index 0, 1, 2, ...
Generation stops at the first record that makes the file reach --size bytes.

Shape: the tools read_file, list_dir, search, write_file, run_command and
fetch_url; args of tens of bytes to a few KB (paths, queries, commands, nested
option objects, numbers, non-ASCII text); responses up to tens of KB (file text,
directory listings, hit lists, command output, web pages). About 15% of the
calls repeat an earlier call (mostly a recent one), about two thirds of those
with the same response and one third with a different one, so `replay` has
redundant-call and non-determinism findings. Every other call is new (its args
carry a unique element), so the number of distinct calls is known.

Speed: text pools and the building blocks of lists are made once; per record
only a few slices and one C-accelerated json.dumps run, and the output is
written in 16 MiB chunks.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import sys
import time
from collections.abc import Iterator

DEFAULT_SEED = 20240601
REPEAT_RATE = 0.15          # share of calls that repeat an earlier call
REPEAT_SAME_RESPONSE = 0.65  # share of repeats whose response is unchanged
HISTORY = 4096              # how many earlier calls a repeat may pick from
CHUNK = 16 << 20            # write buffer

TOOLS = ["read_file", "search", "list_dir", "run_command", "write_file", "fetch_url"]
TOOL_WEIGHTS = [30, 20, 12, 15, 13, 10]

WORDS = """
the of and to in is that for it as with was on be by this are from or an at not
have which but all were can if will one their there been has more when what some
would into them these other its than then only two could over such about first
after also most made any well may many should before must through where each same
under between both three while during because without another against however
agent tool call transcript replay response request file path buffer parser record
digest chain seal verify index stream token value object array string number key
error warning config module function struct impl trait enum match return loop
async await future thread mutex channel socket server client header body status
cache layer index query result score page offset limit cursor batch queue worker
deploy build test release branch commit merge review patch diff version schema
""".split()

NON_ASCII_WORDS = [
    "café", "naïve", "résumé", "Zürich", "Ærøskøbing", "façade", "jalapeño",
    "東京", "日本語のテキスト", "数据", "검색", "Привет", "мир", "Ελληνικά",
    "שלום", "مرحبا", "हिन्दी", "ñandú", "Łódź", "€100", "±0.5", "→", "✓", "“quoted”",
    "🚀", "😀", "🦀", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
]

CODE_LINES = [
    "fn {w}_{v}(input: &[u8]) -> Result<{W}, Error> {{",
    "    let {w} = {v}.iter().map(|x| x.{w2}()).collect::<Vec<_>>();",
    "    if {w}.is_empty() {{ return Err(Error::{W}(\"{w2} missing\")); }}",
    "    // {w} {v} {w2}: keep the {w} in sync with the {v}",
    "}}",
    "def {w}_{v}(self, {w2}=None):",
    "    \"\"\"Return the {w} of the {v}.\"\"\"",
    "    return self._{w}.get({w2!r}, {n})",
    "const {W}_{V}: usize = {n};",
    "    assert_eq!({w}.len(), {n}, \"{w2}\\t{v}\");",
    "import {{ {w}, {v} }} from './{w2}';",
    "    {w}[{n}] = '{v}\\\\{w2}';",
]

LOG_LINES = [
    "[{t}] INFO  {w}::{v}: {w2} {n} items in {f}ms",
    "[{t}] DEBUG {w}: cache {v} hit ratio {f}",
    "[{t}] WARN  {w2}: retrying {v} (attempt {n})",
    "[{t}] ERROR {w}::{v}: {w2} failed: \"{u}\"",
    "test {w}::{v}::{w2}_{n} ... ok",
    "   Compiling {w}-{v} v0.{n}.0 (/work/{w2})",
    "{w}/{v}.rs:{n}:{n2}: warning: unused variable `{w2}`",
    "    Finished `release` profile [optimized] target(s) in {f}s",
]

DIRS = ["src", "src/parser", "src/cli", "src/chain", "tests", "tests/vectors",
        "docs", "docs/guide", "scripts", "examples", "crates/core/src",
        "web/static", "data/café", "notes/日本語", "vendor/lib"]
EXTS = ["rs", "py", "md", "toml", "json", "txt", "ts", "yaml", "html", "sh"]
HOSTS = ["docs.rs", "example.com", "api.example.org", "crates.io",
         "github.com", "en.wikipedia.org", "ja.wikipedia.org", "pypi.org"]
COMMANDS = ["cargo test --locked", "cargo build --release", "cargo clippy -- -D warnings",
            "git status --short", "git log --oneline -n 20", "ls -la", "rg -n",
            "python3 -m pytest -q", "npm test", "make check", "grep -rn",
            "du -sh", "wc -l", "git diff --stat"]


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
        self._make_pools()

    # ---- pools, built once ----------------------------------------------
    def _word(self) -> str:
        r = self.rng
        if r.random() < 0.03:
            return r.choice(NON_ASCII_WORDS)
        return r.choice(WORDS)

    def _fill(self, template: str) -> str:
        r = self.rng
        w, v, w2 = self._word(), r.choice(WORDS), r.choice(WORDS)
        return template.format(
            w=w, v=v, w2=w2, W=w.capitalize(), V=v.upper(),
            n=r.randrange(0, 5000), n2=r.randrange(1, 120),
            f=f"{r.random() * 900:.3f}", u=self._word(),
            t=f"2024-06-{r.randrange(1, 29):02d}T{r.randrange(24):02d}:"
              f"{r.randrange(60):02d}:{r.randrange(60):02d}.{r.randrange(1000):03d}Z",
        )

    def _doc(self, kind: str, chars: int) -> str:
        r = self.rng
        out: list[str] = []
        size = 0
        while size < chars:
            if kind == "prose":
                if r.random() < 0.08:
                    line = "#" * r.randrange(1, 4) + " " + " ".join(
                        self._word() for _ in range(r.randrange(2, 7))).capitalize()
                elif r.random() < 0.1:
                    line = ""
                else:
                    line = " ".join(self._word() for _ in range(r.randrange(6, 22)))
                    line = line[:1].upper() + line[1:] + "."
            elif kind == "code":
                line = self._fill(r.choice(CODE_LINES))
            elif kind == "log":
                line = self._fill(r.choice(LOG_LINES))
            else:  # html
                line = (f"<p class=\"{r.choice(WORDS)}\">" +
                        " ".join(self._word() for _ in range(r.randrange(5, 18))) +
                        f" <a href=\"/{r.choice(WORDS)}/{r.randrange(999)}\">{self._word()}</a></p>")
            out.append(line)
            size += len(line) + 1
        return "\n".join(out) + "\n"

    def _make_pools(self) -> None:
        r = self.rng
        self.docs = {k: [self._doc(k, 96 * 1024) for _ in range(12)]
                     for k in ("prose", "code", "log", "html")}
        self.paths = [self._path(i) for i in range(4000)]
        self.entries = []
        for i in range(6000):
            e = {"name": f"{r.choice(WORDS)}_{i}.{r.choice(EXTS)}" if r.random() < 0.8
                 else f"{r.choice(WORDS)}_{i}",
                 "type": "file" if r.random() < 0.8 else "dir",
                 "size": r.randrange(0, 2_000_000),
                 "modified": 1_717_000_000 + r.randrange(0, 9_000_000)}
            if e["type"] == "dir":
                e["size"] = 4096
            if r.random() < 0.05:
                e["name"] = r.choice(NON_ASCII_WORDS) + f"_{i}.txt"
            if r.random() < 0.02:
                e["inode"] = r.randrange(1 << 64, 1 << 70)  # integer beyond u64
            self.entries.append(e)
        self.hits = []
        for i in range(6000):
            doc = r.choice(self.docs["code"] + self.docs["prose"])
            a = r.randrange(0, len(doc) - 200)
            self.hits.append({"path": r.choice(self.paths), "line": r.randrange(1, 4000),
                              "column": r.randrange(1, 80),
                              "text": doc[a:a + r.randrange(20, 160)],
                              "score": round(r.random(), 6) if r.random() < 0.95
                              else r.random() * 1e-7})

    def _path(self, i: int) -> str:
        r = self.rng
        return f"{r.choice(DIRS)}/{r.choice(WORDS)}_{i}.{r.choice(EXTS)}"

    # ---- helpers ------------------------------------------------------------
    def _loguniform(self, lo: int, hi: int) -> int:
        return int(lo * (hi / lo) ** self.rng.random())

    def _slice(self, kind: str, lo: int, hi: int) -> str:
        r = self.rng
        doc = r.choice(self.docs[kind])
        n = min(self._loguniform(lo, hi), len(doc))
        a = r.randrange(0, len(doc) - n + 1)
        return doc[a:a + n]

    def _next_uid(self) -> int:
        self.uid += 1
        return self.uid

    # ---- calls ----------------------------------------------------------------
    def args(self, tool: str) -> dict:
        r = self.rng
        u = self._next_uid()  # makes every new call distinct
        if tool == "read_file":
            a = {"path": f"{r.choice(DIRS)}/{r.choice(WORDS)}_{u}.{r.choice(EXTS)}"}
            if r.random() < 0.3:
                a["offset"] = r.randrange(0, 10000)
                a["limit"] = r.choice([100, 500, 2000, 10000])
            return a
        if tool == "list_dir":
            return {"path": f"{r.choice(DIRS)}/{u}", "recursive": r.random() < 0.3,
                    "include_hidden": r.random() < 0.1}
        if tool == "search":
            q = " ".join(self._word() for _ in range(r.randrange(1, 6)))
            a = {"query": f"{q} {u}", "path": r.choice(DIRS)}
            if r.random() < 0.6:
                a["options"] = {"regex": r.random() < 0.3,
                                "case_sensitive": r.random() < 0.5,
                                "max_results": r.choice([20, 50, 100, 500]),
                                "globs": [f"*.{r.choice(EXTS)}" for _ in range(r.randrange(0, 4))]}
            return a
        if tool == "write_file":
            return {"path": f"{r.choice(DIRS)}/{r.choice(WORDS)}_{u}.{r.choice(EXTS)}",
                    "text": self._slice(r.choice(("code", "prose")), 20, 6000),
                    "create_dirs": r.random() < 0.2}
        if tool == "run_command":
            cmd = f"{r.choice(COMMANDS)} {r.choice(WORDS)}_{u}"
            a = {"command": cmd, "cwd": f"/work/{r.choice(DIRS)}",
                 "timeout_s": r.choice([30, 60, 120, 600, 1.5, 0.25])}
            if r.random() < 0.3:
                a["env"] = {"RUST_LOG": r.choice(["info", "debug", "trace"]),
                            "LANG": "C.UTF-8", "NOTE": self._word()}
            return a
        # fetch_url
        a = {"url": f"https://{r.choice(HOSTS)}/{r.choice(WORDS)}/{u}?q={r.choice(WORDS)}",
             "method": "GET" if r.random() < 0.9 else "POST",
             "headers": {"Accept": "text/html", "Accept-Language": r.choice(["en", "ja", "fr-CH"])}}
        if a["method"] == "POST":
            a["body"] = {"query": self._slice("prose", 20, 400),
                         "page": r.randrange(1, 10), "filters": {"lang": ["en", "日本語"],
                                                                 "min_score": 0.5}}
        return a

    def response(self, tool: str) -> dict:
        r = self.rng
        if tool == "read_file":
            text = self._slice(r.choice(("code", "prose", "code", "log")), 80, 60000)
            return {"text": text, "size": len(text.encode()), "encoding": "utf-8",
                    "truncated": r.random() < 0.05}
        if tool == "list_dir":
            n = self._loguniform(1, 400)
            a = r.randrange(0, len(self.entries) - n)
            return {"entries": self.entries[a:a + n], "total": n}
        if tool == "search":
            n = self._loguniform(1, 250) - 1
            a = r.randrange(0, len(self.hits) - n)
            return {"hits": self.hits[a:a + n], "total": n + r.randrange(0, 3) * n,
                    "took_ms": round(r.random() * 250, 3)}
        if tool == "write_file":
            if r.random() < 0.97:
                return {"ok": True, "bytes_written": r.randrange(20, 6000)}
            return {"ok": False, "error": "permission denied: " + self._word()}
        if tool == "run_command":
            code = 0 if r.random() < 0.85 else r.choice([1, 2, 101, -9])
            return {"exit_code": code,
                    "stdout": self._slice("log", 10, 40000),
                    "stderr": self._slice("log", 1, 3000) if code else "",
                    "duration_s": round(r.random() * 120, 3)}
        status = 200 if r.random() < 0.9 else r.choice([301, 404, 500])
        return {"status": status,
                "headers": {"content-type": "text/html; charset=utf-8",
                            "etag": f"\"{r.getrandbits(64):016x}\"",
                            "x-cache": r.choice(["HIT", "MISS"])},
                "body": self._slice("html", 200, 50000)}


def canonical_call(tool: str, args: dict) -> bytes:
    c = json.dumps(args, sort_keys=True, separators=(",", ":"))
    return hashlib.sha1(tool.encode() + b"\0" + c.encode()).digest()


def write_calls(output: str, size: int, calls: Iterator[tuple[str, dict, dict]]) -> tuple[int, int]:
    """Writes the calls that `calls` gives, one record a line with `index` counting
    from 0, until at least `size` bytes are written; into OUTPUT.tmp, then renamed to
    OUTPUT. Returns the records and bytes written. A call is taken from `calls` only
    when it is to be written, so what the generator counts is what was written."""
    dumps = json.JSONEncoder(ensure_ascii=False).encode
    records = written = 0
    chunk: list[bytes] = []
    chunk_size = 0
    tmp = output + ".tmp"
    with open(tmp, "wb") as f:
        while written < size:
            tool, args, resp = next(calls)
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
    os.replace(tmp, output)
    return records, written


def parse_args(doc: str) -> argparse.Namespace:
    """--size, --seed and -o, as both generators take them."""
    p = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    p.add_argument("--size", type=parse_size, required=True,
                   help="target size, e.g. 10MiB, 1GiB (KiB/MiB/GiB or plain bytes)")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED,
                   help=f"random seed (default {DEFAULT_SEED})")
    p.add_argument("-o", "--output", required=True, help="transcript path to write")
    return p.parse_args()


def report(records: int, distinct: int, same: int, changed: int, written: int,
           t0: float) -> None:
    """The figures bench/run.sh reads, on stderr."""
    print(f"records: {records}", file=sys.stderr)
    print(f"distinct calls: {distinct}", file=sys.stderr)
    print(f"repeated calls: {same + changed} ({same} same response, {changed} different)",
          file=sys.stderr)
    print(f"bytes: {written}", file=sys.stderr)
    print(f"seconds: {time.monotonic() - t0:.1f}", file=sys.stderr)


def main() -> int:
    ns = parse_args(__doc__)
    t0 = time.monotonic()
    g = Gen(ns.seed)
    r = g.rng
    history: list[tuple[str, dict, dict]] = []
    seen: set[bytes] = set()
    same = changed = 0

    def calls() -> Iterator[tuple[str, dict, dict]]:
        nonlocal same, changed
        while True:
            if history and r.random() < REPEAT_RATE:
                # Mostly a recent call, sometimes an old one.
                back = min(int(r.expovariate(1 / 25)) + 1, len(history))
                tool, args, resp = history[-back]
                if r.random() < REPEAT_SAME_RESPONSE:
                    same += 1
                else:
                    resp = g.response(tool)
                    changed += 1
                if r.random() < 0.2:  # same call, keys written in another order
                    args = dict(reversed(list(args.items())))
            else:
                tool = r.choices(TOOLS, TOOL_WEIGHTS)[0]
                args = g.args(tool)
                resp = g.response(tool)
                history.append((tool, args, resp))
                if len(history) > 2 * HISTORY:
                    del history[:HISTORY]
            seen.add(canonical_call(tool, args))
            yield tool, args, resp

    records, written = write_calls(ns.output, ns.size, calls())
    report(records, len(seen), same, changed, written, t0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
