"""The simulated nodes: which exist, what they offer, and the Node objects a kubelet registers.

``--nodes N`` gives N identical nodes ``kubeforge-node-0`` ... (8 CPUs, 16Gi, 110 pods);
``--node-config FILE`` describes them instead, in YAML or JSON::

    nodes:
    - name: worker-a                 # optional; default kubeforge-node-<i>
      count: 2                       # optional; names then get -0, -1, ...
      labels: {topology.kubernetes.io/zone: a}
      taints: [{key: dedicated, value: gpu, effect: NoSchedule}]
      capacity: {cpu: "4", memory: 8Gi, pods: "110"}

Each node gets the labels a kubelet sets (``kubernetes.io/hostname``, ``os``, ``arch``),
the four conditions a healthy kubelet reports, an InternalIP and a pod CIDR of its own
(its heartbeat Lease in ``kube-node-lease`` is ``heartbeat``'s).

Entry points: ``NodeSpec``, ``load_node_specs(path, count)``, ``register_nodes(cluster,
specs)``; ``quantity(text)`` parses a resource quantity for the scheduler.
"""

from __future__ import annotations

import functools
import ipaddress
import json
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import yaml

from kubeforge.apiserver.cel.lib_quantity import parse_quantity
from kubeforge.apiserver.controllers.cluster import Cluster

__all__ = [
    "HEALTHY_CONDITIONS",
    "NodeSpec",
    "PodAddresses",
    "load_node_specs",
    "pod_cidr",
    "quantity",
    "register_nodes",
]

DEFAULT_CAPACITY = {"cpu": "8", "memory": "16Gi", "pods": "110", "ephemeral-storage": "100Gi"}
_FIRST_HOST_IP = ipaddress.ip_address("172.18.0.2")
_NODES = ("", "nodes")
HEALTHY_CONDITIONS = (
    (
        "MemoryPressure",
        "False",
        "KubeletHasSufficientMemory",
        "kubelet has sufficient memory available",
    ),
    ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
    ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
    ("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
)


@dataclass(frozen=True)
class NodeSpec:
    """One simulated node; ``index`` picks its host IP and pod CIDR."""

    name: str
    index: int
    labels: dict[str, str] = field(default_factory=dict)
    taints: tuple[dict[str, Any], ...] = ()
    capacity: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_CAPACITY))

    @functools.cached_property
    def host_ip(self) -> str:
        return str(_FIRST_HOST_IP + self.index)


def pod_cidr(index: int) -> ipaddress.IPv4Network:
    """Node ``index``'s /24 of 10.244.0.0/16, as the node IPAM controller hands them out."""
    return ipaddress.IPv4Network(f"10.244.{index % 256}.0/24")


class PodAddresses:
    """The pod IPs in use on each simulated node, kept from storage events, so handing out
    the next one never scans every pod. A node's addresses are written out once, and the
    search for a free one starts at the lowest that may be free (everything below it is
    taken): creating a node's pods one after another costs one look each, not one per
    pod already there."""

    def __init__(self, specs: list[NodeSpec]) -> None:
        self._in_use: dict[str, dict[str, str]] = {s.name: {} for s in specs}  # IP -> pod uid
        self._hosts: dict[str, tuple[dict[str, int], list[str]]] = {}
        self._lowest_free: dict[str, int] = {}

    def track(self, pod: dict[str, Any], *, gone: bool) -> None:
        node = str((pod.get("spec") or {}).get("nodeName"))
        owners = self._in_use.get(node)
        ip = (pod.get("status") or {}).get("podIP")
        if owners is None or not isinstance(ip, str) or not ip:
            return
        uid = str(pod["metadata"].get("uid"))
        if not gone:
            owners[ip] = uid
        elif owners.get(ip) == uid:
            del owners[ip]
            position = self._hosts[node][0].get(ip) if node in self._hosts else None
            if position is not None and position < self._lowest_free.get(node, 0):
                self._lowest_free[node] = position

    def allocate(self, spec: NodeSpec) -> str:
        """The first address of the node's CIDR after its gateway (``.1``) not in use."""
        used = self._in_use.setdefault(spec.name, {})
        hosts = self._hosts.get(spec.name)
        if hosts is None:
            # Every host address but the bridge's own (the first), in order.
            listed = [str(address) for address in pod_cidr(spec.index).hosts()][1:]
            hosts = self._hosts[spec.name] = ({ip: i for i, ip in enumerate(listed)}, listed)
        listed = hosts[1]
        for position in range(self._lowest_free.get(spec.name, 0), len(listed)):
            address = listed[position]
            if address not in used:
                used[address] = ""  # taken until the pod's status shows it
                self._lowest_free[spec.name] = position + 1
                return address
        raise RuntimeError(f"node {spec.name} has no pod IP left")


