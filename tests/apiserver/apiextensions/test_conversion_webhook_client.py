"""The API server's side of a conversion webhook: the ConversionReview it sends, the checks it
makes on the answer, and the failures it reports, against a real HTTPS webhook server
(kubeforge.webhook, the one a controller serves) and against broken ones."""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import msgspec
import pytest
from aiohttp import web

from kubeforge.apiserver.apiextensions.conversion_webhook import ConversionFailed, WebhookConverter
from kubeforge.core.meta import Model
from kubeforge.core.resource import Resource, ResourceInfo
from kubeforge.webhook import (
    CONVERT_PATH,
    Conversion,
    ServingCert,
    TypeWebhooks,
    WebhookServer,
    WebhookServerOptions,
)


class BoatSpec(Model):
    size: int = 0


class Boat(Resource):
    info = ResourceInfo("harbor.example.com", "v1", "Boat", "boats")
    spec: BoatSpec = msgspec.field(default_factory=BoatSpec)


class LengthSpec(Model):
    length: int = 0


class BoatV2(Resource):
    info = ResourceInfo("harbor.example.com", "v2", "Boat", "boats")
    spec: LengthSpec = msgspec.field(default_factory=LengthSpec)


def to_hub(boat: BoatV2) -> Boat:
    if boat.spec.length < 0:
        raise ValueError("a boat has no negative length")
    return Boat(metadata=boat.metadata, spec=BoatSpec(size=boat.spec.length))


def from_hub(boat: Boat) -> BoatV2:
    return BoatV2(metadata=boat.metadata, spec=LengthSpec(length=boat.spec.size))


CONVERSION = Conversion(hub=Boat).spoke(BoatV2, to_hub=to_hub, from_hub=from_hub)


def crd(url: str, ca: bytes | None, versions: tuple[str, ...] = ("v1",)) -> dict[str, Any]:
    config: dict[str, Any] = {"url": url}
    if ca is not None:
        config["caBundle"] = base64.b64encode(ca).decode()
    webhook = {"clientConfig": config, "conversionReviewVersions": list(versions)}
    return {
        "spec": {
            "group": "harbor.example.com",
            "names": {"kind": "Boat"},
            "conversion": {"strategy": "Webhook", "webhook": webhook},
        }
    }


def boat(version: str, spec: dict[str, Any], name: str = "b") -> dict[str, Any]:
    meta = {"name": name, "namespace": "default", "uid": f"uid-{name}", "resourceVersion": "7"}
    return {
        "apiVersion": f"harbor.example.com/{version}",
        "kind": "Boat",
        "metadata": meta,
        "spec": spec,
    }


@asynccontextmanager
async def webhook(tmp_path: Path) -> AsyncIterator[tuple[str, ServingCert]]:
    cert = ServingCert.generate(["127.0.0.1", "localhost"])
    cert.write(tmp_path)
    server = WebhookServer(WebhookServerOptions(port=0, cert_dir=str(tmp_path)))
    TypeWebhooks(Boat, conversion=CONVERSION).register(server)
    await server.start()
    try:
        yield f"https://127.0.0.1:{server.port}{CONVERT_PATH}", cert
    finally:
        await server.stop()


async def test_objects_are_converted_in_one_review_and_keep_their_metadata(tmp_path: Path) -> None:
    async with webhook(tmp_path) as (url, cert):
        converter = WebhookConverter(crd(url, cert.ca_pem))
        sent = [
            boat("v1", {"size": 3}, "a"),
            boat("v2", {"length": 9}, "b"),
            boat("v1", {"size": 4}, "c"),
        ]
        sent[0]["metadata"]["labels"] = {"keep": "me"}
        out = await converter.convert_async(sent, "harbor.example.com/v2")
    assert [o["spec"] for o in out] == [{"length": 3}, {"length": 9}, {"length": 4}]
    assert out[1] is sent[1]  # already at the desired version: not sent
    assert out[0]["metadata"] == sent[0]["metadata"]


async def test_a_converter_error_is_the_webhooks_message(tmp_path: Path) -> None:
    async with webhook(tmp_path) as (url, cert):
        converter = WebhookConverter(crd(url, cert.ca_pem))
        with pytest.raises(ConversionFailed) as failed:
            await converter.convert_async([boat("v2", {"length": -1})], "harbor.example.com/v1")
    assert str(failed.value).startswith(
        "conversion webhook for harbor.example.com/v2, Kind=Boat failed: "
    )
    assert "a boat has no negative length" in str(failed.value)


