"""API Priority and Fairness' bootstrap configuration of 1.32 (``k8s.io/apiserver``
``pkg/apis/flowcontrol/bootstrap/default.go``, v0.32.0), as flowcontrol/v1 bodies.

Mandatory objects (``exempt`` and ``catch-all``, each a FlowSchema and a
PriorityLevelConfiguration) keep the server working whatever an operator does; the
suggested ones are the rest of a fresh cluster's configuration. Every one carries
``apf.kubernetes.io/autoupdate-spec: "true"``.

Entry points: ``MANDATORY_LEVELS``, ``MANDATORY_SCHEMAS``, ``SUGGESTED_LEVELS``,
``SUGGESTED_SCHEMAS`` (in the order 1.32 lists them), ``AUTO_UPDATE``.

>>> [s["metadata"]["name"] for s in MANDATORY_SCHEMAS]
['exempt', 'catch-all']
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "AUTO_UPDATE",
    "MANDATORY_LEVELS",
    "MANDATORY_SCHEMAS",
    "SUGGESTED_LEVELS",
    "SUGGESTED_SCHEMAS",
]

AUTO_UPDATE = "apf.kubernetes.io/autoupdate-spec"
_API_VERSION = "flowcontrol.apiserver.k8s.io/v1"
_EVERYONE = ("system:unauthenticated", "system:authenticated")


def _meta(name: str) -> dict[str, Any]:
    return {"name": name, "annotations": {AUTO_UPDATE: "true"}}


def _level(name: str, spec: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": _API_VERSION,
        "kind": "PriorityLevelConfiguration",
        "metadata": _meta(name),
        "spec": spec,
    }


def _queued(shares: int, lendable: int, queues: int, hand: int) -> dict[str, Any]:
    queuing = {"queues": queues, "handSize": hand, "queueLengthLimit": 50}
    limited = {
        "nominalConcurrencyShares": shares,
        "lendablePercent": lendable,
        "limitResponse": {"type": "Queue", "queuing": queuing},
    }
    return {"type": "Limited", "limited": limited}


def _schema(
    name: str, level: str, precedence: int, method: str, rules: dict[str, Any]
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "priorityLevelConfiguration": {"name": level},
        "matchingPrecedence": precedence,
    }
    if method:
        spec["distinguisherMethod"] = {"type": method}
    spec["rules"] = [rules]
    return {"apiVersion": _API_VERSION, "kind": "FlowSchema", "metadata": _meta(name), "spec": spec}


def _groups(*names: str) -> list[dict[str, Any]]:
    return [{"kind": "Group", "group": {"name": name}} for name in names]


def _users(*names: str) -> list[dict[str, Any]]:
    return [{"kind": "User", "user": {"name": name}} for name in names]


def _system_accounts(*names: str) -> list[dict[str, Any]]:
    return [
        {"kind": "ServiceAccount", "serviceAccount": {"name": name, "namespace": "kube-system"}}
        for name in names
    ]


def _resources(
    verbs: list[str], groups: list[str], resources: list[str], cluster: bool
) -> dict[str, Any]:
    rule: dict[str, Any] = {"verbs": verbs, "apiGroups": groups, "resources": resources}
    if cluster:
        rule["clusterScope"] = True
    rule["namespaces"] = ["*"]
    return rule


def _all_of(subjects: list[dict[str, Any]]) -> dict[str, Any]:
    """Every verb on every resource and non-resource URL, for ``subjects``."""
    return {
        "subjects": subjects,
        "resourceRules": [_resources(["*"], ["*"], ["*"], True)],
        "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}],
    }


_LEASE_RULE = _resources(["get", "create", "update"], ["coordination.k8s.io"], ["leases"], False)

MANDATORY_LEVELS = (
    _level(
        "catch-all",
        {
            "type": "Limited",
            "limited": {
                "nominalConcurrencyShares": 5,
                "lendablePercent": 0,
                "limitResponse": {"type": "Reject"},
            },
        },
    ),
    _level(
        "exempt",
        {"type": "Exempt", "exempt": {"nominalConcurrencyShares": 0, "lendablePercent": 0}},
    ),
)
MANDATORY_SCHEMAS = (
    _schema("exempt", "exempt", 1, "", _all_of(_groups("system:masters"))),
    _schema("catch-all", "catch-all", 10000, "ByUser", _all_of(_groups(*_EVERYONE))),
)
SUGGESTED_LEVELS = (
    _level("system", _queued(30, 33, 64, 6)),
    _level("node-high", _queued(40, 25, 64, 6)),
    _level("leader-election", _queued(10, 0, 16, 4)),
    _level("workload-high", _queued(40, 50, 128, 6)),
    _level("workload-low", _queued(100, 90, 128, 6)),
    _level("global-default", _queued(20, 50, 128, 6)),
)
SUGGESTED_SCHEMAS = (
    _schema("system-nodes", "system", 500, "ByUser", _all_of(_groups("system:nodes"))),
    _schema(
        "system-node-high",
        "node-high",
        400,
        "ByUser",
        {
            "subjects": _groups("system:nodes"),
            "resourceRules": [
                _resources(["*"], [""], ["nodes", "nodes/status"], True),
                _resources(["*"], ["coordination.k8s.io"], ["leases"], False),
            ],
        },
    ),
    _schema(
        "probes",
        "exempt",
        2,
        "",
        {
            "subjects": _groups(*_EVERYONE),
            "nonResourceRules": [
                {"verbs": ["get"], "nonResourceURLs": ["/healthz", "/readyz", "/livez"]}
            ],
        },
    ),
    _schema(
        "system-leader-election",
        "leader-election",
        100,
        "ByUser",
        {
            "subjects": [
                *_users("system:kube-controller-manager", "system:kube-scheduler"),
                *_system_accounts("*"),
            ],
            "resourceRules": [_LEASE_RULE],
        },
    ),
    _schema(
        "workload-leader-election",
        "leader-election",
        200,
        "ByUser",
        {
            "subjects": _system_accounts("*"),
            "resourceRules": [
                _resources(["get", "create", "update"], [""], ["endpoints", "configmaps"], False),
                _LEASE_RULE,
            ],
        },
    ),
    _schema(
        "endpoint-controller",
        "workload-high",
        150,
        "ByUser",
        {
            "subjects": [
                *_users("system:kube-controller-manager"),
                *_system_accounts("endpoint-controller", "endpointslicemirroring-controller"),
            ],
            "resourceRules": [_resources(["get", "create", "update"], [""], ["endpoints"], False)],
        },
    ),
    _schema(
        "kube-controller-manager",
        "workload-high",
        800,
        "ByNamespace",
        _all_of(_users("system:kube-controller-manager")),
    ),
    _schema(
        "kube-scheduler",
        "workload-high",
        800,
        "ByNamespace",
        _all_of(_users("system:kube-scheduler")),
    ),
    _schema(
        "kube-system-service-accounts",
        "workload-high",
        900,
        "ByNamespace",
        _all_of(_system_accounts("*")),
    ),
    _schema(
        "service-accounts",
        "workload-low",
        9000,
        "ByUser",
        _all_of(_groups("system:serviceaccounts")),
    ),
    _schema("global-default", "global-default", 9900, "ByUser", _all_of(_groups(*_EVERYONE))),
)
