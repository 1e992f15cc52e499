"""The documents of every addon a BKECluster lists: its render, one document per create
request with a section per addon in the controller's order
(``schemas/render-result.schema.json``'s ``listed`` form), and the images each node role
pulls for each (``schemas/images-addons.schema.json``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from renderer.api.listed import AddonRender, ListedImages, ListedRender
from renderer.api.results import (
    AddonResult,
    RenderResult,
)
from renderer.bke.roles import images_by_role
from renderer.k8s.crd import Unchecked, unchecked
from renderer.output import Document
from renderer.output.findings import findings_list, report_header, severity_counts
from renderer.output.render_result import RENDER, RenderDocument


def _images(a: AddonRender) -> dict[str, tuple[str, ...]]:
    """Role -> every image a node of that role pulls for the addon: those of each
    workload its pods may be scheduled on (:mod:`renderer.bke.roles`)."""
    return images_by_role(a.result.objects if a.result is not None else ())[0]


def unchecked_line(found: Unchecked, where: str = "in the tree") -> str:
    """``not checked: 6 objects of 2 kinds without a CRD in the tree (Kind apiVersion,
    ...)``."""
    kinds = len(found.kinds)
    return (
        f"not checked: {found.objects} object{'s' * (found.objects != 1)} of {kinds} "
        f"kind{'s' * (kinds != 1)} without a CRD {where} ({', '.join(found.kinds)})"
    )


@dataclass(frozen=True)
class ListedRenderDocument(Document):
    """What the render of every addon a BKECluster lists decided and found: per addon
    its status, files, findings, warnings, notes, the custom resources no CRD checked,
    each node role's images and (Calico) the Typha decision; the files written."""

    schema = RENDER

    manifests: str
    result: ListedRender
    #: Path -> SHA-256 of each file written.
    written: dict[str, str] = field(default_factory=dict)

    def data(self) -> dict[str, Any]:
        r = self.result
        return {
            **report_header("render"),
            "manifests": self.manifests,
            "config": r.config,
            "nodes": r.nodes,
            "kube_versions": list(r.kube_versions),
            "exit_code": r.exit_code,
            "summary": severity_counts(r.findings),
            "findings": findings_list(r.findings),
            "notes": list(r.notes),
            "addons": [self._addon(a) for a in r.addons],
            "written": [{"path": p, "sha256": h} for p, h in sorted(self.written.items())],
        }

    def _addon(self, a: AddonRender) -> dict[str, Any]:
        result = a.result
        found = unchecked(a.findings)
        calico = None
        if isinstance(result, RenderResult):
            full = RenderDocument.of(result, self.manifests).data()
            calico = {
                "decision": full["decision"],
                "routing": full["routing"],
                "prepull": full["images"],
            }
        warnings: list[str] = []
        if result is not None:
            warnings = [*result.warnings, *(w.message for w in result.param_warnings)]
        return {
            "name": a.name,
            "version": a.version,
            "where": a.listed.where,
            "status": a.status,
            "reason": a.refused or a.listed.skipped or None,
            "exit_code": a.exit_code,
            "files": sorted(result.texts()) if result is not None else [],
            "failed": list(result.failed) if isinstance(result, AddonResult) else [],
            "summary": severity_counts(a.findings),
            "findings": findings_list(a.findings),
            "warnings": warnings,
            "notes": self._notes(a),
            "not_checked": {"objects": found.objects, "kinds": list(found.kinds)},
            "images": {role: list(images) for role, images in _images(a).items()},
            "calico": calico,
        }

    def _notes(self, a: AddonRender) -> list[str]:
        """An addon's notes but those about the whole request (said once)."""
        own = a.result.notes if a.result is not None else ()
        return [n for n in own if n not in self.result.notes]

    def text(self) -> str:
        """The lines the command line prints on stderr: the request's notes, then per
        addon what it decided and found (Calico's as ``render --version`` prints them),
        the objects no CRD checked, then why nothing was written."""
        lines = [f"calico-render: {n}" for n in self.result.notes]
        if not self.result.addons:
            lines.append(f"calico-render: {self.result.config} lists no addon: nothing rendered")
        for a in self.result.addons:
            head = f"calico-render: {a.name} {a.version}"
            if a.result is None:
                lines.append(f"{head}: {a.status}: {a.refused or a.listed.skipped}")
                continue
            result = a.result
            if isinstance(result, RenderResult):
                said = {f"calico-render: {n}" for n in self.result.notes}
                lines += [
                    line
                    for line in RenderDocument.of(result, self.manifests).text().splitlines()
                    if line not in said and not line.endswith("; nothing written")
                ]
            else:
                files = len(result.files)
                lines.append(f"{head}: {a.status}, {files} file{'s' * (files != 1)}")
                lines += [f"calico-render: {n}" for n in self._notes(a)]
                lines += [f"calico-render: warning: {w}" for w in result.warnings]
                lines += [f"calico-render: warning: {w.message}" for w in result.param_warnings]
                lines += [f"calico-render: {f}" for f in result.findings]
            found = unchecked(a.findings)
            if found.objects:
                lines.append(f"{head}: {unchecked_line(found)}")
        errors = sum(1 for f in self.result.findings if f.severity == "error")
        if errors:
            lines.append(f"calico-render: {errors} error finding(s); nothing written")
        return "".join(f"{line}\n" for line in lines)


ADDON_IMAGES = "images-addons.schema.json"


@dataclass(frozen=True)
class AddonImagesDocument(Document):
    """The images each node role pulls for every addon a BKECluster lists (or those
    named), in the controller's order."""

    schema = ADDON_IMAGES

    config: str
    addons: tuple[ListedImages, ...]

    def data(self) -> dict[str, Any]:
        return {
            **report_header("images"),
            "config": self.config,
            "addons": [self._addon(a) for a in self.addons],
        }

    @staticmethod
    def _addon(a: ListedImages) -> dict[str, Any]:
        found = a.images
        status = "rendered" if found is not None else ("refused" if a.refused else "skipped")
        return {
            "name": a.listed.name,
            "version": found.version if found is not None else a.listed.version,
            "where": a.listed.where,
            "status": status,
            "reason": a.refused or a.listed.skipped or None,
            "repo": found.repo if found is not None else "",
            "images": {r: list(i) for r, i in (found.images if found else {}).items()},
            "daemonsets": {r: list(i) for r, i in (found.daemons if found else {}).items()},
            "notes": list(found.notes) if found is not None else [],
        }

    def text(self) -> str:
        """Per addon, per role, the images a node of that role pulls."""
        lines = []
        for a in self.addons:
            found = a.images
            if found is None:
                reason = a.refused or a.listed.skipped
                lines.append(f"{a.listed.name} {a.listed.version}: not rendered: {reason}")
                continue
            lines.append(f"{found.addon} {found.version}:")
            for role, images in found.images.items():
                lines.append(f"  {role}: {', '.join(images) if images else '(none)'}")
        return "".join(f"{line}\n" for line in lines)
