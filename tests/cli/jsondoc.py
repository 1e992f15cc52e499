"""Run a command with ``--format json`` and check its document against the published
schema, independently of the run-time check: as a consumer would, with a plain
``jsonschema.validate`` on the self-contained schema ``calico-render schema`` prints."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from renderer import api
from tests.clihelp import run


def json_doc(capsys: pytest.CaptureFixture[str], schema: str, *args: str) -> tuple[int, Any]:
    r = run(capsys, *args, "--format", "json")
    data = json.loads(r.out)
    jsonschema.validate(data, api.schema(schema))
    return r.code, data
