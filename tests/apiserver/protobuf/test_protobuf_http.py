"""Protobuf over HTTP: bodies in, answers out, DeleteOptions, and the 400 for a bad body."""

from __future__ import annotations

from typing import Any

from kf_http import Api, configmap

from kubeforge.apiserver.protobuf import wire
from kubeforge.apiserver.protobuf.writer import Writer

PROTOBUF = "application/vnd.kubernetes.protobuf"


def _pb(obj: dict[str, Any]) -> bytes:
    encoded = wire.encode(obj)
    assert encoded is not None
    return encoded


async def _get_protobuf(api: Api, path: str) -> tuple[int, str, bytes]:
    headers = {**api.headers(), "Accept": f"{PROTOBUF}, application/json"}
    async with api.session.get(api.server.url + path, headers=headers) as response:
        return response.status, response.content_type, await response.read()


async def test_a_protobuf_body_is_stored_whole_and_read_back_in_protobuf(
    api: Api, namespace: str
) -> None:
    cm = configmap("settings", level="debug") | {"binaryData": {"blob": "AAEC"}}
    cm["immutable"] = False  # a *bool: its false is kept
    created = await api.post(
        f"/api/v1/namespaces/{namespace}/configmaps", None, raw=_pb(cm), content_type=PROTOBUF
    )
    assert created.status == 201, created.body
    status, content_type, body = await _get_protobuf(
        api, f"/api/v1/namespaces/{namespace}/configmaps/settings"
    )
    assert (status, content_type) == (200, PROTOBUF)
    decoded = wire.decode(body)
    assert decoded["data"] == {"level": "debug"} and decoded["binaryData"] == {"blob": "AAEC"}
    assert decoded["immutable"] is False
    assert decoded["metadata"]["uid"] == created.body["metadata"]["uid"]


async def test_an_unknown_field_number_is_a_400_in_the_decoders_words(
    api: Api, namespace: str
) -> None:
    payload = Writer()
    payload.string(99, "surprise")
    meta = Writer()
    meta.string(1, "v1")
    meta.string(2, "ConfigMap")
    envelope = Writer()
    envelope.message(1, meta.getvalue())
    envelope.message(2, payload.getvalue())
    raw = wire.MAGIC + envelope.getvalue()
    reply = await api.post(
        f"/api/v1/namespaces/{namespace}/configmaps", None, raw=raw, content_type=PROTOBUF
    )
    assert reply.status == 400 and reply.reason == "BadRequest"
    assert reply.body["message"] == (
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: '
        "proto: ConfigMap: unknown field number 99 (wire type 2)"
    )


async def test_protobuf_delete_options_are_read(api: Api, namespace: str) -> None:
    created = await api.post(f"/api/v1/namespaces/{namespace}/configmaps", configmap("gone"))
    path = f"/api/v1/namespaces/{namespace}/configmaps/gone"
    wrong = {"apiVersion": "v1", "kind": "DeleteOptions", "preconditions": {"uid": "not-it"}}
    refused = await api.request("DELETE", path, raw=_pb(wrong), content_type=PROTOBUF)
    assert refused.status == 409 and refused.reason == "Conflict"
    right = {"apiVersion": "v1", "kind": "DeleteOptions", "gracePeriodSeconds": 0}
    right["preconditions"] = {"uid": created.body["metadata"]["uid"]}
    deleted = await api.request("DELETE", path, raw=_pb(right), content_type=PROTOBUF)
    assert deleted.status == 200, deleted.body
    assert (await api.get(path)).status == 404


async def test_the_first_accept_entry_decides_protobuf_or_json(api: Api) -> None:
    status, content_type, _ = await _get_protobuf(api, "/api/v1/namespaces/default")
    assert (status, content_type) == (200, PROTOBUF)
    headers = {**api.headers(), "Accept": "application/json"}
    async with api.session.get(api.server.url + "/api/v1/namespaces/default", headers=headers) as r:
        assert r.content_type == "application/json"
