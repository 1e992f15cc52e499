"""The registry check against a real registry on 127.0.0.1: how long resolving a
release's images takes, one request at a time against ``--jobs`` at once.

Starts Debian's ``docker-registry`` (as the tests do) with N images, each an OCI index
of linux/amd64 and linux/arm64, and resolves all of them for both platforms through
:func:`renderer.checks.registry.check_registry` (rendering is not timed). Each image is
three manifest requests; the script prints requests, seconds and requests per second
for jobs=1 and the chosen jobs, and fails when the verdicts differ.

    python benchmarks/registry.py [--images N] [--jobs J] [--repeat R]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from renderer.checks.registry import ImageUse, check_registry
from renderer.oci.client import Client, Settings
from renderer.oci.reference import parse_platforms


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=24)
    parser.add_argument("--jobs", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.registryhelp import REGISTRY_BIN, start_registry

    if REGISTRY_BIN is None:
        print("docker-registry is not installed (Debian package docker-registry)")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        reg = start_registry(Path(tmp))
        try:
            uses = []
            for i in range(args.images):
                reg.push_index(f"bench/image-{i}", "v1", ("amd64", "arm64"))
                uses.append(ImageUse(f"{reg.host}/bench/image-{i}:v1", "bench.yaml", i + 1, "", ""))
            client = Client(Settings(insecure=frozenset({reg.host}), env={}))
            platforms = parse_platforms("linux/amd64,linux/arm64")
            results = {}
            for jobs in sorted({1, args.jobs}):
                best = float("inf")
                for _ in range(args.repeat):
                    start = time.perf_counter()
                    report = check_registry(uses, platforms, client, jobs=jobs)
                    best = min(best, time.perf_counter() - start)
                results[jobs] = report
                requests = args.images * 3
                print(
                    f"jobs={jobs}: {args.images} images, {requests} manifest requests in "
                    f"{best:.3f} s ({requests / best:.0f} requests/s, best of {args.repeat})"
                )
        finally:
            reg.stop()
    verdicts = {j: [(i.image, i.platforms) for i in r.images] for j, r in results.items()}
    if len({repr(v) for v in verdicts.values()}) != 1 or not all(r.ok for r in results.values()):
        print("verdicts differ between job counts")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
