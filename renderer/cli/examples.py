"""Two or three real command lines per command, printed at the end of its ``--help``
(tests parse every one with the CLI, so an example never drifts from the options)."""

from __future__ import annotations

#: Command name ("" for the render, the default command) -> example command lines, each
#: with a comment saying what it does.
EXAMPLES: dict[str, tuple[tuple[str, str], ...]] = {
    "": (
        ("calico-render --version v3.28 --nodes 601", "render for 601 nodes (Typha x4)"),
        (
            "calico-render --config create.yaml --strict",
            "every addon as BKE renders a cluster (its BKENodes in the file, or --nodes-file)",
        ),
        (
            "calico-render --config create.yaml --addon calico --output-dir out/",
            "only the calico addon, into out/calico/<version>/",
        ),
    ),
    "render": (
        (
            "calico-render render --config create.yaml --format json",
            "one create request (BKENodes and BKECluster in one stream): a section per addon",
        ),
        (
            "calico-render render --version v3.28 --nodes 601 --output-dir out/ --format json",
            "the manifest in out/, the decision and file digests as JSON",
        ),
    ),
    "advise": (
        ("calico-render advise --version v3.28 --nodes 2000", "scale limits for 2000 nodes"),
        (
            "calico-render advise --config cluster.yaml --nodes-file nodes.yaml --format json",
            "for a cluster's config",
        ),
    ),
    "capability": (
        ("calico-render capability --version v3.31.3", "is the version release-ready?"),
        (
            "calico-render capability --manifests . --version v3.28 --kube-version 1.30",
            "a tree's newest v3.28",
        ),
        (
            "calico-render capability --manifests . --version v3.31.3 --format sarif "
            "-o capability.sarif",
            "for code scanning",
        ),
    ),
    "check": (
        (
            "calico-render check --manifests .",
            "the release gate on a bke-manifests checkout: every addon",
        ),
        (
            "calico-render check --manifests . --addon calico --addon coredns",
            "two addons only",
        ),
        (
            "calico-render check --manifests . --update-golden",
            "rewrite goldens after review",
        ),
    ),
    "explain-context": (
        (
            "calico-render explain-context --version v3.28 --nodes 601",
            "every value and its origin",
        ),
        (
            "calico-render explain-context --config cluster.yaml --nodes-file nodes.yaml",
            "a cluster's contexts",
        ),
    ),
    "images": (
        ("calico-render images --version v3.28 --repo registry.local/", "what a node pre-pulls"),
        (
            "calico-render images --config create.yaml --addon all --check-registry",
            "every image of every listed addon, resolved in its registry",
        ),
    ),
    "import": (
        (
            "calico-render import upstream/calico/v3.31.3 --manifests . --layout single",
            "derive a version directory",
        ),
        (
            "calico-render import upstream/calico/v3.27.3 --manifests . --no-typha --check",
            "prove it unedited",
        ),
    ),
    "plan": (
        (
            "calico-render plan --from-version v3.27 --to-version v3.28 --nodes 601",
            "upgrade in gated phases",
        ),
        (
            "calico-render plan --to-version v3.28 --from-nodes 40 --nodes 120 --output-dir plan/",
            "scale past 50 nodes",
        ),
    ),
    "rules": (
        ("calico-render rules", "every rule id, its stage and severity"),
        ("calico-render rules --format json", "the catalogue as JSON"),
    ),
    "schema": (
        ("calico-render schema", "the published schemas' names"),
        ("calico-render schema check-report", "self-contained, for any validator"),
    ),
    "template": (
        ("calico-render template calico.yaml -f values.yaml", "one file, exactly this context"),
        (
            "calico-render template calico.yaml.j2 --set repo=registry.local/",
            "a Jinja2 template",
        ),
    ),
    "typha": (
        ("calico-render typha --nodes 601", "the Typha decision for 601 nodes"),
        ("calico-render typha --format json", "the boundary table as JSON"),
    ),
    "validate": (
        (
            "calico-render --version v3.28 --nodes 601 --no-validate | "
            "calico-render validate - --summary",
            "a render from stdin",
        ),
        (
            "calico-render validate calico.yaml --kube-version 1.30 --skip "
            "CustomResourceDefinition --format junit -o validate.xml",
            "for CI",
        ),
        (
            "calico-render validate rendered/ --crds crds/ --strict",
            "custom resources against more CRDs; a kind without one is an error",
        ),
    ),
    "version": (
        ("calico-render version", "the tool's version"),
        ("calico-render version --format json", "as JSON"),
    ),
    "versions": (
        ("calico-render versions --manifests .", "versions and their Typha capability"),
        ("calico-render versions --keys --format json", "and the context keys each reads"),
    ),
}


def epilog(command: str) -> str | None:
    """The examples block of ``command`` for its ``--help`` (click keeps ``\\b`` blocks
    as written)."""
    found = EXAMPLES.get(command)
    if not found:
        return None
    lines = ["\b", "Examples:"]
    for line, what in found:
        lines.append(f"  # {what}")
        lines.append(f"  {line}")
    return "\n".join(lines)


def command_lines(command: str) -> list[str]:
    """The example command lines of ``command`` (for tests)."""
    return [line for line, _ in EXAMPLES.get(command, ())]
