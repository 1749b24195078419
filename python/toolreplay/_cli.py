"""The ``toolreplay`` command of the wheel: runs the release binary it ships."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def binary() -> Path:
    """The ``toolreplay`` binary in this package."""
    return Path(__file__).resolve().parent / "bin" / "toolreplay"


def main() -> None:
    """Replace this process with the binary, with the same arguments."""
    path = binary()
    if not os.access(path, os.X_OK):
        sys.stderr.write(
            "error: this install of the toolreplay package has no command line: "
            "build the wheel with python/build-wheel.sh, or install the binary "
            "with cargo\n"
        )
        sys.exit(2)
    os.execv(path, [str(path), *sys.argv[1:]])
