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

What only the command line reads, ``toolreplay.toml`` (``config=``), baselines
(``baseline=``) and the signature, attestation and head checks of ``verify``, is
read by running the command line itself, linked into the extension, with its
report kept: the result is its ``--format json`` report, parsed.
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
    "Config",
]

Records = Iterable[Mapping[str, Any]]
"""Records given in memory: ``{"index": N, "tool": ..., "args": {...}, "response": {...}}``."""

Source = Union[str, "os.PathLike[str]", Records]
"""A file's path, or records."""

Path = Union[str, "os.PathLike[str]"]
"""A file's path."""

Config = Union[None, bool, str, "os.PathLike[str]"]
"""Which ``toolreplay.toml`` to read: ``None`` (or ``False``) none, as with
``--no-config``; ``True`` the one the command finds (in the current folder, or the
nearest folder above it); a path, that file."""


def _command(args: List[str], config: Config) -> Dict[str, Any]:
    """The JSON report of the command line ``toolreplay ARGS``, run in this process."""
    if config is None or config is False:
        path, discover = None, False
    elif config is True:
        path, discover = None, True
    else:
        path, discover = os.fspath(config), False
    _status, report = _toolreplay.cli(args, config=path, discover=discover)
    return json.loads(report)


def _path_only(source: Source, what: str) -> str:
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(f"{what} takes a file's path, not records")
    return os.fspath(source)


def _options(**options: Optional[Any]) -> List[str]:
    """``--name value`` for each option given."""
    args: List[str] = []
    for name, value in options.items():
        if value is not None:
            args += ["--" + name.rstrip("_").replace("_", "-"), os.fspath(value)]
    return args


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
    source: Source,
    *,
    from_: Optional[str] = None,
    rules: Optional[str] = None,
    baseline: Optional[Path] = None,
    config: Config = None,
) -> Dict[str, Any]:
    """Replay the transcript: ``toolreplay replay SOURCE --format json``.

    ``from_`` reads the file as an agent's log (``"auto"``, ``"claude-code"``,
    ``"codex"``, ... as ``--from`` takes them); ``rules`` is ``"spec"`` or
    ``"agent"`` (by default ``agent`` for an imported log, ``spec`` otherwise).
    ``baseline`` reports only the findings not in that baseline file
    (``--baseline``); ``config`` reads a ``toolreplay.toml`` (see :data:`Config`).
    Both take a path, not records.
    Returns the report: ``calls``, ``divergence`` and ``findings``.
    """
    if baseline is not None or config not in (None, False):
        path = _path_only(source, "replay with baseline or config")
        options = _options(from_=from_, rules=rules, baseline=baseline)
        return _command(["replay", path, "--format", "json", *options], config)
    return json.loads(_toolreplay.replay(**_input(source), from_=from_, rules=rules))


def scope(
    source: Source,
    policy: Optional[Path] = None,
    *,
    from_: Optional[str] = None,
    baseline: Optional[Path] = None,
    config: Config = None,
) -> Dict[str, Any]:
    """Audit the transcript against a scope file: ``toolreplay scope SOURCE --scope
    POLICY --format json``. A live session's sealed transcript read with
    ``from_="sealed"`` (or ``"auto"``) has its paths read where its calls ran, from
    its context file ``S.context.jsonl`` beside it, as the command reads them.
    ``baseline`` and ``config`` as for :func:`replay` (with ``config``, ``policy``
    may be left to the file's ``scope``). Returns the report: ``agent``, ``calls``
    and ``findings``.
    """
    if baseline is not None or config not in (None, False):
        path = _path_only(source, "scope with baseline or config")
        options = _options(scope=policy, from_=from_, baseline=baseline)
        return _command(["scope", path, "--format", "json", *options], config)
    if policy is None:
        raise TypeError("scope needs a policy (or config with a scope)")
    return json.loads(
        _toolreplay.scope(os.fspath(policy), **_input(source), from_=from_)
    )


def seal(source: Source) -> List[Dict[str, Any]]:
    """Chain the transcript with SHA-256: the links ``toolreplay seal SOURCE`` writes,
    one dict a link."""
    return _lines(_toolreplay.seal(**_input(source)))


def verify(
    path: Path,
    *,
    head: Optional[str] = None,
    signature: Optional[Path] = None,
    allowed_signers: Optional[Path] = None,
    identity: Optional[str] = None,
    attestation: Optional[Path] = None,
    config: Config = None,
) -> Dict[str, Any]:
    """Verify a sealed transcript's chain: ``toolreplay verify PATH --format json``.

    ``head`` (a pin file or a digest) checks the chain's head (``--head``);
    ``signature`` with ``allowed_signers`` and ``identity`` its SSH signature;
    ``attestation`` (with ``allowed_signers``) its in-toto attestation; ``config``
    as for :func:`replay`.
    """
    checks = _options(
        head=head,
        signature=signature,
        allowed_signers=allowed_signers,
        identity=identity,
        attestation=attestation,
    )
    if checks or config not in (None, False):
        return _command(["verify", os.fspath(path), "--format", "json", *checks], config)
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
