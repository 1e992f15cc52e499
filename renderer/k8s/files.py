"""Which files a list of manifest paths names: directories walked as kubeconform walks them."""

from __future__ import annotations

from collections.abc import Sequence

#: The file names a directory given to ``validate`` contributes (kubeconform's choice).
MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")


def manifest_files(paths: Sequence[str]) -> list[str]:
    """``paths`` with each directory replaced by the manifest files under it, recursively
    and sorted (``*.yaml``, ``*.yml``, ``*.json``; hidden files and directories skipped,
    links to directories not followed); files and ``-`` (stdin) as given."""
    import os

    out: list[str] = []
    for path in paths:
        if path == "-" or not os.path.isdir(path):
            out.append(path)
            continue
        for top, dirs, found in os.walk(path):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            out.extend(
                os.path.join(top, n)
                for n in sorted(found)
                if not n.startswith(".") and n.endswith(MANIFEST_SUFFIXES)
            )
    return out


def kinds(kinds: Sequence[str]) -> set[str]:
    """``--skip A,B --skip C`` as a set of kinds."""
    return {k.strip() for item in kinds for k in item.split(",") if k.strip()}
