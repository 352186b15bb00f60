"""The Kubernetes ``Status`` object: how the server reports failures (and some successes).

The local API server builds its error bodies with ``failure()``; the client turns
them back into exceptions with ``kubeforge.core.errors.ApiError.from_status``.
Codes and reasons follow apimachinery's ``pkg/api/errors``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["failure", "success"]


def failure(
    code: int,
    reason: str,
    message: str,
    details: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A failure ``Status``; ``reason`` may be ``""`` (as for a 422 from a JSON patch)."""
    body: dict[str, Any] = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
    }
    if reason:
        body["reason"] = reason
    if details:
        body["details"] = details
    body["code"] = code
    return body


def success(details: dict[str, Any] | None = None) -> dict[str, Any]:
    """A ``Status`` with ``status: Success``, as returned by some deletes."""
    body: dict[str, Any] = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Success",
    }
    if details:
        body["details"] = details
    return body
