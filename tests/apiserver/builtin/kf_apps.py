"""Helpers of the apps/v1 tests: a workload of one container whose selector matches its
template, and the path of an apps/v1 collection, object or subresource."""

from __future__ import annotations

from typing import Any


def workload(kind: str, name: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": kind,
        "metadata": {"name": name},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "main", "image": "nginx:1.27"}]},
            },
            **spec,
        },
    }


def path(namespace: str, plural: str, name: str = "", sub: str = "") -> str:
    base = f"/apis/apps/v1/namespaces/{namespace}/{plural}"
    return "/".join(p for p in (base, name, sub) if p)
