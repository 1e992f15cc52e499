"""Library API: what installer-service-style callers rely on."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from renderer import api
from renderer.checks import verdict as verdicts
from renderer.data.bundled import bundled_manifests
from renderer.engine import compile as compile_mod
from renderer.errors import InputError, RefusedError
from renderer.manifests.tree import COMPONENT, resolve_version


def test_render_601_nodes_has_typha_at_four_replicas() -> None:
    result = api.render(api.Request.of("v3.28", 601))
    assert result.version.name == "v3.28.2"
    assert result.context["allowTypha"] == "true" and result.context["typhaReplicas"] == "4"
    assert "  replicas: 4\n" in result.stream()


def test_capability_verdict_follows_template_content(tmp_path: Path) -> None:
    """The capability memo is keyed by content: an edited template is judged again."""
    src = bundled_manifests() / COMPONENT / "v3.28.2"
    dst = tmp_path / COMPONENT / "v3.28.2"
    shutil.copytree(src, dst)
    assert verdicts.typha_capability(resolve_version("v3.28.2", tmp_path))[0] is True
    assert api.render(api.Request.of("v3.28.2", 601, root=tmp_path)).decision.allow_typha

    (dst / "001-typha.yaml").write_text("# Typha removed\n")
    capable, missing = verdicts.typha_capability(resolve_version("v3.28.2", tmp_path))
    assert capable is False and any("Deployment calico-typha" in m for m in missing)
    with pytest.raises(RefusedError):
        api.render(api.Request.of("v3.28.2", 601, root=tmp_path))


def test_zero_nodes_render_as_the_controller_renders_a_cluster_without_bkenodes() -> None:
    result = api.render(api.Request.of("v3.28", 0))
    assert result.decision.context() == {"allowTypha": "false", "typhaReplicas": "0"}


@pytest.mark.parametrize("nodes", [-1, True, 1.5, "3", None])
def test_bad_node_count_is_input_error_naming_nodes(nodes: object) -> None:
    with pytest.raises(InputError) as exc:
        api.render(api.Request.of("v3.28", nodes))  # type: ignore[arg-type]
    assert exc.value.key == "nodes"
    with pytest.raises(InputError) as exc:
        api.plan(api.Request.of("v3.28", nodes))  # type: ignore[arg-type]
    assert exc.value.key == "nodes"
    if nodes is not None:  # from_nodes=None means "the same as nodes"
        with pytest.raises(InputError) as exc:
            api.plan(api.Request.of("v3.28", 3), from_nodes=nodes)  # type: ignore[arg-type]
        assert exc.value.key == "from_nodes"


@pytest.mark.parametrize("operation", ["bogus", "", None, 3])
def test_bad_operation_is_input_error_naming_operation(operation: object) -> None:
    with pytest.raises(InputError) as exc:
        api.render(api.Request.of("v3.28", 3, operation=operation))  # type: ignore[arg-type]
    assert exc.value.key == "operation" and "install" in exc.value.message


def test_validate_render_reports_errors_and_nothing_is_to_be_written(tmp_path: Path) -> None:
    src = bundled_manifests() / COMPONENT / "v3.28.2"
    dst = tmp_path / COMPONENT / "v3.28.2"
    shutil.copytree(src, dst)
    (dst / "999-bad.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndta: {}\n"
    )
    check = api.validate_render(api.render(api.Request.of("v3.28.2", 3, root=tmp_path)), ["1.30"])
    assert not check.ok
    [bad] = check.errors
    assert bad.field == "dta" and bad.file == "kubernetes/calico/v3.28.2/999-bad.yaml"
    assert check.summary() == "1 schema error(s) on Kubernetes 1.30; nothing written"


def _count_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    reads: list[str] = []
    real = compile_mod.read_text

    def counting(path: Any, **kw: Any) -> str:
        reads.append(str(path))
        return real(path, **kw)

    monkeypatch.setattr(compile_mod, "read_text", counting)
    return reads


def test_unchanged_templates_are_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    vdir = resolve_version("v3.28")
    api.render(api.Request.of("v3.28", 601))  # warm: reads what it has not seen
    reads = _count_reads(monkeypatch)
    api.render(api.Request.of("v3.28", 601))
    api.render(api.Request.of("v3.28", 3))
    verdicts.typha_capability(vdir)
    assert reads == []


def test_a_changed_template_is_read_again_even_with_the_same_size_and_mtime(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(compile_mod, "RACY_NS", -(10**18))  # trust every stat
    src = bundled_manifests() / COMPONENT / "v3.28.2"
    dst = tmp_path / COMPONENT / "v3.28.2"
    shutil.copytree(src, dst)
    extra = dst / "999-extra.yaml"
    extra.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: aaaa}\n")
    before = extra.stat()
    assert "name: aaaa" in api.render(api.Request.of("v3.28.2", 3, root=tmp_path)).stream()
    extra.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bbbb}\n")
    os.utime(extra, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert extra.stat().st_size == before.st_size
    assert extra.stat().st_mtime_ns == before.st_mtime_ns
    assert "name: bbbb" in api.render(api.Request.of("v3.28.2", 3, root=tmp_path)).stream()


def test_render_warns_once_when_the_version_is_not_release_ready(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from tests.clihelp import run

    real = str(Path(__file__).parent / "fixtures" / "bke-real")
    r = run(capsys, "--manifests", real, "--version", "v3.31.3", "--nodes", "601", "--no-validate")
    lines = [line for line in r.err.splitlines() if "release-ready" in line]
    assert r.code == 0 and len(lines) == 1 and "typha-anti-affinity" in lines[0]
    v = verdicts.verdict(api.resolve_version("v3.31.3", Path(real)))
    assert (v.capable, v.rule_errors, v.release_ready) == (True, ("typha-anti-affinity",), False)
    ok = run(capsys, "--version", "v3.31", "--nodes", "601", "--no-validate")
    assert ok.code == 0 and "release-ready" not in ok.err


def test_validate_refuses_an_unknown_kube_version_before_reading_files() -> None:
    with pytest.raises(InputError) as err:
        api.validate(["/nonexistent.yaml"], ["0.1"])
    assert err.value.file is None


def test_capability_is_the_release_check_of_one_version() -> None:
    from tests.gatehelp import TREE

    report = api.capability("v9.4.0", root=TREE, kube_versions=["1.30"])
    assert [(f.rule, f.severity) for f in report.rules] == [("typha-anti-affinity", "error")]
    assert report.kube_versions == ("1.30",) and not report.release_ready


#: The command line with the Typha verdict judged aside (a forked child) or in turn;
#: ``crash``: the child dies, ``speculation-fails``: the render done meanwhile fails.
_ASIDE_DRIVER = """
import os, sys
from renderer import api
from renderer.checks import verdict
mode = sys.argv[1]
flag = open(sys.argv[2], "w")  # opened before the run is traced: a write would spoil it
real_aside, parent = verdict.judge_aside, os.getpid()
def judge_aside(version):
    found = None if mode == "serial" else real_aside(version)
    flag.write("forked\\n" if found is not None else "in turn\\n")
    flag.flush()
    return found
