"""The README's library example runs as written and prints what its comments say."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).parents[1] / "README.md"


def test_the_library_example_runs() -> None:
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## Library API") :]
    (code,) = re.findall(r"```python\n(.*?)```", section[: section.index("\n## ", 3)], re.S)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(README), "exec"), {})
    lines = out.getvalue().splitlines()
    assert lines[0] == "{'allowTypha': 'true', 'typhaReplicas': '4'}"
    assert lines[1] == "True []"
    assert lines[2].startswith("True ['v3.25.0', ")
