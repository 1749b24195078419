"""A pytest plugin for agent test suites: the ``toolreplay_audit`` fixture.

Loaded by pytest once the package is installed (entry point ``pytest11``, named
``toolreplay``: ``pytest -p no:toolreplay`` turns it off)::

    def test_agent_run(toolreplay_audit):
        records = run_my_agent()            # or a transcript's path
        toolreplay_audit(records)           # fails the test on any finding

The fixture replays the transcript (and, given ``policy``, audits it against that
scope file) and fails the test with the findings, one a line, as the message.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Dict, List, Optional, Union

import pytest

import toolreplay


def findings_message(reports: List[Dict[str, Any]]) -> str:
    """The findings of `reports`, one a line: ``FILE:LINE: index N: KIND: message``."""
    lines = []
    for report in reports:
        for f in report["findings"]:
            lines.append(
                f"{report['file']}:{f['line']}: index {f['index']}: {f['kind']}: {f['message']}"
            )
    count = len(lines)
    head = f"toolreplay: {count} finding{'s' if count != 1 else ''}"
    return "\n".join([head, *lines])


Audit = Callable[..., List[Dict[str, Any]]]


@pytest.fixture
def toolreplay_audit() -> Audit:
    """Audits a transcript (a path) or records (a list of dicts): replays it and,
    with ``policy``, checks it against that scope file; fails the test with the
    findings as the message, else returns the reports."""

    def audit(
        source: toolreplay.Source,
        *,
        policy: Optional[Union[str, "os.PathLike[str]"]] = None,
        from_: Optional[str] = None,
        rules: Optional[str] = None,
    ) -> List[Dict[str, Any]]:
        if not isinstance(source, (str, os.PathLike)):
            source = list(source)
        reports = [toolreplay.replay(source, from_=from_, rules=rules)]
        if policy is not None:
            reports.append(toolreplay.scope(source, policy, from_=from_))
        if any(report["findings"] for report in reports):
            pytest.fail(findings_message(reports), pytrace=False)
        return reports

    return audit
