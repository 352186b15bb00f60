"""Controller references: claiming what a selector matches, as ``ControllerRefManager`` does.

An owner keeps the objects that name it as controller and still match its selector,
adopts matching objects that have no controller (unless it is being deleted), and
releases the ones it controls that stopped matching (their controller reference is
removed, other owner references stay).

Entry point: ``claim(cluster, resource, owner, selector, adoptable)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kubeforge.apiserver.controllers.cluster import Cluster, controller_of, copy, owner_reference
from kubeforge.apiserver.meta.labelselector import selector_matches
from kubeforge.apiserver.storage.journal import ResourceKey

__all__ = ["claim", "controlled_by"]


def controlled_by(obj: dict[str, Any], owner: dict[str, Any]) -> bool:
    ref = controller_of(obj)
    return ref is not None and ref.get("uid") == owner["metadata"].get("uid")


def claim(
    cluster: Cluster,
    resource: ResourceKey,
    owner: dict[str, Any],
    selector: dict[str, Any],
    adoptable: Callable[[dict[str, Any]], bool] = lambda _: True,
) -> list[dict[str, Any]]:
    """The objects of ``resource`` in ``owner``'s namespace it controls, after adoption
    and release; ``adoptable`` says which orphans may be taken (active pods only, say)."""
    meta = owner["metadata"]
    deleting = bool(meta.get("deletionTimestamp"))
    claimed = []
    for obj in cluster.list(resource, meta.get("namespace") or ""):
        matches = selector_matches(selector, obj["metadata"].get("labels") or {})
        if controlled_by(obj, owner):
            if matches:
                claimed.append(obj)
            elif not obj["metadata"].get("deletionTimestamp"):
                _set_controller(cluster, resource, obj, None)
        elif controller_of(obj) is None and matches and adoptable(obj) and not deleting:
            claimed.append(_set_controller(cluster, resource, obj, owner))
    return claimed


def _set_controller(
    cluster: Cluster, resource: ResourceKey, obj: dict[str, Any], owner: dict[str, Any] | None
) -> dict[str, Any]:
    body = copy(obj)
    refs = [r for r in body["metadata"].get("ownerReferences") or [] if not r.get("controller")]
    if owner is not None:
        refs.append(owner_reference(owner))
    if refs:
        body["metadata"]["ownerReferences"] = refs
    else:
        body["metadata"].pop("ownerReferences", None)
    return cluster.update(resource, body)
