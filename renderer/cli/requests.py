"""What only the command line does around the library: naming the argument a request's
version came from (``--to-version``), and writing what a command produces (renders,
plans, reports) where its flags say."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from renderer.bke.cluster import load_nodes
from renderer.bke.crdkeys import file_unknown_keys
from renderer.data.bundled import bundled_manifests
from renderer.errors import InputError
from renderer.manifests.tree import COMPONENT
from renderer.store import cache, contain
from renderer.store.files import write_output, write_owned_tree

T = TypeVar("T")

if TYPE_CHECKING:
    from renderer.api.listed import ListedRender
    from renderer.api.results import RenderResult
    from renderer.bke import crdkeys
    from renderer.bke.cluster import NodeInventory
    from renderer.checks.options import CheckOptions


def node_inventory(nodes_file: str | Path) -> NodeInventory:
    """The BKENodes of one cluster in ``nodes_file``."""
    return load_nodes(nodes_file).single_cluster()


def named(argument: str, build: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``build(*args, **kwargs)``, an error about its ``version`` argument naming
    ``argument`` instead (``plan`` takes the version of a request as ``--to-version``)."""
    try:
        return build(*args, **kwargs)
    except InputError as exc:
        if exc.argument != "version":
            raise
        label = argument + (exc.key or "")[len("version") :]
        raise InputError(
            exc.message, file=exc.file, line=exc.line, key=label, argument=argument, value=exc.value
        ) from None


def write_files(directory: str | Path, files: Mapping[str, str]) -> list[Path]:
    """Write ``files`` into ``directory``, removing the files of our previous write there."""
    return write_owned_tree(directory, dict(files))


def write_render(directory: str | Path, result: RenderResult) -> list[Path]:
    """One file per template of a render into ``directory`` (see :func:`write_files`),
    never inside the tree of templates it rendered."""
    contain.outside(Path(directory), result.version.path.parent, "the manifest tree")
    return write_files(directory, {f.name.split("/", 1)[1]: f.text for f in result.files})


def write_listed(directory: str | Path, result: ListedRender) -> list[Path]:
    """Every listed addon's render into ``directory/<addon>/<version>/<file>`` (see
    :func:`write_files`), never inside the tree of templates it rendered."""
    files: dict[str, str] = {}
    for addon in result.addons:
        if addon.result is None:
            continue
        contain.outside(Path(directory), addon.result.version.path.parent, "the manifest tree")
        files.update({f"{addon.name}/{f.name}": f.text for f in addon.result.files})
    return write_files(directory, files)


def disable_cache() -> None:
    """Neither read nor write the persistent result cache, for this process."""
    cache.disable()


def write_report(path: Path, text: str, options: CheckOptions | None = None) -> None:
    """Write a report to ``path`` atomically (a device, FIFO or symlink target is
    written in place); with the ``options`` it reports on, never inside the tree's
    templates, its goldens, its upstream directory or onto its exceptions file."""
    write_output(path, text, protected=protected_paths(options) if options else ())


def config_keys(*files: str | Path) -> list[crdkeys.UnknownKey]:
    """Keys of the BKECluster, BKEConfig and BKENode documents in ``files`` that BKE's
    CRDs do not define (the API server drops them); stdin ("-") is not read again."""
    return [k for f in files if str(f) != "-" for k in file_unknown_keys(f)]


def protected_paths(options: CheckOptions) -> list[tuple[Path, str]]:
    """What a check reads and its report must not overwrite."""
    root = options.root if options.root is not None else bundled_manifests()
    out = [(root / COMPONENT, "the manifest tree"), (options.golden, "the golden directory")]
    if options.upstream is not None:
        out.append((options.upstream, "the upstream directory"))
    if options.exceptions.file:
        out.append((Path(options.exceptions.file), "the exceptions file"))
    return out
