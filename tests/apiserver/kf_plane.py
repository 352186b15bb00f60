"""Waiting for the simulated control plane: poll an object until a condition holds.

Nothing here bounds how long a step may take beyond a generous ceiling that turns a
hang into a failure; tests assert what the control plane wrote, never when.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from kf_http import Api

__all__ = ["condition", "events_for", "replica_set", "until"]

_CEILING = 60.0
_PAUSE = 0.05


async def until(
    api: Api, path: str, check: Callable[[dict[str, Any]], bool], **params: str
) -> dict[str, Any]:
    """GET ``path`` until ``check(body)`` holds; the body that satisfied it."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + _CEILING
    body: dict[str, Any] = {}
    while loop.time() < deadline:
        reply = await api.get(path, **params)
        body = reply.body if reply.status == 200 else {}
        if body and check(body):
            return body
        await asyncio.sleep(_PAUSE)
    raise AssertionError(f"{path} never satisfied the check; last seen: {body}")


async def events_for(api: Api, namespace: str, name: str) -> list[dict[str, Any]]:
    """The Events about object ``name``, oldest first (by creation, then name)."""
    reply = await api.get(
        f"/api/v1/namespaces/{namespace}/events", fieldSelector=f"involvedObject.name={name}"
    )
    items = reply.body["items"]
    return sorted(items, key=lambda e: int(e["metadata"]["resourceVersion"]))


def condition(obj: dict[str, Any], kind: str) -> dict[str, Any]:
    for item in (obj.get("status") or {}).get("conditions") or []:
        if item.get("type") == kind:
            return dict(item)
    return {}


def replica_set(name: str, replicas: int, **template_annotations: str) -> dict[str, Any]:
    """A ReplicaSet of ``replicas`` nginx pods labelled ``app: <name>``."""
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {"name": name},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}, "annotations": template_annotations},
                "spec": {"containers": [{"name": "main", "image": "nginx"}]},
            },
        },
    }
