"""The registry stage: every image a version renders exists in its registry for every
platform nodes run, and the digests it resolves to (a release's lock).

A missing repository, tag or platform is an error finding (stage ``registry``) located
at the template line that renders the image: a node would fail its pull there. What the
registry cannot be asked, or answers malformed, is bad input (exit 2) naming the image:
the check cannot say the image is there or not.

The stage is given the images with where they are rendered (:class:`ImageUse`) and a
:class:`renderer.oci.client.Client`; it asks the registry for each distinct image once,
at most ``jobs`` at a time.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from renderer.errors import InputError
from renderer.finding import ERROR, REGISTRY, WARNING, Details, Finding, ObjectRef
from renderer.k8s import objects as k8s_objects
from renderer.k8s.parse import K8sObject
from renderer.oci import reference as oci_ref

if TYPE_CHECKING:  # the client (http.client, ssl) loads only when a registry is asked
    from renderer.oci.client import Client, Resolution

STAGE = REGISTRY
LOCK_TOOL = "calico-render images --lock"
#: How many registry requests run at once by default (one image's are sequential).
DEFAULT_JOBS = 4


@dataclass(frozen=True, order=True)
class ImageUse:
    """One image as a template renders it: where, in which object and field, and the
    scenarios that render it so."""

    image: str
    file: str
    line: int
    object: str
    field: str
    scenarios: tuple[str, ...] = ()

    @property
    def location(self) -> str:
        return f"{self.file}:{self.line}" if self.line else self.file


def image_uses(renders: Iterable[tuple[str, Sequence[K8sObject]]]) -> list[ImageUse]:
    """Every container image of ``renders`` ((scenario, objects) pairs), one use per
    image, object and field, listing the scenarios that render it, sorted."""
    found: dict[tuple[str, str, str, str, int], tuple[K8sObject, list[str]]] = {}
    for scenario, objects in renders:
        for obj in objects:
            for path, image in k8s_objects.images(obj):
                # the template line is the same in every scenario rendering the field
                # there; finding it re-parses the document, so once per distinct use
                key = (image.strip(), obj.file, obj.ref, path, obj.source_line)
                _, scenarios = found.setdefault(key, (obj, []))
                if scenario and scenario not in scenarios:
                    scenarios.append(scenario)
    return sorted(
        ImageUse(image, file, obj.field_line(path), ref, path, tuple(scenarios))
        for (image, file, ref, path, _), (obj, scenarios) in found.items()
    )


@dataclass(frozen=True)
class Resolved:
    """One (image, platform) the registry serves: a lock entry."""

    image: str
    reference: str
    platform: str
    digest: str
    #: The digest of what the tag names (the index, or the image manifest itself).
    manifest: str

    def to_dict(self) -> dict[str, str]:
        return {
            "image": self.image,
            "reference": self.reference,
            "platform": self.platform,
            "digest": self.digest,
            "manifest": self.manifest,
        }


@dataclass(frozen=True)
class ImageResult:
    """An image, what it was checked as, its uses and each platform's digest (None
    when the registry lacks it)."""

    image: str
    reference: str
    uses: tuple[ImageUse, ...]
    platforms: tuple[tuple[str, str | None], ...]
    missing: str = ""
    #: The digest of what the reference names (an index, or the image manifest).
    manifest: str = ""


@dataclass(frozen=True)
class RegistryReport:
    """What the stage found for one version."""

    version: str | None
    registry: str | None
    platforms: tuple[str, ...]
    images: tuple[ImageResult, ...]
    findings: tuple[Finding, ...]
    lock: str | None = None
    #: The addons whose images were checked (``<addon>/<version>``), when more than
    #: Calico's version (each use's file names its addon too).
    addons: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not any(f.severity == ERROR for f in self.findings)


@dataclass(frozen=True)
class ImageDetails(Details):
    """What a registry finding is about: the image as rendered, the platforms (comma
    separated), the reference asked (after ``--registry``) and, for a lock finding, the
    digest the lock records and the one the registry serves now."""

    image: str
    platform: str
    reference: str | None = None
    locked: str | None = None
    digest: str | None = None


def _finding(
    rule: str,
    message: str,
    use: ImageUse,
    platform: str,
    reference: str,
    locked: str | None = None,
    digest: str | None = None,
) -> Finding:
    return Finding(
        rule,
        ERROR,
        message,
        stage=STAGE,
        object=ObjectRef.parse(use.object),
        field=use.field,
        file=use.file,
        line=use.line,
        scenarios=use.scenarios,
        details=ImageDetails(use.image, platform, reference, locked, digest),
    )


def resolution_findings(image: str, reference: str, uses: tuple[ImageUse, ...], r: Resolution,
              platforms: Sequence[oci_ref.Platform]) -> list[Finding]:  # fmt: skip
    first = uses[0]
    if r.missing == "repository":
        return [
            _finding(
                "registry-repository-missing",
                f"{reference}: the registry has no repository {r.ref.path} "
                f"(for {', '.join(map(str, platforms))})",
                first,
                ",".join(map(str, platforms)),
                reference=reference,
            )
        ]
    if r.missing:
        what = "tag" if r.missing == "tag" else "manifest"
        return [
            _finding(
                f"registry-{what}-missing",
                f"{reference}: the registry has no {what} {r.ref.reference} in {r.ref.path} "
                f"(for {', '.join(map(str, platforms))})",
                first,
                ",".join(map(str, platforms)),
                reference=reference,
            )
        ]
    return [
        _finding(
            "registry-platform-missing",
            f"{reference} has no {platform} image: {r.reasons.get(platform, 'not served')}",
            first,
            str(platform),
            reference=reference,
        )
        for platform in platforms
        if r.platforms.get(platform) is None
    ]


def check_registry(
    uses: Sequence[ImageUse],
    platforms: Sequence[oci_ref.Platform],
    client: Client,
    *,
    registry: str | None = None,
    version: str | None = None,
    addons: Sequence[str] = (),
    jobs: int = DEFAULT_JOBS,
) -> RegistryReport:
    """Resolve every distinct image of ``uses`` for ``platforms``, ``registry``
    (``host[:port][/namespace]``) serving them instead of their own when given.

    An image that is not a reference, or a registry that cannot be judged, is an InputError
    naming the image (the first in image order, whatever finished first).
    """
    by_image: dict[str, list[ImageUse]] = {}
    for use in sorted(uses):
        by_image.setdefault(use.image, []).append(use)
    host, namespace = oci_ref.parse_registry(registry) if registry else ("", "")
    refs: dict[str, oci_ref.Reference] = {}
    for image, found in by_image.items():
        try:
            ref = oci_ref.parse(image)
        except InputError as exc:
            raise InputError(
                f"{image!r} rendered at {found[0].location} is not an image reference: "
                + exc.message
            ) from None
        refs[image] = oci_ref.rewrite(ref, host, namespace) if host else ref

    def resolve(image: str) -> Resolution | InputError:
        try:
            return client.resolve(refs[image], tuple(platforms))
        except InputError as exc:
            return exc

    with ThreadPoolExecutor(max_workers=max(1, min(jobs, len(refs) or 1))) as pool:
        answers = dict(zip(refs, pool.map(resolve, refs), strict=True))
    results, findings = [], []
    for image, answer in answers.items():
        reference = str(refs[image])
        if isinstance(answer, InputError):
            message = answer.message.removeprefix(f"{refs[image].api_host}: ")
            raise type(answer)(f"{reference}: {message}") from None
        its = tuple(by_image[image])
        findings += resolution_findings(image, reference, its, answer, platforms)
        results.append(
            ImageResult(
                image,
                reference,
                its,
                tuple((str(p), answer.platforms.get(p)) for p in platforms),
                answer.missing,
                answer.manifest.digest if answer.manifest else "",
            )
        )
    return RegistryReport(
        version,
        registry,
        tuple(map(str, platforms)),
        tuple(results),
        tuple(sorted(findings, key=lambda f: (f.file, f.line, f.rule, f.message))),
        addons=tuple(addons),
    )


def lock_entries(report: RegistryReport) -> list[Resolved]:
    """The (image, platform) -> digest pairs the registry served, in image order."""
    return [
        Resolved(r.image, r.reference, platform, digest, r.manifest)
        for r in report.images
        for platform, digest in r.platforms
        if digest is not None
    ]


def lock_document(report: RegistryReport) -> dict[str, Any]:
    """The lock file's JSON (``image-lock.schema.json``)."""
    return {
        "tool": LOCK_TOOL,
        "lock_version": 1,
        "version": report.version,
        "registry": report.registry,
        "platforms": list(report.platforms),
        "images": [e.to_dict() for e in lock_entries(report)],
    }


