"""A slow conversion webhook delays only the requests that need it: while one holds its
answer, other clients' reads, ``/readyz``, writes and watches of other resources are
served, and the held request completes once the webhook answers. A ``clientConfig.service``
fails at once with the endpoint resolver's reason (no cluster network behind it). Watches
of the converted version share one review per event."""

from __future__ import annotations

import asyncio
import base64
import json
import ssl
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from kf_http import Api, configmap, take

from kubeforge.webhook import ServingCert

pytestmark = pytest.mark.live

GROUP = "slow.example.com"
CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"


class HeldWebhook:
    """Converts v1 {size} <-> v2 {length}, each answer held until ``release``."""

    def __init__(self) -> None:
        self.arrived = asyncio.Event()
        self.release = asyncio.Event()
        self.reviews = 0

    async def handle(self, request: web.Request) -> web.Response:
        review = await request.json()
        self.reviews += 1
        self.arrived.set()
        await self.release.wait()
        wanted = review["request"]["desiredAPIVersion"]
        converted = [_converted(obj, wanted) for obj in review["request"]["objects"]]
        body = {
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "ConversionReview",
            "response": {
                "uid": review["request"]["uid"],
                "result": {"status": "Success"},
                "convertedObjects": converted,
            },
        }
        return web.json_response(body)


def _converted(obj: dict[str, Any], wanted: str) -> dict[str, Any]:
    spec = obj.get("spec") or {}
    value = spec.get("size", spec.get("length", 0))
    field = "length" if wanted.endswith("/v2") else "size"
    return {**obj, "apiVersion": wanted, "spec": {field: value}}


@asynccontextmanager
async def held_webhook(tmp_path: Path) -> AsyncIterator[tuple[HeldWebhook, str, bytes]]:
    cert = ServingCert.generate(["127.0.0.1"])
    cert.write(tmp_path)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(tmp_path / "tls.crt", tmp_path / "tls.key")
    hook = HeldWebhook()
    app = web.Application()
    app.router.add_post("/convert", hook.handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=context)
    await site.start()
    port = runner.addresses[0][1]
    try:
        yield hook, f"https://127.0.0.1:{port}/convert", cert.ca_pem
    finally:
        hook.release.set()
        await runner.cleanup()


def _crd(plural: str, kind: str, client_config: dict[str, Any]) -> dict[str, Any]:
    def version(name: str, field: str) -> dict[str, Any]:
        spec = {"type": "object", "properties": {field: {"type": "integer"}}}
        schema = {"type": "object", "properties": {"spec": spec}}
        return {"name": name, "served": True, "storage": name == "v1",
                "schema": {"openAPIV3Schema": schema}}  # fmt: skip

    webhook = {"clientConfig": client_config, "conversionReviewVersions": ["v1"]}
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{GROUP}"},
        "spec": {
            "group": GROUP,
            "scope": "Namespaced",
            "names": {"plural": plural, "kind": kind, "singular": kind.lower()},
            "versions": [version("v1", "size"), version("v2", "length")],
            "conversion": {"strategy": "Webhook", "webhook": webhook},
        },
    }


async def _served(api: Api, client_config: dict[str, Any], namespace: str) -> tuple[str, str, str]:
    """A new CRD using ``client_config``, served: its two collection paths and its kind."""
    plural = "s" + uuid.uuid4().hex[:8] + "s"
    kind = "S" + plural[1:-1]
    reply = await api.post(CRD_PATH, _crd(plural, kind, client_config))
    assert reply.status == 201, reply.body
    v1, v2 = (f"/apis/{GROUP}/{v}/namespaces/{namespace}/{plural}" for v in ("v1", "v2"))
    for _ in range(200):
        if (await api.get(v1)).status == 200:
            return v1, v2, kind
        await asyncio.sleep(0.05)
    raise AssertionError(f"{plural} never served")


async def _first_event(api: Api, path: str, rv: str) -> dict[str, Any]:
    async for event in api.watch(path, resourceVersion=rv, timeoutSeconds="30"):
        return event
    raise AssertionError(f"the watch of {path} ended without an event")


async def test_other_requests_and_watches_go_on_while_a_webhook_is_slow(
    api: Api, namespace: str, tmp_path: Path
) -> None:
    async with held_webhook(tmp_path) as (hook, url, ca):
        config = {"url": url, "caBundle": base64.b64encode(ca).decode()}
        v1, v2, kind = await _served(api, config, namespace)
        body = {"apiVersion": f"{GROUP}/v1", "kind": kind, "metadata": {"name": "a"},
                "spec": {"size": 3}}  # fmt: skip
        stored = await api.post(v1, body)
        assert stored.status == 201, stored.body
        assert hook.reviews == 0  # stored at its own version: no conversion yet
        configmaps = f"/api/v1/namespaces/{namespace}/configmaps"
        listed = await api.get(configmaps)
        other_watch = asyncio.create_task(
            _first_event(api, configmaps, listed.body["metadata"]["resourceVersion"])
        )
        slow_get = asyncio.create_task(api.get(f"{v2}/a"))
        slow_watch = asyncio.create_task(_first_event(api, v2, "0"))
        await hook.arrived.wait()

        ready = await api.get("/readyz")
        assert ready.status == 200, ready.body
        assert (await api.get(f"/api/v1/namespaces/{namespace}")).status == 200
        assert (await api.post(configmaps, configmap("meanwhile", a="1"))).status == 201
        event = await other_watch
        assert (event["type"], event["object"]["metadata"]["name"]) == ("ADDED", "meanwhile")
        # all of that was answered while the webhook still held its answers
        assert not slow_get.done() and not slow_watch.done()

        hook.release.set()
        got = await slow_get
        assert got.status == 200, got.body
        assert (got.body["apiVersion"], got.body["spec"]) == (f"{GROUP}/v2", {"length": 3})
        added = await slow_watch
        assert added["type"] == "ADDED"
        assert (added["object"]["apiVersion"], added["object"]["spec"]) == (
            f"{GROUP}/v2",
            {"length": 3},
        )
        # an event made by a later write is converted in the watch's own stream too
        later = asyncio.create_task(_first_event(api, v2, got.body["metadata"]["resourceVersion"]))
        body["metadata"]["name"], body["spec"] = "b", {"size": 5}
        assert (await api.post(v1, body)).status == 201
        event = await later
        assert (event["object"]["metadata"]["name"], event["object"]["spec"]) == (
            "b",
            {"length": 5},
        )


