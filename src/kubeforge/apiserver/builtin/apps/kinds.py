"""The ``apps/v1`` kinds, each with its facts for discovery, its rules and its columns.

Entry point: ``KINDS``.
"""

from __future__ import annotations

from kubeforge.apiserver.builtin.apps import columns
from kubeforge.apiserver.builtin.apps.deployments import DeploymentStrategy, ReplicaSetStrategy
from kubeforge.apiserver.builtin.apps.revisions import ControllerRevisionStrategy
from kubeforge.apiserver.builtin.apps.sets import DaemonSetStrategy, StatefulSetStrategy
from kubeforge.apiserver.builtin.kind import STATUS, Kind

__all__ = ["KINDS"]

_WORKLOAD = ("status", "scale")

KINDS = (
    Kind(
        "apps",
        "v1",
        "Deployment",
        "deployments",
        short=("deploy",),
        subresources=_WORKLOAD,
        categories=("all",),
        strategy=DeploymentStrategy,
        printer=columns.DEPLOYMENT,
    ),
    Kind(
        "apps",
        "v1",
        "ReplicaSet",
        "replicasets",
        short=("rs",),
        subresources=_WORKLOAD,
        categories=("all",),
        strategy=ReplicaSetStrategy,
        printer=columns.REPLICA_SET,
    ),
    Kind(
        "apps",
        "v1",
        "StatefulSet",
        "statefulsets",
        short=("sts",),
        subresources=_WORKLOAD,
        categories=("all",),
        strategy=StatefulSetStrategy,
        printer=columns.STATEFUL_SET,
    ),
    Kind(
        "apps",
        "v1",
        "DaemonSet",
        "daemonsets",
        short=("ds",),
        subresources=STATUS,
        categories=("all",),
        strategy=DaemonSetStrategy,
        printer=columns.DAEMON_SET,
    ),
    Kind(
        "apps",
        "v1",
        "ControllerRevision",
        "controllerrevisions",
        strategy=ControllerRevisionStrategy,
        printer=columns.CONTROLLER_REVISION,
    ),
)
"""The apps/v1 kinds."""
