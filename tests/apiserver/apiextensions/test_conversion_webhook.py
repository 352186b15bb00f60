"""Conversion webhooks on the local server, served by a real Python TLS webhook (kubeforge.webhook,
installed as envtest would): writes to the non-storage version, reads, lists, watches and
``kubectl get`` of either version go through it; old objects stay readable when the
storage version changes; a webhook that is gone fails the request with the real message."""

from __future__ import annotations

import asyncio
import json
import subprocess
import uuid
from typing import Any

import msgspec
import pytest
from kf_http import Api

from kubeforge.core.meta import Model
from kubeforge.core.resource import Resource, ResourceInfo
from kubeforge.runtime import Manager
from kubeforge.testing import LocalApiServer
from kubeforge.testing.webhooks import serve_webhooks
from kubeforge.webhook import Conversion, TypeWebhooks

pytestmark = pytest.mark.live

GROUP = "convert.example.com"
CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"


class SizeSpec(Model):
    size: int = 0


class LengthSpec(Model):
    length: int = 0


def _kinds(plural: str, kind: str) -> tuple[type[Resource], type[Resource]]:
    hub = type(
        kind,
        (Resource,),
        {
            "__annotations__": {"spec": SizeSpec},
            "spec": msgspec.field(default_factory=SizeSpec),
            "info": ResourceInfo(GROUP, "v1", kind, plural),
        },
    )
    spoke = type(
        f"{kind}V2",
        (Resource,),
        {
            "__annotations__": {"spec": LengthSpec},
            "spec": msgspec.field(default_factory=LengthSpec),
            "info": ResourceInfo(GROUP, "v2", kind, plural),
        },
    )
    return hub, spoke


def _crd(plural: str, kind: str, storage: str = "v1") -> dict[str, Any]:
    def version(name: str, field: str) -> dict[str, Any]:
        spec = {"type": "object", "properties": {field: {"type": "integer"}}}
        schema = {"type": "object", "properties": {"spec": spec}}
        return {"name": name, "served": True, "storage": name == storage,
                "schema": {"openAPIV3Schema": schema}}  # fmt: skip

    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{GROUP}"},
        "spec": {
            "group": GROUP,
            "scope": "Namespaced",
            "names": {"plural": plural, "kind": kind, "singular": kind.lower()},
            "versions": [version("v1", "size"), version("v2", "length")],
        },
    }


async def _established(api: Api, name: str) -> None:
    for _ in range(100):
        got = await api.get(f"{CRD_PATH}/{name}")
        conditions = {
            c["type"]: c["status"] for c in got.body.get("status", {}).get("conditions", [])
        }
        if conditions.get("Established") == "True":
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{name} never established")


