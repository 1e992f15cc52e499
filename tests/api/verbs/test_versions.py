"""The versions verb: every version of a tree with its Typha capability."""

from __future__ import annotations

from renderer import api


def test_the_bundled_versions_and_their_capability() -> None:
    result = api.versions(keys=True)
    by_name = {e.version.name: e for e in result.versions}
    assert result.manifests == "bundled tree"
    assert by_name["v3.28.2"].capability is not None and by_name["v3.28.2"].capability.capable
    assert by_name["v3.25.0"].capability is not None
    assert "allowTypha" in (by_name["v3.31.3"].keys or ())
