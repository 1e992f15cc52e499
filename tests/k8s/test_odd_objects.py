"""Odd but loadable YAML reaches every stage as JSON-like data and never crashes it."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

import pytest

from renderer.errors import InputError
from renderer.k8s.diff import diff_values
from renderer.k8s.parse import parse_stream
from renderer.k8s.schema import SchemaValidator, canonical_hash
from renderer.output.documents import VALIDATE
from tests.cli.jsondoc import json_doc
from tests.clihelp import run

MIXED_KEYS = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: x, namespace: kube-system}
data:
  1: a
  b: c
  false: d
  2.5: e
  yes: f
  2024-01-01: g
  1e6: h
"""


def test_non_string_keys_become_strings_like_yaml_to_json() -> None:
    """As sigs.k8s.io/yaml makes them JSON keys for BKE's controller (a float as a
    32-bit float prints, ``yes`` the boolean true)."""
    (obj,) = parse_stream(MIXED_KEYS, "m.yaml")
    assert obj.data["data"] == {
        "1": "a",
        "b": "c",
        "false": "d",
        "2.5": "e",
        "true": "f",
        "2024-01-01": "g",
        "1e+06": "h",
    }
    json.dumps(obj.data, sort_keys=True)
    canonical_hash(obj.data)


@pytest.mark.parametrize("key", ["null", "~", "18446744073709551615"])
def test_keys_json_has_no_form_for_are_refused_with_the_line(key: str) -> None:
    """A null key, or one beyond int64: the controller's YAML-to-JSON step fails."""
    text = f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: x}}\ndata:\n  {key}: a\n"
    with pytest.raises(InputError) as exc:
        parse_stream(text, "k.yaml")
    assert exc.value.file == "k.yaml" and exc.value.line == 1
    assert "no JSON form" in exc.value.message


def test_timestamps_become_strings_other_scalars_stay() -> None:
    text = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"
        "data:\n  a: 2024-01-01\n  b: 2024-01-01T10:20:30Z\n"
        "spec: {i: 1, f: 1.5, t: true, n: null, bin: !!binary aGk=}\n"
    )
    (obj,) = parse_stream(text, "d.yaml")
    assert obj.data["data"]["a"] == "2024-01-01"
    assert obj.data["data"]["b"] == "2024-01-01T10:20:30Z"
    # !!binary: its bytes, as go-yaml decodes it; the key n: YAML 1.1's false
    assert obj.data["spec"] == {"i": 1, "f": 1.5, "t": True, "false": None, "bin": "hi"}
    assert not any(isinstance(v, (datetime.date, bytes)) for v in obj.data["data"].values())
    json.dumps(obj.data, sort_keys=True)


def test_keys_equal_after_conversion_are_refused_with_the_line() -> None:
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata:\n  1: a\n  '1': b\n"
    with pytest.raises(InputError) as exc:
        parse_stream(text, "dup.yaml")
    assert exc.value.file == "dup.yaml" and exc.value.line == 1
    assert "'1'" in exc.value.message


def test_mixed_keys_diff_and_validate() -> None:
    (obj,) = parse_stream(MIXED_KEYS, "m.yaml")
    assert diff_values(obj.data, {**obj.data, "data": {}}, "")
    assert SchemaValidator(["1.30"]).validate(obj) == []


@pytest.mark.parametrize("body", [MIXED_KEYS, MIXED_KEYS.replace("  1: a\n", "  1: 2024-01-01\n")])
def test_validate_cli_on_mixed_keys_is_not_a_traceback(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, body: str
) -> None:
    path = tmp_path / "mixed.yaml"
    path.write_text(body)
    code, data = json_doc(capsys, VALIDATE, "validate", "--kube-version", "1.30", str(path))
    assert code in (0, 1) and data["objects"] == 1
    assert run(capsys, "validate", "--kube-version", "1.30", str(path)).code == code


def test_validate_cli_on_a_date_value_is_clean(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "date.yaml"
    path.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {a: 2024-01-01}\n")
    r = run(capsys, "validate", "--kube-version", "1.30", str(path))
    assert r.code == 0, r.out + r.err


def test_validate_cli_on_a_kind_that_is_not_a_string_is_bad_input(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """BKE's controller fails to decode an object whose kind is not a string: exit 2,
    one line naming the file, line and key."""
    path = tmp_path / "odd.yaml"
    path.write_text("apiVersion: 5\nkind: 7\nmetadata: {name: x}\n")
    r = run(capsys, "validate", "--kube-version", "1.30", str(path))
    assert r.code == 2
    assert f"{path}:1: kind: object has no kind" in r.err


@pytest.mark.parametrize(
    "head",
    [
        "apiVersion: v1\nkind: Foo/Bar\n",
        'apiVersion: v1\nkind: "a\\0b"\n',
        "apiVersion: v1\nkind: ../v1.30.0-local-strict/configmap\n",
        "apiVersion: ../../x\nkind: ConfigMap\n",
        "kind: ConfigMap\n",
    ],
)
def test_validate_cli_on_odd_identity_is_a_finding(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, head: str
) -> None:
    path = tmp_path / "odd.yaml"
    path.write_text(head + "metadata: {name: x}\n")
    code, data = json_doc(capsys, VALIDATE, "validate", "--kube-version", "1.30", str(path))
    assert code == 1  # a finding on the document, not a crash (no JSON then)
    assert [
        (f["location"]["path"], f["location"]["line"], f["severity"]) for f in data["findings"]
    ] == [(str(path), 1, "error")]