def _kubectl(server: LocalApiServer, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["kubectl", "--kubeconfig", str(server.kubeconfig), *args],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip


def _paths(namespace: str, plural: str) -> tuple[str, str]:
    """The collection paths of the two versions."""
    v1, v2 = (f"/apis/{GROUP}/{v}/namespaces/{namespace}/{plural}" for v in ("v1", "v2"))
    return v1, v2


def _object(version: str, kind: str, name: str, spec: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": f"{GROUP}/{version}",
        "kind": kind,
        "metadata": {"name": name},
        "spec": spec,
    }


async def _setup(api: Api) -> tuple[str, str, Any]:
    plural = "c" + uuid.uuid4().hex[:8] + "s"
    kind = "C" + plural[1:-1]
    hub, spoke = _kinds(plural, kind)
    conversion = Conversion(hub=hub).spoke(
        spoke,
        to_hub=lambda s: hub(metadata=s.metadata, spec=SizeSpec(size=s.spec.length)),
        from_hub=lambda h: spoke(metadata=h.metadata, spec=LengthSpec(length=h.spec.size)),
    )
    reply = await api.post(CRD_PATH, _crd(plural, kind))
    assert reply.status == 201, reply.body

    def setup(mgr: Manager) -> None:
        TypeWebhooks(hub, conversion=conversion).complete(mgr)

    return plural, kind, setup


async def test_every_path_converts_through_the_webhook(
    api: Api, namespace: str, kube_apiserver: LocalApiServer
) -> None:
    plural, kind, setup = await _setup(api)
    async with serve_webhooks(kube_apiserver.kubeconfig, setup):
        crd = await api.get(f"{CRD_PATH}/{plural}.{GROUP}")
        assert crd.body["spec"]["conversion"]["strategy"] == "Webhook"
        await _established(api, f"{plural}.{GROUP}")
        v1, v2 = _paths(namespace, plural)
        created = await api.post(v2, _object("v2", kind, "a", {"length": 4}))
        assert created.status == 201, created.body
        assert created.body["spec"] == {"length": 4}
        # stored at v1 through the webhook, read back at either version
        assert (await api.get(f"{v1}/a")).body["spec"] == {"size": 4}
        assert (await api.get(f"{v2}/a")).body["spec"] == {"length": 4}
        await api.post(v1, _object("v1", kind, "b", {"size": 7}))
        listed = await api.get(v2)
        assert [(i["apiVersion"], i["spec"]) for i in listed.body["items"]] == [
            (f"{GROUP}/v2", {"length": 4}), (f"{GROUP}/v2", {"length": 7}),
        ]  # fmt: skip
        patched = await api.patch(
            f"{v2}/a", {"spec": {"length": 5}}, "application/merge-patch+json"
        )
        assert patched.body["spec"] == {"length": 5}
        assert (await api.get(f"{v1}/a")).body["spec"] == {"size": 5}
        events = [e async for e in api.watch(v2, resourceVersion="0", timeoutSeconds="1")]
        assert {(e["object"]["apiVersion"], e["object"]["spec"]["length"]) for e in events} == {
            (f"{GROUP}/v2", 5), (f"{GROUP}/v2", 7),
        }  # fmt: skip
        for version, field in (("v1", "size"), ("v2", "length")):
            shown = await asyncio.to_thread(
                _kubectl,
                kube_apiserver,
                "get",
                f"{plural}.{version}.{GROUP}",
                "a",
                "-n",
                namespace,
                "-o",
                "json",
            )
            assert shown.returncode == 0, shown.stderr
            assert json.loads(shown.stdout)["spec"] == {field: 5}


async def test_old_objects_stay_readable_when_the_storage_version_changes(
    api: Api, namespace: str, kube_apiserver: LocalApiServer
) -> None:
    plural, kind, setup = await _setup(api)
    async with serve_webhooks(kube_apiserver.kubeconfig, setup):
        await _established(api, f"{plural}.{GROUP}")
        v1, v2 = _paths(namespace, plural)
        assert (await api.post(v1, _object("v1", kind, "old", {"size": 3}))).status == 201
        crd = (await api.get(f"{CRD_PATH}/{plural}.{GROUP}")).body
        for version in crd["spec"]["versions"]:
            version["storage"] = version["name"] == "v2"
        assert (await api.put(f"{CRD_PATH}/{plural}.{GROUP}", crd)).status == 200
        assert (await api.post(v2, _object("v2", kind, "new", {"length": 8}))).status == 201
        assert (await api.get(f"{v2}/old")).body["spec"] == {"length": 3}
        assert (await api.get(f"{v1}/new")).body["spec"] == {"size": 8}


async def test_a_webhook_that_is_gone_fails_reads_of_the_other_version(
    api: Api, namespace: str, kube_apiserver: LocalApiServer
) -> None:
    plural, kind, setup = await _setup(api)
    name = f"{plural}.{GROUP}"
    async with serve_webhooks(kube_apiserver.kubeconfig, setup):
        await _established(api, name)
        conversion = (await api.get(f"{CRD_PATH}/{name}")).body["spec"]["conversion"]
        v1, v2 = _paths(namespace, plural)
        assert (await api.post(v1, _object("v1", kind, "a", {"size": 1}))).status == 201
    # the webhook server has stopped; point the CRD at it again, as a stale config would
    patch = {"spec": {"conversion": conversion}}
    assert (
        await api.patch(f"{CRD_PATH}/{name}", patch, "application/merge-patch+json")
    ).status == 200
    url = conversion["webhook"]["clientConfig"]["url"]
    failed = await api.get(f"{v2}/a")
    assert failed.status == 500
    assert "reason" not in failed.body
    port = url.split(":")[2].split("/")[0]
    assert failed.body["message"] == (
        f"conversion webhook for {GROUP}/v1, Kind={kind} failed: "
        f'Post "{url}?timeout=30s": dial tcp 127.0.0.1:{port}: connect: connection refused'
    )
    assert (await api.get(f"{v1}/a")).status == 200  # the stored version needs no conversion


async def test_a_webhook_strategy_is_checked_when_the_crd_is_written(api: Api) -> None:
    crd = _crd(f"checked{uuid.uuid4().hex[:6]}", "Checked")
    crd["spec"]["conversion"] = {"strategy": "Webhook"}
    refused = await api.post(CRD_PATH, crd)
    assert refused.status == 422
    causes = {(c["field"], c["message"]) for c in refused.body["details"]["causes"]}
    assert causes == {
        ("spec.conversion.webhookClientConfig",
         "Required value: required when strategy is set to Webhook"),
        ("spec.conversion.conversionReviewVersions", "Required value"),
    }  # fmt: skip
    crd["spec"]["conversion"]["webhook"] = {
        "clientConfig": {"url": "http://127.0.0.1:1/convert"},
        "conversionReviewVersions": ["v2"],
    }
    refused = await api.post(CRD_PATH, crd)
    causes = {(c["field"], c["message"]) for c in refused.body["details"]["causes"]}
    assert causes == {
        ("spec.conversion.webhookClientConfig.url",
         "Invalid value: \"http\": 'https' is the only allowed URL scheme"
         "; desired format: https://host[/path]"),
        ("spec.conversion.conversionReviewVersions",
         'Invalid value: []string{"v2"}: must include at least one of v1, v1beta1'),
    }  # fmt: skip


async def test_a_conversion_service_is_checked_with_the_admission_webhooks_rules(api: Api) -> None:
    crd = _crd(f"service{uuid.uuid4().hex[:6]}", "Serviced")
    crd["spec"]["conversion"] = {
        "strategy": "Webhook",
        "webhook": {
            "clientConfig": {"service": {"name": "convert", "path": "no-slash", "port": 0}},
            "conversionReviewVersions": ["v1"],
        },
    }
    refused = await api.post(CRD_PATH, crd)
    assert refused.status == 422
    causes = [(c["field"], c["message"]) for c in refused.body["details"]["causes"]]
    service = "spec.conversion.webhookClientConfig.service"
    assert causes == [
        # The missing namespace is blamed on the name, as 1.32's swapped arguments do.
        (f"{service}.name", "Required value"),
        (f"{service}.port",
         "Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive"),
        (f"{service}.path", "Invalid value: \"no-slash\": must start with a '/'"),
    ]  # fmt: skip
