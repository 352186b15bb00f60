"""Controller references: claiming what a selector matches, as ``ControllerRefManager`` does.

An owner keeps the objects that name it as controller and still match its selector,
adopts matching objects that have no controller (unless it is being deleted), and
releases the ones it controls that stopped matching (their controller reference is
removed, other owner references stay).

Entry point: ``await claim(api, resource, owner, selector, adoptable)``; adoption and
release are updates (a real controller's patches) that admission sees.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kubeforge.apiserver.controllers.cluster import controller_of, copy, owner_reference
from kubeforge.apiserver.controllers.requests import ControllerRequests
from kubeforge.apiserver.meta.labelselector import selector_matches
from kubeforge.apiserver.storage.journal import ResourceKey

__all__ = ["claim", "controlled_by"]


def controlled_by(obj: dict[str, Any], owner: dict[str, Any]) -> bool:
    ref = controller_of(obj)
    return ref is not None and ref.get("uid") == owner["metadata"].get("uid")


async def claim(
    api: ControllerRequests,
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
    for obj in api.cluster.list(resource, meta.get("namespace") or ""):
        matches = selector_matches(selector, obj["metadata"].get("labels") or {})
        if controlled_by(obj, owner):
            if matches:
                claimed.append(obj)
            elif not obj["metadata"].get("deletionTimestamp"):
                await _set_controller(api, resource, obj, None)
        elif controller_of(obj) is None and matches and adoptable(obj) and not deleting:
            claimed.append(await _set_controller(api, resource, obj, owner))
    return claimed


async def _set_controller(
    api: ControllerRequests,
    resource: ResourceKey,
    obj: dict[str, Any],
    owner: dict[str, Any] | None,
) -> dict[str, Any]:
    body = copy(obj)
    refs = [r for r in body["metadata"].get("ownerReferences") or [] if not r.get("controller")]
    if owner is not None:
        refs.append(owner_reference(owner))
    if refs:
        body["metadata"]["ownerReferences"] = refs
    else:
        body["metadata"].pop("ownerReferences", None)
    return await api.update(resource, body)
