"""Audit many machines' agent logs with Ray Data: one task per log, one summary.

    python examples/fleet.py FOLDER [--address ADDRESS]

Reads every file in FOLDER (recursively), replays each as an agent's log
(`--from auto`) in parallel Ray tasks, and prints one JSON summary: the same
`reports` and `summary` as `toolreplay replay FOLDER --from auto --format json`.
Without --address Ray starts a local cluster; with a cluster's address the same code
runs on its machines (the logs must be readable there: a shared file system, or
read them with ray.data.read_binary_files from object storage).
"""

from __future__ import annotations

import argparse
import json
import os
from collections import Counter
from pathlib import Path
from typing import Any, Dict, List, Optional

import ray

import toolreplay


def audit(row: Dict[str, Any]) -> Dict[str, Any]:
    """One log's report, or its error: a Ray Data row in, a row out."""
    try:
        report = toolreplay.replay(row["path"], from_="auto")
        return {"path": row["path"], "report": json.dumps(report), "error": ""}
    except toolreplay.ToolReplayError as err:
        return {"path": row["path"], "report": "", "error": str(err)}


def files_in(folder: str) -> List[str]:
    """The files of `folder`, recursively, in the command's order (sorted paths)."""
    found = []
    for root, dirs, names in os.walk(folder):
        dirs.sort()
        found.extend(os.path.join(root, name) for name in names)
    return sorted(found)


def audit_fleet(folder: str) -> Dict[str, Any]:
    """Audits every log in `folder` on the Ray cluster already started; gives the
    reports, the errors and one summary of the findings by kind and by tool."""
    rows = ray.data.from_items([{"path": p} for p in files_in(folder)])
    audited = sorted(rows.map(audit).take_all(), key=lambda row: row["path"])
    reports = [json.loads(row["report"]) for row in audited if row["report"]]
    errors = [row["error"] for row in audited if row["error"]]
    by_kind: Counter = Counter()
    by_tool: Counter = Counter()
    for report in reports:
        for finding in report["findings"]:
            by_kind[finding["kind"]] += 1
            by_tool[finding["tool"]] += 1
    return {
        "files": len(audited),
        "errors": len(errors),
        "error_messages": errors,
        "reports": reports,
        "summary": {
            "by_kind": dict(by_kind),
            "by_tool": dict(by_tool),
            "findings": sum(by_kind.values()),
        },
    }


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder")
    parser.add_argument("--address", help="a Ray cluster's address; default: a local one")
    args = parser.parse_args(argv)
    ray.init(address=args.address)
    print(json.dumps(audit_fleet(str(Path(args.folder))), indent=2))


if __name__ == "__main__":
    main()
