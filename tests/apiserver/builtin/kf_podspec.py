"""Helpers of the pod spec validation tests: a pod or Deployment around one container, and
the (field, message) pairs of a 422 answer."""

from __future__ import annotations

from typing import Any

from kf_http import Api, Reply


def pod(name: str, container: dict[str, Any] | None = None, **spec: Any) -> dict[str, Any]:
    main = {"name": "app", "image": "nginx", **(container or {})}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": {"app": name}},
        "spec": {"containers": [main], **spec},
    }


def deployment(name: str, container: dict[str, Any] | None = None, **spec: Any) -> dict[str, Any]:
    template = pod(name, container, **spec)
    del template["apiVersion"], template["kind"]
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {"selector": {"matchLabels": {"app": name}}, "template": template},
    }


def causes(reply: Reply) -> list[tuple[str, str]]:
    """The answer's causes as (field, message), after checking it is a 422 Invalid."""
    assert reply.status == 422, reply.body
    assert reply.body["reason"] == "Invalid", reply.body
    return [(c["field"], c["message"]) for c in reply.body["details"]["causes"]]


async def refused(api: Api, namespace: str, body: dict[str, Any]) -> list[tuple[str, str]]:
    """POST ``body`` (a Pod or a Deployment) and return the causes of its 422."""
    plural = "pods" if body["kind"] == "Pod" else "deployments"
    group = "/api/v1" if body["kind"] == "Pod" else "/apis/apps/v1"
    return causes(await api.post(f"{group}/namespaces/{namespace}/{plural}", body))


async def created(api: Api, namespace: str, body: dict[str, Any]) -> dict[str, Any]:
    reply = await api.post(f"/api/v1/namespaces/{namespace}/pods", body)
    assert reply.status == 201, reply.body
    stored: dict[str, Any] = reply.body
    return stored