@functools.lru_cache(maxsize=1024)
def _parsed(text: str) -> Fraction:
    return parse_quantity(text).value


def quantity(text: Any) -> Fraction:
    """A resource quantity's value (``"500m"`` -> 1/2); nonsense counts as zero."""
    try:
        return _parsed(str(text))
    except Exception:  # a value the server let through but cannot be measured: no demand
        return Fraction(0)


def load_node_specs(path: Path | None, count: int) -> list[NodeSpec]:
    """The nodes ``--node-config`` describes, or ``count`` default ones."""
    if path is None:
        return [NodeSpec(f"kubeforge-node-{i}", i) for i in range(count)]
    text = path.read_text(encoding="utf-8")
    document = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    entries = (document or {}).get("nodes") if isinstance(document, dict) else None
    if not isinstance(entries, list) or not entries:
        raise ValueError(f"{path}: expected a 'nodes' list with at least one node")
    specs: list[NodeSpec] = []
    for position, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise ValueError(f"{path}: nodes[{position}] must be a mapping")
        specs.extend(_expand(entry, len(specs)))
    names = [spec.name for spec in specs]
    if len(set(names)) != len(names):
        raise ValueError(f"{path}: node names must be unique")
    return specs


def _expand(entry: dict[str, Any], first: int) -> list[NodeSpec]:
    count = int(entry.get("count", 1))
    base = str(entry.get("name") or "")
    capacity = {**DEFAULT_CAPACITY, **{k: str(v) for k, v in (entry.get("capacity") or {}).items()}}
    labels = {str(k): str(v) for k, v in (entry.get("labels") or {}).items()}
    taints = tuple(dict(t) for t in entry.get("taints") or [])
    specs = []
    for i in range(count):
        index = first + i
        name = base if base and count == 1 else f"{base or 'kubeforge-node'}-{i if base else index}"
        specs.append(NodeSpec(name, index, labels, taints, capacity))
    return specs


def register_nodes(cluster: Cluster, specs: list[NodeSpec]) -> None:
    """Create each node that does not exist yet, as a kubelet registers (its Lease is
    the heartbeat's, ``heartbeat.KubeletHeartbeats``)."""
    for spec in specs:
        if cluster.get(_NODES, "", spec.name) is None:
            cluster.create(_NODES, "", _node_object(spec, cluster.now()))


def _node_object(spec: NodeSpec, now: str) -> dict[str, Any]:
    cidr = str(pod_cidr(spec.index))
    labels = {
        "beta.kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/hostname": spec.name,
        "kubernetes.io/os": "linux",
        **spec.labels,
    }
    node_spec: dict[str, Any] = {"podCIDR": cidr, "podCIDRs": [cidr]}
    if spec.taints:
        node_spec["taints"] = [dict(t) for t in spec.taints]
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": spec.name, "labels": labels},
        "spec": node_spec,
        "status": {
            "conditions": [
                {
                    "type": kind,
                    "status": status,
                    "lastHeartbeatTime": now,
                    "lastTransitionTime": now,
                    "reason": reason,
                    "message": message,
                }
                for kind, status, reason, message in HEALTHY_CONDITIONS
            ],
            "addresses": [
                {"type": "InternalIP", "address": spec.host_ip},
                {"type": "Hostname", "address": spec.name},
            ],
            "capacity": dict(spec.capacity),
            "allocatable": dict(spec.capacity),
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "nodeInfo": {
                "kubeletVersion": "v1.32.0",
                "operatingSystem": "linux",
                "architecture": "amd64",
                "containerRuntimeVersion": "kubeforge://simulated",
                "kernelVersion": "",
                "osImage": "kubeforge simulated node",
                "kubeProxyVersion": "",
                "machineID": "",
                "systemUUID": "",
                "bootID": "",
            },
        },
    }