async def test_a_service_reference_fails_at_once_with_the_resolvers_reason(
    api: Api, namespace: str
) -> None:
    service = {"namespace": namespace, "name": "converter", "path": "/convert", "port": 443}
    v1, v2, kind = await _served(api, {"service": service}, namespace)
    body = {"apiVersion": f"{GROUP}/v1", "kind": kind, "metadata": {"name": "a"},
            "spec": {"size": 1}}  # fmt: skip
    assert (await api.post(v1, body)).status == 201
    shown = f'Post "https://converter.{namespace}.svc:443/convert?timeout=30s"'
    gvk = f"{GROUP}/v1, Kind={kind}"

    missing = await api.get(f"{v2}/a")
    assert missing.status == 500
    assert missing.body["message"] == (
        f'conversion webhook for {gvk} failed: {shown}: service "converter" not found'
    )

    svc = {"metadata": {"name": "converter"}, "spec": {"ports": [{"port": 443}]}}
    assert (await api.post(f"/api/v1/namespaces/{namespace}/services", svc)).status == 201
    no_endpoints = await api.get(f"{v2}/a")
    assert no_endpoints.status == 500
    assert no_endpoints.body["message"] == (
        f'conversion webhook for {gvk} failed: {shown}: endpoints "converter" not found'
    )


async def test_a_table_watch_of_the_converted_version_waits_alone_for_its_rows(
    api: Api, namespace: str, tmp_path: Path
) -> None:
    async with held_webhook(tmp_path) as (hook, url, ca):
        config = {"url": url, "caBundle": base64.b64encode(ca).decode()}
        v1, v2, kind = await _served(api, config, namespace)
        body = {"apiVersion": f"{GROUP}/v1", "kind": kind, "metadata": {"name": "a"},
                "spec": {"size": 3}}  # fmt: skip
        assert (await api.post(v1, body)).status == 201
        headers = {**api.headers(), "Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}
        params = {"watch": "true", "resourceVersion": "0", "includeObject": "Object",
                  "timeoutSeconds": "30"}  # fmt: skip

        async def first_row() -> dict[str, Any]:
            url = api.server.url + v2
            async with api.session.get(url, params=params, headers=headers) as reply:
                assert reply.status == 200
                event: dict[str, Any] = json.loads(await reply.content.readline())
                return event

        watching = asyncio.create_task(first_row())
        await hook.arrived.wait()
        assert (await api.get("/readyz")).status == 200
        assert not watching.done()
        hook.release.set()
        event = await watching
    table = event["object"]
    assert table["kind"] == "Table"
    row = table["rows"][0]
    assert row["cells"][0] == "a"
    assert (row["object"]["apiVersion"], row["object"]["spec"]) == (f"{GROUP}/v2", {"length": 3})
    assert hook.reviews == 1


async def test_watches_of_a_converted_version_share_one_review_per_event(
    api: Api, namespace: str, tmp_path: Path
) -> None:
    async with held_webhook(tmp_path) as (hook, url, ca):
        hook.release.set()
        config = {"url": url, "caBundle": base64.b64encode(ca).decode()}
        v1, v2, kind = await _served(api, config, namespace)
        start = (await api.get(v1)).body["metadata"]["resourceVersion"]
        for name, size in (("a", 1), ("b", 2)):
            body = {"apiVersion": f"{GROUP}/v1", "kind": kind, "metadata": {"name": name},
                    "spec": {"size": size}}  # fmt: skip
            assert (await api.post(v1, body)).status == 201
        assert hook.reviews == 0
        # Two watches alike (one group in the fan-out) and one filtered differently.
        watches = [
            api.watch(v2, resourceVersion=start, timeoutSeconds="30"),
            api.watch(v2, resourceVersion=start, timeoutSeconds="30"),
            api.watch(
                v2, resourceVersion=start, timeoutSeconds="30", fieldSelector="metadata.name!=c"
            ),
        ]
        seen = await asyncio.gather(*(take(watch, 2) for watch in watches))
    for events in seen:
        assert [(e["type"], e["object"]["apiVersion"], e["object"]["spec"]) for e in events] == [
            ("ADDED", f"{GROUP}/v2", {"length": 1}),
            ("ADDED", f"{GROUP}/v2", {"length": 2}),
        ]
    assert hook.reviews == 2  # one per event, not one per event and watch
