"""How a default RBAC object is reconciled with the one already stored.

The real ``rbac/bootstrap-roles`` post-start hook reconciles each default role and
binding (``pkg/registry/rbac/reconciliation``) without removing anything:

- an object that is missing is created;
- one annotated ``rbac.authorization.kubernetes.io/autoupdate: "false"`` is left alone;
- otherwise the expected labels and annotations are added where the stored object has
  no value of its own (its own values win), the expected rules it does not cover are
  appended (each broken down to one verb on one resource, as ``validation.Covers``
  reports them), missing aggregation selectors are appended, an aggregation rule the
  default does not have is dropped, and missing subjects are appended; a binding whose
  ``roleRef`` differs is deleted and created again (a roleRef cannot be updated).

Extra rules, selectors and subjects are kept: the hook never removes permissions.

Entry points: ``reconciled_role``, ``reconciled_binding`` (each gives the object to
write, or None when the stored one needs nothing), ``Change``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kubeforge.apiserver.authz.rules import uncovered
from kubeforge.apiserver.storage.sqlite import clone

__all__ = ["AUTOUPDATE", "Change", "reconciled_binding", "reconciled_role"]

AUTOUPDATE = "rbac.authorization.kubernetes.io/autoupdate"


@dataclass(frozen=True)
class Change:
    """The object to write, and whether it must be deleted and created (a new roleRef)."""

    obj: dict[str, Any]
    recreate: bool = False


def _protected(existing: dict[str, Any]) -> bool:
    return (existing["metadata"].get("annotations") or {}).get(AUTOUPDATE) == "false"


def _merged_metadata(existing: dict[str, Any], expected: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``existing`` with the expected labels and annotations it lacks."""
    result = clone(existing)
    meta = result["metadata"]
    for field in ("annotations", "labels"):
        merged = {**(expected["metadata"].get(field) or {}), **(meta.get(field) or {})}
        if merged:
            meta[field] = merged
    return result


def _selectors(role: dict[str, Any]) -> list[Any]:
    return list((role.get("aggregationRule") or {}).get("clusterRoleSelectors") or [])


def reconciled_role(existing: dict[str, Any], expected: dict[str, Any]) -> Change | None:
    """The stored (Cluster)Role with what the default adds, or None if nothing changes."""
    if _protected(existing):
        return None
    result = _merged_metadata(existing, expected)
    missing = uncovered(existing.get("rules") or [], expected.get("rules") or [])
    if missing:
        result["rules"] = [*(existing.get("rules") or []), *missing]
    have = _selectors(existing)
    if "aggregationRule" not in expected or expected["aggregationRule"] is None:
        result.pop("aggregationRule", None)
    else:
        wanted = [s for s in _selectors(expected) if s not in have]
        if wanted:
            result["aggregationRule"] = {"clusterRoleSelectors": [*have, *wanted]}
    return None if result == existing else Change(result)


def _same_subject(subject: dict[str, Any]) -> tuple[str, ...]:
    """A subject as Go compares it: an empty field is the field left out."""
    fields = ("kind", "apiGroup", "name", "namespace")
    return tuple(str(subject.get(field) or "") for field in fields)


def reconciled_binding(existing: dict[str, Any], expected: dict[str, Any]) -> Change | None:
    """The stored (Cluster)RoleBinding with the default's subjects added, or None."""
    if _protected(existing):
        return None
    result = _merged_metadata(existing, expected)
    subjects = list(existing.get("subjects") or [])
    have = {_same_subject(s) for s in subjects}
    missing = [s for s in expected.get("subjects") or [] if _same_subject(s) not in have]
    if missing:
        result["subjects"] = [*subjects, *missing]
    if existing.get("roleRef") != expected["roleRef"]:
        result["roleRef"] = expected["roleRef"]
        return Change(result, recreate=True)
    return None if result == existing else Change(result)
