"""Audit the recorded tool calls of an AI agent, from Python.

Each function does what the ``toolreplay`` command of the same name does and returns
plain data: exactly ``json.loads`` of the command's ``--format json`` output for the
same input (``seal`` and ``import_log`` return the records the command writes, one
dict a line). An input is a file's path, or a list of records (dicts) given in
memory: they are reported as the file ``"<records>"``, each on the line of its
1-based position. The core does its work with the GIL released, so threads audit
in parallel.

Errors raise :class:`ToolReplayError`, whose message is the command's after
``error:``.
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, Iterable, List, Mapping, Optional, Union

from . import _toolreplay
from ._toolreplay import ToolReplayError

__all__ = [
    "ToolReplayError",
    "Records",
    "Source",
    "replay",
    "scope",
    "seal",
    "verify",
    "import_log",
    "claims",
]

Records = Iterable[Mapping[str, Any]]
"""Records given in memory: ``{"index": N, "tool": ..., "args": {...}, "response": {...}}``."""

Source = Union[str, "os.PathLike[str]", Records]
"""A file's path, or records."""


def _input(source: Source) -> Dict[str, Any]:
    """The extension's arguments for ``source``: ``path`` or ``records`` (JSON Lines)."""
    if isinstance(source, (str, os.PathLike)):
        return {"path": os.fspath(source)}
    if isinstance(source, (bytes, bytearray, Mapping)):
        raise TypeError("give a path, or a list of records (dicts)")
    lines = []
    for record in source:
        try:
            lines.append(json.dumps(record, ensure_ascii=False, allow_nan=False))
        except (TypeError, ValueError) as err:
            raise ToolReplayError(
                f"<records>:{len(lines) + 1}: not a JSON record: {err}"
            ) from None
        if "\n" in lines[-1]:
            raise ToolReplayError(f"<records>:{len(lines)}: not a JSON record")
    text = "".join(line + "\n" for line in lines)
    return {"records": text.encode("utf-8")}


def _lines(text: str) -> List[Dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line]


def replay(
    source: Source, *, from_: Optional[str] = None, rules: Optional[str] = None
) -> Dict[str, Any]:
    """Replay the transcript: ``toolreplay replay SOURCE --format json``.

    ``from_`` reads the file as an agent's log (``"auto"``, ``"claude-code"``,
    ``"codex"``, ... as ``--from`` takes them); ``rules`` is ``"spec"`` or
    ``"agent"`` (by default ``agent`` for an imported log, ``spec`` otherwise).
    Returns the report: ``calls``, ``divergence`` and ``findings``.
    """
    return json.loads(_toolreplay.replay(**_input(source), from_=from_, rules=rules))


def scope(
    source: Source, policy: Union[str, "os.PathLike[str]"], *, from_: Optional[str] = None
) -> Dict[str, Any]:
    """Audit the transcript against a scope file: ``toolreplay scope SOURCE --scope
    POLICY --format json``. Returns the report: ``agent``, ``calls`` and ``findings``.
    """
    return json.loads(
        _toolreplay.scope(os.fspath(policy), **_input(source), from_=from_)
    )


def seal(source: Source) -> List[Dict[str, Any]]:
    """Chain the transcript with SHA-256: the links ``toolreplay seal SOURCE`` writes,
    one dict a link."""
    return _lines(_toolreplay.seal(**_input(source)))


def verify(path: Union[str, "os.PathLike[str]"]) -> Dict[str, Any]:
    """Verify a sealed transcript's chain: ``toolreplay verify PATH --format json``."""
    return json.loads(_toolreplay.verify(os.fspath(path)))


def import_log(
    path: Union[str, "os.PathLike[str]"], from_: Optional[str] = None
) -> List[Dict[str, Any]]:
    """Import an agent's log: the records ``toolreplay import PATH [--from F]``
    writes, one dict a call (``from_`` defaults to ``"auto"``)."""
    return _lines(
        _toolreplay.import_log_transcript(path=os.fspath(path), from_=from_)
    )


def claims(
    path: Union[str, "os.PathLike[str]"], *, from_: Optional[str] = None
) -> Dict[str, Any]:
    """Check an agent's final answers against its calls: ``toolreplay claims PATH
    --format json`` (a live session with its context file beside it, or with
    ``from_`` an agent's log whose format keeps the conversation, ``"auto"`` to
    recognise it)."""
    return json.loads(_toolreplay.claims(os.fspath(path), from_=from_))
