"""A tree of several addons and a BKECluster listing them, for the tests of the render
of every listed addon (library and command line)."""

from __future__ import annotations

import shutil
from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures"
ADDONS_TREE = FIXTURES / "addons-tree"

COMMAND_CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: commands.bkeagent.bocloud.com}
spec:
  group: bkeagent.bocloud.com
  names: {kind: Command, plural: commands}
  scope: Namespaced
  versions:
    - name: v1beta1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                commands:
                  type: array
                  items: {type: object, x-kubernetes-preserve-unknown-fields: true}
                nodeSelector:
                  type: object
                  properties:
                    matchLabels: {type: object, additionalProperties: {type: string}}
"""


def listed_tree(root: Path) -> tuple[Path, Path]:
    """A tree of five addons (bkeagent ships the CRD of clusterextra's Command, which
    writes a node's address beside matchLabels) and a BKECluster listing them, a Helm
    chart among them, in its own order."""
    shutil.copytree(ADDONS_TREE / "kubernetes" / "coredns", root / "kubernetes" / "coredns")
    calico = FIXTURES / "tree" / "kubernetes" / "calico" / "v9.1.0"
    shutil.copytree(calico, root / "kubernetes" / "calico" / "v9.1.0")
    files = {
        "kubeproxy/v1.0.0/kube-proxy.yaml": (
            "apiVersion: v1\nkind: ConfigMap\n"
            "metadata: {name: kube-proxy, namespace: kube-system}\n"
            "data: {podSubnet: '{{ .podSubnet }}'}\n"
        ),
        "bkeagent/latest/crd.yaml": COMMAND_CRD,
        "clusterextra/install-helm.sh/agent-command.yaml": (
            "apiVersion: bkeagent.bocloud.com/v1beta1\nkind: Command\n"
            "metadata: {name: install-helm, namespace: '{{ .namespace }}'}\n"
            "spec:\n  commands: [{id: install, type: Shell}]\n"
            "  nodeSelector:\n    matchLabels:\n    10.0.0.1: 10.0.0.1\n"
        ),
    }
    for name, text in files.items():
        path = root / "kubernetes" / name
        path.parent.mkdir(parents=True)
        path.write_text(text, encoding="utf-8")
    config = root / "cluster.yaml"
    config.write_text(
        "apiVersion: bke.bocloud.com/v1beta1\nkind: BKECluster\n"
        "metadata: {name: c, namespace: c}\nspec:\n  clusterConfig:\n    addons:\n"
        "      - {name: kubeproxy, version: v1.0.0}\n"
        "      - {name: calico, version: v9.1.0}\n"
        "      - {name: kube-prometheus, version: v1, type: chart}\n"
        "      - {name: bkeagent, version: latest}\n"
        "      - {name: clusterextra, version: install-helm.sh}\n"
        "      - {name: coredns, version: v1.0.0}\n",
        encoding="utf-8",
    )
    return root, config
