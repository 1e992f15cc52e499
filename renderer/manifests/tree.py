"""Stage 1, load tree: find addons, their version directories and template files.

A ROOT holds ``kubernetes/<addon>/<version>/``, as bke-manifests does: Calico
(``kubernetes/calico/``, what every caller means when it names no addon) and every other
addon BKE's controller installs (coredns, kubeproxy, cluster-api, ...). Versions sort
by semantic version, not by string, so ``v3.28.10`` is newer than ``v3.28.9``;
``vMAJOR.MINOR`` resolves to the newest patch present; a version that is no semantic
version (``latest``, ``2023-04-20``, a script name of ``clusterextra``) sorts after them,
by name. Neither an addon nor a version string is ever used as a path outside ROOT.

The files of a version are the controller's walk: every ``*.yaml`` below the version
directory, subdirectories included, in path order; each is parsed as a template named
after its addon (:func:`template_name`).

Containment: a merge request controls the tree, so every directory and file the loader
looks at is resolved (links followed) and must stay inside ROOT, and every name must be
a plain printable name: a link could otherwise make the gate read and print any file,
and a file name with a newline would be copied into the ``# Source:`` header.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from pathlib import Path
from dataclasses import dataclass
from functools import cached_property

from renderer.data.bundled import bundled_manifests
from renderer.errors import InputError
from renderer.store import contain
from renderer.store.read import read_text

#: Where a ROOT keeps its addons: ``kubernetes/<addon>/<version>/``.
KUBERNETES = Path("kubernetes")
#: The addon a caller means when it names none: Calico, the one this tool knows in depth.
ADDON = "calico"
COMPONENT = KUBERNETES / ADDON
#: cluster-api's manage file: on a create the controller leaves it out of the addon's
#: files and applies ``<version>/003-manage.yaml`` in a later phase, as a template named
#: :data:`CLUSTER_API_MANAGE_TEMPLATE` (``filterOutClusterAPIManageYaml`` and the
#: ``EnsureClusterAPIManagerManifest`` phase of the provider).
CLUSTER_API = "cluster-api"
CLUSTER_API_MANAGE = "003-manage.yaml"
CLUSTER_API_MANAGE_TEMPLATE = "cluster-api-manage"
#: Template files by how their name ends. The controller renders every file whose path ends
#: in ``.yaml`` (so not ``.yml``, and ``.YAML`` neither); ``.j2`` is this tool's Jinja2
#: dialect, which the controller never sees.
DIALECTS = {".yaml": "go", ".j2": "jinja2"}
_SEMVER = re.compile(r"^v?(\d+)\.(\d+)(?:\.(\d+))?(-[^+]*)?(?:\+.*)?$")
#: A plain directory name (addon or version): bke-manifests has ``clean_docker_images.py``.
_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$")


@dataclass(frozen=True)
class TemplateFile:
    """One template of a version directory; ``name`` is its path below the version
    directory (``sub/x.yaml`` in a subdirectory), ``dialect`` comes from its suffix,
    ``template`` is the name the controller parses it under (its addon's, see
    :func:`template_name`): Go prints it in errors and ``{{ template }}`` can call it."""

    name: str
    path: Path
    dialect: str
    template: str = ADDON

    @cached_property
    def source(self) -> str:
        """The template's text, read once (bounded, regular files only): every later
        stage (its cache key, its compile, a verbatim copy) sees these same bytes."""
        return read_text(self.path)

    @cached_property
    def digest(self) -> str:
        """The SHA-256 of :attr:`source`, taken once: the key of everything derived
        from this template's bytes (its verdict, its compile)."""
        return hashlib.sha256(self.source.encode("utf-8", "surrogateescape")).hexdigest()

    @property
    def display(self) -> str:
        """``<version>/<name>``."""
        return f"{self.path.parts[-len(self.name.split('/')) - 1]}/{self.name}"


@dataclass(frozen=True, slots=True)
class VersionDir:
    """A version directory of ``addon`` and its template files, in the controller's order."""

    name: str
    path: Path
    files: tuple[TemplateFile, ...]
    addon: str = ADDON

    @property
    def dialects(self) -> tuple[str, ...]:
        return tuple(sorted({f.dialect for f in self.files}))


