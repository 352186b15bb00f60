"""Bad input always gets a Status body; authentication and TLS are enforced."""

from __future__ import annotations

import asyncio
from urllib.parse import urlsplit

import aiohttp
from kf_http import Api, configmap

from kubeforge.testing import LocalApiServer


async def test_requests_without_or_with_a_wrong_token_are_401_status(api: Api) -> None:
    for headers in ({}, {"Authorization": "Bearer wrong"}):
        async with api.session.get(api.server.url + "/api/v1/namespaces", headers=headers) as r:
            assert r.status == 401
            body = await r.json()
            assert body["kind"] == "Status"
            assert body["reason"] == "Unauthorized"


async def test_health_endpoints_are_open_and_answer_ok(api: Api) -> None:
    for path in ("/healthz", "/livez", "/readyz"):
        async with api.session.get(api.server.url + path) as response:
            assert response.status == 200
            assert await response.text() == "ok"


async def test_plain_http_to_the_tls_port_gets_no_http_answer(
    kube_apiserver: LocalApiServer,
) -> None:
    host_port = urlsplit(kube_apiserver.url)
    reader, writer = await asyncio.open_connection(host_port.hostname, host_port.port)
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    await writer.drain()
    try:
        data = await asyncio.wait_for(reader.read(1024), timeout=10)
    except (OSError, ConnectionResetError):
        data = b""
    finally:
        writer.close()
    assert not data.startswith(b"HTTP/")


async def test_malformed_json_is_400_status(api: Api, namespace: str) -> None:
    reply = await api.request(
        "POST", f"/api/v1/namespaces/{namespace}/configmaps", raw=b'{"metadata": '
    )
    assert reply.status == 400
    assert reply.body["kind"] == "Status"
    assert reply.reason == "BadRequest"


async def test_yaml_bodies_are_accepted_and_malformed_yaml_is_400(api: Api, namespace: str) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    good = b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  a: b\n"
    reply = await api.request("POST", path, raw=good, content_type="application/yaml")
    assert reply.status == 201
    bad = await api.request("POST", path, raw=b"a: [b", content_type="application/yaml")
    assert bad.status == 400


async def test_an_unsupported_body_content_type_is_415(api: Api, namespace: str) -> None:
    reply = await api.request(
        "POST", f"/api/v1/namespaces/{namespace}/configmaps", raw=b"x", content_type="text/plain"
    )
    assert reply.status == 415
    assert reply.reason == "UnsupportedMediaType"


async def test_unknown_resources_groups_and_paths_are_404_status(api: Api) -> None:
    for path in ("/api/v1/widgets", "/apis/nope.example.com/v1/things", "/nothing/here"):
        reply = await api.get(path)
        assert reply.status == 404, path
        assert reply.body["kind"] == "Status"
    reply = await api.get("/api/v1/widgets")
    assert reply.body["message"] == "the server could not find the requested resource"


async def test_a_wrong_method_is_405_status(api: Api, namespace: str) -> None:
    reply = await api.post(f"/api/v1/namespaces/{namespace}/configmaps/x", configmap("x"))
    assert reply.status == 405
    assert reply.reason == "MethodNotAllowed"


async def test_a_body_over_3_mib_is_413(api: Api, namespace: str) -> None:
    huge = configmap("big", blob="x" * (3 * 1024 * 1024 + 10))
    reply = await api.post(f"/api/v1/namespaces/{namespace}/configmaps", huge)
    assert reply.status == 413
    assert reply.reason == "RequestEntityTooLarge"


async def test_the_kubeconfig_names_kubeforge_everywhere(kube_apiserver: LocalApiServer) -> None:
    import yaml

    config = yaml.safe_load(kube_apiserver.kubeconfig.read_text())
    assert config["current-context"] == "kubeforge"
    assert config["clusters"][0]["name"] == "kubeforge"
    assert config["users"][0]["name"] == "kubeforge"
    assert config["users"][0]["user"]["token"] == kube_apiserver.token
    assert config["clusters"][0]["cluster"]["server"].startswith("https://127.0.0.1:")
    assert kube_apiserver.token not in kube_apiserver.log()


async def test_server_certificate_is_rejected_without_the_ca(
    kube_apiserver: LocalApiServer,
) -> None:
    async with aiohttp.ClientSession() as session:
        try:
            async with session.get(kube_apiserver.url + "/healthz"):
                verified = True
        except aiohttp.ClientConnectorCertificateError:
            verified = False
    assert verified is False


async def test_unknown_fields_of_builtins_are_dropped_with_a_warning_or_refused_when_strict(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    body = {**configmap("typo", a="b"), "datta": {"x": "y"}}
    body["metadata"]["bogus"] = 1
    warned = await api.post(path, body)
    assert warned.status == 201
    assert "datta" not in warned.body
    assert "bogus" not in warned.body["metadata"]
    assert warned.headers.getall("Warning") == [
        '299 - "unknown field \\"metadata.bogus\\""',
        '299 - "unknown field \\"datta\\""',
    ]
    strict = await api.post(
        path, {**body, "metadata": {"name": "typo2"}}, params={"fieldValidation": "Strict"}
    )
    assert strict.status == 400
    assert strict.body["message"] == (
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: '
        'strict decoding error: unknown field "datta"'
    )
    ignored = await api.post(
        path, {**body, "metadata": {"name": "typo3"}}, params={"fieldValidation": "Ignore"}
    )
    assert ignored.status == 201
    assert "Warning" not in ignored.headers
