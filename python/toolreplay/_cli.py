"""The ``toolreplay`` command of the package: the release binary the wheel of
``python/build-wheel.sh`` ships, or else the command line linked into the
extension, run in this process."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def binary() -> Path:
    """The ``toolreplay`` binary in this package (only in a wheel made by
    ``python/build-wheel.sh``)."""
    return Path(__file__).resolve().parent / "bin" / "toolreplay"


def main() -> None:
    """Replace this process with the binary, with the same arguments; without one,
    run the command line of the extension, which writes to file descriptors 0, 1 and
    2 directly, and exit with its status."""
    path = binary()
    if os.access(path, os.X_OK):
        os.execv(path, [str(path), *sys.argv[1:]])
    from . import _toolreplay

    sys.stdout.flush()
    sys.stderr.flush()
    sys.exit(_toolreplay.main(["toolreplay", *sys.argv[1:]]))
