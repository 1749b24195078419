"""What only the command line read before, from Python: ``toolreplay.toml``
(``config=``), baselines (``baseline=``), the head, signature and attestation checks
of ``verify``, a Claude Code session's ``tool-results`` folder, and ``scope`` of a
live session with its context file. Each result is ``json.loads`` of the command's
``--format json`` output for the same input, run from the same folder."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import List, Tuple

import pytest

import toolreplay
from conftest import ROOT, cli_path, error_message, run

SESSION = "5f0c8a52-1d3e-4f4b-9a8e-0b7c2d6e9f10"


def run_in(folder: Path, *args: str, stdin: str = "") -> Tuple[int, str, str]:
    done = subprocess.run(
        [cli_path(), *args],
        cwd=folder,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done.returncode, done.stdout, done.stderr


def report(folder: Path, *args: str) -> object:
    code, out, err = run_in(folder, *args)
    assert code in (0, 1), err
    return json.loads(out)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder with a transcript and a ``toolreplay.toml``, made the current one."""
    shutil.copy(ROOT / "samples" / "session-dirty.jsonl", tmp_path / "t.jsonl")
    shutil.copy(ROOT / "samples" / "scope.json", tmp_path / "scope.json")
    (tmp_path / "toolreplay.toml").write_text(
        'rules = "agent"\nscope = "scope.json"\nmutating_tools = ["read_file"]\n'
    )
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_config_found_as_the_command_finds_it(project: Path) -> None:
    expected = report(project, "replay", "t.jsonl", "--format", "json")
    assert toolreplay.replay("t.jsonl", config=True) == expected
    # Without it, the command's defaults: another report.
    plain = report(project, "replay", "t.jsonl", "--no-config", "--format", "json")
    assert plain != expected
    assert toolreplay.replay("t.jsonl") == plain
    assert toolreplay.scope("t.jsonl", config=True) == report(
        project, "scope", "t.jsonl", "--format", "json"
    )


