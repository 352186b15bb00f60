"""Run cleanup before an object goes away: ``finalizer()``, plus in-memory helpers.

A finalizer is a name in ``metadata.finalizers``; while it is there, a delete only
sets ``deletionTimestamp`` and the object stays until the controller has cleaned up
and removed the name. ``finalizer()`` does the whole dance in one call from a
reconciler (kube-rs's ``finalizer``)::

    async def reconcile(request):
        widget = widgets.get(request.key)
        if widget is None:
            return None
        api = client.api(Widget, namespace=request.namespace)
        return await finalizer(api, "example.com/cleanup", widget,
                               apply=make_it_so, cleanup=tear_down)

Both patches are JSON patches guarded by a ``test`` op, so they fail (422, the
reconcile is retried) instead of clobbering a concurrent change: adding tests that
the list is still what was read (or absent: the API server's ``test`` of a missing
path against ``null`` succeeds), removing tests that our name is still at the index
it was read at.

``add_finalizer``/``remove_finalizer``/``has_finalizer`` change an object in
memory only (controller-runtime's ``controllerutil``); the caller writes it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar

from kubeforge.core.errors import NotFound
from kubeforge.core.objects import KubeObject, deletion_timestamp_of, finalizers_of, name_of
from kubeforge.core.resource import Resource
from kubeforge.reconcile import Result

__all__ = ["Patcher", "add_finalizer", "finalizer", "has_finalizer", "remove_finalizer"]

T = TypeVar("T", bound=Resource | dict[str, Any])
_T_co = TypeVar("_T_co", covariant=True)

Step = Callable[[T], Awaitable[Result | None]]


class Patcher(Protocol[_T_co]):
    """What ``finalizer()`` writes with: an ``Api[T]`` scoped to the object's namespace."""

    async def patch(self, name: str, body: Any, *, patch_type: Any = ...) -> _T_co: ...


async def finalizer(
    api: Patcher[T],
    name: str,
    obj: T,
    *,
    apply: Step[T],
    cleanup: Step[T],
) -> Result | None:
    """Reconcile ``obj`` behind the finalizer ``name``; returns what the step returned.

    - Not being deleted: adds ``name`` first if missing (guarded JSON patch), then
      ``await apply(obj)`` with the patched object. Unlike kube-rs, it does not stop
      after adding, so a ``GenerationChanged`` predicate (which drops the metadata
      change the patch causes) cannot leave the object unreconciled.
    - Being deleted with ``name`` present: ``await cleanup(obj)``, then removes
      ``name`` (guarded). If ``cleanup`` raises, the name stays and the error
      propagates, so the reconcile is retried and the object is not released.
    - Being deleted without ``name``: nothing to do, returns ``None``.

    Patch failures (``Invalid`` when a guard fails, ``Conflict``, ...) propagate.
    """
    present = name in finalizers_of(obj)
    if deletion_timestamp_of(obj) is not None:
        if not present:
            return None
        result = await cleanup(obj)
        await _remove(api, obj, name)
        return result
    if not present:
        obj = await _add(api, obj, name)
    return await apply(obj)


async def _add(api: Patcher[T], obj: T, name: str) -> T:
    current = finalizers_of(obj)
    if current:
        patch = [
            {"op": "test", "path": "/metadata/finalizers", "value": current},
            {"op": "add", "path": "/metadata/finalizers/-", "value": name},
        ]
    else:
        # The field may be absent or empty; "test null" passes only when absent, so an
        # empty list is tested as such.
        patch = [
            {"op": "test", "path": "/metadata/finalizers", "value": _present_value(obj)},
            {"op": "add", "path": "/metadata/finalizers", "value": [name]},
        ]
    return await api.patch(name_of(obj), patch, patch_type="json")


async def _remove(api: Patcher[T], obj: T, name: str) -> None:
    index = finalizers_of(obj).index(name)
    patch = [
        {"op": "test", "path": f"/metadata/finalizers/{index}", "value": name},
        {"op": "remove", "path": f"/metadata/finalizers/{index}"},
    ]
    with contextlib.suppress(NotFound):  # already gone: nothing left to release
        await api.patch(name_of(obj), patch, patch_type="json")


def _present_value(obj: KubeObject) -> list[str] | None:
    """``[]`` when ``metadata.finalizers`` is an empty list, ``None`` when it is absent."""
    if isinstance(obj, Resource):
        return obj.metadata.finalizers
    meta = obj.get("metadata")
    value = meta.get("finalizers") if isinstance(meta, dict) else None
    return list(value) if isinstance(value, list) else None


def has_finalizer(obj: KubeObject, name: str) -> bool:
    return name in finalizers_of(obj)


def add_finalizer(obj: KubeObject, name: str) -> bool:
    """Append ``name`` to ``obj``'s finalizers in memory; ``False`` if already there."""
    current = finalizers_of(obj)
    if name in current:
        return False
    _set_finalizers(obj, [*current, name])
    return True


def remove_finalizer(obj: KubeObject, name: str) -> bool:
    """Remove every ``name`` from ``obj``'s finalizers in memory; ``False`` if absent."""
    current = finalizers_of(obj)
    if name not in current:
        return False
    _set_finalizers(obj, [f for f in current if f != name])
    return True


def _set_finalizers(obj: KubeObject, finalizers: list[str]) -> None:
    if isinstance(obj, Resource):
        obj.metadata.finalizers = finalizers or None
        return
    meta: dict[str, Any] = obj.setdefault("metadata", {})
    if finalizers:
        meta["finalizers"] = finalizers
    else:
        meta.pop("finalizers", None)
