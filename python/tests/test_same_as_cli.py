"""Each function's result is `json.loads` of the command's `--format json` output
for the same input, and bad input raises with the command's message."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Callable, List

import pytest

import toolreplay
from conftest import ROOT, SAMPLES, error_message, run, shared_logs

TRANSCRIPTS = sorted(str(p.relative_to(ROOT)) for p in SAMPLES.glob("*.jsonl"))
LOGS = [os.path.relpath(p, ROOT) for p in shared_logs()] + TRANSCRIPTS


def same(call: Callable[[], Any], args: List[str], parse: Callable[[str], Any]) -> Any:
    """The command's result for `args` and the function's are the same: its output
    parsed, or its error message raised."""
    status, out, err = run(*args)
    if status == 2:
        with pytest.raises(toolreplay.ToolReplayError) as raised:
            call()
        assert str(raised.value) == error_message(err)
        return None
    assert status in (0, 1), err
    expected = parse(out)
    assert call() == expected
    return expected


def lines(text: str) -> List[Any]:
    return [json.loads(line) for line in text.splitlines() if line]


@pytest.mark.parametrize("path", TRANSCRIPTS)
def test_replay(path: str) -> None:
    same(lambda: toolreplay.replay(path), ["replay", path, "--format", "json"], json.loads)


@pytest.mark.parametrize("rules", ["spec", "agent"])
def test_replay_rules(rules: str) -> None:
    path = "samples/session-dirty.jsonl"
    same(
        lambda: toolreplay.replay(path, rules=rules),
        ["replay", path, "--rules", rules, "--format", "json"],
        json.loads,
    )


@pytest.mark.parametrize("path", LOGS)
def test_replay_from_auto(path: str) -> None:
    same(
        lambda: toolreplay.replay(path, from_="auto"),
        ["replay", path, "--from", "auto", "--format", "json"],
        json.loads,
    )


@pytest.mark.parametrize("policy", ["samples/scope.json", "samples/policy.json", "samples/claude-code-scope.json"])
@pytest.mark.parametrize("path", TRANSCRIPTS)
def test_scope(path: str, policy: str) -> None:
    same(
        lambda: toolreplay.scope(path, policy),
        ["scope", path, "--scope", policy, "--format", "json"],
        json.loads,
    )


@pytest.mark.parametrize("path", LOGS)
def test_scope_from_auto(path: str) -> None:
    policy = "samples/scope.json"
    same(
        lambda: toolreplay.scope(path, policy, from_="auto"),
        ["scope", path, "--scope", policy, "--from", "auto", "--format", "json"],
        json.loads,
    )


@pytest.mark.parametrize("path", TRANSCRIPTS)
def test_seal(path: str) -> None:
    same(lambda: toolreplay.seal(path), ["seal", path], lines)


@pytest.mark.parametrize("path", TRANSCRIPTS)
def test_verify(path: str) -> None:
    same(lambda: toolreplay.verify(path), ["verify", path, "--format", "json"], json.loads)


@pytest.mark.parametrize("path", LOGS)
def test_import_log(path: str) -> None:
    same(lambda: toolreplay.import_log(path), ["import", path], lines)


@pytest.mark.parametrize("path", LOGS)
def test_claims_claude_code(path: str) -> None:
    same(
        lambda: toolreplay.claims(path, from_="claude-code"),
        ["claims", path, "--from", "claude-code", "--format", "json"],
        json.loads,
    )


@pytest.mark.parametrize("path", LOGS)
def test_claims_from_auto(path: str) -> None:
    """Every format that keeps the conversation, recognised as `import` does; the
    others (and transcripts without a context file) raise the command's message."""
    same(
        lambda: toolreplay.claims(path, from_="auto"),
        ["claims", path, "--from", "auto", "--format", "json"],
        json.loads,
    )


@pytest.mark.parametrize("path", TRANSCRIPTS)
def test_records_are_reported_as_records(path: str) -> None:
    """Records given in memory: the report of the same records on standard input,
    named `<records>`, each finding on the line of its record's position."""
    text = (ROOT / path).read_text(encoding="utf-8")
    if any(not line.strip() for line in text.splitlines()):
        pytest.skip("blank lines: positions and lines differ")
    try:
        records = [json.loads(line) for line in text.splitlines()]
    except json.JSONDecodeError:
        pytest.skip("not JSON Lines")
    stdin = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    status, out, err = run("replay", "-", "--format", "json", stdin=stdin)
    if status == 2:
        with pytest.raises(toolreplay.ToolReplayError) as raised:
            toolreplay.replay(records)
        assert str(raised.value) == error_message(err).replace("<stdin>", "<records>", 1)
        return
    expected = json.loads(out)
    expected["file"] = "<records>"
    assert toolreplay.replay(records) == expected


def test_records_bad_record_raises_on_its_line() -> None:
    records = [
        {"index": 0, "tool": "t", "args": {}, "response": {}},
        {"index": 1, "tool": "t", "args": []},
    ]
    with pytest.raises(toolreplay.ToolReplayError) as raised:
        toolreplay.replay(records)
    assert str(raised.value).startswith("<records>:2: ")


def test_a_missing_file_raises_the_command_s_message() -> None:
    same(lambda: toolreplay.replay("no-such.jsonl"), ["replay", "no-such.jsonl"], json.loads)
    same(lambda: toolreplay.verify("no-such.jsonl"), ["verify", "no-such.jsonl"], json.loads)


def test_a_tampered_chain_is_reported_broken() -> None:
    report = same(
        lambda: toolreplay.verify("samples/session-dirty.tampered.jsonl"),
        ["verify", "samples/session-dirty.tampered.jsonl", "--format", "json"],
        json.loads,
    )
    assert report["chain"] == "broken"


def test_the_wheel_s_command_is_the_binary() -> None:
    status, out, _ = run("--version")
    assert status == 0 and out.startswith("toolreplay ")


def test_a_missing_or_bad_scope_file_raises_the_command_s_message(tmp_path: Path) -> None:
    path = "samples/session-clean.jsonl"
    same(
        lambda: toolreplay.scope(path, "no-such.json"),
        ["scope", path, "--scope", "no-such.json", "--format", "json"],
        json.loads,
    )
    bad = tmp_path / "bad.json"
    bad.write_text('{"allowed_tools": [1]}\n', encoding="utf-8")
    same(
        lambda: toolreplay.scope(path, bad),
        ["scope", path, "--scope", str(bad), "--format", "json"],
        json.loads,
    )
