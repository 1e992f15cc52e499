"""Adversarial input at the CLI: every case is exit 2 with one line, never a traceback."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

import pytest

from tests.clihelp import one_error, run

TEMPLATE = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"


def _tree(tmp_path: Path) -> Path:
    version = tmp_path / "root" / "kubernetes" / "calico" / "v3.28.2"
    version.mkdir(parents=True)
    (version / "calico.yaml").write_text(TEMPLATE)
    return tmp_path / "root"


def test_symlinked_version_outside_root_is_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root = _tree(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "calico.yaml").write_text("secret: hunter2\n")
    (root / "kubernetes" / "calico" / "v3.99.0").symlink_to(outside)
    r = run(capsys, "--manifests", str(root), "--version", "v3.99.0", "--nodes", "3")
    link = root / "kubernetes" / "calico" / "v3.99.0"
    assert str(outside) in one_error(r, file=link)  # where the link points
    assert r.out == "" and "hunter2" not in r.err


def test_file_name_with_newline_cannot_add_objects(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root = _tree(tmp_path)
    name = "calico.yaml\n---\napiVersion: v1\nkind: Secret\n#.yaml"
    (root / "kubernetes" / "calico" / "v3.28.2" / name).write_text(TEMPLATE)
    r = run(capsys, "--manifests", str(root), "--version", "v3.28.2", "--nodes", "3")
    one_error(r)
    assert r.out == ""


@pytest.mark.parametrize(
    ("value", "line"),
    [
        ('ipAutoDetectionMethod=x"\n  - name: FELIX_BPFENABLED\n    value: "true', 729),
        ('ipAutoDetectionMethod=x\n  - name: FELIX_BPFENABLED\n    value: "true"', 729),
        ("calicoMode=vxlan\n---\nkind: Secret", None),  # compared, never printed
        ("ipAutoDetectionMethod=eth0", None),
        ("ipAutoDetectionMethod=first-found ", None),
        ('podNote=a"b', None),  # read by no template: a warning
        ("ClusterCidr.Ipv6=fd00::/56\n---\nkind: Secret", None),  # reaches no template
    ],
)
def test_a_value_that_changes_the_yaml_is_reported_and_nothing_written(
    capsys: pytest.CaptureFixture[str], value: str, line: int | None
) -> None:
    """The controller renders any value; where one adds an object, key or list item
    the template never wrote, render reports context-value-injects-yaml (exit 1, nothing
    on stdout) naming the key, the value and the template line that printed it."""
    r = run(capsys, "--version", "v3.31", "--nodes", "3", "--set", value, "--no-validate")
    key, _, text = value.partition("=")
    if line is None:
        assert r.code == 0, r.err
        assert "context-value-injects-yaml" not in r.err
        return
    assert (r.code, r.out) == (1, "")
    (finding,) = [x for x in r.err.splitlines() if "context-value-injects-yaml" in x]
    assert finding.startswith(
        f"calico-render: kubernetes/calico/v3.31.3/002-calico.yaml:{line}: error: "
    )
    assert f"the value of {key} ({text!r})" in finding


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["check", "--output", ""], "--output"),
        (["check", "--golden", ""], "--golden"),
        (["check", "--manifests", ""], "--manifests"),
        (["--version", "v3.31", "--nodes", "3", "--output-dir", ""], "--output-dir"),
        (["--version", "v3.31", "--nodes", "3", "--values", ""], "--values"),
        (["--config", ""], "--config"),
        (["--version", "v3.31", "--nodes-file", ""], "--nodes-file"),
        (["template", ""], "FILE"),
        (["validate", ""], "PATH..."),
        (["plan", "--to-version", "v3.31", "--nodes", "3", "--output-dir", ""], "--output-dir"),
        (["images", "--config", ""], "--config"),
        (["advise", "--version", "v3.31", "--config", ""], "--config"),
        (["advise", "--version", "v3.31", "--nodes-file", ""], "--nodes-file"),
        (["explain-context", "--version", "v3.31", "--config", ""], "--config"),
        (["explain-context", "--version", "v3.31", "--nodes-file", ""], "--nodes-file"),
    ],
)
def test_empty_path_arguments_name_the_flag(
    capsys: pytest.CaptureFixture[str], args: list[str], flag: str
) -> None:
    r = run(capsys, *args)
    message = one_error(r)  # a usage error: no key, the flag is quoted in click's words
    assert r.out == "" and f"'{flag}'" in message and "empty path" in message


def _python(*args: str, env: Mapping[str, str] | None = None) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", "from renderer._entry import main; main()", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )


def _endless_render(tmp_path: Path) -> list[str]:
    """Arguments of a render that runs far longer than any test waits."""
    values = tmp_path / "values.json"
    values.write_text(json.dumps({"l": list(range(2000))}))
    template = tmp_path / "loop.yaml"
    template.write_text("{{ range .l }}{{ range $.l }}{{ range $.l }}{{ end }}{{ end }}{{ end }}")
    return ["template", str(template), "--values", str(values)]


@pytest.mark.slow
def test_sigint_while_the_cli_imports_is_one_line_and_130(tmp_path: Path) -> None:
    """Ctrl-C once the entry point runs, while the CLI is still importing. The moment is
    read from ``-X importtime`` (the first module imported after ``renderer._entry``), not
    from a delay, which a loaded machine would make land inside the interpreter's own
    start-up, before any of our code."""
    entry = "from renderer._entry import main; main()"
    proc = subprocess.Popen(
        [sys.executable, "-X", "importtime", "-c", entry, *_endless_render(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stderr is not None
    lines: list[str] = []
    entered = False
    for raw in proc.stderr:
        line = raw.decode()
        lines.append(line)
        if entered:
            proc.send_signal(signal.SIGINT)
            break
        entered = line.rstrip().endswith("renderer._entry")
    assert entered, "".join(lines)
    lines += proc.stderr.read().decode().splitlines(keepends=True)
    assert proc.wait(timeout=60) == 130, "".join(lines)
    said = [line.rstrip("\n") for line in lines if not line.startswith("import time:")]
    assert said == ["calico-render: interrupted"]


@pytest.mark.slow
@pytest.mark.parametrize("delay", [0.3, 0.8])
def test_sigint_at_any_time_is_one_line_and_130(tmp_path: Path, delay: float) -> None:
    """While importing or rendering a long template, whichever a delay lands in."""
    proc = _python(*_endless_render(tmp_path))
    time.sleep(delay)
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert err.decode().splitlines() == ["calico-render: interrupted"]


@pytest.mark.parametrize("encoding", ["ascii", "utf-8", "latin-1"])
def test_stdout_is_utf8_bytes_whatever_the_io_encoding(tmp_path: Path, encoding: str) -> None:
    template = tmp_path / "t.yaml"
    template.write_bytes('x: "é {{ "\\xff" }} ü"\n'.encode())
    env = {**os.environ, "PYTHONIOENCODING": encoding}
    proc = _python("template", str(template), env=env)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert out == 'x: "é \xff ü"\n'.encode("utf-8", "surrogateescape").replace(b"\xc3\xbf", b"\xff")


def test_template_is_named_after_the_addon_unless_told(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    template = tmp_path / "002-calico.yaml"
    template.write_text('{{ define "calico" }}defined{{ end }}{{ define "other" }}o{{ end }}')
    assert run(capsys, "template", str(template)).out == "defined"
    assert run(capsys, "template", str(template), "--name", "other").out == "o"


def test_a_template_whose_value_changes_the_yaml_is_a_finding_of_the_json_reports(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """check and capability report context-value-injects-yaml in their JSON (details:
    the key and the value), never an internal error."""
    version = tmp_path / "kubernetes" / "calico" / "v1.0.0"
    version.mkdir(parents=True)
    (version / "note.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: note, namespace: kube-system}\n"
        'data:\n  method: {{ printf "%s\\n  injected: yes" .ipAutoDetectionMethod }}\n'
    )
    kube = ("--kube-version", "1.34", "--format", "json", "--manifests", str(tmp_path))
    commands = (
        ["check", "--golden", str(tmp_path / "golden")],
        ["capability", "--version", "v1.0.0"],
    )
    for args in commands:
        r = run(capsys, *args, *kube)
        assert r.code == 1, r.err
        findings = (
            json.loads(r.out)["findings"]
            if args[0] == "capability"
            else json.loads(r.out)["versions"][0]["findings"]
        )
        (inject,) = [f for f in findings if f["rule"] == "context-value-injects-yaml"]
        assert (inject["stage"], inject["details"]["key"]) == ("context", "ipAutoDetectionMethod")
        assert set(inject["details"]) == {"key", "value"}
