"""What a write to a status-like subresource may change: ``/status``, a
CertificateSigningRequest's ``/approval``, a pod's ``/ephemeralcontainers``, and the
scheduler's ``binding`` of a pod (``spec.nodeName``, the status and the Binding's
annotations in one write, as the binding storage's ``setPodNodeAndMetadata`` does; this
server serves it to no client: the body's metadata carries only the Binding's
annotations).

Such a write starts from the stored object and takes only its part from the body, as the
real status strategies' ``PrepareForUpdate`` do; everything else the client sent is
ignored.

The result shares the stored object's untouched subtrees (stored objects are read-only,
so nothing copies them): only its top level, its metadata and the maps on the way to a
taken part are new. A pod's status write so copies its status, not the whole pod.

Entry points: ``status_write(subresource, new, old)``; ``taken_copy(subresource, body)``,
a private copy of the parts of ``body`` such a write takes; ``TAKEN`` the paths of those
parts; ``STATUS_LIKE`` names the subresources served.
"""

from __future__ import annotations

from typing import Any

import orjson

__all__ = ["STATUS_LIKE", "TAKEN", "status_write", "taken_copy"]

STATUS_LIKE = ("status", "approval", "ephemeralcontainers", "binding")

TAKEN: dict[str, tuple[tuple[str, ...], ...]] = {
    "status": (("status",),),
    "approval": (("status", "conditions"),),
    "ephemeralcontainers": (("spec", "ephemeralContainers"),),
    "binding": (("metadata", "annotations"), ("spec", "nodeName"), ("status",)),
}
"""The paths each status-like subresource takes from the body, in the object's key order."""


def status_write(subresource: str, new: dict[str, Any], old: dict[str, Any]) -> dict[str, Any]:
    """``old`` with what a ``/status`` write may change taken from ``new``: the whole
    status, for a CertificateSigningRequest's ``/approval`` only its conditions, for a
    pod's ``/ephemeralcontainers`` only ``spec.ephemeralContainers``, for a ``binding``
    ``spec.nodeName``, the status and the annotations ``new`` adds. The result holds
    ``new``'s taken parts themselves and shares the rest with ``old`` (see the module's
    docstring)."""
    result = dict(old)
    result["metadata"] = dict(old["metadata"])
    status = new.get("status")
    if subresource == "binding":
        result["spec"] = {**old["spec"], "nodeName": new["spec"]["nodeName"]}
        result["status"] = status
        added = (new.get("metadata") or {}).get("annotations")
        if added:  # the Binding's, merged into the pod's as the binding storage does
            kept = old["metadata"].get("annotations") or {}
            result["metadata"]["annotations"] = {**kept, **added}
    elif subresource == "ephemeralcontainers":
        ephemeral = (new.get("spec") or {}).get("ephemeralContainers")
        spec = result["spec"] = dict(old["spec"])
        spec.pop("ephemeralContainers", None)
        if ephemeral is not None:
            spec["ephemeralContainers"] = ephemeral
    elif subresource == "approval":
        conditions = status.get("conditions") if isinstance(status, dict) else None
        kept = dict(result.get("status") or {})
        if conditions:
            kept["conditions"] = conditions
        else:
            kept.pop("conditions", None)
        result["status"] = kept
    elif "status" in new:
        result["status"] = status
    else:
        result.pop("status", None)
    return result


def taken_copy(subresource: str, body: dict[str, Any]) -> dict[str, Any]:
    """A private copy of what ``status_write`` takes from ``body`` (and nothing else):
    the same result as taking it from a copy of the whole body."""
    out: dict[str, Any] = {}
    for path in TAKEN[subresource]:
        value: Any = body
        for key in path:
            if not isinstance(value, dict) or key not in value:
                break
            value = value[key]
        else:
            node = out
            for key in path[:-1]:
                node = node.setdefault(key, {})
            node[path[-1]] = orjson.loads(orjson.dumps(value))
    return out
