"""ResourceQuota end to end over raw HTTP: the resourcequota controller fills each
quota's status, the ResourceQuota admission plugin charges and refuses writes against
it (403 Forbidden, in kube-apiserver 1.32's words), and both are switched by the
kube-apiserver and kube-controller-manager flags."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from kf_http import Api, open_api, pod
from kf_plane import until

from kubeforge.testing import LocalApiServer

pytestmark = pytest.mark.live


def _quota(name: str, **hard: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": name},
        "spec": {"hard": hard},
    }


def _with_cpu(name: str, cpu: str, **annotations: str) -> dict[str, Any]:
    body = pod(name)
    body["metadata"]["annotations"] = annotations
    body["spec"]["containers"][0]["resources"] = {"requests": {"cpu": cpu}}
    return body


async def _counted(api: Api, namespace: str, name: str, **hard: str) -> dict[str, Any]:
    """Create a quota and wait until the controller has recorded its usage."""
    path = f"/api/v1/namespaces/{namespace}/resourcequotas"
    reply = await api.post(path, _quota(name, **hard))
    assert reply.status == 201, reply.body
    return await until(api, f"{path}/{name}", lambda q: "used" in (q.get("status") or {}))


def _used(quota: dict[str, Any]) -> dict[str, str]:
    return dict(quota["status"]["used"])


async def test_the_controller_fills_hard_and_used(api: Api, namespace: str) -> None:
    pods = f"/api/v1/namespaces/{namespace}/pods"
    assert (await api.post(pods, _with_cpu("before", "250m"))).status == 201
    quota = await _counted(api, namespace, "q", pods="5", **{"requests.cpu": "2000m"})
    assert quota["status"]["hard"] == {"pods": "5", "requests.cpu": "2"}
    assert _used(quota) == {"pods": "1", "requests.cpu": "250m"}


async def test_two_creates_at_once_cannot_both_take_the_last_pod(api: Api, namespace: str) -> None:
    await _counted(api, namespace, "one", pods="1")
    pods = f"/api/v1/namespaces/{namespace}/pods"
    replies = await asyncio.gather(api.post(pods, pod("a")), api.post(pods, pod("b")))
    assert sorted(r.status for r in replies) == [201, 403]
    (refused,) = [r for r in replies if r.status == 403]
    name = refused.body["details"]["name"]
    assert refused.body["reason"] == "Forbidden"
    assert refused.body["details"]["kind"] == "pods"
    assert refused.body["message"] == (
        f'pods "{name}" is forbidden: exceeded quota: one, requested: pods=1, '
        "used: pods=1, limited: pods=1"
    )
    stored = await api.get(f"/api/v1/namespaces/{namespace}/resourcequotas/one")
    assert _used(stored.body) == {"pods": "1"}  # charged by admission, before any recount


async def test_a_finished_or_deleted_pod_gives_its_share_back(api: Api, namespace: str) -> None:
    pods = f"/api/v1/namespaces/{namespace}/pods"
    await _counted(api, namespace, "q", pods="1")
    quick = pod("quick")
    quick["metadata"]["annotations"] = {"kubeforge.dev/exit-after": "0"}
    quick["spec"]["restartPolicy"] = "Never"
    assert (await api.post(pods, quick)).status == 201
    path = f"/api/v1/namespaces/{namespace}/resourcequotas/q"
    await until(api, path, lambda q: _used(q) == {"pods": "0"})
    assert (await api.post(pods, pod("next"))).status == 201
    assert (await api.delete(f"{pods}/next", {"gracePeriodSeconds": 0})).status == 200
    await until(api, path, lambda q: _used(q) == {"pods": "0"})


async def test_a_spec_change_is_reflected_in_the_status(api: Api, namespace: str) -> None:
    quota = await _counted(api, namespace, "q", services="1")
    path = f"/api/v1/namespaces/{namespace}/resourcequotas/q"
    quota["spec"]["hard"] = {"services": "3", "secrets": "1"}
    assert (await api.put(path, quota)).status == 200
    changed = await until(api, path, lambda q: "secrets" in q["status"]["hard"])
    assert changed["status"] == {
        "hard": {"secrets": "1", "services": "3"},
        "used": {"secrets": "0", "services": "0"},
    }


async def test_a_dry_run_is_checked_but_not_charged(api: Api, namespace: str) -> None:
    await _counted(api, namespace, "secrets", **{"count/secrets": "1"})
    secrets = f"/api/v1/namespaces/{namespace}/secrets"
    reply = await api.post(secrets, _secret("dry"), params={"dryRun": "All"})
    assert reply.status == 201
    quota = await api.get(f"/api/v1/namespaces/{namespace}/resourcequotas/secrets")
    assert _used(quota.body) == {"count/secrets": "0"}
    assert (await api.post(secrets, _secret("real"))).status == 201
    over = await api.post(secrets, _secret("more"), params={"dryRun": "All"})
    assert over.status == 403
    assert "exceeded quota: secrets, requested: count/secrets=1" in over.body["message"]


def _secret(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name}}


async def test_service_node_ports_and_object_counts(api: Api, namespace: str) -> None:
    await _counted(
        api, namespace, "mixed", **{"services.nodeports": "1", "count/deployments.apps": "0"}
    )
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "web"},
        # Named ports: 1.32 requires a name of each port of a Service with several.
        "spec": {
            "type": "NodePort",
            "ports": [{"name": "http", "port": 80}, {"name": "https", "port": 443}],
        },
    }
    reply = await api.post(f"/api/v1/namespaces/{namespace}/services", service)
    assert reply.status == 403
    assert reply.body["message"] == (
        'services "web" is forbidden: exceeded quota: mixed, requested: services.nodeports=2, '
        "used: services.nodeports=0, limited: services.nodeports=1"
    )
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "d"},
        "spec": {
            "selector": {"matchLabels": {"app": "d"}},
            "template": {"metadata": {"labels": {"app": "d"}}, "spec": pod("x")["spec"]},
        },
    }
    reply = await api.post(f"/apis/apps/v1/namespaces/{namespace}/deployments", deployment)
    assert reply.status == 403
    assert reply.body["message"] == (
        'deployments.apps "d" is forbidden: exceeded quota: mixed, requested: '
        "count/deployments.apps=1, used: count/deployments.apps=0, limited: "
        "count/deployments.apps=0"
    )


def _crd(plural: str, group: str) -> dict[str, Any]:
    schema = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{group}"},
        "spec": {
            "group": group,
            "scope": "Namespaced",
            "names": {"plural": plural, "kind": "Widget"},
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {"openAPIV3Schema": schema},
                }
            ],
        },
    }


async def test_custom_resources_are_counted(api: Api, namespace: str) -> None:
    group = f"q{uuid.uuid4().hex[:8]}.example.com"
    crd = await api.post(
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", _crd("widgets", group)
    )
    assert crd.status == 201, crd.body
    widgets = f"/apis/{group}/v1/namespaces/{namespace}/widgets"
    await until(api, f"/apis/{group}/v1", lambda body: bool(body.get("resources")))
    widget = {"apiVersion": f"{group}/v1", "kind": "Widget", "metadata": {"name": "w1"}}
    assert (await api.post(widgets, widget)).status == 201
    quota = await _counted(api, namespace, "crs", **{f"count/widgets.{group}": "1"})
    assert _used(quota) == {f"count/widgets.{group}": "1"}
    widget["metadata"]["name"] = "w2"
    refused = await api.post(widgets, widget)
    assert refused.status == 403
    assert refused.body["message"] == (
        f'widgets.{group} "w2" is forbidden: exceeded quota: crs, requested: '
        f"count/widgets.{group}=1, used: count/widgets.{group}=1, limited: count/widgets.{group}=1"
    )


async def _server_api(server: LocalApiServer, test: Callable[[Api], Any]) -> None:
    session = await open_api(server)
    async with session:
        await test(Api(server, session))


async def test_the_flags_switch_the_plugin_and_the_controller(
    kube_apiserver_factory: Callable[..., LocalApiServer],
) -> None:
    async def over_the_limit_is_admitted_but_counted(api: Api) -> None:
        namespace = await api.create_namespace()
        await _counted(api, namespace, "q", pods="1")
        pods = f"/api/v1/namespaces/{namespace}/pods"
        for name in ("a", "b"):
            assert (await api.post(pods, pod(name))).status == 201
        quota = f"/api/v1/namespaces/{namespace}/resourcequotas/q"
        await until(api, quota, lambda q: _used(q) == {"pods": "2"})

    plugin_off = kube_apiserver_factory(extra_args=["--disable-admission-plugins=ResourceQuota"])
    await _server_api(plugin_off, over_the_limit_is_admitted_but_counted)

    async def never_counted_limits_nothing(api: Api) -> None:
        namespace = await api.create_namespace()
        path = f"/api/v1/namespaces/{namespace}/resourcequotas"
        assert (await api.post(path, _quota("q", pods="0"))).status == 201
        assert (await api.post(f"/api/v1/namespaces/{namespace}/pods", pod("a"))).status == 201
        quota = await api.get(f"{path}/q")
        assert quota.body["status"] == {}

    controller_off = kube_apiserver_factory(controllers="*,-resourcequota")
    await _server_api(controller_off, never_counted_limits_nothing)


async def test_a_pod_held_past_its_grace_period_is_no_longer_charged(
    api: Api, namespace: str
) -> None:
    pods = f"/api/v1/namespaces/{namespace}/pods"
    quota_path = f"/api/v1/namespaces/{namespace}/resourcequotas/q"
    await _counted(api, namespace, "q", pods="1", **{"count/pods": "5"})
    held = pod("held")
    held["metadata"]["finalizers"] = ["example.com/hold"]
    held["spec"]["nodeSelector"] = {"kubeforge.dev/no-such-node": "x"}  # never scheduled
    assert (await api.post(pods, held)).status == 201
    assert (await api.delete(f"{pods}/held")).status == 200
    # Still stored (the finalizer holds it), so still counted, but no longer a running pod.
    await until(api, quota_path, lambda q: _used(q) == {"count/pods": "1", "pods": "0"})
    assert (await api.post(pods, pod("next"))).status == 201
    release = {"metadata": {"finalizers": None}}
    await api.patch(f"{pods}/held", release, "application/merge-patch+json")
