"""A plain ``pip install ./python`` gives the ``toolreplay`` command too: the wheel
pip builds (maturin through pip, no ``python/build-wheel.sh``) ships no native
binary, and its script runs the command line linked into the extension, with the
same output, byte for byte, as the command."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

from conftest import ROOT, run


def test_a_wheel_built_by_pip_runs_the_command_line(tmp_path: Path) -> None:
    env = dict(os.environ)
    # The extension in the dev profile, in the workspace's target folder, where the
    # wheel's own build has already compiled it.
    env["MATURIN_PEP517_ARGS"] = "--profile dev"
    env["CARGO_TARGET_DIR"] = str(ROOT / "target")
    wheels = tmp_path / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels),
         str(ROOT / "python")],
        check=True,
        env=env,
        timeout=3600,
    )
    (wheel,) = wheels.glob("toolreplay-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        assert not [n for n in archive.namelist() if n.endswith("bin/toolreplay")]
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=600)
    subprocess.run(
        [str(venv / "bin" / "pip"), "install", "-q", "--no-deps", str(wheel)],
        check=True,
        timeout=600,
    )
    script = venv / "bin" / "toolreplay"
    for args in [
        ["replay", "samples/session-commands.jsonl"],
        ["replay", "--from", "claude-code", "samples/claude-code-session.jsonl"],
        ["scope", "samples/session-commands.jsonl", "--scope", "samples/commands.json",
         "--format", "json"],
        ["replay", "samples/missing.jsonl"],
        ["replay", "--no-such-option"],
    ]:
        done = subprocess.run(
            [str(script), *args], cwd=ROOT, capture_output=True, text=True, timeout=120
        )
        assert (done.returncode, done.stdout, done.stderr) == run(*args), args
