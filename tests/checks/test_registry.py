"""The registry stage's pure parts: image uses, the lock and its verification."""

from __future__ import annotations

from renderer.checks.registry import (
    ImageDetails,
    ImageResult,
    ImageUse,
    RegistryReport,
    image_uses,
    lock_document,
    verify_lock,
)
from renderer.finding import ERROR, WARNING, Finding
from renderer.k8s.parse import K8sObject

A, B, C = ("sha256:" + c * 64 for c in "abc")


def _image(f: Finding) -> ImageDetails:
    assert isinstance(f.details, ImageDetails)
    return f.details


def _pod(kind: str, name: str, *images: str) -> K8sObject:
    containers = [{"name": f"c{i}", "image": image} for i, image in enumerate(images)]
    data = {
        "kind": kind,
        "metadata": {"name": name, "namespace": "kube-system"},
        "spec": {"template": {"spec": {"containers": containers}}},
    }
    return K8sObject("v1/x.yaml", 0, 1, data, source_line=7)


def test_a_use_per_image_object_and_field_listing_its_scenarios() -> None:
    on = [
        _pod("Deployment", "calico-typha", "calico/typha:v1"),
        _pod("DaemonSet", "n", "calico/node:v1"),
    ]
    off = [_pod("DaemonSet", "n", "calico/node:v1")]
    uses = image_uses([("off", off), ("on", on)])
    assert [(u.image, u.object, u.field, u.scenarios, u.line) for u in uses] == [
        (
            "calico/node:v1",
            "DaemonSet kube-system/n",
            "spec.template.spec.containers[0].image",
            ("off", "on"),
            7,
        ),
        (
            "calico/typha:v1",
            "Deployment kube-system/calico-typha",
            "spec.template.spec.containers[0].image",
            ("on",),
            7,
        ),
    ]


def _report(*platforms: tuple[str, str | None]) -> RegistryReport:
    use = ImageUse("calico/node:v1", "v1/x.yaml", 9, "DaemonSet kube-system/n", "f")
    result = ImageResult("calico/node:v1", "r.io/calico/node:v1", (use,), platforms, manifest=C)
    return RegistryReport("v1", "r.io", tuple(p for p, _ in platforms), (result,), ())


def test_the_lock_records_each_served_platform() -> None:
    lock = lock_document(_report(("linux/amd64", A), ("linux/arm64", None)))
    assert lock["images"] == [
        {
            "image": "calico/node:v1",
            "reference": "r.io/calico/node:v1",
            "platform": "linux/amd64",
            "digest": A,
            "manifest": C,
        }
    ]


def test_verifying_a_lock_finds_changed_unlocked_and_stale_entries() -> None:
    old = lock_document(_report(("linux/amd64", A), ("linux/arm64", B)))
    old["images"].append({**old["images"][0], "image": "calico/gone:v1"})
    now = _report(("linux/amd64", B), ("linux/s390x", A))
    found = verify_lock(now, old, "lock.json")
    assert [(f.rule, f.severity, _image(f).image, _image(f).platform, f.line) for f in found] == [
        ("registry-digest-changed", ERROR, "calico/node:v1", "linux/amd64", 9),
        ("registry-lock-missing", ERROR, "calico/node:v1", "linux/s390x", 9),
        # no longer rendered, or a platform not checked this time: a warning
        ("registry-lock-stale", WARNING, "calico/gone:v1", "linux/amd64", 0),
        ("registry-lock-stale", WARNING, "calico/node:v1", "linux/arm64", 0),
    ]


def test_an_unchanged_registry_verifies() -> None:
    report = _report(("linux/amd64", A))
    assert verify_lock(report, lock_document(report), "lock.json") == []
