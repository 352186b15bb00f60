"""Shared pieces of the webhook tests: a served test kind, a running server, an HTTPS caller."""

from __future__ import annotations

import ssl
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import msgspec
import orjson

from kubeforge.core.meta import Model
from kubeforge.core.resource import Resource, ResourceInfo
from kubeforge.webhook import ServingCert, WebhookServer, WebhookServerOptions


class ShipSpec(Model):
    size: int = 0
    color: str = ""


class Ship(Resource):
    info = ResourceInfo("fleet.example.com", "v1", "Ship", "ships")
    spec: ShipSpec = msgspec.field(default_factory=ShipSpec)


@asynccontextmanager
async def running_server(
    cert_dir: Path, **options: Any
) -> AsyncIterator[tuple[WebhookServer, ServingCert]]:
    cert = ServingCert.generate(["127.0.0.1", "localhost"])
    cert.write(cert_dir)
    server = WebhookServer(WebhookServerOptions(port=0, cert_dir=str(cert_dir), **options))
    yield server, cert
    await server.stop()


def client_context(cert: ServingCert) -> ssl.SSLContext:
    return ssl.create_default_context(cadata=cert.ca_pem.decode())


async def post(
    server: WebhookServer,
    cert: ServingCert,
    path: str,
    body: Any,
    *,
    content_type: str = "application/json",
) -> tuple[int, Any]:
    data = body if isinstance(body, bytes) else orjson.dumps(body)
    async with (
        aiohttp.ClientSession() as session,
        session.post(
            f"https://127.0.0.1:{server.port}{path}",
            data=data,
            headers={"Content-Type": content_type},
            ssl=client_context(cert),
        ) as answer,
    ):
        raw = await answer.read()
        is_json = answer.content_type == "application/json"
        return answer.status, (orjson.loads(raw) if is_json and raw else raw)


def review(
    operation: str,
    obj: dict[str, Any] | None,
    old: dict[str, Any] | None = None,
    *,
    version: str = "v1",
    dry_run: bool = False,
    user: dict[str, Any] | None = None,
) -> dict[str, Any]:
    return {
        "apiVersion": f"admission.k8s.io/{version}",
        "kind": "AdmissionReview",
        "request": {
            "uid": str(uuid.uuid4()),
            "kind": {"group": "fleet.example.com", "version": "v1", "kind": "Ship"},
            "resource": {"group": "fleet.example.com", "version": "v1", "resource": "ships"},
            "name": "s",
            "namespace": "default",
            "operation": operation,
            "userInfo": user or {"username": "alice", "groups": ["devs"]},
            "object": obj,
            "oldObject": old,
            "dryRun": dry_run,
        },
    }


def ship(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "fleet.example.com/v1",
        "kind": "Ship",
        "metadata": {"name": "s", "namespace": "default"},
        "spec": spec,
    }