def verify_lock(report: RegistryReport, lock: Mapping[str, Any], lock_file: str) -> list[Finding]:
    """Findings where the registry now serves other digests than ``lock`` records.

    Entries are matched by image as rendered and platform, so a mirror (checked with a
    registry override) is verified against the release's own lock.
    """
    locked = {(e["image"], e["platform"]): e for e in lock["images"]}
    now = {(e.image, e.platform): e for e in lock_entries(report)}
    uses = {r.image: r.uses[0] for r in report.images}
    checked = {(r.image, p) for r in report.images for p, _ in r.platforms}
    out = []
    for key, entry in sorted(now.items()):
        old = locked.get(key)
        use = uses[entry.image]
        if old is None:
            out.append(
                _finding(
                    "registry-lock-missing",
                    f"{entry.reference} ({entry.platform}) is not in the lock {lock_file}",
                    use,
                    entry.platform,
                    reference=entry.reference,
                )
            )
        elif old["digest"] != entry.digest:
            out.append(
                _finding(
                    "registry-digest-changed",
                    f"{entry.reference} ({entry.platform}) is now {entry.digest}, "
                    f"the lock {lock_file} records {old['digest']}",
                    use,
                    entry.platform,
                    reference=entry.reference,
                    locked=old["digest"],
                    digest=entry.digest,
                )
            )
    for key in sorted(set(locked) - checked):
        out.append(
            Finding(
                "registry-lock-stale",
                WARNING,
                f"{key[0]} ({key[1]}) is in the lock {lock_file} but the version no longer "
                "renders it for the platforms checked",
                stage=STAGE,
                details=ImageDetails(key[0], key[1]),
            )
        )
    return out
