"""Record what the command line prints, and prove a later tree prints the same bytes.

    python benchmarks/cli_record.py record DIR [--only SUBSTR] [--jobs N]
    python benchmarks/cli_record.py compare DIR [--only SUBSTR] [--jobs N]
    python benchmarks/cli_record.py list

``record`` runs a fixed list of ``python -m renderer`` invocations (every command, every
``--format`` each offers, the plain render with several node counts, versions and
operations, values files and ``--set``, and the error paths: bad flags and values,
missing and malformed files, unknown versions, exit 2 in every format) on the bundled
tree, on the real-shaped tree ``tests/fixtures/bke-real`` and on the small test trees,
and writes one file per invocation into DIR: its argv, exit code, stdout, stderr and
every file it wrote. ``compare`` runs the same list against the ``renderer`` the
interpreter imports and prints a unified diff per invocation whose file differs, then
``N of M identical``; it exits 1 on any difference (or a missing or extra invocation).
DIR also holds ``_inputs.txt``, the digest of every input file, so that a difference
caused by changed fixtures is told apart from one caused by changed code.

Every invocation runs in a new temporary workspace holding copies of the inputs it
names by relative path (the examples, the fixture trees, upstream's manifests where
needed), with a private, empty ``CALICO_RENDER_CACHE_DIR`` (a "warm" invocation runs
once unrecorded on that cache first), ``COLUMNS=80`` and ``LC_ALL=C.UTF-8``.
Invocations that need a registry or a browser are not recorded.

Normalised, because they vary by themselves and nowhere else: the workspace's path
(``<WS>``), the cache directory's (``<CACHE>``), the repository's (``<REPO>``, where
the bundled tree lives), the interpreter's prefix (``<PREFIX>``), and elapsed times
(JUnit ``time="..."`` attributes). Nothing else is touched.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
TIMEOUT = 600.0

#: Inputs copied into every workspace: workspace name -> path in the repository.
INPUTS: dict[str, str] = {
    "examples": "examples",
    "bke-real": "tests/fixtures/bke-real",
    "tree": "tests/fixtures/tree",
    "advise-tree": "tests/fixtures/advise",
    "bke": "tests/fixtures/bke",
    "broken": "tests/fixtures/broken",
}
#: Inputs copied only for the invocations that name them (large).
EXTRA_INPUTS: dict[str, str] = {
    "upstream": "upstream/calico",
    "handwritten": "tests/fixtures/handwritten",
}

#: Small files written into every workspace.
FILES: dict[str, str] = {
    "values.yaml": "calicoMode: vxlan\nipAutoDetectionMethod: interface=eth0\n",
    "values.json": '{"calicoMode": "bgp", "repo": "registry.local/"}\n',
    "values-unknown.yaml": "calicoMode: ipip\nnoTemplateReadsThis: x\n",
    "values-malformed.yaml": "calicoMode: [unclosed\n  key: : :\n",
    "values-list.yaml": "- calicoMode\n- vxlan\n",
    "values-dupkey.yaml": "calicoMode: ipip\ncalicoMode: vxlan\n",
    "values-empty.yaml": "",
    "config-malformed.yaml": "apiVersion: bke.bocloud.com/v1beta1\nkind: BKECluster\nspec: [\n",
    "config-wrongkind.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n",
    "nodes-malformed.yaml": "kind: BKENode\nspec: {role: [node\n",
    "exceptions-malformed.yaml": "exceptions:\n  - rule: [\n",
    "exceptions-unknown-rule.yaml": (
        "exceptions:\n  - rule: no-such-rule\n    reason: recorded example\n"
    ),
    "valid.yaml": (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\n  namespace: kube-system\n"
        "data:\n  a: b\n"
    ),
    "invalid-yaml.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x\n",
    "template.yaml": (
        'kind: ConfigMap\nmetadata:\n  name: {{ .name | default "x" }}\n'
        'data:\n  repo: "{{ .repo }}"\n{{- if eq .allowTypha "true" }}\n'
        '  typha: "{{ .typhaReplicas }}"\n{{- end }}\n'
    ),
    "template.yaml.j2": 'kind: ConfigMap\ndata:\n  repo: "{{ repo }}"\n',
    "template-bad.yaml": "kind: ConfigMap\ndata: {{ if .x }}\n",
    "a-file": "not a directory\n",
}

STDIN_VALUES = "calicoMode: vxlan\nrepo: stdin.example/\n"
#: Values on stdin that change the render (vxlan is the bundled versions' default).
STDIN_VALUES_BGP = "calicoMode: bgp\nipAutoDetectionMethod: interface=eth1\n"
STDIN_MANIFEST = FILES["valid.yaml"] + "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n"

FORMATS = {
    "advise": ("text", "json"),
    "capability": ("text", "json", "sarif", "codequality", "html"),
    "check": ("text", "json", "junit", "sarif", "codequality", "html"),
    "explain-context": ("text", "json"),
    "images": ("text", "json", "junit", "sarif", "codequality"),
    "plan": ("text", "json"),
    "rules": ("text", "json"),
    "typha": ("text", "json"),
    "validate": ("text", "json", "junit", "sarif", "codequality"),
    "version": ("text", "json"),
    "versions": ("text", "json"),
}
COMMANDS = (
    "advise",
    "capability",
    "check",
    "explain-context",
    "images",
    "import",
    "plan",
    "rules",
    "template",
    "typha",
    "validate",
    "version",
    "versions",
)


@dataclass(frozen=True)
class Case:
    """One invocation: its id (the record's file name), argv after ``-m renderer``."""

    id: str
    args: tuple[str, ...]
    stdin: str | None = None
    cwd: str = "."
    warm: bool = False
    extra: tuple[str, ...] = field(default=())


def _c(
    cid: str,
    *args: str,
    stdin: str | None = None,
    cwd: str = ".",
    warm: bool = False,
    extra: tuple[str, ...] = (),
) -> Case:
    return Case(cid, tuple(args), stdin, cwd, warm, extra)


def cases() -> list[Case]:
    """The fixed list of invocations (order and ids are part of the baseline)."""
    out: list[Case] = []
    add = out.append
    real = ("--manifests", "bke-real")
    cfg = ("--config", "examples/bkecluster-601.yaml", "--nodes-file", "examples/bkenodes-601.yaml")

    # the top level and every command's help
    add(_c("top-help", "--help"))
    add(_c("top-h", "-h"))
    add(_c("top-tool-version", "--tool-version"))
    add(_c("top-noargs"))
    for cmd in COMMANDS:
        add(_c(f"help-{cmd}", cmd, "--help"))
    add(_c("err-unknown-command", "no-such-command"))
    add(_c("err-unknown-flag", "--no-such-flag"))

    # the plain render: bundled tree
    for version, nodes in (
        ("v3.28", "601"),
        ("v3.28", "50"),
        ("v3.28", "51"),
        ("v3.28", "1"),
        ("v3.28", "4001"),
        ("v3.28.2", "200"),
        ("v3.29.3", "601"),
        ("v3.31.3", "601"),
        ("v3.31", "120"),
        ("v3.27.3", "50"),
        ("v3.25.0", "10"),
    ):
        add(_c(f"render-{version}-{nodes}", "--version", version, "--nodes", nodes))
    add(_c("render-v3.28-601-warm", "--version", "v3.28", "--nodes", "601", warm=True))
    add(_c("render-v3.28-601-nocache", "--version", "v3.28", "--nodes", "601", "--no-cache"))
    add(_c("render-v3.25-601-install", "--version", "v3.25.0", "--nodes", "601"))
    for op in ("install", "upgrade", "rollback"):
        add(
            _c(
                f"render-v3.27-601-{op}",
                "--version",
                "v3.27.3",
                "--nodes",
                "601",
                "--operation",
                op,
            )
        )
        add(_c(f"render-v3.28-601-{op}", "--version", "v3.28", "--nodes", "601", "--operation", op))
    add(_c("render-repo", "--version", "v3.31.3", "--nodes", "120", "--repo", "registry.local/"))
    add(_c("render-no-validate", "--version", "v3.29", "--nodes", "10", "--no-validate"))
    add(_c("render-kube-1.30", "--version", "v3.28", "--nodes", "601", "--kube-version", "1.30"))
    add(
        _c(
            "render-kube-two",
            *("--version", "v3.31.3", "--nodes", "60"),
            *("--kube-version", "1.29", "--kube-version", "1.31"),
        )
    )
    add(_c("render-output-dir", "--version", "v3.28", "--nodes", "601", "--output-dir", "out"))
    add(_c("render-set-mode", "--version", "v3.28", "--nodes", "601", "--set", "calicoMode=vxlan"))
    add(
        _c(
            "render-set-file-scoped",
            *("--version", "v3.31.3", "--nodes", "60"),
            *("--set", "calico.yaml.calicoMode=bgp", "--set", "repo=r.example/"),
        )
    )
    add(_c("render-set-unknown", "--version", "v3.28", "--nodes", "5", "--set", "noSuchKey=1"))
    add(
        _c(
            "render-set-typha-override",
            "--version",
            "v3.28",
            "--nodes",
            "601",
            "--set",
            "allowTypha=false",
        )
    )
    add(_c("render-values-yaml", "--version", "v3.28", "--nodes", "601", "-f", "values.yaml"))
    add(_c("render-values-json", "--version", "v3.28", "--nodes", "60", "--values", "values.json"))
    add(
        _c(
            "render-values-stdin",
            "--version",
            "v3.28",
            "--nodes",
            "60",
            "-f",
            "-",
            stdin=STDIN_VALUES,
        )
    )
    add(
        _c(
            "render-values-and-set",
            *("--version", "v3.28", "--nodes", "60", "-f", "values.yaml"),
            *("--set", "calicoMode=ipip"),
        )
    )
    add(_c("render-values-empty", "--version", "v3.28", "--nodes", "60", "-f", "values-empty.yaml"))
    add(
        _c(
            "render-values-unknown",
            "--version",
            "v3.28",
            "--nodes",
            "60",
            "-f",
            "values-unknown.yaml",
        )
    )
    add(_c("render-config", *cfg))
    add(_c("render-config-no-admission", *cfg, "--no-admission-defaults"))
    add(_c("render-config-nodes-wins", *cfg, "--nodes", "20"))
    add(_c("render-config-strict", *cfg, "--strict"))
    add(
        _c(
            "render-config-no-calico",
            "--config",
            "examples/bkecluster-no-calico.yaml",
            "--nodes",
            "5",
        )
    )
    add(_c("render-nodes-file-list", "--version", "v3.28", "--nodes-file", "bke/nodes-list.yaml"))
    add(
        _c(
            "render-tree-bare-config",
            *("--manifests", "tree", "--config", "bke/bkeconfig-bare.yaml", "--nodes", "10"),
        )
    )
    add(_c("render-tree-v9", "--manifests", "tree", "--version", "v9.4.0", "--nodes", "60"))
    # the plain render: the real-shaped tree
    for nodes in ("1", "50", "51", "601", "4001"):
        add(_c(f"real-render-{nodes}", *real, "--version", "v3.31.3", "--nodes", nodes))
    add(_c("real-render-601-warm", *real, "--version", "v3.31.3", "--nodes", "601", warm=True))
    add(_c("real-render-minor", *real, "--version", "v3.31", "--nodes", "120"))
    add(_c("real-render-cwd", "--version", "v3.31.3", "--nodes", "601", cwd="bke-real"))
    for op in ("upgrade", "rollback"):
        add(
            _c(
                f"real-render-{op}",
                *real,
                "--version",
                "v3.31.3",
                "--nodes",
                "601",
                "--operation",
                op,
            )
        )
    add(
        _c(
            "real-render-output-dir",
            *real,
            "--version",
            "v3.31.3",
            "--nodes",
            "601",
            "--output-dir",
            "out",
        )
    )
    add(
        _c(
            "real-render-repo-set",
            *real,
            "--version",
            "v3.31.3",
            "--nodes",
            "60",
            "--repo",
            "r.example/",
            "--set",
            "calicoMode=vxlan",
        )
    )
    add(_c("real-render-config", *real, *cfg))
    add(
        _c(
            "real-render-strict-unknown",
            *real,
            "--version",
            "v3.31.3",
            "--nodes",
            "60",
            "--set",
            "nope=1",
            "--strict",
        )
    )
    # the plain render: errors
    add(_c("err-render-unknown-version", "--version", "v9.99", "--nodes", "5"))
    add(_c("err-render-real-unknown-version", *real, "--version", "v3.28", "--nodes", "5"))
    add(_c("err-render-nodes-zero", "--version", "v3.28", "--nodes", "0"))
    add(_c("err-render-nodes-text", "--version", "v3.28", "--nodes", "abc"))
    add(_c("err-render-no-nodes", "--version", "v3.28"))
    add(_c("err-render-no-version", "--nodes", "5"))
    add(
        _c("err-render-bad-operation", "--version", "v3.28", "--nodes", "5", "--operation", "bogus")
    )
    add(_c("err-render-values-missing", "--version", "v3.28", "--nodes", "5", "-f", "missing.yaml"))
    add(
        _c(
            "err-render-values-malformed",
            "--version",
            "v3.28",
            "--nodes",
            "5",
            "-f",
            "values-malformed.yaml",
        )
    )
    add(
        _c("err-render-values-list", "--version", "v3.28", "--nodes", "5", "-f", "values-list.yaml")
    )
    add(
        _c(
            "err-render-values-dupkey",
            "--version",
            "v3.28",
            "--nodes",
            "5",
            "-f",
            "values-dupkey.yaml",
        )
    )
    add(_c("err-render-set-no-equals", "--version", "v3.28", "--nodes", "5", "--set", "calicoMode"))
    add(
        _c(
            "err-render-set-strict-value",
            "--version",
            "v3.28",
            "--nodes",
            "5",
            "--set",
            "calicoMode=bogus",
            "--strict",
        )
    )
    add(
        _c(
            "err-render-set-strict-unknown",
            "--version",
            "v3.28",
            "--nodes",
            "5",
            "--set",
            "noSuchKey=1",
            "--strict",
        )
    )
    add(
        _c(
            "err-render-manifests-missing",
            "--manifests",
            "missing-dir",
            "--version",
            "v3.28",
            "--nodes",
            "5",
        )
    )
    add(
        _c(
            "err-render-manifests-empty",
            "--manifests",
            "examples",
            "--version",
            "v3.28",
            "--nodes",
            "5",
        )
    )
    add(_c("err-render-config-missing", "--config", "missing.yaml", "--nodes", "5"))
    add(_c("err-render-config-malformed", "--config", "config-malformed.yaml", "--nodes", "5"))
    add(_c("err-render-config-wrongkind", "--config", "config-wrongkind.yaml", "--nodes", "5"))
    add(
        _c(
            "err-render-nodes-file-malformed",
            "--version",
            "v3.28",
            "--nodes-file",
            "nodes-malformed.yaml",
        )
    )
    add(_c("err-render-nodes-file-missing", "--version", "v3.28", "--nodes-file", "missing.yaml"))
    add(
        _c("err-render-timeout-zero", "--version", "v3.28", "--nodes", "5", "--render-timeout", "0")
    )
    add(
        _c(
            "err-render-kube-unknown",
            "--version",
            "v3.28",
            "--nodes",
            "5",
            "--kube-version",
            "9.99",
        )
    )
    add(_c("err-render-kube-text", "--version", "v3.28", "--nodes", "5", "--kube-version", "abc"))
    add(
        _c(
            "err-render-output-dir-file",
            "--version",
            "v3.28",
            "--nodes",
            "5",
            "--output-dir",
            "a-file",
        )
    )
    add(_c("err-render-version-text", "--version", "latest", "--nodes", "5"))

    # version, rules, typha
    for fmt in FORMATS["version"]:
        add(_c(f"version-{fmt}", "version", "--format", fmt))
    for fmt in FORMATS["rules"]:
        add(_c(f"rules-{fmt}", "rules", "--format", fmt))
    add(_c("rules-default", "rules"))
    for fmt in FORMATS["typha"]:
        add(_c(f"typha-table-{fmt}", "typha", "--format", fmt))
        for nodes in ("1", "50", "51", "601", "4001"):
            add(_c(f"typha-{nodes}-{fmt}", "typha", "--nodes", nodes, "--format", fmt))
    add(_c("err-typha-nodes-zero", "typha", "--nodes", "0"))
    add(_c("err-version-bad-format", "version", "--format", "yaml"))

    # versions
    for fmt in FORMATS["versions"]:
        add(_c(f"versions-{fmt}", "versions", "--format", fmt))
        add(_c(f"versions-keys-{fmt}", "versions", "--keys", "--format", fmt))
        add(_c(f"real-versions-{fmt}", "versions", *real, "--format", fmt))
        add(_c(f"real-versions-keys-{fmt}", "versions", *real, "--keys", "--format", fmt))
        add(_c(f"tree-versions-{fmt}", "versions", "--manifests", "tree", "--format", fmt))
        add(
            _c(
                f"err-versions-missing-{fmt}",
                "versions",
                "--manifests",
                "missing-dir",
                "--format",
                fmt,
            )
        )
        add(_c(f"err-versions-empty-{fmt}", "versions", "--manifests", "examples", "--format", fmt))
    add(_c("versions-warm", "versions", warm=True))

    # explain-context
    for fmt in FORMATS["explain-context"]:
        add(
            _c(
                f"explain-{fmt}",
                "explain-context",
                "--version",
                "v3.28",
                "--nodes",
                "601",
                "--format",
                fmt,
            )
        )
        add(_c(f"explain-config-{fmt}", "explain-context", *cfg, "--format", fmt))
        add(
            _c(
                f"real-explain-{fmt}",
                "explain-context",
                *real,
                "--version",
                "v3.31.3",
                "--nodes",
                "60",
                "--format",
                fmt,
            )
        )
        add(
            _c(
                f"explain-values-set-{fmt}",
                *("explain-context", "--version", "v3.31.3", "--nodes", "60", "-f", "values.yaml"),
                *("--set", "repo=r.example/", "--repo", "x.example/", "--format", fmt),
            )
        )
        add(
            _c(
                f"err-explain-unknown-version-{fmt}",
                "explain-context",
                "--version",
                "v9.99",
                "--nodes",
                "5",
                "--format",
                fmt,
            )
        )
        add(
            _c(
                f"err-explain-strict-{fmt}",
                "explain-context",
                "--version",
                "v3.28",
                "--nodes",
                "5",
                "--set",
                "noSuchKey=1",
                "--strict",
                "--format",
                fmt,
            )
        )
        add(
            _c(
                f"err-explain-values-malformed-{fmt}",
                "explain-context",
                "--version",
                "v3.28",
                "--nodes",
                "5",
                "-f",
                "values-malformed.yaml",
                "--format",
                fmt,
            )
        )
    add(_c("explain-config-no-admission", "explain-context", *cfg, "--no-admission-defaults"))
    add(
        _c(
            "explain-nodes-file-list",
            "explain-context",
            "--version",
            "v3.28",
            "--nodes-file",
            "bke/nodes-list.yaml",
        )
    )
    add(_c("err-explain-no-version", "explain-context", "--nodes", "5"))

    # images (without --check-registry: no registry is asked)
    for fmt in FORMATS["images"]:
        add(_c(f"images-{fmt}", "images", "--version", "v3.28", "--format", fmt))
        add(
            _c(f"err-images-unknown-version-{fmt}", "images", "--version", "v9.99", "--format", fmt)
        )
    add(_c("images-repo", "images", "--version", "v3.31.3", "--repo", "registry.local/"))
    add(
        _c(
            "images-config",
            "images",
            "--config",
            "examples/bkecluster-601.yaml",
            "--role",
            "worker",
        )
    )
    add(
        _c(
            "images-config-no-admission",
            "images",
            "--config",
            "examples/bkecluster-601.yaml",
            "--no-admission-defaults",
        )
    )
    for role in ("master", "node", "etcd"):
        add(_c(f"images-role-{role}", "images", "--version", "v3.28", "--role", role))
    add(_c("images-v3.25", "images", "--version", "v3.25.0", "--format", "json"))
    add(_c("real-images", "images", *real, "--version", "v3.31.3"))
    add(
        _c(
            "real-images-json",
            "images",
            *real,
            "--version",
            "v3.31.3",
            "--repo",
            "r.example/",
            "--format",
            "json",
        )
    )
    add(_c("err-images-bad-role", "images", "--version", "v3.28", "--role", "bogus"))
    add(_c("err-images-lock-no-check", "images", "--version", "v3.28", "--lock", "x.lock.json"))
    add(_c("err-images-no-version", "images"))

    # plan
    for fmt in FORMATS["plan"]:
        add(
            _c(
                f"plan-upgrade-{fmt}",
                "plan",
                "--from-version",
                "v3.27",
                "--to-version",
                "v3.28",
                "--nodes",
                "601",
                "--format",
                fmt,
            )
        )
        add(
            _c(
                f"plan-scale-{fmt}",
                "plan",
                "--to-version",
                "v3.28",
                "--from-nodes",
                "40",
                "--nodes",
                "120",
                "--format",
                fmt,
            )
        )
        add(
            _c(
                f"plan-scale-down-{fmt}",
                "plan",
                "--to-version",
                "v3.31.3",
                "--from-nodes",
                "120",
                "--nodes",
                "40",
                "--format",
                fmt,
            )
        )
        add(
            _c(
                f"plan-rollback-{fmt}",
                "plan",
                "--from-version",
                "v3.28",
                "--to-version",
                "v3.27",
                "--nodes",
                "601",
                "--format",
                fmt,
            )
        )
        add(
            _c(
                f"plan-same-{fmt}",
                "plan",
                "--to-version",
                "v3.28",
                "--nodes",
                "10",
                "--format",
                fmt,
            )
        )
        add(
            _c(
                f"real-plan-{fmt}",
                "plan",
                *real,
                "--to-version",
                "v3.31.3",
                "--from-nodes",
                "40",
                "--nodes",
                "601",
                "--format",
                fmt,
            )
        )
        add(
            _c(
                f"err-plan-unknown-version-{fmt}",
                "plan",
                "--to-version",
                "v9.99",
                "--nodes",
                "5",
                "--format",
                fmt,
            )
        )
        add(
            _c(
                f"err-plan-values-missing-{fmt}",
                "plan",
                "--to-version",
                "v3.28",
                "--nodes",
                "5",
                "-f",
                "missing.yaml",
                "--format",
                fmt,
            )
        )
    add(
        _c(
            "plan-output-dir",
            "plan",
            "--to-version",
            "v3.28",
            "--from-nodes",
            "40",
            "--nodes",
            "120",
            "--output-dir",
            "plan",
        )
    )
    add(
        _c(
            "plan-values-set",
            "plan",
            "--to-version",
            "v3.28",
            "--nodes",
            "120",
            "-f",
            "values.yaml",
            "--set",
            "repo=r.example/",
            "--repo",
            "x.example/",
        )
    )
    add(_c("err-plan-no-nodes", "plan", "--to-version", "v3.28"))
    add(
        _c(
            "err-plan-strict",
            "plan",
            "--to-version",
            "v3.28",
            "--nodes",
            "5",
            "--set",
            "noSuchKey=1",
            "--strict",
        )
    )

    # advise
    for fmt in FORMATS["advise"]:
        add(_c(f"advise-{fmt}", "advise", "--version", "v3.28", "--nodes", "2000", "--format", fmt))
        add(
            _c(
                f"advise-small-{fmt}",
                "advise",
                "--version",
                "v3.28",
                "--nodes",
                "10",
                "--format",
                fmt,
            )
        )
        add(_c(f"advise-config-{fmt}", "advise", *cfg, "--format", fmt))
        add(
            _c(
                f"advise-maxpods-{fmt}",
                "advise",
                "--version",
                "v3.31.3",
                "--nodes",
                "5000",
                "--max-pods",
                "250",
                "--format",
                fmt,
            )
        )
        add(
            _c(
                f"real-advise-{fmt}",
                "advise",
                *real,
                "--version",
                "v3.31.3",
                "--nodes",
                "601",
                "--format",
                fmt,
            )
        )
        add(
            _c(
                f"tree-advise-{fmt}",
                "advise",
                "--manifests",
                "advise-tree",
                "--version",
                "v1.0.0",
                "--nodes",
                "300",
                "--format",
                fmt,
            )
        )
        add(
            _c(
                f"err-advise-unknown-version-{fmt}",
                "advise",
                "--version",
                "v9.99",
                "--nodes",
                "5",
                "--format",
                fmt,
            )
        )
        add(
            _c(
                f"err-advise-config-malformed-{fmt}",
                "advise",
                "--config",
                "config-malformed.yaml",
                "--format",
                fmt,
            )
        )
        add(
            _c(
                f"err-advise-strict-{fmt}",
                "advise",
                "--version",
                "v3.28",
                "--nodes",
                "5",
                "--set",
                "noSuchKey=1",
                "--strict",
                "--format",
                fmt,
            )
        )
    add(
        _c(
            "advise-values-set",
            "advise",
            "--version",
            "v3.28",
            "--nodes",
            "700",
            "-f",
            "values.yaml",
            "--set",
            "calicoMode=bgp",
        )
    )
    add(_c("advise-config-no-admission", "advise", *cfg, "--no-admission-defaults"))
    add(
        _c(
            "err-advise-maxpods-zero",
            "advise",
            "--version",
            "v3.28",
            "--nodes",
            "5",
            "--max-pods",
            "0",
        )
    )
    add(_c("err-advise-no-nodes", "advise", "--version", "v3.28"))

    # capability
    for fmt in FORMATS["capability"]:
        add(_c(f"capability-{fmt}", "capability", "--version", "v3.31.3", "--format", fmt))
        add(_c(f"capability-v3.25-{fmt}", "capability", "--version", "v3.25.0", "--format", fmt))
        add(
            _c(
                f"real-capability-{fmt}",
                "capability",
                *real,
                "--version",
                "v3.31.3",
                "--format",
                fmt,
            )
        )
        add(
            _c(
                f"err-capability-unknown-version-{fmt}",
                "capability",
                "--version",
                "v9.99",
                "--format",
                fmt,
            )
        )
        add(
            _c(
                f"err-capability-exceptions-{fmt}",
                "capability",
                "--version",
                "v3.28",
                "--exceptions",
                "exceptions-malformed.yaml",
                "--format",
                fmt,
            )
        )
        add(
            _c(
                f"err-capability-output-{fmt}",
                "capability",
                "--version",
                "v9.99",
                "--format",
                fmt,
                "-o",
                f"report.{fmt}",
            )
        )
    add(
        _c(
            "capability-output",
            "capability",
            "--version",
            "v3.28",
            "--format",
            "json",
            "-o",
            "cap.json",
        )
    )
    add(_c("capability-kube", "capability", "--version", "v3.28", "--kube-version", "1.30"))
    add(_c("capability-strict", "capability", "--version", "v3.29.3", "--strict"))
    add(_c("capability-warm", "capability", "--version", "v3.31.3", "--format", "json", warm=True))
    add(
        _c(
            "real-capability-upstream",
            "capability",
            *real,
            "--version",
            "v3.31.3",
            "--upstream",
            "upstream",
            extra=("upstream",),
        )
    )
    add(
        _c(
            "real-capability-upstream-json",
            "capability",
            *real,
            "--version",
            "v3.31.3",
            "--upstream",
            "upstream",
            "--format",
            "json",
            extra=("upstream",),
        )
    )
    add(_c("tree-capability", "capability", "--manifests", "tree", "--version", "v9.4.0"))
    add(_c("err-capability-no-version", "capability"))
    add(
        _c(
            "err-capability-exceptions-unknown",
            "capability",
            "--version",
            "v3.28",
            "--exceptions",
            "exceptions-unknown-rule.yaml",
        )
    )

    # check
    for fmt in FORMATS["check"]:
        add(_c(f"check-{fmt}", "check", "--format", fmt))
        add(_c(f"real-check-{fmt}", "check", *real, "--format", fmt))
        add(_c(f"err-check-missing-{fmt}", "check", "missing-dir", "--format", fmt))
        add(
            _c(
                f"err-check-empty-{fmt}",
                "check",
                "--manifests",
                "examples",
                "--format",
                fmt,
                "-o",
                f"check.{fmt}",
            )
        )
        add(
            _c(
                f"err-check-exceptions-{fmt}",
                "check",
                "--exceptions",
                "exceptions-malformed.yaml",
                "--format",
                fmt,
            )
        )
    add(_c("check-jobs-1", "check", "--jobs", "1"))
    add(_c("check-warm", "check", "--format", "json", warm=True))
    add(_c("check-output", "check", "--format", "junit", "-o", "check.xml"))
    add(_c("check-kube", "check", "--kube-version", "1.30", "--format", "json"))
    add(_c("check-strict", "check", "--strict"))
    add(_c("check-upstream", "check", "--upstream", "upstream", extra=("upstream",)))
    add(_c("real-check-root-arg", "check", "bke-real"))
    add(_c("real-check-cwd", "check", cwd="bke-real"))
    add(_c("real-check-strict", "check", *real, "--strict", "--format", "json"))
    add(_c("real-check-update-golden", "check", *real, "--update-golden"))
    add(
        _c(
            "real-check-upstream",
            "check",
            *real,
            "--upstream",
            "upstream",
            "--format",
            "json",
            extra=("upstream",),
        )
    )
    add(_c("tree-check", "check", "--manifests", "tree", "--format", "json"))
    add(_c("handwritten-check", "check", "--manifests", "handwritten", extra=("handwritten",)))
    add(_c("err-check-golden-missing", "check", *real, "--golden", "missing-dir"))
    add(_c("err-check-kube-unknown", "check", "--kube-version", "9.99"))
    add(_c("err-check-jobs-zero", "check", "--jobs", "0"))

    # validate
    for fmt in FORMATS["validate"]:
        add(_c(f"validate-broken-{fmt}", "validate", "broken", "--format", fmt))
        add(_c(f"validate-valid-{fmt}", "validate", "valid.yaml", "--format", fmt))
        add(_c(f"err-validate-missing-{fmt}", "validate", "missing.yaml", "--format", fmt))
        add(_c(f"err-validate-malformed-{fmt}", "validate", "invalid-yaml.yaml", "--format", fmt))
        add(
            _c(
                f"err-validate-output-{fmt}",
                "validate",
                "invalid-yaml.yaml",
                "--format",
                fmt,
                "-o",
                f"v.{fmt}",
            )
        )
    for name in ("bad", "misspelled", "removed-api"):
        add(_c(f"validate-{name}", "validate", f"broken/{name}.yaml"))
    add(_c("validate-summary", "validate", "broken", "--summary", "--format", "json"))
    add(
        _c(
            "validate-skip-reject",
            "validate",
            "broken",
            "--skip",
            "Deployment",
            "--reject",
            "ConfigMap,Service",
        )
    )
    add(
        _c(
            "validate-kube",
            "validate",
            "broken",
            "--kube-version",
            "1.30",
            "--kube-version",
            "1.29",
        )
    )
    add(_c("validate-stdin", "validate", "-", "--summary", stdin=STDIN_MANIFEST))
    add(_c("validate-real-tree-templates", "validate", "bke-real", "--summary"))
    add(_c("validate-examples", "validate", "examples", "--format", "json"))
    add(_c("validate-output", "validate", "broken", "--format", "sarif", "-o", "v.sarif"))
    add(_c("err-validate-no-path", "validate"))
    add(_c("err-validate-kube-unknown", "validate", "valid.yaml", "--kube-version", "9.99"))

    # template
    add(
        _c(
            "template-go",
            "template",
            "template.yaml",
            "--set",
            "repo=r.example/",
            "--set",
            "allowTypha=true",
            "--set",
            "typhaReplicas=3",
        )
    )
    add(_c("template-go-values", "template", "template.yaml", "-f", "values.json"))
    add(_c("template-jinja", "template", "template.yaml.j2", "--set", "repo=r.example/"))
    add(
        _c(
            "template-name",
            "template",
            "template.yaml",
            "--name",
            "other",
            "--set",
            "allowTypha=false",
        )
    )
    add(
        _c(
            "template-real",
            "template",
            "bke-real/kubernetes/calico/v3.31.3/calico.yaml",
            "--set",
            "repo=r.example/",
            "--set",
            "allowTypha=true",
            "--set",
            "typhaReplicas=4",
        )
    )
    add(_c("template-stdin-values", "template", "template.yaml", "-f", "-", stdin=STDIN_VALUES))
    add(_c("err-template-missing", "template", "missing.yaml"))
    add(_c("err-template-syntax", "template", "template-bad.yaml"))
    add(_c("err-template-dialect", "template", "template.yaml", "--dialect", "bogus"))
    add(
        _c(
            "err-template-values-malformed",
            "template",
            "template.yaml",
            "-f",
            "values-malformed.yaml",
        )
    )

    # import (reads upstream's release manifests; --check writes nothing)
    add(_c("import-check-v3.31.3", "import", "upstream/v3.31.3", "--check", extra=("upstream",)))
    add(
        _c(
            "import-check-v3.27.3",
            "import",
            "upstream/v3.27.3",
            "--no-typha",
            "--check",
            extra=("upstream",),
        )
    )
    add(_c("import-check-v3.28.2", "import", "upstream/v3.28.2", "--check", extra=("upstream",)))
    add(
        _c("real-import-check", "import", "upstream/v3.31.3", *real, "--check", extra=("upstream",))
    )
    add(
        _c(
            "import-write-single",
            "import",
            "upstream/v3.31.3",
            "--manifests",
            "tree",
            "--layout",
            "single",
            extra=("upstream",),
        )
    )
    add(
        _c(
            "import-write-split",
            "import",
            "upstream/v3.31.7",
            "--manifests",
            "tree",
            "--default-registry",
            "hub.example/",
            extra=("upstream",),
        )
    )
    add(_c("err-import-exists", "import", "upstream/v3.31.3", *real, extra=("upstream",)))
    add(_c("err-import-missing", "import", "missing-dir", "--check"))
    add(
        _c(
            "err-import-tag",
            "import",
            "upstream/v3.31.3",
            "--manifests",
            "tree",
            "--version",
            "v3.30.0",
            extra=("upstream",),
        )
    )
    add(
        _c(
            "err-import-layout",
            "import",
            "upstream/v3.31.3",
            "--layout",
            "bogus",
            extra=("upstream",),
        )
    )
    # values on stdin that the render, explain-context, advise and plan must see
    # (appended last: earlier records keep their numbers)
    stdin = STDIN_VALUES_BGP
    add(
        _c("render-values-stdin-bgp", "--version", "v3.28", "--nodes", "60", "-f", "-", stdin=stdin)
    )
    add(
        _c(
            "real-render-values-stdin-bgp",
            *real,
            "--version",
            "v3.31.3",
            "--nodes",
            "60",
            "-f",
            "-",
            stdin=stdin,
        )
    )
    add(
        _c(
            "explain-values-stdin-bgp",
            "explain-context",
            "--version",
            "v3.28",
            "--nodes",
            "60",
            "-f",
            "-",
            stdin=stdin,
        )
    )
    add(
        _c(
            "advise-values-stdin-bgp",
            "advise",
            "--version",
            "v3.28",
            "--nodes",
            "200",
            "-f",
            "-",
            "--format",
            "json",
            stdin=stdin,
        )
    )
    add(
        _c(
            "plan-values-stdin-bgp",
            "plan",
            "--to-version",
            "v3.28",
            "--nodes",
            "60",
            "-f",
            "-",
            "--format",
            "json",
            stdin=stdin,
        )
    )
    add(
        _c(
            "render-values-file-bgp",
            "--version",
            "v3.28",
            "--nodes",
            "60",
            "--set",
            "calicoMode=bgp",
            "--set",
            "ipAutoDetectionMethod=interface=eth1",
        )
    )
    return out


# --- running ---------------------------------------------------------------


def _paths_of(python: str) -> tuple[Path, str]:
    """The checkout the interpreter imports ``renderer`` from (where the bundled tree is)
    and the interpreter's prefix."""
    code = (
        "import os, sys, renderer; print(os.path.dirname(renderer.__path__[0])); print(sys.prefix)"
    )
    out = subprocess.run(
        [python, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd="/",  # not the caller's directory, which may hold another checkout's renderer/
    )
    repo, prefix = out.stdout.splitlines()
    return Path(repo).resolve(), prefix


def _copy_inputs(repo: Path, ws: Path, extra: Sequence[str]) -> None:
    for name, rel in INPUTS.items():
        shutil.copytree(repo / rel, ws / name)
    for name in extra:
        shutil.copytree(repo / EXTRA_INPUTS[name], ws / name)
    for name, text in FILES.items():
        (ws / name).write_text(text, encoding="utf-8")


def _snapshot(ws: Path) -> dict[str, str]:
    return {
        p.relative_to(ws).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(ws.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


@dataclass(frozen=True)
class Ctx:
    python: str
    repo: Path
    prefix: str


def _env(cache: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("CALICO_RENDER_", "REGISTRY_AUTH", "DOCKER_", "PYTHON", "XDG_"))
    }
    env.update(
        CALICO_RENDER_CACHE_DIR=str(cache),
        COLUMNS="80",
        LC_ALL="C.UTF-8",
        LANG="C.UTF-8",
        NO_COLOR="1",
        PYTHONDONTWRITEBYTECODE="1",
        TZ="UTC",
    )
    env.pop("TERM", None)
    return env


def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="backslashreplace")


def _normalise(text: str, subs: Sequence[tuple[str, str]]) -> str:
    for old, new in subs:
        text = text.replace(old, new)
    return re.sub(r'\btime="[0-9.]+"', 'time="<T>"', text)


def _section(title: str, text: str) -> str:
    if text and not text.endswith("\n"):
        text += "\n\\ no newline at end\n"
    return f"## {title}\n{text}"


def run_case(ctx: Ctx, case: Case) -> str:
    """Run one invocation in a new workspace; its normalised record."""
    with tempfile.TemporaryDirectory(prefix="cli-record-") as tmp:
        ws = Path(tmp, "ws")
        cache = Path(tmp, "cache")
        ws.mkdir()
        cache.mkdir()
        _copy_inputs(ctx.repo, ws, case.extra)
        before = _snapshot(ws)
        argv = [ctx.python, "-m", "renderer", *case.args]
        stdin = None if case.stdin is None else case.stdin.encode()

        def run() -> subprocess.CompletedProcess[bytes]:
            return subprocess.run(
                argv,
                cwd=ws / case.cwd,
                env=_env(cache),
                input=stdin,
                capture_output=True,
                timeout=TIMEOUT,
            )

        if case.warm:
            run()
            before = _snapshot(ws)
        try:
            proc = run()
            code, out, err = str(proc.returncode), proc.stdout, proc.stderr
        except subprocess.TimeoutExpired as exc:
            code, out, err = "timeout", exc.stdout or b"", exc.stderr or b""
        after = _snapshot(ws)
        subs = [
            (str(ws.resolve()), "<WS>"),
            (str(ws), "<WS>"),
            (str(cache.resolve()), "<CACHE>"),
            (str(cache), "<CACHE>"),
            (str(ctx.repo), "<REPO>"),
            (ctx.prefix, "<PREFIX>"),
        ]
        parts = [
            f"# id: {case.id}\n",
            "# argv: calico-render " + " ".join(_quote(a) for a in case.args) + "\n",
            f"# cwd: {case.cwd}\n",
            f"# cache: {'warm' if case.warm else 'cold'}\n",
            f"# stdin: {'none' if case.stdin is None else repr(case.stdin)}\n",
            f"# exit: {code}\n",
            _section("stdout", _normalise(_decode(out), subs)),
            _section("stderr", _normalise(_decode(err), subs)),
        ]
        for path in sorted(set(before) | set(after)):
            if before.get(path) == after.get(path):
                continue
            if path not in after:
                parts.append(f"## deleted {path}\n")
                continue
            data = (ws / path).read_bytes()
            parts.append(_section(f"wrote {path}", _normalise(_decode(data), subs)))
        return "".join(parts)


def _quote(arg: str) -> str:
    return arg if re.fullmatch(r"[\w./=:,+@%-]+", arg) else repr(arg)


def _inputs_digest(repo: Path) -> str:
    lines = []
    for name, rel in {**INPUTS, **EXTRA_INPUTS}.items():
        base = repo / rel
        for p in sorted(base.rglob("*")):
            if p.is_file():
                digest = hashlib.sha256(p.read_bytes()).hexdigest()
                lines.append(f"{digest}  {name}/{p.relative_to(base).as_posix()}\n")
    for name, text in FILES.items():
        lines.append(f"{hashlib.sha256(text.encode()).hexdigest()}  {name}\n")
    return "".join(lines)


def _selected(only: Sequence[str]) -> list[Case]:
    all_cases = cases()
    ids = [c.id for c in all_cases]
    dupes = {i for i in ids if ids.count(i) > 1}
    if dupes:
        raise SystemExit(f"duplicate case ids: {sorted(dupes)}")
    if not only:
        return all_cases
    return [c for c in all_cases if any(s in c.id for s in only)]


def _run_all(ctx: Ctx, selected: Sequence[Case], jobs: int) -> Iterator[tuple[Case, str]]:
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        yield from zip(selected, pool.map(lambda c: run_case(ctx, c), selected), strict=True)


def _file_name(index: int, case: Case) -> str:
    return f"{index:03d}-{case.id}.txt"


def record(ctx: Ctx, target: Path, only: Sequence[str], jobs: int) -> int:
    target.mkdir(parents=True, exist_ok=True)
    index = {c.id: i for i, c in enumerate(cases())}
    selected = _selected(only)
    (target / "_inputs.txt").write_text(_inputs_digest(ctx.repo), encoding="utf-8")
    for case, text in _run_all(ctx, selected, jobs):
        (target / _file_name(index[case.id], case)).write_text(text, encoding="utf-8")
        print(f"recorded {case.id}", file=sys.stderr, flush=True)
    print(f"{len(selected)} invocations recorded in {target}")
    return 0


def compare(ctx: Ctx, baseline: Path, only: Sequence[str], jobs: int) -> int:
    index = {c.id: i for i, c in enumerate(cases())}
    selected = _selected(only)
    recorded = {p.name[4:-4]: p for p in baseline.glob("[0-9][0-9][0-9]-*.txt")}
    differ = 0
    inputs = baseline / "_inputs.txt"
    if inputs.exists() and inputs.read_text(encoding="utf-8") != _inputs_digest(ctx.repo):
        print("note: the input files differ from the baseline's (see _inputs.txt):")
        sys.stdout.writelines(
            difflib.unified_diff(
                inputs.read_text(encoding="utf-8").splitlines(keepends=True),
                _inputs_digest(ctx.repo).splitlines(keepends=True),
                "baseline/_inputs.txt",
                "now/_inputs.txt",
            )
        )
    for case, text in _run_all(ctx, selected, jobs):
        path = recorded.get(case.id)
        name = _file_name(index[case.id], case)
        if path is None:
            differ += 1
            print(f"=== {name}: not in the baseline")
            continue
        old = path.read_text(encoding="utf-8")
        if old == text:
            continue
        differ += 1
        print(f"=== {name}: differs")
        sys.stdout.writelines(
            difflib.unified_diff(
                old.splitlines(keepends=True),
                text.splitlines(keepends=True),
                f"baseline/{name}",
                f"now/{name}",
            )
        )
        sys.stdout.flush()
    if not only:
        missing = sorted(set(recorded) - {c.id for c in selected})
        for cid in missing:
            print(f"=== {cid}: in the baseline, not run now")
        differ += len(missing)
    total = len(selected) + (0 if only else len(set(recorded) - {c.id for c in selected}))
    print(f"{total - differ} of {total} identical")
    return 1 if differ else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("action", choices=("record", "compare", "list"))
    parser.add_argument("dir", nargs="?", type=Path)
    parser.add_argument("--only", action="append", default=[], help="ids containing SUBSTR")
    parser.add_argument("--jobs", type=int, default=1, help="invocations at once (default 1)")
    parser.add_argument("--python", default=sys.executable, help="interpreter to run")
    args = parser.parse_args(argv)
    if args.action == "list":
        for case in _selected(args.only):
            print(f"{case.id}: calico-render {' '.join(_quote(a) for a in case.args)}")
        return 0
    if args.dir is None:
        parser.error(f"{args.action} needs DIR")
    ctx = Ctx(args.python, *_paths_of(args.python))
    if args.action == "record":
        return record(ctx, args.dir, args.only, args.jobs)
    return compare(ctx, args.dir, args.only, args.jobs)


if __name__ == "__main__":
    raise SystemExit(main())