verdict.judge_aside = judge_aside
verdict._spare_core = lambda: True  # however busy the machine running the tests is
if mode == "crash":
    real_judge = verdict._judge
    verdict._judge = lambda v: os._exit(9) if os.getpid() != parent else real_judge(v)
if mode == "speculation-fails":
    real_check, calls = api.schema_check, []
    def schema_check(*args):
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("failed meanwhile")
        return real_check(*args)
    api.schema_check = schema_check
sys.argv = ["calico-render", *sys.argv[3:]]
from renderer._entry import main
main()
"""

_REAL_TREE = str(Path(__file__).parent / "fixtures" / "bke-real")
#: A value that adds an env entry to calico-node, in YAML that still parses.
_INJECTED = (
    'ipAutoDetectionMethod=x"\n            - name: FELIX_BPFENABLED\n              value: "true'
)


def _cli_run(work: Path, mode: str, args: list[str]) -> tuple[Any, ...]:
    """(exit code, stdout, stderr, every cache file's bytes, how the verdict was judged)
    of a run in ``work`` (emptied first: the run memo keys a run by its directory)."""
    import subprocess
    import sys

    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    env = {**os.environ, "CALICO_RENDER_CACHE_DIR": str(work / "cache")}
    env.pop("CALICO_RENDER_NO_CACHE", None)
    flag = work.parent / f"{work.name}.judged"
    done = subprocess.run(
        [sys.executable, "-c", _ASIDE_DRIVER, mode, str(flag), *args],
        capture_output=True,
        env=env,
        cwd=work,
        check=False,
    )
    from renderer.store import invocation

    files: dict[str, Any] = {}
    for path in sorted((work / "cache").rglob("*")):
        if path.is_file():
            name = str(path.relative_to(work / "cache"))
            files[name] = path.read_bytes()
            if name.startswith("invocation/"):  # marshal's bytes follow reference counts
                files[name] = invocation._decode(files[name])
    return done.returncode, done.stdout, done.stderr, files, flag.read_text().split()


@pytest.mark.parametrize(
    ("mode", "args", "code"),
    [
        ("aside", ["--manifests", _REAL_TREE, "--version", "v3.31.3", "--nodes", "601"], 0),
        ("aside", ["--version", "v3.27.3", "--nodes", "601"], 3),  # not capable: refused
        ("aside", ["--version", "v3.27.3", "--nodes", "601", "--operation", "upgrade"], 0),
        ("crash", ["--manifests", _REAL_TREE, "--version", "v3.31.3", "--nodes", "601"], 0),
        ("crash", ["--version", "v3.27.3", "--nodes", "601"], 3),
        ("speculation-fails", ["--version", "v3.28", "--nodes", "601"], 0),
        # a value that changes the YAML: exit 1 before the objects are parsed or checked
        ("aside", ["--version", "v3.31", "--nodes", "601", "--set", _INJECTED], 1),
    ],
    ids=[
        "capable",
        "refused",
        "compatibility",
        "child-crashes",
        "child-crashes-refused",
        "fails",
        "injected",
    ],
)
def test_a_render_judging_its_verdict_aside_prints_and_caches_what_one_judging_in_turn_does(
    tmp_path: Path, mode: str, args: list[str], code: int
) -> None:
    aside = _cli_run(tmp_path / "run", mode, args)
    in_turn = _cli_run(tmp_path / "run", "serial", args)
    assert aside[4] == ["forked"] and in_turn[4] == ["in", "turn"]
    assert aside[0] == in_turn[0] == code
    assert aside[1:4] == in_turn[1:4]
    assert any(name.startswith("capability/") for name in in_turn[3])
    if code == 1:  # nothing parsed nor checked: no entry for either
        assert not any(name.startswith(("parse/", "schemas/")) for name in in_turn[3])
    if code == 0:  # a run the run memo keeps, with what the child read as its inputs
        assert any(name.startswith("render/") for name in in_turn[3])
        assert any(name.startswith("invocation/") for name in in_turn[3])
