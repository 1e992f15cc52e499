"""``images --check-registry``: what the registry serves for every image a version
renders, in text, JSON (``images-registry.schema.json``) and JUnit (a case per image
and platform, so a CI's test history follows each one)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from renderer.checks.registry import ImageDetails, ImageResult, RegistryReport
from renderer.data.schemas import IMAGES_REGISTRY
from renderer.finding import ERROR, WARNING, Finding
from renderer.output import Findings, SortedDocument
from renderer.output.findings import findings_list, report_header
from renderer.output.suites import Suites, TestCase, TestSuite

TOOL = "calico-render images --check-registry"


def _short(digest: str | None) -> str:
    return "missing" if digest is None else digest[: digest.index(":") + 13]


def image_dict(result: ImageResult) -> dict[str, Any]:
    """One image as the JSON report carries it (unset values null)."""
    return {
        "image": result.image,
        "reference": result.reference,
        "missing": result.missing or None,
        "manifest": result.manifest or None,
        "platforms": [{"platform": p, "digest": d} for p, d in result.platforms],
        "uses": [
            {
                "file": u.file or None,
                "line": u.line or None,
                "object": u.object or None,
                "field": u.field or None,
                "scenarios": list(u.scenarios),
            }
            for u in result.uses
        ],
    }


def _for(findings: tuple[Finding, ...], image: str, platform: str) -> list[Finding]:
    return [
        f
        for f in findings
        if isinstance(d := f.details, ImageDetails)
        and d.image == image
        and platform in d.platform.split(",")
    ]


@dataclass(frozen=True)
class RegistryDocument(SortedDocument, Suites, Findings):
    """The registry check of one version."""

    schema = IMAGES_REGISTRY
    suites_name = TOOL

    report: RegistryReport

    def data(self) -> dict[str, Any]:
        r = self.report
        return {
            **report_header("images --check-registry"),
            "version": r.version,
            **({"addons": list(r.addons)} if r.addons else {}),
            "registry": r.registry,
            "platforms": list(r.platforms),
            "lock": r.lock,
            "passed": r.ok,
            "images": [image_dict(i) for i in r.images],
            "findings": findings_list(r.findings),
            "summary": {
                "images": len(r.images),
                "errors": sum(f.severity == ERROR for f in r.findings),
                "warnings": sum(f.severity == WARNING for f in r.findings),
            },
        }

    def text(self) -> str:
        r = self.report
        lines = []
        for image in r.images:
            bad = image.missing or any(d is None for _, d in image.platforms)
            served = "  ".join(f"{p} {_short(d)}" for p, d in image.platforms)
            state = f"no {image.missing}" if image.missing else served
            lines.append(f"{'MISSING' if bad else 'ok':<8}{image.reference}  {state}")
        lines += [str(f) for f in r.findings]
        errors = sum(f.severity == ERROR for f in r.findings)
        head = "PASS" if r.ok else "FAIL"
        what = f"Calico {r.version}" if r.version else "no Calico"
        via = f" via {r.registry}" if r.registry else ""
        summary = (
            f"{head}: {what}, {len(r.images)} image{'' if len(r.images) == 1 else 's'} "
            f"for {', '.join(r.platforms)}{via}"
        )
        if errors:
            summary += f"; {errors} error{'' if errors == 1 else 's'}"
        if r.lock:
            summary += f"; digests verified against {r.lock}"
        return "".join(f"{line}\n" for line in [*lines, summary])

    def annotations(self) -> list[Finding]:
        """Every finding, at the template line that renders the image (SARIF, Code
        Quality)."""
        return list(self.report.findings)

    def testsuites(self) -> list[TestSuite]:
        r = self.report
        cases = []
        for image in r.images:
            for platform, _digest in image.platforms:
                found = _for(r.findings, image.image, platform)
                errors = [f for f in found if f.severity == ERROR]
                cases.append(
                    TestCase(
                        "registry",
                        f"{image.reference} {platform}",
                        failure="\n".join(str(f) for f in errors) if errors else None,
                        message=errors[0].message if errors else "",
                    )
                )
        stale = [
            (f, f.details)
            for f in r.findings
            if f.rule == "registry-lock-stale" and isinstance(f.details, ImageDetails)
        ]
        cases += [TestCase(d.image, d.platform, skipped=f.message) for f, d in stale]
        props = (("version", r.version or ""), ("platforms", ",".join(r.platforms)))
        return [TestSuite(f"registry {r.version or 'no Calico'}", tuple(cases), props)]
