"""The extension module: each function returns the command's output as text."""

from typing import Optional

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
