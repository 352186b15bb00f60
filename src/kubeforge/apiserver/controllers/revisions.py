"""ControllerRevisions: the template history StatefulSets and DaemonSets keep.

A revision holds the patch that restores an owner's pod template (``spec.template``
with ``$patch: replace``), is named ``<owner>-<hash>`` (FNV-32a of that patch and the
collision count, as ``history.HashControllerRevision``), carries the template's labels
and ``controller-revision-hash: <hash>``,
a controller reference to its owner and a ``revision`` number one past the highest.
Pods record the revision they were made from in the ``controller-revision-hash`` label.

Entry points: ``await sync_revisions(api, owner, selector)`` -> ``Revisions``;
``REVISION_LABEL``; ``revision_of(pod)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kubeforge.apiserver.controllers.cluster import copy, owner_reference
from kubeforge.apiserver.controllers.ownership import claim
from kubeforge.apiserver.controllers.requests import ControllerRequests
from kubeforge.apiserver.controllers.rollout import template_hash

__all__ = ["REVISION_LABEL", "Revisions", "revision_of", "sync_revisions"]

REVISION_LABEL = "controller-revision-hash"
_REVISIONS = ("apps", "controllerrevisions")


@dataclass(frozen=True)
class Revisions:
    """The owner's revisions, oldest first, and the one its current template is."""

    history: list[dict[str, Any]]
    update: dict[str, Any]
    collisions: int

    @property
    def update_name(self) -> str:
        return str(self.update["metadata"]["name"])


def revision_of(pod: dict[str, Any]) -> str:
    return str((pod["metadata"].get("labels") or {}).get(REVISION_LABEL, ""))


def _patch(owner: dict[str, Any]) -> dict[str, Any]:
    template = copy((owner.get("spec") or {}).get("template") or {})
    template["$patch"] = "replace"
    return {"spec": {"template": template}}


def _number(revision: dict[str, Any]) -> int:
    return int(revision.get("revision") or 0)


async def sync_revisions(
    api: ControllerRequests, owner: dict[str, Any], selector: dict[str, Any]
) -> Revisions:
    """Claim the owner's revisions and make sure one holds its current template: an equal
    older one is renumbered to the newest, a new one is created (a name taken by other
    data counts a collision and the next sync tries the next name)."""
    meta = owner["metadata"]
    namespace = meta.get("namespace") or ""
    cluster = api.cluster
    history = sorted(await claim(api, _REVISIONS, owner, selector), key=_number)
    data = _patch(owner)
    top = max((_number(r) for r in history), default=0)
    collisions = int((owner.get("status") or {}).get("collisionCount") or 0)
    equal = [r for r in history if r.get("data") == data]
    if equal:
        found = equal[-1]
        if _number(found) != top:
            body = copy(found)
            body["revision"] = top + 1
            found = await api.update(_REVISIONS, body)
            history = sorted([*(r for r in history if r is not equal[-1]), found], key=_number)
        return Revisions(history, found, collisions)
    pod_hash = template_hash(data, collisions)
    name = f"{meta['name']}-{pod_hash}"
    taken = cluster.get(_REVISIONS, namespace, name)
    if taken is not None:
        return Revisions(history, taken, collisions + 1)
    labels = dict(
        (((owner.get("spec") or {}).get("template") or {}).get("metadata") or {}).get("labels")
        or {}
    )
    created = await api.create(
        _REVISIONS,
        namespace,
        {
            "apiVersion": "apps/v1",
            "kind": "ControllerRevision",
            "metadata": {
                "name": name,
                "labels": {**labels, REVISION_LABEL: pod_hash},
                "ownerReferences": [owner_reference(owner)],
            },
            "data": data,
            "revision": top + 1,
        },
    )
    return Revisions([*history, created], created, collisions)


async def trim_history(
    api: ControllerRequests, owner: dict[str, Any], revisions: Revisions, live: set[str]
) -> None:
    """Delete the oldest revisions past ``revisionHistoryLimit`` (default 10) that no
    live pod and neither the current nor the update revision uses."""
    limit = int((owner.get("spec") or {}).get("revisionHistoryLimit", 10))
    spare = [r for r in revisions.history if r["metadata"]["name"] not in live]
    for revision in spare[: max(len(spare) - limit, 0)]:
        meta = revision["metadata"]
        await api.delete(_REVISIONS, meta.get("namespace") or "", meta["name"], uid=meta["uid"])
