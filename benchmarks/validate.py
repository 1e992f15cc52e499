"""Strict schema validation of the bundled renders: cached validator vs the library.

Renders every bundled version (Typha off and on), then validates the same objects on
one Kubernetes version twice: with :class:`renderer.k8s.schema.SchemaValidator` (a fresh
instance, so only schemas and validators are reused, not per-object results) and with
``kubernetes_validate.validate(obj, version, strict=True)`` per object. Prints both
times and the ratio; no assertion.

    python benchmarks/validate.py [--kube-version X.Y]
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import kubernetes_validate
from kubernetes_validate.utils import SchemaNotFoundError

from renderer.checks.renders import capability_of
from renderer.k8s import schema as kubeschema
from renderer.k8s.schema import SchemaValidator
from renderer.manifests.tree import list_versions


def bundled_objects() -> list[dict[str, Any]]:
    out = []
    for vdir in list_versions():
        for scenario in capability_of(vdir).scenarios:
            out.extend(o.data for o in scenario.objects)
    return out


def library(objects: list[dict[str, Any]], version: str) -> int:
    invalid = 0
    for data in objects:
        try:
            kubernetes_validate.validate(data, version, strict=True)
        except (kubernetes_validate.ValidationError, SchemaNotFoundError):
            invalid += 1
    return invalid


def cached(objects: list[dict[str, Any]], version: str) -> int:
    validator = SchemaValidator([version])
    return sum(1 for d in objects if kubeschema.errors(validator.validate(d)))


def uncached_results(objects: list[dict[str, Any]], version: str) -> int:
    """Cached schemas and validators, but every object validated again (no result cache)."""
    return sum(1 for d in objects if kubeschema.errors(kubeschema.check_object(d, version)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kube-version", default=kubeschema.default_kube_versions()[-1])
    args = parser.parse_args()
    objects = bundled_objects()
    distinct = len({kubeschema.canonical_hash(o) for o in objects})
    start = time.perf_counter()
    cached(objects, args.kube_version)  # cold: loads schemas and builds validators
    cold = time.perf_counter() - start
    start = time.perf_counter()
    ours = cached(objects, args.kube_version)
    warm = time.perf_counter() - start
    start = time.perf_counter()
    uncached_results(objects, args.kube_version)
    every = time.perf_counter() - start
    start = time.perf_counter()
    theirs = library(objects, args.kube_version)
    lib = time.perf_counter() - start
    print(f"objects: {len(objects)} ({distinct} distinct), Kubernetes {args.kube_version}")
    print(f"cached validator, cold:  {cold:8.3f} s")
    print(f"cached validator, warm:  {warm:8.3f} s")
    print(f"no per-object cache:     {every:8.3f} s")
    print(f"kubernetes_validate:     {lib:8.3f} s   ({theirs} invalid or without schema)")
    print(
        f"ratio library/cold: {lib / cold:.1f}x   library/warm: {lib / warm:.1f}x   "
        f"library/no-per-object-cache: {lib / every:.1f}x"
    )
    if ours > theirs:
        print(f"note: {ours} objects have errors here, {theirs} there")


if __name__ == "__main__":
    main()
