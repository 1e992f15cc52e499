"""The capability verb: one version's release check."""

from __future__ import annotations

from renderer import api


def test_capability_is_the_release_check_of_one_version() -> None:
    from tests.gatehelp import TREE

    report = api.capability("v9.4.0", root=TREE, kube_versions=["1.30"])
    assert [(f.rule, f.severity) for f in report.rules] == [("typha-anti-affinity", "error")]
    assert report.kube_versions == ("1.30",) and not report.release_ready
