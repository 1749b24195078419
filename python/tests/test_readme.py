"""README's Python example runs, from the repository's root, and prints the
findings of the sample."""

from __future__ import annotations

import contextlib
import io
import re

from conftest import ROOT


def test_the_readme_s_python_example_runs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    assert len(blocks) == 1
    assert len(blocks[0].splitlines()) == 5
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(blocks[0], "README.md", "exec"), {})
    assert out.getvalue() == (
        "3 redundant-call tool 'read_file' repeats the identical call at index 1 with no state change between them\n"
        "6 non-determinism tool 'search' returned a different response than the identical call at index 3\n"
    )
