"""What a StatefulSet makes: ``<set>-<n>`` pods and their ``<template>-<set>-<n>`` claims.

A pod gets the template's labels plus ``statefulset.kubernetes.io/pod-name``,
``apps.kubernetes.io/pod-index`` and the ``controller-revision-hash`` of the revision it
comes from, ``hostname`` = its name, ``subdomain`` = ``serviceName``, and a volume per
``volumeClaimTemplate`` pointing at its claim (``newVersionedStatefulSetPod`` and
``updateStorage`` in ``stateful_set_utils.go``, 1.32). A claim carries the template's
labels merged with the set's ``matchLabels``; who owns it is ``statefulset_claims``'
business (``persistentVolumeClaimRetentionPolicy``).

Entry points: ``ordinal_of``, ``pod_name``, ``stateful_pod``, ``claims_for``,
``retention``.
"""

from __future__ import annotations

import re
from typing import Any

from kubeforge.apiserver.controllers.cluster import copy
from kubeforge.apiserver.controllers.replicaset import pod_from_template
from kubeforge.apiserver.controllers.revisions import REVISION_LABEL

__all__ = [
    "POD_INDEX_LABEL",
    "POD_NAME_LABEL",
    "claims_for",
    "ordinal_of",
    "pod_name",
    "retention",
    "stateful_pod",
]

POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name"
POD_INDEX_LABEL = "apps.kubernetes.io/pod-index"
_ORDINAL = re.compile(r"^(.*)-([0-9]+)$")


def pod_name(stateful_set: dict[str, Any], ordinal: int) -> str:
    return f"{stateful_set['metadata']['name']}-{ordinal}"


def ordinal_of(stateful_set: dict[str, Any], pod: dict[str, Any]) -> int | None:
    """The pod's ordinal if its name is ``<set>-<n>`` (``getParentNameAndOrdinal``)."""
    found = _ORDINAL.match(pod["metadata"]["name"])
    if found is None or found.group(1) != stateful_set["metadata"]["name"]:
        return None
    return int(found.group(2))


def _claim_name(template: dict[str, Any], stateful_set: dict[str, Any], ordinal: int) -> str:
    return f"{template['metadata']['name']}-{pod_name(stateful_set, ordinal)}"


def claims_for(stateful_set: dict[str, Any], ordinal: int) -> list[dict[str, Any]]:
    """The claims the pod of ``ordinal`` mounts, as ``getPersistentVolumeClaims`` makes them."""
    spec = stateful_set.get("spec") or {}
    match_labels = (spec.get("selector") or {}).get("matchLabels") or {}
    claims = []
    for template in spec.get("volumeClaimTemplates") or []:
        meta = template.get("metadata") or {}
        body: dict[str, Any] = {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {
                "name": _claim_name(template, stateful_set, ordinal),
                "labels": {**(meta.get("labels") or {}), **match_labels},
            },
            "spec": copy(template.get("spec") or {}),
        }
        if meta.get("annotations"):
            body["metadata"]["annotations"] = dict(meta["annotations"])
        claims.append(body)
    return claims


def retention(stateful_set: dict[str, Any]) -> tuple[str, str]:
    """``(whenDeleted, whenScaled)``, each ``Retain`` unless set to ``Delete``."""
    policy = (stateful_set.get("spec") or {}).get("persistentVolumeClaimRetentionPolicy") or {}
    return policy.get("whenDeleted") or "Retain", policy.get("whenScaled") or "Retain"


def stateful_pod(
    stateful_set: dict[str, Any], revision: dict[str, Any], ordinal: int
) -> dict[str, Any]:
    """The pod of ``ordinal`` from ``revision``'s template (not the set's, mid-rollout)."""
    template = copy(revision["data"]["spec"]["template"])
    template.pop("$patch", None)
    name = pod_name(stateful_set, ordinal)
    pod = pod_from_template(stateful_set, template)
    meta = pod["metadata"]
    meta.pop("generateName")
    meta["name"] = name
    meta["labels"].update(
        {
            POD_NAME_LABEL: name,
            POD_INDEX_LABEL: str(ordinal),
            REVISION_LABEL: revision["metadata"]["name"],
        }
    )
    spec = pod["spec"]
    spec["hostname"] = name
    service = (stateful_set.get("spec") or {}).get("serviceName")
    if service:
        spec["subdomain"] = service
    volumes = {v.get("name"): v for v in spec.get("volumes") or []}
    for claim in (stateful_set.get("spec") or {}).get("volumeClaimTemplates") or []:
        volume_name = claim["metadata"]["name"]
        volumes[volume_name] = {
            "name": volume_name,
            "persistentVolumeClaim": {"claimName": _claim_name(claim, stateful_set, ordinal)},
        }
    if volumes:
        spec["volumes"] = list(volumes.values())
    return pod
