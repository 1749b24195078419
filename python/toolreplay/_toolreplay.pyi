"""The extension module: each function returns the command's output as text."""

from typing import List, Optional, Tuple

class ToolReplayError(Exception):
    """An input toolreplay cannot audit: the message is the command line's, after ``error:``."""

def replay(
    path: Optional[str] = None,
    records: Optional[bytes] = None,
    from_: Optional[str] = None,
    rules: Optional[str] = None,
) -> str: ...
def scope(
    policy: str,
    path: Optional[str] = None,
    records: Optional[bytes] = None,
    from_: Optional[str] = None,
) -> str: ...
def seal(path: Optional[str] = None, records: Optional[bytes] = None) -> str: ...
def verify(path: str) -> str: ...
def import_log_transcript(
    path: Optional[str] = None,
    records: Optional[bytes] = None,
    from_: Optional[str] = None,
) -> str: ...
def claims(path: str, from_: Optional[str] = None) -> str: ...
def main(args: List[str]) -> int:
    """Runs the command line ``args`` (the program's name first) in this process, on
    file descriptors 0, 1 and 2; returns its exit status."""
def cli(
    args: List[str], config: Optional[str] = None, discover: bool = False
) -> Tuple[int, str]:
    """Runs the command line ``toolreplay ARGS`` with its report kept: its exit
    status and report. ``config``: that toolreplay.toml; else ``discover``: the one
    the command finds; else none."""
