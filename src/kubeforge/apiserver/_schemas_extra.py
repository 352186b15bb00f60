"""OpenAPI top-level properties of the second set of built-ins (apps, RBAC, webhooks, ...).

Shallow like ``_builtin_schemas``: each kind's top-level fields with a type and one
line saying what it holds, nested structures open, enough for ``kubectl explain
deployment.spec`` to answer truthfully. Entry point: ``kind_properties(group, kind)``,
falling back to ``_builtin_schemas`` for the first set.
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver import _builtin_schemas
from kubeforge.apiserver._builtin_schemas import META, ref

__all__ = ["kind_properties"]


def _s(description: str) -> dict[str, Any]:
    return {"type": "string", "description": description}


def _i(description: str) -> dict[str, Any]:
    return {"type": "integer", "format": "int32", "description": description}


def _b(description: str) -> dict[str, Any]:
    return {"type": "boolean", "description": description}


def _open(description: str, **properties: dict[str, Any]) -> dict[str, Any]:
    schema: dict[str, Any] = {
        "type": "object",
        "description": description,
        "x-kubernetes-preserve-unknown-fields": True,
    }
    if properties:
        schema["properties"] = properties
    return schema


def _list(description: str, item: str) -> dict[str, Any]:
    return {"type": "array", "description": description, "items": _open(item)}


_SELECTOR = _open("Label query over the pods this workload manages; immutable.")
_TEMPLATE = _open("The pod template: metadata and spec of the pods to create.")
_STATUS = _open("The observed state, written by the workload's controller through /status.")


def _workload(description: str, **extra: dict[str, Any]) -> dict[str, Any]:
    spec = _open(
        description,
        selector=_SELECTOR,
        template=_TEMPLATE,
        minReadySeconds=_i("Seconds a new pod must be ready to count as available."),
        revisionHistoryLimit=_i("Old revisions kept for rollback (default 10)."),
        **extra,
    )
    return {"spec": spec, "status": _STATUS}


_RULES = _list("What the role allows: verbs on resources, or on non-resource URLs.", "A rule.")
_SUBJECTS = _list("Who is bound: users, groups or service accounts.", "A subject.")
_ROLE_REF = _open("The Role or ClusterRole bound; cannot change.")
_WEBHOOKS = _list("The webhooks, each with its rules, selectors and client config.", "A webhook.")
_RBAC = "rbac.authorization.k8s.io"
_ADMISSION = "admissionregistration.k8s.io"

_KINDS: dict[tuple[str, str], dict[str, Any]] = {
    ("apps", "Deployment"): _workload(
        "The desired state of the deployment.",
        replicas=_i("Desired number of pods (default 1)."),
        strategy=_open("How pods are replaced: RollingUpdate (default, 25%/25%) or Recreate."),
        progressDeadlineSeconds=_i("Seconds before a stalled rollout is reported (600)."),
        paused=_b("Whether rollouts are paused."),
    ),
    ("apps", "ReplicaSet"): _workload(
        "The desired state of the replica set.",
        replicas=_i("Desired number of pods (default 1)."),
    ),
    ("apps", "StatefulSet"): _workload(
        "The desired state of the stateful set.",
        replicas=_i("Desired number of pods (default 1)."),
        serviceName=_s("The headless service giving the pods their network identity."),
        podManagementPolicy=_s("OrderedReady (default) or Parallel."),
        updateStrategy=_open("RollingUpdate (default, partition 0) or OnDelete."),
        volumeClaimTemplates=_list("Claims each pod gets its own copy of.", "A claim."),
        persistentVolumeClaimRetentionPolicy=_open("What happens to claims on delete/scale."),
    ),
    ("apps", "DaemonSet"): _workload(
        "The desired state of the daemon set.",
        updateStrategy=_open("RollingUpdate (default, maxUnavailable 1) or OnDelete."),
    ),
    ("", "ServiceAccount"): {
        "secrets": _list("Secrets the account may use.", "A secret reference."),
        "imagePullSecrets": _list("Secrets for pulling images.", "A secret reference."),
        "automountServiceAccountToken": _b("Whether pods mount a token by default."),
    },
    ("", "Endpoints"): {
        "subsets": _list("Addresses and ports behind a service.", "Addresses and ports."),
    },
    ("events.k8s.io", "Event"): {
        "eventTime": ref(META + "MicroTime", "When the event was first observed."),
        "series": _open("Data about a series of repeated events."),
        "reportingController": _s("Name of the controller that emitted the event."),
        "reportingInstance": _s("ID of that controller's instance."),
        "action": _s("What was done, or failed to be done."),
        "reason": _s("Why the action was taken."),
        "regarding": _open("The object this event is about."),
        "related": _open("A secondary object involved."),
        "note": _s("Human-readable description."),
        "type": _s("Normal or Warning."),
        "deprecatedSource": _open("Legacy core/v1 source."),
        "deprecatedFirstTimestamp": ref(META + "Time", "Legacy core/v1 firstTimestamp."),
        "deprecatedLastTimestamp": ref(META + "Time", "Legacy core/v1 lastTimestamp."),
        "deprecatedCount": _i("Legacy core/v1 count."),
    },
    (_RBAC, "Role"): {"rules": _RULES},
    (_RBAC, "ClusterRole"): {
        "rules": _RULES,
        "aggregationRule": _open("Selects ClusterRoles whose rules are aggregated into this one."),
    },
    (_RBAC, "RoleBinding"): {"subjects": _SUBJECTS, "roleRef": _ROLE_REF},
    (_RBAC, "ClusterRoleBinding"): {"subjects": _SUBJECTS, "roleRef": _ROLE_REF},
    (_ADMISSION, "ValidatingWebhookConfiguration"): {"webhooks": _WEBHOOKS},
    (_ADMISSION, "MutatingWebhookConfiguration"): {"webhooks": _WEBHOOKS},
}
for _group, _kind in (
    ("authentication.k8s.io", "TokenReview"),
    ("authentication.k8s.io", "SelfSubjectReview"),
    ("authorization.k8s.io", "SelfSubjectAccessReview"),
    ("authorization.k8s.io", "SubjectAccessReview"),
    ("authorization.k8s.io", "LocalSubjectAccessReview"),
    ("authorization.k8s.io", "SelfSubjectRulesReview"),
):
    _KINDS[(_group, _kind)] = {
        "spec": _open("What is asked."),
        "status": _open("The server's answer."),
    }


def kind_properties(group: str, kind: str) -> dict[str, Any]:
    """Top-level properties of a built-in kind (besides apiVersion/kind/metadata), or ``{}``."""
    found = _KINDS.get((group, kind))
    if found is not None:
        return dict(found)
    return _builtin_schemas.kind_properties(group, kind)
