"""Owner references: ``set_controller_reference``, ``set_owner_reference`` and friends.

An owner reference makes the garbage collector delete a dependent with its owner
and lets ``Builder.owns`` map a dependent's events to its owner's key. These
helpers change the object in memory only (controller-runtime's ``controllerutil``):
the caller then creates or updates it.

>>> from kubeforge.core.meta import ObjectMeta
>>> from kubeforge.models.core_v1 import ConfigMap, Secret
>>> owner = ConfigMap(metadata=ObjectMeta(name="app", namespace="ns", uid="u-1"))
>>> secret = Secret(metadata=ObjectMeta(name="app-token", namespace="ns"))
>>> set_controller_reference(owner, secret)
>>> ref = controller_of(secret)
>>> (ref.kind, ref.name, ref.controller, ref.block_owner_deletion)
('ConfigMap', 'app', True, True)
"""

from __future__ import annotations

from typing import Any

from kubeforge.core.errors import KubeforgeError
from kubeforge.core.meta import OwnerReference, to_builtins
from kubeforge.core.objects import (
    KubeObject,
    name_of,
    namespace_of,
    owner_references_of,
    uid_of,
)
from kubeforge.core.resource import Resource

__all__ = [
    "AlreadyOwnedError",
    "controller_of",
    "has_owner_reference",
    "remove_owner_reference",
    "set_controller_reference",
    "set_owner_reference",
]


class AlreadyOwnedError(KubeforgeError):
    """The object already has a *different* controller; ``owner`` is that reference."""

    def __init__(self, obj: KubeObject, owner: OwnerReference) -> None:
        self.owner = owner
        where = f"{namespace_of(obj)}/" if namespace_of(obj) else ""
        super().__init__(
            f"Object {where}{name_of(obj)} is already owned by another "
            f"{owner.kind} controller {owner.name}"
        )


def set_controller_reference(
    owner: KubeObject, obj: KubeObject, *, block_owner_deletion: bool = True
) -> None:
    """Make ``owner`` the controller of ``obj`` (``controller: true``).

    Replaces an existing reference to the same owner (same group, kind and name);
    raises ``AlreadyOwnedError`` if another object controls ``obj`` already, and
    ``ValueError`` for an owner without a UID or in the wrong scope (a namespaced
    owner must live in the dependent's namespace).
    """
    ref = _reference_to(owner, obj)
    ref.controller = True
    ref.block_owner_deletion = block_owner_deletion
    current = controller_of(obj)
    if current is not None and not _same_object(current, ref):
        raise AlreadyOwnedError(obj, current)
    _upsert(obj, ref)


def set_owner_reference(owner: KubeObject, obj: KubeObject) -> None:
    """Add ``owner`` to ``obj``'s owners (not as controller), replacing a reference to it."""
    ref = _reference_to(owner, obj)
    existing = next((r for r in owner_references_of(obj) if _same_object(r, ref)), None)
    if existing is not None:
        # Keep the flags a controller reference already set; refresh uid and version.
        ref.controller, ref.block_owner_deletion = (
            existing.controller,
            existing.block_owner_deletion,
        )
    _upsert(obj, ref)


def remove_owner_reference(owner: KubeObject, obj: KubeObject) -> bool:
    """Drop ``obj``'s references to ``owner``; ``False`` if there were none."""
    target = _reference_to(owner, obj, validate=False)
    refs = owner_references_of(obj)
    kept = [ref for ref in refs if not _same_object(ref, target)]
    if len(kept) == len(refs):
        return False
    _write(obj, kept)
    return True


def has_owner_reference(obj: KubeObject, owner: KubeObject) -> bool:
    """True when ``obj`` references ``owner`` (by group, kind and name)."""
    target = _reference_to(owner, obj, validate=False)
    return any(_same_object(ref, target) for ref in owner_references_of(obj))


def controller_of(obj: KubeObject) -> OwnerReference | None:
    """``obj``'s controller reference (``controller: true``), or ``None``."""
    return next((ref for ref in owner_references_of(obj) if ref.controller), None)


# -- internals --------------------------------------------------------------------------


def _type_of(obj: KubeObject) -> tuple[str, str]:
    if isinstance(obj, Resource):
        return obj.api_version, obj.kind
    return str(obj.get("apiVersion") or ""), str(obj.get("kind") or "")


def _reference_to(owner: KubeObject, obj: KubeObject, *, validate: bool = True) -> OwnerReference:
    api_version, kind = _type_of(owner)
    if not api_version or not kind:
        raise ValueError("the owner needs apiVersion and kind to be referenced")
    if validate:
        if not uid_of(owner):
            raise ValueError(f"owner {kind} {name_of(owner)!r} has no uid: create it first")
        owner_ns, obj_ns = namespace_of(owner), namespace_of(obj)
        if owner_ns and not obj_ns:
            raise ValueError(
                "cluster-scoped resource must not have a namespace-scoped owner, "
                f"owner's namespace {owner_ns}"
            )
        if owner_ns and owner_ns != obj_ns:
            raise ValueError(
                "cross-namespace owner references are disallowed, "
                f"owner's namespace {owner_ns}, obj's namespace {obj_ns}"
            )
    return OwnerReference(
        api_version=api_version, kind=kind, name=name_of(owner), uid=uid_of(owner)
    )


def _same_object(a: OwnerReference, b: OwnerReference) -> bool:
    """Same group, kind and name: the version may differ (controller-runtime's referSameObject)."""
    group_a = a.api_version.rpartition("/")[0]
    group_b = b.api_version.rpartition("/")[0]
    return group_a == group_b and a.kind == b.kind and a.name == b.name


def _upsert(obj: KubeObject, ref: OwnerReference) -> None:
    refs = owner_references_of(obj)
    for i, existing in enumerate(refs):
        if _same_object(existing, ref):
            refs[i] = ref
            break
    else:
        refs.append(ref)
    _write(obj, refs)


def _write(obj: KubeObject, refs: list[OwnerReference]) -> None:
    if isinstance(obj, Resource):
        obj.metadata.owner_references = refs or None
        return
    meta: dict[str, Any] = obj.setdefault("metadata", {})
    if refs:
        meta["ownerReferences"] = to_builtins(refs)
    else:
        meta.pop("ownerReferences", None)
