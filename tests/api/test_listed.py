"""renderer/api/listed.py: what the render of every listed addon answers: each addon's
status and exit code, and the one exit code of a create request."""

from __future__ import annotations

from pathlib import Path

from renderer import api
from renderer.api.results import ListedAddon
from tests.listedhelp import listed_tree


def test_a_refusal_outranks_an_error_and_a_skipped_addon_passes(tmp_path: Path) -> None:
    root, config = listed_tree(tmp_path)
    rendered = api.render_listed(config, root=root, nodes=3, kube=["1.33"])
    by_name = {a.name: a for a in rendered.addons}
    assert (by_name["clusterextra"].status, by_name["clusterextra"].exit_code) == ("failed", 1)
    assert (by_name["kube-prometheus"].status, by_name["kube-prometheus"].exit_code) == (
        "skipped",
        0,
    )
    assert by_name["kube-prometheus"].stream() == "" and not by_name["kube-prometheus"].findings
    refused = api.AddonRender(ListedAddon("calico", "v9.1.0", "x"), refused="no Typha")
    assert (refused.status, refused.exit_code, refused.version) == ("refused", 3, "v9.1.0")
    both = api.ListedRender("c.yaml", 601, (by_name["clusterextra"], refused))
    assert both.exit_code == 3
    assert api.ListedRender("c.yaml", 3, (by_name["coredns"],)).exit_code == 0
    assert rendered.findings == tuple(f for a in rendered.addons for f in a.findings)
