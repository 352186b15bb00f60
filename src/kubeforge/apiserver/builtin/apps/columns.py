"""The ``kubectl get`` columns of the apps workloads, as a Kubernetes 1.32 server prints
them (``pkg/printers/internalversion``); ``kinds`` puts each on its ``Kind`` entry.

Entry points: ``DEPLOYMENT``, ``REPLICA_SET``, ``STATEFUL_SET``, ``DAEMON_SET``,
``CONTROLLER_REVISION``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kubeforge.apiserver.meta.labelselector import format_labels, format_selector
from kubeforge.apiserver.printers.cells import (
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    SELECTOR_COLUMN,
    created,
    dict_at,
    integer,
    name_of,
    template_containers,
)
from kubeforge.apiserver.printers.columns import AGE_COLUMN, NAME_COLUMN, Printer, column

__all__ = ["CONTROLLER_REVISION", "DAEMON_SET", "DEPLOYMENT", "REPLICA_SET", "STATEFUL_SET"]


def _containers(obj: dict[str, Any]) -> tuple[str, str]:
    return template_containers(dict_at(obj, "spec", "template", "spec"))


def _deployment_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    spec, status = dict_at(obj, "spec"), dict_at(obj, "status")
    names, images = _containers(obj)
    return [
        name_of(obj),
        f"{integer(status.get('readyReplicas'))}/{integer(spec.get('replicas'))}",
        integer(status.get("updatedReplicas")),
        integer(status.get("availableReplicas")),
        created(obj, now),
        names,
        images,
        format_selector(spec.get("selector")),
    ]


def _replicaset_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    spec, status = dict_at(obj, "spec"), dict_at(obj, "status")
    names, images = _containers(obj)
    return [
        name_of(obj),
        integer(spec.get("replicas")),
        integer(status.get("replicas")),
        integer(status.get("readyReplicas")),
        created(obj, now),
        names,
        images,
        format_selector(spec.get("selector")),
    ]


def _statefulset_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    spec, status = dict_at(obj, "spec"), dict_at(obj, "status")
    names, images = _containers(obj)
    ready = f"{integer(status.get('readyReplicas'))}/{integer(spec.get('replicas'))}"
    return [name_of(obj), ready, created(obj, now), names, images]


def _daemonset_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    spec, status = dict_at(obj, "spec"), dict_at(obj, "status")
    names, images = _containers(obj)
    node_selector = dict_at(obj, "spec", "template", "spec").get("nodeSelector")
    return [
        name_of(obj),
        integer(status.get("desiredNumberScheduled")),
        integer(status.get("currentNumberScheduled")),
        integer(status.get("numberReady")),
        integer(status.get("updatedNumberScheduled")),
        integer(status.get("numberAvailable")),
        format_labels(node_selector),
        created(obj, now),
        names,
        images,
        format_selector(spec.get("selector")),
    ]


DEPLOYMENT = Printer(
    (
        NAME_COLUMN,
        column("Ready", "string", "Ready replicas out of desired replicas."),
        column("Up-to-date", "integer", "Replicas running the current template."),
        column("Available", "integer", "Replicas available to users."),
        AGE_COLUMN,
        CONTAINERS_COLUMN,
        IMAGES_COLUMN,
        SELECTOR_COLUMN,
    ),
    _deployment_row,
)
REPLICA_SET = Printer(
    (
        NAME_COLUMN,
        column("Desired", "integer", "Desired replicas."),
        column("Current", "integer", "Replicas created."),
        column("Ready", "integer", "Replicas ready."),
        AGE_COLUMN,
        CONTAINERS_COLUMN,
        IMAGES_COLUMN,
        SELECTOR_COLUMN,
    ),
    _replicaset_row,
)
STATEFUL_SET = Printer(
    (
        NAME_COLUMN,
        column("Ready", "string", "Ready replicas out of desired replicas."),
        AGE_COLUMN,
        CONTAINERS_COLUMN,
        IMAGES_COLUMN,
    ),
    _statefulset_row,
)
DAEMON_SET = Printer(
    (
        NAME_COLUMN,
        column("Desired", "integer", "Nodes that should run the daemon pod."),
        column("Current", "integer", "Nodes running at least one daemon pod."),
        column("Ready", "integer", "Nodes whose daemon pod is ready."),
        column("Up-to-date", "integer", "Nodes running the current template."),
        column("Available", "integer", "Nodes whose daemon pod is available."),
        column("Node Selector", "string", "The node selector of the template."),
        AGE_COLUMN,
        CONTAINERS_COLUMN,
        IMAGES_COLUMN,
        SELECTOR_COLUMN,
    ),
    _daemonset_row,
)


def _controller_name(obj: dict[str, Any]) -> str:
    """``formatResourceName`` of the controller owner: ``<kind>.<group>/<name>`` lowered."""
    for ref in dict_at(obj, "metadata").get("ownerReferences") or ():
        if isinstance(ref, dict) and ref.get("controller") is True:
            version = str(ref.get("apiVersion") or "")
            group = version.split("/")[0] if "/" in version else ""
            kind = str(ref.get("kind") or "")
            group_kind = f"{kind}.{group}" if group else kind
            name = str(ref.get("name") or "")
            return f"{group_kind.lower()}/{name}" if group_kind else name
    return "<none>"


def _revision_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    return [name_of(obj), _controller_name(obj), integer(obj.get("revision")), created(obj, now)]


CONTROLLER_REVISION = Printer(
    (
        NAME_COLUMN,
        column("Controller", "string", "Controller of the object"),
        column(
            "Revision",
            "string",
            "Revision indicates the revision of the state represented by Data.",
        ),
        AGE_COLUMN,
    ),
    _revision_row,
)