def tree_path(version: str, names: Sequence[str], file: str, addon: str = ADDON) -> str:
    """``file`` relative to ROOT (``kubernetes/<addon>/<version>/<file>``) when it names
    one of the version's templates (``calico.yaml`` or ``<version>/calico.yaml``, as
    stages name them), so CI annotates the line of the merge request; else as given."""
    rest = file.removeprefix(f"{version}/")
    return f"{KUBERNETES.as_posix()}/{addon}/{version}/{rest}" if rest in names else file


def template_name(addon: str, name: str) -> str:
    """The name the controller parses ``name`` (a path below a version of ``addon``)
    under: the addon's name (``template.New(task.Name)`` with the addon's name), except
    cluster-api's top-level ``003-manage.yaml``, which a create applies in a later phase
    as ``cluster-api-manage``."""
    if addon == CLUSTER_API and name == CLUSTER_API_MANAGE:
        return CLUSTER_API_MANAGE_TEMPLATE
    return addon


def semver_key(name: str) -> tuple[int, int, int, int, int, str]:
    """Sort key: semantic versions by number, a pre-release before its release (so
    ``v3.28`` never picks ``v3.28.3-rc1`` over ``v3.28.3``), anything else last."""
    m = _SEMVER.match(name)
    if not m:
        return (1, 0, 0, 0, 0, name)
    release = 0 if m.group(4) else 1
    return (0, int(m.group(1)), int(m.group(2)), int(m.group(3) or 0), release, name)


def unit_label(addon: str, version: str) -> str:
    """How reports name a version of an addon: ``v3.31.3`` for Calico (the name every
    Calico-only report has always used), ``coredns/v1.8.0`` for any other addon (a
    version directory's name never holds a ``/``)."""
    return version if addon == ADDON else f"{addon}/{version}"


def split_label(label: str) -> tuple[str, str]:
    """(addon, version) of a :func:`unit_label`."""
    addon, _, version = label.rpartition("/")
    return (addon or ADDON), version


def unit_order(label: str) -> tuple[bool, str, tuple[int, int, int, int, int, str]]:
    """Sort key of labels: Calico first, then the other addons by name, each one's
    versions as :func:`semver_key` sorts them."""
    addon, version = split_label(label)
    return (addon != ADDON, addon, semver_key(version))


def refuse_name(path: Path) -> None:
    """Names are copied into headers and reports; only plain printable names pass."""
    if not path.name.isprintable():
        raise InputError(
            f"name {path.name!r} is not a plain printable name (control characters, "
            "newlines or undecodable bytes)",
            file=str(path.parent),
        )


def contained(path: Path, real_root: Path, what: str = "the manifest tree") -> Path:
    """``path`` with links resolved; bad input naming both when it leaves ``real_root``
    (the one rule of :mod:`renderer.store.contain`)."""
    return contain.inside(path, real_root, what)


def _entries(path: Path) -> list[Path]:
    """Entries of a directory of the tree, by name; unreadable is bad input naming it."""
    try:
        return sorted(path.iterdir(), key=lambda p: p.name)
    except OSError as exc:
        raise InputError(f"cannot read directory: {exc.strerror or exc}", file=str(path)) from None


#: How reports name the tree the package carries (ROOT None).
BUNDLED_TREE = "bundled tree"


def holds_tree(directory: Path) -> bool:
    """Whether ``directory`` is a ROOT of Calico: it holds ``kubernetes/calico/``."""
    return (directory / COMPONENT).is_dir()


def tree_label(root: Path | None) -> str:
    """How every report's header names the tree it checked: ROOT as given, or
    :data:`BUNDLED_TREE`."""
    return BUNDLED_TREE if root is None else str(root)


def _root_of(root: Path | None) -> Path:
    return bundled_manifests() if root is None else Path(root)


def check_addon(addon: str) -> str:
    """An addon name as the tree takes it: one plain directory name, never a path."""
    if not isinstance(addon, str) or not _SAFE_NAME.match(addon) or ".." in addon:
        raise InputError(
            "an addon is a directory name under kubernetes/ such as calico or coredns "
            "(no path separators, no '..')",
            key=f"addon {addon!r}",
            argument="addon",
            value=addon,
        )
    return addon


def addon_dir(root: Path | None, addon: str = ADDON) -> Path:
    """The ``kubernetes/<addon>`` directory of ROOT (the bundled tree when None)."""
    check_addon(addon)
    base = _root_of(root)
    path = base / KUBERNETES / addon
    contained(path.parent, base.resolve())
    if contain.kind(contained(path, base.resolve())) != contain.DIRECTORY:
        where = (KUBERNETES / addon).as_posix()
        raise InputError(f"no {where}/ directory under it", file=str(base))
    return path


