"""kubectl's client-side apply annotation (``last-applied-configuration``) under
server-side apply.

When kubectl applies server-side to an object it once applied client-side, the
annotation is kept in step with the new configuration, and kubectl may take over, without
conflicts, the fields the annotation still describes exactly as they are (the real
field manager's ``lastAppliedManager`` and ``lastAppliedUpdater``).

Entry points: ``has_last_applied(obj)``, ``sync_last_applied(merged, config)``,
``allowed_by_last_applied(live, atom, api_version)``.
"""

from __future__ import annotations

from typing import Any

import orjson

from kubeforge.apiserver.smd.fieldpath import FieldSet
from kubeforge.apiserver.smd.schema import Atom
from kubeforge.apiserver.smd.typed import TypedError, compare, to_field_set

__all__ = ["LAST_APPLIED", "allowed_by_last_applied", "has_last_applied", "sync_last_applied"]

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def has_last_applied(obj: dict[str, Any]) -> bool:
    """Whether ``obj`` carries a client-side apply annotation."""
    annotations = (obj.get("metadata") or {}).get("annotations") or {}
    return bool(annotations.get(LAST_APPLIED))


def sync_last_applied(merged: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
    """kubectl's server-side apply refreshes the client-side apply annotation."""
    meta = dict(config.get("metadata") or {})
    annotations = {k: v for k, v in (meta.get("annotations") or {}).items() if k != LAST_APPLIED}
    if annotations:
        meta["annotations"] = annotations
    else:
        meta.pop("annotations", None)
    text = orjson.dumps({**config, "metadata": meta}, option=orjson.OPT_SORT_KEYS).decode()
    result = {**merged, "metadata": dict(merged.get("metadata") or {})}
    result["metadata"]["annotations"] = {
        **(result["metadata"].get("annotations") or {}),
        LAST_APPLIED: text,
    }
    return result


def allowed_by_last_applied(live: dict[str, Any], atom: Atom, api_version: str) -> FieldSet:
    """Fields kubectl may take over from its client-side apply: those the annotation
    still describes exactly as they are."""
    annotations = (live.get("metadata") or {}).get("annotations") or {}
    try:
        last = orjson.loads(annotations.get(LAST_APPLIED) or "null")
    except orjson.JSONDecodeError:
        return FieldSet()
    if not isinstance(last, dict) or last.get("apiVersion") != api_version:
        return FieldSet()
    try:
        fields = to_field_set(last, atom)
    except TypedError:
        return FieldSet()
    differences = compare(last, live, atom)
    return (
        fields.difference(differences.modified)
        .difference(differences.added)
        .difference(differences.removed)
    )
