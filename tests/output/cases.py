"""Documents of every kind for the format tests: small ones and check reports built by
hand, the plan, explain-context and capability ones from the bundled and fixture trees."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from renderer import api
from renderer.api import Validation
from renderer.calico.images import ImageList
from renderer.calico.scale.report import AdviceReport
from renderer.checks import registry as stage
from renderer.checks.exceptions import Applied, RuleException
from renderer.checks.report import CheckReport
from renderer.finding import Finding, merge_located
from renderer.k8s.parse import parse_stream
from renderer.k8s.schema import SchemaValidator
from renderer.oci.client import Resolution
from renderer.oci.reference import Platform, parse
from renderer.output import Document
from renderer.output.capability import CapabilityDocument
from renderer.output.check import CheckDocument
from renderer.output.documents import (
    AdviceDocument,
    ExplainDocument,
    ImagesDocument,
    PlanDocument,
    TyphaDocument,
    ValidateDocument,
    VersionsDocument,
)
from renderer.output.images import RegistryDocument
from renderer.output.inputerror import InputErrorDocument
from tests.checks.test_report import incomplete, sample, stale
from tests.gatehelp import GATE_TREE, TREE


def _entry(version: str, typha: str, **extra: Any) -> dict[str, Any]:
    entry = {
        "version": version,
        "dialect": "go",
        "files": ["calico.yaml"],
        "typha": typha,
        "legacy": None,
        "verdict": None,
        "keys": None,
        "error": None,
    }
    return {**entry, **extra}


def _versions() -> Document:
    return VersionsDocument(
        "tree",
        [
            _entry("v3.28.2", "capable", legacy=False, keys=["allowTypha", "repo"]),
            _entry("v3.27.3", "not capable", legacy=True, verdict="no Typha templates"),
            _entry("v9.9.9", "error", error="bad.yaml:3: unexpected “}”"),
        ],
    )


def _validate() -> Document:
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndatta: {}\n"
    objects = parse_stream(text, "cm.yaml")
    findings = merge_located(SchemaValidator(("1.33", "1.34")).validate_all(objects))
    return ValidateDocument(Validation(("cm.yaml",), ("1.33", "1.34"), tuple(findings), 1))


def _input_error() -> Document:
    finding = Finding(
        "input-error", "error", "invalid YAML", stage="input", file="bad.yaml", line=5, column=3
    )
    return InputErrorDocument("validate", finding)


def _images() -> Document:
    images = ("r/calico/cni:v3.28.2", "r/calico/node:v3.28.2")
    return ImagesDocument(ImageList("v3.28.2", "worker", "r/", images))


def _registry() -> Document:
    """cni served for both platforms, node without arm64, typha's tag missing, and a
    lock entry no longer rendered."""
    a, b, c = ("sha256:" + x * 64 for x in "abc")
    amd, arm = Platform("linux", "amd64"), Platform("linux", "arm64")
    both = ("linux/amd64", "linux/arm64")
    field = "spec.template.spec.containers[0].image"
    ds, deploy = "DaemonSet kube-system/calico-node", "Deployment kube-system/calico-typha"
    node = stage.ImageUse("calico/node:v3.28.2", "v3.28.2/002-calico.yaml", 617, ds, field)
    typha = stage.ImageUse("calico/typha:v3.28.2", "v3.28.2/001-typha.yaml", 79, deploy, field)
    cni = replace(node, image="calico/cni:v3.28.2", line=520, scenarios=("nodes-50",))

    def ref(name: str) -> str:
        return f"r.io/calico/{name}:v3.28.2"

    node_answer = Resolution(
        parse(ref("node")), platforms={amd: a, arm: None}, reasons={arm: "the index lists amd64"}
    )
    typha_answer = Resolution(parse(ref("typha")), missing="tag")
    findings = [
        *stage.resolution_findings(node.image, ref("node"), (node,), node_answer, (amd, arm)),
        *stage.resolution_findings(typha.image, ref("typha"), (typha,), typha_answer, (amd, arm)),
    ]
    images = (
        stage.ImageResult(cni.image, ref("cni"), (cni,), ((both[0], b), (both[1], c)), manifest=a),
        stage.ImageResult(node.image, ref("node"), (node,), ((both[0], a), (both[1], None)), "", c),
        stage.ImageResult(
            typha.image, ref("typha"), (typha,), ((both[0], None), (both[1], None)), "tag"
        ),
    )
    report = stage.RegistryReport("v3.28.2", "r.io", both, images, tuple(findings))
    lock = stage.lock_document(report)
    lock["images"].append({**lock["images"][0], "image": "calico/gone:v3.28.2"})
    stale = stage.verify_lock(report, lock, "release.lock.json")
    found = (*report.findings, *stale)
    return RegistryDocument(replace(report, findings=found, lock="release.lock.json"))


def _check_addons() -> Document:
    """The gate over a tree of several addons (tests/fixtures/gate-tree): Calico and
    addons that pass, one whose golden changed, one without goldens, one that does not
    parse; named relative to the checkout, as CI runs it."""
    root = Path(os.path.relpath(GATE_TREE))
    options = api.check_options(root=root, kube_versions=("1.30",), jobs=1)
    return CheckDocument(api.check(options))


def _capability(version: str) -> Document:
    report = api.capability(version, root=TREE, kube_versions=("1.30",))
    return CapabilityDocument(replace(report, manifests="tests/fixtures/tree"))  # any machine


def _capability_exceptions() -> Document:
    """v9.4.0 with an exception that matched and one that matched nothing."""
    report = api.capability("v9.4.0", root=TREE, kube_versions=("1.30",))
    matched = Applied(RuleException("typha-pdb", "reviewed", severity="warning"), {"v9.4.0": 1})
    unmatched = Applied(RuleException("typha-replicas", "gone", line=4))
    exceptions = (matched, unmatched)
    return CapabilityDocument(
        replace(
            report, exceptions_file="x.yaml", exceptions=exceptions, manifests="tests/fixtures/tree"
        )
    )


class Case:
    """A document of one kind, built on first use and shared by every format's test (each
    test process builds it once; collection needs only its kind)."""

    def __init__(self, kind: type[Document], make: Callable[[], Document]) -> None:
        self.kind = kind
        self._make = make
        self._document: Document | None = None

    def __call__(self) -> Document:
        if self._document is None:
            self._document = self._make()
            assert isinstance(self._document, self.kind)
        return self._document


#: id -> a document; each test of a format renders every one.
DOCUMENTS: dict[str, Case] = {
    "typha-table": Case(TyphaDocument, lambda: TyphaDocument.of(api.typha(None))),
    "typha-one": Case(TyphaDocument, lambda: TyphaDocument.of(api.typha(4001))),
    "versions": Case(VersionsDocument, _versions),
    "validate": Case(ValidateDocument, _validate),
    "input-error": Case(InputErrorDocument, _input_error),
    "images": Case(ImagesDocument, _images),
    "images-registry": Case(RegistryDocument, _registry),
    "images-none": Case(
        ImagesDocument, lambda: ImagesDocument(ImageList(None, "etcd", "", (), "no calico addon"))
    ),
    "advise-skipped": Case(
        AdviceDocument,
        lambda: AdviceDocument(
            AdviceReport(None, "bundled tree", None, [], ["no calico addon"]), skipped=True
        ),
    ),
    "advise": Case(
        AdviceDocument, lambda: AdviceDocument(api.advise(api.Request.of("v3.28.2", 300)))
    ),
    "plan": Case(
        PlanDocument, lambda: PlanDocument(api.plan(api.Request.of("v3.28.2", 60), from_nodes=10))
    ),
    "plan-unchanged": Case(
        PlanDocument, lambda: PlanDocument(api.plan(api.Request.of("v3.28.2", 60)), unchanged=True)
    ),
    "explain-context": Case(
        ExplainDocument, lambda: ExplainDocument(api.explain_context(api.Request.of("v3.28.2", 3)))
    ),
    "check": Case(CheckDocument, lambda: CheckDocument(sample())),
    "check-capability-failure": Case(
        CheckDocument,
        lambda: CheckDocument(CheckReport("root", "golden", ["1.30"], [incomplete()])),
    ),
    "check-stale-and-exceptions": Case(CheckDocument, lambda: CheckDocument(stale())),
    "check-addons": Case(CheckDocument, _check_addons),
    "capability": Case(CapabilityDocument, lambda: _capability("v9.4.0")),
    "capability-legacy": Case(CapabilityDocument, lambda: _capability("v9.0.0")),
    "capability-exceptions": Case(CapabilityDocument, _capability_exceptions),
    "capability-incomplete": Case(CapabilityDocument, lambda: _capability("v9.3.0")),
    "capability-bundled": Case(
        CapabilityDocument, lambda: CapabilityDocument(api.capability("v3.28.2"))
    ),
}
