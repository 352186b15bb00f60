"""Which parts of the simulated control plane run: kube-controller-manager's ``--controllers``.

``--controllers`` takes kube-controller-manager's list: ``*`` turns on every controller
that is on by default, ``name`` turns one on, ``-name`` turns one off (``*,-deployment``;
an empty list or ``-*`` runs none, as under envtest). The names are the real ones
(``deployment``, ``replicaset``, ``job``, ``namespace``, ``garbage-collector``, ...).
The scheduler and the kubelets are not kube-controller-manager's: they run whenever the
node is simulated (``--no-simulate-node`` turns everything off).

Entry points: ``CONTROLLER_NAMES``, ``enabled_controllers(spec)`` (raises ``ValueError``
for an unknown name), ``ControlPlane``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from kubeforge.apiserver.controllers.cluster import Cluster
from kubeforge.apiserver.controllers.cronjob import CronJobController
from kubeforge.apiserver.controllers.daemonset import DaemonSetController
from kubeforge.apiserver.controllers.deployment import DeploymentController
from kubeforge.apiserver.controllers.endpoints import EndpointsController
from kubeforge.apiserver.controllers.endpointslice import EndpointSliceController
from kubeforge.apiserver.controllers.garbage import GarbageCollector
from kubeforge.apiserver.controllers.heartbeat import HeartbeatTiming, KubeletHeartbeats
from kubeforge.apiserver.controllers.job import JobController
from kubeforge.apiserver.controllers.kubelet import Kubelets
from kubeforge.apiserver.controllers.namespaces import NamespaceFinalizer
from kubeforge.apiserver.controllers.nodelifecycle import NodeLifecycle
from kubeforge.apiserver.controllers.nodes import load_node_specs
from kubeforge.apiserver.controllers.protection import ClaimProtection, VolumeProtection
from kubeforge.apiserver.controllers.replicaset import ReplicaSetController, ReplicationManager
from kubeforge.apiserver.controllers.resourcequota import ResourceQuotaController
from kubeforge.apiserver.controllers.scheduler import Scheduler
from kubeforge.apiserver.controllers.serviceaccounts import DefaultServiceAccounts
from kubeforge.apiserver.controllers.statefulset import StatefulSetController
from kubeforge.apiserver.controllers.ttl import TTLAfterFinished
from kubeforge.apiserver.controllers.volumes import VolumeBinder

__all__ = [
    "ALIASES",
    "CONTROLLER_NAMES",
    "ControlPlane",
    "PlaneOptions",
    "Runnable",
    "build_control_plane",
    "enabled_controllers",
]

CONTROLLER_NAMES = (
    "clusterrole-aggregation-controller",
    "cronjob-controller",
    "daemonset-controller",
    "deployment-controller",
    "disruption-controller",
    "endpoints-controller",
    "endpointslice-controller",
    "garbage-collector-controller",
    "job-controller",
    "namespace-controller",
    "node-lifecycle-controller",
    "persistentvolume-binder-controller",
    "persistentvolume-protection-controller",
    "persistentvolumeclaim-protection-controller",
    "replicaset-controller",
    "replicationcontroller-controller",
    "resourcequota-controller",
    "root-ca-certificate-publisher-controller",
    "serviceaccount-controller",
    "serviceaccount-token-controller",
    "statefulset-controller",
    "ttl-after-finished-controller",
)
"""kube-controller-manager 1.32's names, every one on in ``*`` as on a real cluster; the short
forms without ``-controller`` work too."""

ALIASES = {"root-ca-cert-publisher": "root-ca-certificate-publisher-controller"}
"""kube-controller-manager's older names that still work (``names.KCMControllerAliases``)."""


class Runnable(Protocol):
    def start(self) -> None: ...

    def stop(self) -> None: ...


