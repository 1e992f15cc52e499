"""docs/library.md's example runs as written and prints what its comments say."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

LIBRARY = Path(__file__).parents[1] / "docs" / "library.md"


def test_the_library_example_runs() -> None:
    text = LIBRARY.read_text(encoding="utf-8")
    (code,) = re.findall(r"```python\n(.*?)```", text, re.S)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(LIBRARY), "exec"), {})
    lines = out.getvalue().splitlines()
    assert lines[0] == "{'allowTypha': 'true', 'typhaReplicas': '4'}"
    assert lines[1] == "0 []"
    assert lines[2] == "True []"
    assert lines[3].startswith("True ['v3.25.0', ")
