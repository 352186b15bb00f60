"""The Deployment controller's bookkeeping: template hashes, revisions, annotations, surge.

What ``pkg/controller/deployment/util`` computes, in the same terms: the
``pod-template-hash`` (FNV-32a of the template plus the collision count, spelled with
``rand.SafeEncodeString``'s alphabet), the ``deployment.kubernetes.io/`` annotations
(``revision``, ``revision-history``, ``desired-replicas``, ``max-replicas``), templates
equal but for the hash label, and ``maxSurge``/``maxUnavailable`` resolved against the
replica count (surge rounded up, unavailable down, never both zero).

Entry points: ``template_hash``, ``same_template``, ``revision``, ``surge_and_unavailable``,
``new_replica_set``, ``annotate``.
"""

from __future__ import annotations

import json
import math
from typing import Any

from kubeforge.apiserver.controllers.cluster import copy, owner_reference

__all__ = [
    "DESIRED",
    "HASH_LABEL",
    "MAX",
    "REVISION",
    "REVISION_HISTORY",
    "annotate",
    "max_old_revision",
    "new_replica_set",
    "proportional_sizes",
    "revision",
    "same_template",
    "surge_and_unavailable",
    "template_hash",
]

HASH_LABEL = "pod-template-hash"
REVISION = "deployment.kubernetes.io/revision"
REVISION_HISTORY = "deployment.kubernetes.io/revision-history"
DESIRED = "deployment.kubernetes.io/desired-replicas"
MAX = "deployment.kubernetes.io/max-replicas"
_NOT_COPIED = frozenset(
    {
        "kubectl.kubernetes.io/last-applied-configuration",
        REVISION,
        REVISION_HISTORY,
        DESIRED,
        MAX,
        "deprecated.deployment.rollback.to",
    }
)
_SAFE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


def template_hash(template: dict[str, Any], collision_count: int) -> str:
    data = json.dumps(template, sort_keys=True, separators=(",", ":")).encode()
    if collision_count:
        data += collision_count.to_bytes(4, "little")
    value = 0x811C9DC5
    for byte in data:
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return "".join(_SAFE_ALPHABET[ord(ch) % len(_SAFE_ALPHABET)] for ch in str(value))


def _typed(value: Any) -> Any:
    """What Go's typed structs keep: a null and an absent field are the same zero value."""
    if isinstance(value, dict):
        return {k: _typed(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_typed(v) for v in value]
    return value


def _without_hash(template: dict[str, Any]) -> dict[str, Any]:
    bare: dict[str, Any] = _typed(copy(template or {}))
    labels = (bare.get("metadata") or {}).get("labels")
    if isinstance(labels, dict):
        labels.pop(HASH_LABEL, None)
        if not labels:
            bare["metadata"].pop("labels")
    if not bare.get("metadata"):
        bare.pop("metadata", None)
    return bare


def same_template(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """``EqualIgnoreHash``: equal templates once the hash label is taken off both."""
    return _without_hash(a) == _without_hash(b)


def revision(obj: dict[str, Any]) -> int:
    try:
        return int((obj["metadata"].get("annotations") or {}).get(REVISION, 0))
    except ValueError:
        return 0


def max_old_revision(sets: list[dict[str, Any]], new: dict[str, Any] | None) -> int:
    """The highest revision among the sets other than ``new`` (0 if none)."""
    uid = new["metadata"]["uid"] if new else None
    return max((revision(rs) for rs in sets if rs["metadata"]["uid"] != uid), default=0)


def _resolve(value: Any, total: int, round_up: bool) -> int:
    if isinstance(value, str) and value.endswith("%"):
        exact = int(value[:-1]) * total / 100
        return math.ceil(exact) if round_up else math.floor(exact)
    return int(value or 0)


def surge_and_unavailable(deployment: dict[str, Any]) -> tuple[int, int]:
    """``(maxSurge, maxUnavailable)`` as numbers of pods (``ResolveFenceposts``)."""
    spec = deployment.get("spec") or {}
    if (spec.get("strategy") or {}).get("type") == "Recreate":
        return 0, 0
    rolling = (spec.get("strategy") or {}).get("rollingUpdate") or {}
    replicas = int(spec.get("replicas", 1))
    surge = _resolve(rolling.get("maxSurge", "25%"), replicas, True)
    unavailable = _resolve(rolling.get("maxUnavailable", "25%"), replicas, False)
    if surge == 0 and unavailable == 0:
        unavailable = 1  # both zero would let nothing move
    return surge, unavailable


def annotate(
    replica_set: dict[str, Any], deployment: dict[str, Any], new_revision: int | None
) -> bool:
    """Copy the deployment's annotations onto its ReplicaSet and set the controller's own;
    with ``new_revision`` (the new ReplicaSet), move its revision, keeping the old in
    ``revision-history``. True if anything changed."""
    before = copy({"a": replica_set["metadata"].get("annotations") or {}})["a"]
    notes = replica_set["metadata"].setdefault("annotations", {})
    if new_revision is not None:
        for key, value in (deployment["metadata"].get("annotations") or {}).items():
            if key not in _NOT_COPIED:
                notes[key] = value
        old = notes.get(REVISION)
        if old is None or int(old) < new_revision:
            if old is not None:
                history = [h for h in str(notes.get(REVISION_HISTORY, "")).split(",") if h]
                notes[REVISION_HISTORY] = ",".join([*history, str(old)])
            notes[REVISION] = str(new_revision)
    surge, _ = surge_and_unavailable(deployment)
    replicas = int((deployment.get("spec") or {}).get("replicas", 1))
    notes[DESIRED] = str(replicas)
    notes[MAX] = str(replicas + surge)
    return bool(notes != before)


def new_replica_set(
    deployment: dict[str, Any], pod_hash: str, replicas: int, new_revision: int
) -> dict[str, Any]:
    """The ReplicaSet a Deployment's current template gets (``<name>-<hash>``)."""
    spec = deployment.get("spec") or {}
    template = copy(spec.get("template") or {})
    template.setdefault("metadata", {}).setdefault("labels", {})[HASH_LABEL] = pod_hash
    selector = copy(spec.get("selector") or {})
    selector.setdefault("matchLabels", {})[HASH_LABEL] = pod_hash
    body: dict[str, Any] = {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {
            "name": f"{deployment['metadata']['name']}-{pod_hash}",
            "labels": dict(template["metadata"]["labels"]),
            "ownerReferences": [owner_reference(deployment)],
        },
        "spec": {
            "replicas": replicas,
            "minReadySeconds": int(spec.get("minReadySeconds") or 0),
            "selector": selector,
            "template": template,
        },
    }
    annotate(body, deployment, new_revision)
    return body


def proportional_sizes(sizes: list[int], to_add: int) -> list[int]:
    """Proportional scaling (``scale`` in ``sync.go``): ``to_add`` replicas (negative:
    removed) shared in proportion to ``sizes``, the rounding rest to the first set."""
    current = sum(sizes)
    out = list(sizes)
    left = to_add
    for i, size in enumerate(sizes):
        share = round(size * to_add / current) if current else 0
        share = max(share, left) if to_add < 0 else min(share, left)
        out[i] += share
        left -= share
    out[0] += left
    return [max(size, 0) for size in out]
