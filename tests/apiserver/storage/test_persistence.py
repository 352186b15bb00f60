"""Every acknowledged write survives SIGTERM and SIGKILL; so do the CA, token and watch history."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from kf_http import Api, configmap, open_api

from kubeforge.testing import LocalApiServer


@pytest.mark.parametrize("how", ["stop", "kill"])
async def test_objects_survive_a_restart_with_the_same_resource_version(
    kube_apiserver_factory: Callable[..., LocalApiServer], how: str
) -> None:
    server = kube_apiserver_factory()
    async with await open_api(server) as session:
        api = Api(server, session)
        created = (
            await api.post("/api/v1/namespaces/default/configmaps", configmap("keep", a="1"))
        ).body
    token, url = server.token, server.url
    getattr(server, how)()
    server.start()
    assert (server.token, server.url) == (token, url)  # old kubeconfigs stay valid
    async with await open_api(server) as session:
        api = Api(server, session)
        got = await api.get("/api/v1/namespaces/default/configmaps/keep")
        assert got.status == 200
        assert got.body == created
        later = (await api.post("/api/v1/namespaces/default/configmaps", configmap("next"))).body
    assert int(later["metadata"]["resourceVersion"]) > int(created["metadata"]["resourceVersion"])


async def test_a_watch_can_resume_across_a_restart(
    kube_apiserver_factory: Callable[..., LocalApiServer],
) -> None:
    server = kube_apiserver_factory()
    path = "/api/v1/namespaces/default/configmaps"
    async with await open_api(server) as session:
        api = Api(server, session)
        start = (await api.get(path)).body["metadata"]["resourceVersion"]
        await api.post(path, configmap("before-restart"))
    server.kill()
    server.start()
    async with await open_api(server) as session:
        api = Api(server, session)
        events = []
        async for event in api.watch(path, resourceVersion=start, timeoutSeconds="5"):
            events.append(event)
            break
    assert events[0]["type"] == "ADDED"
    assert events[0]["object"]["metadata"]["name"] == "before-restart"


async def test_an_in_memory_server_starts_empty_after_a_restart(
    kube_apiserver_factory: Callable[..., LocalApiServer],
) -> None:
    server = kube_apiserver_factory(data_dir=None)
    async with await open_api(server) as session:
        api = Api(server, session)
        await api.post("/api/v1/namespaces/default/configmaps", configmap("lost"))
    server.restart()
    async with await open_api(server) as session:
        api = Api(server, session)
        assert (await api.get("/api/v1/namespaces/default/configmaps/lost")).status == 404
        assert (await api.get("/api/v1/namespaces/default")).status == 200
