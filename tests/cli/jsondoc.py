"""Run a command with ``--format json`` and check its document against the published
schema, independently of the run-time check."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from renderer.data import schemas
from renderer.data.bundled import schema_path
from tests.clihelp import run


def json_doc(capsys: pytest.CaptureFixture[str], schema: str, *args: str) -> tuple[int, Any]:
    r = run(capsys, *args, "--format", "json")
    data = json.loads(r.out)
    published = json.loads(Path(schema_path(schema)).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(published, registry=schemas.registry()).validate(data)
    return r.code, data