def test_config_named_by_its_path(project: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    shutil.copy(project / "t.jsonl", elsewhere / "t.jsonl")
    expected = report(project, "replay", "t.jsonl", "--format", "json")
    assert (
        toolreplay.replay(elsewhere / "t.jsonl", config=project / "toolreplay.toml")["findings"]
        == expected["findings"]
    )


def test_a_bad_config_is_the_command_s_error(project: Path) -> None:
    (project / "toolreplay.toml").write_text('rules = "none"\n')
    code, _, err = run_in(project, "replay", "t.jsonl")
    assert code == 2
    with pytest.raises(toolreplay.ToolReplayError) as raised:
        toolreplay.replay("t.jsonl", config=True)
    assert str(raised.value) == error_message(err)


def test_baselines(project: Path) -> None:
    code, _, err = run_in(
        project, "replay", "t.jsonl", "--no-config", "--write-baseline", "b.json"
    )
    assert code == 0, err
    for args, call in [
        (["replay"], lambda: toolreplay.replay("t.jsonl", baseline="b.json")),
        (["scope", "--scope", "scope.json"],
         lambda: toolreplay.scope("t.jsonl", "scope.json", baseline="b.json")),
    ]:
        expected = report(
            project, args[0], "t.jsonl", *args[1:], "--no-config", "--baseline", "b.json",
            "--format", "json",
        )
        assert call() == expected
    # The replay's findings are all in the baseline: none is reported.
    assert toolreplay.replay("t.jsonl", baseline="b.json")["findings"] == []
    assert toolreplay.replay("t.jsonl")["findings"] != []


def test_a_baseline_takes_a_path_not_records() -> None:
    with pytest.raises(TypeError):
        toolreplay.replay([], baseline="b.json")


VERIFY: List[List[str]] = [
    ["--head", "0f4692975fe1c349dd7a602937df65ece15a1dce4e7576e98348caf2b02779f9"],
    ["--head", "0" * 64],
    ["--attestation", "samples/session-dirty.sealed.jsonl.intoto.jsonl",
     "--allowed-signers", "samples/allowed_signers"],
]


@pytest.mark.parametrize("checks", VERIFY)
def test_verify_checks(checks: List[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    path = "samples/session-dirty.sealed.jsonl"
    code, out, err = run("verify", path, *checks, "--format", "json")
    assert code in (0, 1), err
    options = {
        checks[i].lstrip("-").replace("-", "_"): checks[i + 1] for i in range(0, len(checks), 2)
    }
    got = toolreplay.verify(path, **options)
    assert got == json.loads(out)


def test_a_signature_that_is_not_there_is_the_command_s_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(ROOT)
    args = ["verify", "samples/session-dirty.sealed.jsonl", "--signature", "nope.sig",
            "--allowed-signers", "samples/allowed_signers", "--identity", "dev@example.com"]
    code, _, err = run(*args)
    assert code == 2
    with pytest.raises(toolreplay.ToolReplayError) as raised:
        toolreplay.verify(
            "samples/session-dirty.sealed.jsonl",
            signature="nope.sig",
            allowed_signers="samples/allowed_signers",
            identity="dev@example.com",
        )
    assert str(raised.value) == error_message(err)


def test_results_kept_in_the_tool_results_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    path = "tests/fixtures/import/persisted.jsonl"
    code, out, err = run("import", "--from", "claude-code", path)
    assert code == 0, err
    records = [json.loads(line) for line in out.splitlines()]
    assert toolreplay.import_log(path, from_="claude-code") == records
    # The kept results are read: the first call's response is its file's text, not
    # the reference the log holds.
    assert records[0]["response"] == {"content": "line 1\nline 2\nline 3 of the whole build log\n"}
    assert toolreplay.replay(path, from_="claude-code") == json.loads(
        run("replay", "--from", "claude-code", path, "--format", "json")[1]
    )


def hook(event: str, **fields: object) -> str:
    return json.dumps(
        {
            "session_id": SESSION,
            "transcript_path": f"/home/dev/.claude/projects/-home-dev-project/{SESSION}.jsonl",
            "cwd": "/home/dev/project",
            "permission_mode": "default",
            "hook_event_name": event,
            **fields,
        }
    )


def test_scope_of_a_live_session_reads_its_context_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    policy = {
        "agent": "claude-code",
        "allowed_tools": ["Read"],
        "policy_version": 1,
        "tools": {"Read": {"paths": [{"args": ["/file_path"], "root": ".", "deny": ["**/.env"]}]}},
    }
    (tmp_path / "scope.json").write_text(json.dumps(policy))
    guard = ["guard", "--policy", "scope.json", "--dir", "sessions"]
    args = {"file_path": "/home/dev/project/README.md"}
    for event in [
        hook("PreToolUse", tool_name="Read", tool_input=args, tool_use_id="t1"),
        hook("PostToolUse", tool_name="Read", tool_input=args, tool_use_id="t1",
             tool_response={"type": "text", "file": {"content": "hi"}}),
    ]:
        code, _, err = run_in(tmp_path, *guard, stdin=event)
        assert code == 0, err
    session = f"sessions/{SESSION}.jsonl"
    assert (tmp_path / f"sessions/{SESSION}.context.jsonl").is_file()
    monkeypatch.chdir(tmp_path)
    expected = report(
        tmp_path, "scope", session, "--scope", "scope.json", "--from", "sealed", "--format", "json"
    )
    # The file read is in the project the session ran in: allowed, as live.
    assert expected["findings"] == []
    assert toolreplay.scope(session, "scope.json", from_="sealed") == expected
    # Read as a plain transcript, its paths are read from the current folder.
    # Its calls given as records, without the context file: the path is read from
    # the current folder, outside the policy's root.
    links = [json.loads(line) for line in (tmp_path / session).read_text().splitlines()]
    records = [{k: v for k, v in link.items() if k not in ("prev", "digest")} for link in links]
    assert toolreplay.scope(records, "scope.json")["findings"] != []
