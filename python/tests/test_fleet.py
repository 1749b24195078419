"""The fleet example on a local Ray cluster: the same reports and summary as
`toolreplay replay FOLDER --from auto --format json`."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from conftest import ROOT, SAMPLES, run, shared_logs

sys.path.insert(0, str(ROOT / "python" / "examples"))

import ray  # noqa: E402  (CI installs it: a missing one fails the test)
import fleet  # noqa: E402


@pytest.fixture(scope="module")
def cluster():
    # The workers import the example's module as the driver does.
    examples = str(ROOT / "python" / "examples")
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": examples}},
    )
    yield
    ray.shutdown()


def test_a_folder_of_logs_audited_on_ray_is_the_command_s_replay(cluster, tmp_path: Path) -> None:
    folder = tmp_path / "fleet"
    for name in ["session-dirty.jsonl", "session-clean.jsonl", "session-gemini.jsonl", "claude-code-session.jsonl"]:
        machine = folder / f"machine-{name.split('.')[0]}"
        machine.mkdir(parents=True)
        shutil.copy(SAMPLES / name, machine / name)
    for log in shared_logs():
        if log.parent.name == "codex-rollout":
            machine = folder / "machine-codex"
            machine.mkdir(parents=True, exist_ok=True)
            shutil.copy(log, machine / log.name)
    status, out, err = run("replay", str(folder), "--from", "auto", "--format", "json")
    assert status in (0, 1), err
    expected = json.loads(out)
    got = fleet.audit_fleet(str(folder))
    assert got["files"] == expected["files"]
    assert got["errors"] == expected["errors"] == 0
    assert got["reports"] == expected["reports"]
    assert got["summary"] == expected["summary"]
    assert got["summary"]["findings"] > 0
