"""Hub-and-spoke conversion served at /convert over HTTPS with ConversionReview v1 bodies."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

import msgspec
import pytest

from kubeforge.apiserver.apiextensions.conversion_webhook import (
    ConversionFailed,
    WebhookConverter,
)
from kubeforge.core.meta import Model
from kubeforge.core.resource import Resource, ResourceInfo
from kubeforge.webhook import (
    CONVERT_PATH,
    Conversion,
    TypeWebhooks,
    conversion_spec,
    url_client_config,
)

from .kf_webhook import Ship, ShipSpec, post, running_server


class LengthSpec(Model):
    length: int = 0
    paint: str = ""


class ShipV2(Resource):
    info = ResourceInfo("fleet.example.com", "v2", "Ship", "ships")
    spec: LengthSpec = msgspec.field(default_factory=LengthSpec)


class ShipV3(Resource):
    info = ResourceInfo("fleet.example.com", "v3", "Ship", "ships")
    spec: LengthSpec = msgspec.field(default_factory=LengthSpec)


def v2_to_hub(src: ShipV2) -> Ship:
    if src.spec.length < 0:
        raise ValueError("a ship has no negative length")
    return Ship(metadata=src.metadata, spec=ShipSpec(size=src.spec.length, color=src.spec.paint))


def v2_from_hub(hub: Ship) -> ShipV2:
    metadata = hub.metadata
    metadata.annotations = {**(metadata.annotations or {}), "fleet.example.com/from": "v1"}
    return ShipV2(metadata=metadata, spec=LengthSpec(length=hub.spec.size, paint=hub.spec.color))


def v3_to_hub(src: ShipV3) -> Ship:
    return Ship(spec=ShipSpec(size=src.spec.length // 10, color=src.spec.paint))


def v3_from_hub(hub: Ship) -> ShipV3:
    return ShipV3(spec=LengthSpec(length=hub.spec.size * 10, paint=hub.spec.color))


CONVERSION = (
    Conversion(hub=Ship)
    .spoke(ShipV2, to_hub=v2_to_hub, from_hub=v2_from_hub)
    .spoke(ShipV3, to_hub=v3_to_hub, from_hub=v3_from_hub)
)


def _review(desired: str, *objects: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "ConversionReview",
        "request": {"uid": str(uuid.uuid4()), "desiredAPIVersion": desired, "objects": objects},
    }


def _obj(version: str, spec: dict[str, Any], **metadata: Any) -> dict[str, Any]:
    return {
        "apiVersion": f"fleet.example.com/{version}",
        "kind": "Ship",
        "metadata": {
            "name": "s",
            "namespace": "default",
            "uid": "0d4c",
            "resourceVersion": "12",
            "generation": 3,
            "creationTimestamp": "2026-01-01T00:00:00Z",
            **metadata,
        },
        "spec": spec,
    }


async def _convert(tmp_path: Path, body: dict[str, Any]) -> dict[str, Any]:
    async with running_server(tmp_path) as (server, cert):
        TypeWebhooks(Ship, conversion=CONVERSION).register(server)
        await server.start()
        status, answer = await post(server, cert, CONVERT_PATH, body)
    assert status == 200
    assert answer["apiVersion"] == "apiextensions.k8s.io/v1"
    assert answer["kind"] == "ConversionReview"
    assert answer["response"]["uid"] == body["request"]["uid"]
    response: dict[str, Any] = answer["response"]
    return response


async def test_a_spoke_converts_to_the_hub_keeping_metadata(tmp_path: Path) -> None:
    sent = _obj("v2", {"length": 4, "paint": "red"}, labels={"a": "b"}, annotations={"x": "y"})
    response = await _convert(tmp_path, _review("fleet.example.com/v1", sent))
    assert response["result"] == {"metadata": {}, "status": "Success"}
    assert response["convertedObjects"] == [
        {**sent, "apiVersion": "fleet.example.com/v1", "spec": {"size": 4, "color": "red"}}
    ]


async def test_spoke_to_spoke_goes_through_the_hub(tmp_path: Path) -> None:
    sent = _obj("v3", {"length": 40, "paint": "blue"})
    response = await _convert(tmp_path, _review("fleet.example.com/v2", sent))
    converted = response["convertedObjects"][0]
    assert converted["apiVersion"] == "fleet.example.com/v2"
    assert converted["spec"] == {"length": 4, "paint": "blue"}
    # v3_to_hub dropped the metadata: what was sent comes back regardless, and the
    # annotation v2_from_hub added is kept.
    assert converted["metadata"] == {
        **sent["metadata"],
        "annotations": {"fleet.example.com/from": "v1"},
    }


async def test_unknown_fields_and_annotations_round_trip(tmp_path: Path) -> None:
    sent = _obj(
        "v1",
        {"size": 2, "color": "green", "crew": {"captain": "Ahab"}},
        annotations={"note": "keep me"},
    )
    sent["status"] = {"afloat": True}
    there = await _convert(tmp_path, _review("fleet.example.com/v2", sent))
    spoke = there["convertedObjects"][0]
    assert spoke["spec"]["crew"] == {"captain": "Ahab"}
    assert spoke["status"] == {"afloat": True}
    back = await _convert(tmp_path, _review("fleet.example.com/v1", spoke))
    hub = back["convertedObjects"][0]
    assert hub["spec"] == sent["spec"]
    assert hub["status"] == sent["status"]
    assert hub["metadata"]["annotations"] == {"note": "keep me", "fleet.example.com/from": "v1"}


async def test_a_failing_converter_fails_the_review_with_its_error(tmp_path: Path) -> None:
    response = await _convert(tmp_path, _review("fleet.example.com/v1", _obj("v2", {"length": -1})))
    assert "convertedObjects" not in response
    assert response["result"] == {
        "metadata": {},
        "status": "Failure",
        "message": "Ship v2 failed to convert to hub version v1: a ship has no negative length",
    }


@pytest.mark.parametrize(
    ("desired", "obj", "message"),
    [
        (
            "fleet.example.com/v9",
            _obj("v2", {}),
            "fleet.example.com/v9 Ship is not one of the versions of the conversion "
            "(fleet.example.com/v1, fleet.example.com/v2, fleet.example.com/v3)",
        ),
        (
            "fleet.example.com/v1",
            {**_obj("v2", {}), "kind": "Boat"},
            'no conversion is registered for kind "Boat" of "fleet.example.com"',
        ),
    ],
)
async def test_unknown_versions_and_kinds_fail_the_review(
    tmp_path: Path, desired: str, obj: dict[str, Any], message: str
) -> None:
    response = await _convert(tmp_path, _review(desired, obj))
    assert response["result"]["status"] == "Failure"
    assert response["result"]["message"] == message


async def test_a_review_that_is_not_json_is_a_400(tmp_path: Path) -> None:
    async with running_server(tmp_path) as (server, cert):
        TypeWebhooks(Ship, conversion=CONVERSION).register(server)
        await server.start()
        status, _ = await post(server, cert, CONVERT_PATH, b"{not json")
    assert status == 400


def test_conversions_are_declared_on_the_hub_with_distinct_versions() -> None:
    with pytest.raises(ValueError, match="must be declared with its hub"):
        TypeWebhooks(ShipV2, conversion=CONVERSION)
    with pytest.raises(ValueError, match="declared twice"):
        Conversion(hub=Ship).spoke(Ship, to_hub=lambda s: s, from_hub=lambda h: h)

    class Boat(Resource):
        info = ResourceInfo("fleet.example.com", "v2", "Boat", "boats")

    with pytest.raises(ValueError, match=r"is not a version of fleet\.example\.com Ship"):
        Conversion(hub=Ship).spoke(Boat, to_hub=lambda s: s, from_hub=lambda h: h)


def test_conversion_works_without_a_server_too() -> None:
    out = CONVERSION.convert(_obj("v1", {"size": 1}), "fleet.example.com/v3")
    assert out["apiVersion"] == "fleet.example.com/v3"
    # v3_from_hub passes paint=hub.spec.color, which reads "" (unset): set, so sent.
    assert out["spec"] == {"length": 10, "paint": ""}


async def test_the_local_server_s_conversion_client_accepts_the_answers(tmp_path: Path) -> None:
    """The API server side (``apiserver.apiextensions.conversion_webhook``, written from
    apiextensions-apiserver 1.32) checks uid, count, apiVersion, kind, name and uid of
    every converted object, and that only labels and annotations changed."""
    async with running_server(tmp_path) as (server, cert):
        TypeWebhooks(Ship, conversion=CONVERSION).register(server)
        await server.start()
        client_config = url_client_config(
            f"https://127.0.0.1:{server.port}", CONVERT_PATH, cert.ca_bundle
        )
        crd = {
            "spec": {
                "group": "fleet.example.com",
                "names": {"kind": "Ship"},
                "conversion": conversion_spec(client_config),
            }
        }
        converter = WebhookConverter(crd)
        objects = [_obj("v2", {"length": 4, "paint": "red"}), _obj("v1", {"size": 1})]
        converted = await asyncio.to_thread(converter.convert, objects, "fleet.example.com/v3")
        assert [o["spec"] for o in converted] == [
            {"length": 40, "paint": "red"},
            {"length": 10, "paint": ""},
        ]
        with pytest.raises(ConversionFailed) as failed:
            await asyncio.to_thread(
                converter.convert, [_obj("v2", {"length": -1})], "fleet.example.com/v1"
            )
    assert str(failed.value) == (
        "conversion webhook for fleet.example.com/v2, Kind=Ship failed: "
        "Ship v2 failed to convert to hub version v1: a ship has no negative length"
    )
