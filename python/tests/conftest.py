"""Shared fixtures: the command line to compare with, and the inputs."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import List, Optional, Tuple

import pytest

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples"
SHARED = ROOT.parent / "shared" / "data" / "transcripts"


def cli_path() -> str:
    """The `toolreplay` command: TOOLREPLAY_BIN, else the one on PATH (the wheel's)."""
    path = os.environ.get("TOOLREPLAY_BIN") or shutil.which("toolreplay")
    if not path:
        pytest.fail("no toolreplay command: install the wheel or set TOOLREPLAY_BIN")
    return path


def run(*args: str, stdin: Optional[str] = None) -> Tuple[int, str, str]:
    """Runs the command from the repository's root: its status, stdout and stderr."""
    done = subprocess.run(
        [cli_path(), *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done.returncode, done.stdout, done.stderr


def error_message(stderr: str) -> Optional[str]:
    """The command's `error: ` line, without the prefix."""
    for line in stderr.splitlines():
        if line.startswith("error: "):
            return line[len("error: ") :]
    return None


def shared_logs() -> List[Path]:
    """Every agent log in ../shared/data/transcripts (not the subagents' own logs in
    a session's `subagents/` folder, which the command reads with their session)."""
    if not SHARED.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"{SHARED} is missing")
        return []
    return sorted(
        p
        for p in SHARED.rglob("*")
        if p.is_file() and p.suffix != ".tsv" and p.parent.name != "subagents"
    )


@pytest.fixture(autouse=True)
def _in_root(monkeypatch: pytest.MonkeyPatch) -> None:
    """Paths are given relative to the repository's root, as to the command."""
    monkeypatch.chdir(ROOT)
