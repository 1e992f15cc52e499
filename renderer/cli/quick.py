"""The plain render read without click: ``calico-render --version V --nodes N`` and
the common options beside them, the command people and scripts run most.

Importing click and declaring every command's options costs a render some 48 million
instructions: a few percent of a cold one, more than a tenth of one answered from the
result cache. :func:`parse` takes a command line only when every word is one
of the options below in a form whose value click would take unchanged (``--opt V`` or
``--opt=V``, each once, the value not empty and not looking like an option); anything
else (a command, ``--help``, another option, a value click would refuse or convert,
shell completion) returns None and click reads the line as always, so its errors and
help stay its own. Both run :func:`renderer.cli.render.render`; they print the same
bytes (tested against each other).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

#: Options with one value: flag -> the render's parameter.
_VALUED = {
    "--version": "version",
    "--nodes": "nodes",
    "--manifests": "root",
    "--repo": "repo",
    "--operation": "operation",
}
#: Repeatable options with a value, kept in order.
_REPEATED = {"--set": "sets", "--kube-version": "kube_versions"}
#: Flags without a value.
_SWITCHES = {"--no-validate": "no_validate", "--strict": "strict"}
#: Set, click would complete the shell's command line instead of running the command.
_COMPLETION = "_CALICO_RENDER_COMPLETE"


def parse(args: Sequence[str]) -> dict[str, Any] | None:
    """The render's parameters for ``args``, as click would pass them; None when click
    must read the line (see the module). ``--debug`` may stand anywhere."""
    if _COMPLETION in os.environ:
        return None
    given: dict[str, Any] = {}
    repeated: dict[str, list[str]] = {name: [] for name in _REPEATED.values()}
    words = list(args)
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        if word == "--debug":
            continue
        flag, eq, value = word.partition("=")
        if flag in _SWITCHES and not eq:
            if _SWITCHES[flag] in given:
                return None
            given[_SWITCHES[flag]] = True
            continue
        if flag not in _VALUED and flag not in _REPEATED:
            return None
        if not eq:
            if i == len(words):
                return None
            value = words[i]
            i += 1
        if not value or value.startswith("-"):
            return None
        if flag in _REPEATED:
            repeated[_REPEATED[flag]].append(value)
        elif _VALUED[flag] in given:
            return None
        else:
            given[_VALUED[flag]] = value
    if "version" not in given or "nodes" not in given:
        return None  # help, or click's usage error
    return _typed(given, repeated)


def _typed(given: dict[str, Any], repeated: dict[str, list[str]]) -> dict[str, Any] | None:
    """The values as click's types make them, or None where click could refuse one."""
    from renderer.calico.policy import OPERATIONS
    from renderer.cli.common import tree_root

    nodes = given["nodes"]
    if not (nodes.isascii() and nodes.isdigit()) or int(nodes) < 1:
        return None
    operation = given.get("operation", "install")
    if operation not in OPERATIONS:
        return None
    root = given.get("root")
    if root is not None:  # click.Path(file_okay=False): an existing, readable directory
        if not os.path.isdir(root) or not os.access(root, os.R_OK):
            return None
        root = Path(root)
    return {
        "version": given["version"],
        "nodes": int(nodes),
        "root": tree_root(root),
        "repo": given.get("repo"),
        "sets": tuple(repeated["sets"]),
        "values_file": None,
        "operation": operation,
        "output_dir": None,
        "no_validate": given.get("no_validate", False),
        "kube_versions": tuple(repeated["kube_versions"]),
        "config": None,
        "nodes_file": None,
        "strict": given.get("strict", False),
    }


class Plain:
    """The command line's side of the render (:class:`renderer.cli.render.Invocation`)
    when click is not running it."""

    def exit(self, code: int = 0) -> NoReturn:
        raise SystemExit(code)

    def get_help(self) -> str:  # pragma: no cover - parse() never passes a line without both
        raise AssertionError("help is click's")

    def get_parameter_source(self, name: str) -> Any:  # pragma: no cover - no --config here
        raise AssertionError("--config is click's")


def run(params: dict[str, Any]) -> None:
    """Render as :func:`parse` read the line."""
    from renderer.cli.render import render

    render(Plain(), **params)
