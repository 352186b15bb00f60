"""What a write to a status-like subresource may change: ``/status``, a
CertificateSigningRequest's ``/approval``, a pod's ``/ephemeralcontainers``, and the
scheduler's ``binding`` of a pod (``spec.nodeName`` and the status in one write, as the
binding storage's ``setPodNodeAndMetadata`` does; this server serves it to no client).

Such a write starts from the stored object and takes only its part from the body, as the
real status strategies' ``PrepareForUpdate`` do; everything else the client sent is
ignored.

Entry point: ``status_write(subresource, new, old)``; ``STATUS_LIKE`` names the
subresources it serves.
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.storage.sqlite import clone

__all__ = ["STATUS_LIKE", "status_write"]

STATUS_LIKE = ("status", "approval", "ephemeralcontainers", "binding")


def status_write(subresource: str, new: dict[str, Any], old: dict[str, Any]) -> dict[str, Any]:
    """``old`` with what a ``/status`` write may change taken from ``new``: the whole
    status, for a CertificateSigningRequest's ``/approval`` only its conditions, for a
    pod's ``/ephemeralcontainers`` only ``spec.ephemeralContainers``, for a ``binding``
    ``spec.nodeName`` and the status."""
    result = clone(old)
    status = new.get("status")
    if subresource == "binding":
        result["spec"]["nodeName"] = new["spec"]["nodeName"]
        result["status"] = status
    elif subresource == "ephemeralcontainers":
        ephemeral = (new.get("spec") or {}).get("ephemeralContainers")
        result["spec"].pop("ephemeralContainers", None)
        if ephemeral is not None:
            result["spec"]["ephemeralContainers"] = ephemeral
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
