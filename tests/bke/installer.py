"""Create requests shaped as installer-service writes them (``pkg/installer/cluster_create.go``).

installer-service marshals each BKENode with yaml.v3 (keys sorted, four-space indent,
the cluster label, namespace and name the cluster's), writes ``\\n---\\n`` after each, and
ends the stream with the BKECluster: its default config (calico ``v3.27.3``,
``calicoMode: vxlan``, ``imageRepo`` domain ``default`` on port ``"443"``), marshalled the
same way. The benchmarks and the tests of ``--config`` reading its own BKENodes build
their inputs here, so both measure and check the shape production sends.
"""

from __future__ import annotations

CLUSTER = """\
apiVersion: bke.bocloud.com/v1beta1
kind: BKECluster
metadata:
    creationTimestamp: null
    name: {name}
    namespace: {name}
spec:
    clusterConfig:
        addons:
            - name: kubeproxy
              param:
                clusterNetworkMode: calico
              version: v1.28.8
            - block: true
              name: calico
              param:
{calico_params}
              version: {version}
            - name: coredns
              version: v1.10.1
            - name: bkeagent-deployer
              param:
                tagVersion: latest
              version: latest
        cluster:
            agentHealthPort: "58080"
            certificatesDir: /etc/kubernetes/pki
            containerRuntime:
                cri: containerd
                param:
                    data-root: /var/lib/containerd
                runtime: runc
            containerdVersion: v0.0.0
            etcd:
                dataDir: /var/lib/etcd
            httpRepo:
                domain: http.bocloud.k8s
                ip: 192.168.100.20
                port: "40080"
                prefix: ""
            imageRepo:
                domain: default
                ip: ""
                port: "443"
                prefix: ""
            kubelet:
                extraVolumes:
                    - hostPath: /var/lib/kubelet
                      name: kubelet-root-dir
            kubernetesVersion: v1.28.8
            networking:
                dnsDomain: cluster.local
                podSubnet: 10.250.0.0/16
                serviceSubnet: 10.96.0.0/16
            ntpServer: cn.pool.ntp.org:123
            openFuyaoVersion: v00.00
        customExtra:
            domain: deploy.bocloud.k8s
            host: 192.168.201.85
            imageRepoPort: "40443"
    controlPlaneEndpoint: {endpoint}
    pause: false
status:
    agentStatus: {{}}
    kubernetesVersion: ""
    ready: false
"""

NODE = """\
apiVersion: bke.bocloud.com/v1beta1
kind: BKENode
metadata:
    labels:
        cluster.x-k8s.io/cluster-name: {cluster}
    name: {name}
    namespace: {cluster}
spec:
    hostname: {name}
    ip: {ip}
    password: ""
    port: "22"
    role:
{roles}    username: root
"""

#: installer-service's default calico params.
CALICO_PARAMS = {"calicoMode": "vxlan", "ipAutoDetectionMethod": "skip-interface=nerdctl*"}


def node_yaml(cluster: str, index: int, roles: tuple[str, ...]) -> str:
    """One BKENode as ``buildNodeYaml`` marshals it."""
    ip = f"10.{index // 65536}.{index // 256 % 256}.{index % 256}"
    lines = "".join(f"        - {role}\n" for role in roles)
    return NODE.format(cluster=cluster, name=f"node-{index}", ip=ip, roles=lines)


def create_request(
    nodes: int,
    *,
    cluster: str = "bke-cluster",
    version: str = "v3.27.3",
    params: dict[str, str] | None = None,
    endpoint: str = "{}",
    others: int = 0,
) -> str:
    """A create request of ``nodes`` BKENodes of ``cluster`` (three control-plane nodes,
    ``master/node`` as installer-service normalises ``master``; the rest workers), and
    ``others`` BKENodes labelled for another cluster, then the BKECluster. ``params``
    are the calico addon's (each value written as given, so a test can write one
    unquoted); ``endpoint`` the ``controlPlaneEndpoint`` flow map."""
    parts = []
    for i in range(nodes):
        roles = ("master/node",) if i < 3 else ("node",)
        parts.append(node_yaml(cluster, i, roles) + "\n---\n")
    for i in range(others):
        parts.append(node_yaml(f"{cluster}-other", nodes + i, ("node",)) + "\n---\n")
    values = CALICO_PARAMS if params is None else params
    indent = " " * 16
    lines = "".join(f"{indent}{k}: {v}\n" for k, v in values.items()) or f"{indent}{{}}\n"
    parts.append(
        CLUSTER.format(
            name=cluster, version=version, calico_params=lines.rstrip("\n"), endpoint=endpoint
        )
    )
    return "".join(parts)