async def test_an_untrusted_certificate_is_refused(tmp_path: Path) -> None:
    other = ServingCert.generate(["127.0.0.1"])
    async with webhook(tmp_path) as (url, _):
        converter = WebhookConverter(crd(url, other.ca_pem))
        with pytest.raises(ConversionFailed) as failed:
            await converter.convert_async([boat("v1", {"size": 1})], "harbor.example.com/v2")
    assert f'failed: Post "{url}?timeout=30s": tls: failed to verify certificate' in str(
        failed.value
    )


async def test_the_awaited_call_names_the_dial_error_as_the_blocking_one() -> None:
    converter = WebhookConverter(crd("https://127.0.0.1:1/convert", None))
    objects = [boat("v1", {"size": 1})]
    with pytest.raises(ConversionFailed) as awaited:
        await converter.convert_async(objects, "harbor.example.com/v2")
    with pytest.raises(ConversionFailed) as blocking:
        converter.convert(objects, "harbor.example.com/v2")
    assert str(awaited.value) == str(blocking.value)
    assert "dial tcp 127.0.0.1:1: connect: connection refused" in str(awaited.value)


def test_an_unreachable_webhook_names_the_dial_error() -> None:
    converter = WebhookConverter(crd("https://127.0.0.1:1/convert", None))
    with pytest.raises(ConversionFailed) as failed:
        converter.convert([boat("v1", {"size": 1})], "harbor.example.com/v2")
    assert str(failed.value) == (
        "conversion webhook for harbor.example.com/v1, Kind=Boat failed: Post "
        '"https://127.0.0.1:1/convert?timeout=30s": dial tcp 127.0.0.1:1: '
        "connect: connection refused"
    )


@asynccontextmanager
async def answering(tmp_path: Path, reply: Any) -> AsyncIterator[tuple[str, ServingCert]]:
    """A webhook that answers ``reply(review)`` whatever it is sent."""
    cert = ServingCert.generate(["127.0.0.1"])
    cert.write(tmp_path)
    import ssl

    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(tmp_path / "tls.crt", tmp_path / "tls.key")

    async def handle(request: web.Request) -> web.Response:
        return web.json_response(reply(await request.json()))

    app = web.Application()
    app.router.add_post("/convert", handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=context)
    await site.start()
    port = runner.addresses[0][1]
    try:
        yield f"https://127.0.0.1:{port}/convert", cert
    finally:
        await runner.cleanup()


def _answer(review: dict[str, Any], objects: list[Any], uid: str | None = None) -> dict[str, Any]:
    response = {
        "uid": uid or review["request"]["uid"],
        "result": {"status": "Success"},
        "convertedObjects": objects,
    }
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "ConversionReview",
        "response": response,
    }


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (lambda r: _answer(r, [], uid="other"), 'expected response.uid="{uid}", got "other"'),
        (lambda r: _answer(r, []), "returned 0 objects, expected 1"),
        (
            lambda r: _answer(r, [{**r["request"]["objects"][0]}]),
            "returned invalid object at index 0: invalid groupVersion "
            "(expected harbor.example.com/v2, received harbor.example.com/v1)",
        ),
        (
            lambda r: _answer(
                r,
                [
                    {
                        **r["request"]["objects"][0],
                        "apiVersion": "harbor.example.com/v2",
                        "metadata": {"name": "x"},
                    }
                ],
            ),
            "returned invalid object: must have the same name: b != x",
        ),
        (
            lambda r: {
                **_answer(r, []),
                "response": {
                    "uid": r["request"]["uid"],
                    "result": {"status": "Failure", "message": "nope"},
                },
            },
            "failed: nope",
        ),
    ],
)
async def test_a_malformed_answer_is_refused(tmp_path: Path, reply: Any, message: str) -> None:
    seen: list[str] = []

    def recording(review: dict[str, Any]) -> Any:
        seen.append(review["request"]["uid"])
        assert review["request"]["desiredAPIVersion"] == "harbor.example.com/v2"
        return reply(review)

    async with answering(tmp_path, recording) as (url, cert):
        converter = WebhookConverter(crd(url, cert.ca_pem))
        with pytest.raises(ConversionFailed) as failed:
            await converter.convert_async([boat("v1", {"size": 1})], "harbor.example.com/v2")
    assert message.format(uid=seen[0]) in str(failed.value)
    json.dumps(seen)