@dataclass(frozen=True)
class PlaneOptions:
    """The simulated control plane's knobs (``kubeforge apiserver`` flags)."""

    nodes: int = 1
    node_config: Path | None = None
    controllers: tuple[str, ...] = ("*",)
    job_pod_run_time: float = 0.5
    job_pod_failure_backoff: float = 10.0
    """The Job controller's first back-off after a failure (Go's 10 s), doubling to 6 min."""
    heartbeats: HeartbeatTiming = field(default_factory=HeartbeatTiming, kw_only=True)


def _canonical(name: str) -> str:
    if name in ALIASES:
        return ALIASES[name]
    return name if name.endswith("-controller") else f"{name}-controller"


def enabled_controllers(spec: Iterable[str]) -> frozenset[str]:
    """The controllers a ``--controllers`` list turns on (kube-controller-manager's rules)."""
    names = [part.strip() for item in spec for part in item.split(",") if part.strip()]
    star = "*" in names
    chosen: set[str] = set(CONTROLLER_NAMES) if star else set()
    for name in names:
        if name in ("*", "-*"):
            continue
        off = name.startswith("-")
        canonical = _canonical(name[1:] if off else name)
        if canonical not in CONTROLLER_NAMES:
            known = ", ".join(n.removesuffix("-controller") for n in CONTROLLER_NAMES)
            raise ValueError(f'"{name}" is not in the list of known controllers ({known})')
        if off:
            chosen.discard(canonical)
        else:
            chosen.add(canonical)
    if "-*" in names:
        return frozenset()
    return frozenset(chosen)


class ControlPlane:
    """Starts and stops what ``factories`` names, for the controllers that are enabled."""

    def __init__(
        self,
        cluster: Cluster,
        enabled: frozenset[str],
        factories: dict[str, Callable[[Cluster], Runnable]],
    ) -> None:
        self.cluster = cluster
        self.running: list[Runnable] = [
            factory(cluster)
            for name, factory in factories.items()
            if name in enabled or not name.endswith("-controller")
        ]

    def start(self) -> None:
        for part in self.running:
            part.start()

    def stop(self) -> None:
        for part in reversed(self.running):
            part.stop()


def build_control_plane(
    cluster: Cluster,
    options: PlaneOptions,
    extra: dict[str, Callable[[Cluster], Runnable]] | None = None,
) -> ControlPlane:
    """Everything the simulated cluster runs, in start order: nodes, kubelets, scheduler,
    then the controllers ``options.controllers`` enables (``extra`` adds ones built above
    this package, such as the ClusterRole aggregator)."""
    specs = load_node_specs(options.node_config, options.nodes)
    factories: dict[str, Callable[[Cluster], Runnable]] = {
        "nodes": lambda c: KubeletHeartbeats(c, specs, options.heartbeats),
        "kubelets": lambda c: Kubelets(c, specs, options.job_pod_run_time),
        "scheduler": Scheduler,
        "namespace-controller": NamespaceFinalizer,
        "garbage-collector-controller": GarbageCollector,
        "serviceaccount-controller": DefaultServiceAccounts,
        "replicaset-controller": ReplicaSetController,
        "replicationcontroller-controller": ReplicationManager,
        "deployment-controller": DeploymentController,
        "statefulset-controller": StatefulSetController,
        "daemonset-controller": DaemonSetController,
        "job-controller": lambda c: JobController(c, options.job_pod_failure_backoff),
        "cronjob-controller": CronJobController,
        "ttl-after-finished-controller": TTLAfterFinished,
        "endpoints-controller": EndpointsController,
        "endpointslice-controller": EndpointSliceController,
        "persistentvolume-binder-controller": VolumeBinder,
        "persistentvolumeclaim-protection-controller": ClaimProtection,
        "persistentvolume-protection-controller": VolumeProtection,
        "node-lifecycle-controller": lambda c: NodeLifecycle(c, options.heartbeats),
        "resourcequota-controller": ResourceQuotaController,
        **(extra or {}),
    }
    return ControlPlane(cluster, enabled_controllers(options.controllers), factories)
