"""Third-party clients against the local server: kubernetes_asyncio's watch and kr8s.

kubernetes_asyncio sends ``watch=True`` (Python's ``str(True)``): a real server reads
every boolean query parameter as apimachinery's ``Convert_Slice_string_To_bool`` does
(false only for ``0`` and ``false``, in any case), so the watch is a watch. kr8s
walks discovery through ``/api/`` and ``/apis/`` style URLs.
"""

from __future__ import annotations

import asyncio
import json
import ssl
import urllib.request
from typing import Any

import kr8s.asyncio
import pytest
from kubernetes_asyncio import client as aclient
from kubernetes_asyncio import config as aconfig
from kubernetes_asyncio import watch as awatch

from kubeforge.testing import LocalApiServer


async def _api_client(server: LocalApiServer) -> aclient.ApiClient:
    configuration = aclient.Configuration()
    await aconfig.load_kube_config(
        config_file=str(server.kubeconfig), client_configuration=configuration
    )
    return aclient.ApiClient(configuration)


async def test_kubernetes_asyncio_watch_sees_events(
    compat_server: LocalApiServer, namespace: str
) -> None:
    async with await _api_client(compat_server) as api:
        core = aclient.CoreV1Api(api)
        body = {"metadata": {"name": "seen"}, "data": {"a": "1"}}
        await core.create_namespaced_config_map(namespace, body)
        watcher = awatch.Watch()
        events: list[tuple[str, str]] = []
        stream = watcher.stream(core.list_namespaced_config_map, namespace, timeout_seconds=10)
        async with asyncio.timeout(30):
            async for event in stream:
                if event["object"].metadata.name == "kube-root-ca.crt":
                    continue  # the namespace's own ConfigMap, not the one this test watches
                events.append((event["type"], event["object"].metadata.name))
                if len(events) == 1:
                    await core.delete_namespaced_config_map("seen", namespace)
                if event["type"] == "DELETED":
                    break
        watcher.stop()
        assert events[0] == ("ADDED", "seen") and events[-1] == ("DELETED", "seen")


def _get(server: LocalApiServer, path: str) -> tuple[str, Any]:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    request = urllib.request.Request(
        server.url + path, headers={"Authorization": f"Bearer {server.token}"}
    )
    with urllib.request.urlopen(request, context=context, timeout=10) as response:
        first = response.readline()
        return response.headers["Content-Type"], json.loads(first)


@pytest.mark.parametrize("value", ["True", "yes", "", "TRUE", "2"])
def test_every_watch_value_but_0_and_false_is_a_watch(
    compat_server: LocalApiServer, value: str
) -> None:
    _, first = _get(compat_server, f"/api/v1/namespaces?watch={value}&timeoutSeconds=1")
    assert first["type"] == "ADDED", first


@pytest.mark.parametrize("value", ["0", "false", "False", "FALSE"])
def test_0_and_false_in_any_case_are_a_list(compat_server: LocalApiServer, value: str) -> None:
    _, body = _get(compat_server, f"/api/v1/namespaces?watch={value}")
    assert body["kind"] == "NamespaceList"


async def test_kr8s_discovery_walks_the_trailing_slash_urls(compat_server: LocalApiServer) -> None:
    api = await kr8s.asyncio.api(kubeconfig=str(compat_server.kubeconfig))
    versions = [version async for version in api.api_versions()]
    assert "v1" in versions and "apps/v1" in versions
    resources = await api.api_resources()
    names = {(r["version"], r["name"]) for r in resources}
    assert ("v1", "pods") in names and ("apps/v1", "deployments") in names


@pytest.mark.parametrize("path", ["/api", "/apis", "/api/v1", "/apis/apps", "/apis/apps/v1"])
def test_discovery_with_a_trailing_slash_is_the_same_answer(
    compat_server: LocalApiServer, path: str
) -> None:
    assert _get(compat_server, path + "/") == _get(compat_server, path)
