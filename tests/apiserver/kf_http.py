"""Raw-HTTP helpers for the local API server tests: no kubeforge client involved,
so a client bug can never hide a server bug."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import aiohttp

from kubeforge.apiserver.controllers.controlplane import enabled_controllers
from kubeforge.apiserver.controllers.rootca import ROOT_CA_CONTROLLER as ROOT_CA_PUBLISHER
from kubeforge.testing import LocalApiServer


@dataclass
class Reply:
    status: int
    body: Any
    headers: Any

    @property
    def reason(self) -> str | None:
        return self.body.get("reason") if isinstance(self.body, dict) else None


class Api:
    """Minimal HTTP face of one server: JSON in, ``Reply`` out."""

    def __init__(self, server: LocalApiServer, session: aiohttp.ClientSession) -> None:
        self.server = server
        self.session = session

    def headers(self, content_type: str | None = None, token: str | None = None) -> dict[str, str]:
        headers = {"Authorization": f"Bearer {self.server.token if token is None else token}"}
        if content_type:
            headers["Content-Type"] = content_type
        return headers

    async def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        raw: bytes | None = None,
        content_type: str = "application/json",
        params: dict[str, str] | None = None,
        headers: dict[str, str] | None = None,
    ) -> Reply:
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        all_headers = {
            **self.headers(content_type if data is not None else None),
            **(headers or {}),
        }
        async with self.session.request(
            method, self.server.url + path, data=data, params=params, headers=all_headers
        ) as response:
            text = await response.read()
            try:
                parsed = json.loads(text) if text else None
            except ValueError:
                parsed = text.decode()
            return Reply(response.status, parsed, response.headers)

    async def get(self, path: str, **params: str) -> Reply:
        return await self.request("GET", path, params=params or None)

    async def post(self, path: str, body: Any, **kwargs: Any) -> Reply:
        return await self.request("POST", path, body, **kwargs)

    async def put(self, path: str, body: Any, **kwargs: Any) -> Reply:
        return await self.request("PUT", path, body, **kwargs)

    async def patch(self, path: str, body: Any, content_type: str, **kwargs: Any) -> Reply:
        return await self.request("PATCH", path, body, content_type=content_type, **kwargs)

    async def delete(self, path: str, body: Any = None, **kwargs: Any) -> Reply:
        return await self.request("DELETE", path, body, **kwargs)

    async def watch(self, path: str, **params: str) -> AsyncIterator[dict[str, Any]]:
        """Yield decoded events until the server ends the stream (or the caller stops)."""
        params = {"watch": "true", **params}
        async with self.session.get(
            self.server.url + path, params=params, headers=self.headers()
        ) as response:
            assert response.status == 200, await response.text()
            async for line in response.content:
                if line.strip():
                    yield json.loads(line)

    async def create_namespace(self, prefix: str = "t") -> str:
        """A fresh namespace, once the root-CA publisher (when the server runs it) has put
        ``kube-root-ca.crt`` in it: lists and watches of its ConfigMaps then start from a
        settled state, as tests on a cluster wait for it."""
        name = f"{prefix}-{uuid.uuid4().hex[:10]}"
        reply = await self.post("/api/v1/namespaces", {"metadata": {"name": name}})
        assert reply.status == 201, reply.body
        if publishes_root_ca(self.server):
            path = f"/api/v1/namespaces/{name}/configmaps/{ROOT_CA}"
            for _ in range(400):  # a bound on the wait, not a timing check
                if (await self.get(path)).status == 200:
                    break
                await asyncio.sleep(0.05)
            else:
                raise AssertionError(f"{ROOT_CA} never appeared in {name}")
        return name


ROOT_CA = "kube-root-ca.crt"
"""The ConfigMap the root-CA publisher keeps in every namespace, as on a real cluster."""


def publishes_root_ca(server: LocalApiServer) -> bool:
    return server.simulate_node and ROOT_CA_PUBLISHER in enabled_controllers([server.controllers])


async def take(events: AsyncIterator[dict[str, Any]], count: int) -> list[dict[str, Any]]:
    """The first ``count`` watch events about what the test made (events about the
    namespace's ``kube-root-ca.crt`` are skipped)."""
    out = []
    async for event in events:
        if (event.get("object") or {}).get("metadata", {}).get("name") == ROOT_CA:
            continue
        out.append(event)
        if len(out) == count:
            break
    return out


def without_root_ca(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The objects a test made: every ConfigMap but the namespace's ``kube-root-ca.crt``."""
    return [item for item in items if item["metadata"]["name"] != ROOT_CA]


def configmap(name: str, **data: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}


def pod(name: str, **labels: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": labels},
        "spec": {"containers": [{"name": "main", "image": "nginx:1.27"}]},
    }


async def open_api(server: LocalApiServer) -> aiohttp.ClientSession:
    connector = aiohttp.TCPConnector(ssl=server.ssl_context())
    return aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=30))