def list_addons(root: Path | None = None) -> tuple[str, ...]:
    """The addons of ROOT: every plain-named directory under ``kubernetes/``, by name
    (byte order, as Go sorts). Odd names are refused, as everywhere in the tree."""
    base = _root_of(root)
    real_root = base.resolve()
    top = base / KUBERNETES
    if contain.kind(contained(top, real_root)) != contain.DIRECTORY:
        raise InputError(f"no {KUBERNETES.as_posix()}/ directory under it", file=str(base))
    found = []
    for p in _entries(top):
        refuse_name(p)
        if contain.kind(contained(p, real_root)) == contain.DIRECTORY and _SAFE_NAME.match(p.name):
            found.append(p.name)
    return tuple(sorted(found, key=lambda n: n.encode("utf-8", "surrogateescape")))


def _dialect(name: str) -> str | None:
    return next((d for suffix, d in DIALECTS.items() if name.endswith(suffix)), None)


def _walk(
    path: Path, real_root: Path, prefix: str, out: list[TemplateFile], addon: str
) -> None:
    """The controller's walk (``filepath.Walk``): into subdirectories, never through a
    link to a directory; every file whose name has a template suffix."""
    for p in _entries(path):
        refuse_name(p)
        found = contain.kind(contained(p, real_root))
        name = prefix + p.name
        if found == contain.DIRECTORY:
            if not p.is_symlink():
                _walk(p, real_root, name + "/", out, addon)
            continue
        dialect = _dialect(p.name)
        if dialect is None:
            continue
        if found != contain.FILE:  # a FIFO would hang the render, a device never end
            raise InputError("a template that is not a regular file", file=str(p))
        out.append(TemplateFile(name, p, dialect, template_name(addon, name)))


def _load_version(path: Path, real_root: Path, addon: str) -> VersionDir:
    """Templates of one directory and its subdirectories, in the controller's order (by
    path, byte for byte); every entry must stay inside ROOT (see the module)."""
    files: list[TemplateFile] = []
    _walk(path, real_root, "", files, addon)
    files.sort(key=lambda f: f.name.encode("utf-8", "surrogateescape"))
    return VersionDir(path.name, path, tuple(files), addon)


def list_versions(root: Path | None = None, addon: str = ADDON) -> list[VersionDir]:
    """Every version directory of ``addon`` under ROOT that holds at least one template,
    oldest first."""
    base = addon_dir(root, addon)
    real_root = _root_of(root).resolve()
    dirs = []
    for p in _entries(base):
        refuse_name(p)
        found = contain.kind(contained(p, real_root))
        if found == contain.DIRECTORY and _SAFE_NAME.match(p.name):
            dirs.append(p)
    versions = [_load_version(p, real_root, addon) for p in dirs]
    return sorted((v for v in versions if v.files), key=lambda v: semver_key(v.name))


def resolve_version(spec: str, root: Path | None = None, addon: str = ADDON) -> VersionDir:
    """Resolve an exact directory name or ``vMAJOR.MINOR`` (newest patch) to a version
    of ``addon``."""
    if not spec or not _SAFE_NAME.match(spec) or ".." in spec:
        raise InputError(
            "a version is a directory name such as v3.28.2 or v3.28 (no path separators, no '..')",
            key=f"version {spec!r}",
            argument="version",
            value=spec,
        )
    versions = list_versions(root, addon)
    by_name = {v.name: v for v in versions}
    if spec in by_name:
        return by_name[spec]
    if spec.startswith("V"):  # V3.28 as v3.28
        spec = "v" + spec[1:]
        if spec in by_name:
            return by_name[spec]
    m = _SEMVER.match(spec)
    if m and m.group(3) is None:
        major, minor = int(m.group(1)), int(m.group(2))
        matches = [v for v in versions if semver_key(v.name)[:3] == (0, major, minor)]
        if matches:
            return matches[-1]
    known = ", ".join(v.name for v in versions) or "none"
    where = "" if root is not None else f" in the {BUNDLED_TREE}"  # not the install's path
    title = "Calico" if addon == ADDON else addon
    raise InputError(
        f"unknown {title} version {spec!r}{where}; available: {known}",
        file=str(addon_dir(root, addon)) if root is not None else None,
        key="version",
        argument="version",
        value=spec,
    )
