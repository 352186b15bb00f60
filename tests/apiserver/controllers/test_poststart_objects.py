"""What a fresh 1.32 API server makes and keeps by itself, over HTTP: the ``kubernetes``
Service with its Endpoints and EndpointSlice, ``extension-apiserver-authentication`` and
the identity Lease; put back when deleted or (where 1.32 does) changed, by the server's
own user; in the no-node (envtest) mode too."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from kf_http import Api, open_api
from kf_plane import until

from kubeforge.apiserver.controllers.identity import identity_lease_name
from kubeforge.testing import LocalApiServer

SERVICE = "/api/v1/namespaces/default/services/kubernetes"
ENDPOINTS = "/api/v1/namespaces/default/endpoints/kubernetes"
SLICE = "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes"
LEASES = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases"
CLIENT_CA = "/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication"


@pytest.fixture
async def fast(kube_apiserver_factory: Callable[..., LocalApiServer]) -> AsyncIterator[Api]:
    """A server of its own whose keepers pass every 0.2 s (1.32: 10 s), with no simulated
    node: these are the API server's own objects, there under envtest too."""
    server = kube_apiserver_factory(
        extra_args=["--post-start-interval", "0.2", "--no-simulate-node"]
    )
    session = await open_api(server)
    async with session:
        yield Api(server, session)


def uid(obj: dict[str, Any]) -> str:
    return str(obj["metadata"]["uid"])


async def test_the_kubernetes_service_is_the_one_1_32_makes(api: Api) -> None:
    service = (await api.get(SERVICE)).body
    assert service["metadata"]["labels"] == {"component": "apiserver", "provider": "kubernetes"}
    spec = service["spec"]
    assert spec["ports"] == [
        {"name": "https", "protocol": "TCP", "port": 443, "targetPort": api.server.port}
    ]
    assert spec["clusterIP"] == "10.96.0.1" and spec["clusterIPs"] == ["10.96.0.1"]
    assert spec["type"] == "ClusterIP" and spec["sessionAffinity"] == "None"
    assert spec["ipFamilyPolicy"] == "SingleStack" and spec["ipFamilies"] == ["IPv4"]
    assert "selector" not in spec


async def test_its_endpoints_and_slice_point_at_the_server(api: Api) -> None:
    endpoints = (await api.get(ENDPOINTS)).body
    assert endpoints["metadata"]["labels"] == {"endpointslice.kubernetes.io/skip-mirror": "true"}
    [subset] = endpoints["subsets"]
    [address] = subset["addresses"]
    assert subset["ports"] == [{"name": "https", "port": api.server.port, "protocol": "TCP"}]
    found = (await api.get(SLICE)).body
    assert found["metadata"]["labels"] == {"kubernetes.io/service-name": "kubernetes"}
    assert found["addressType"] == "IPv4"
    assert found["endpoints"] == [{"addresses": [address["ip"]], "conditions": {"ready": True}}]
    assert found["ports"] == [{"name": "https", "port": api.server.port, "protocol": "TCP"}]


async def test_client_ca_configmap_holds_the_ca_the_kubeconfig_trusts(api: Api) -> None:
    configmap = (await api.get(CLIENT_CA)).body
    assert configmap["data"] == {"client-ca-file": api.server.ca_file.read_text()}


async def test_the_identity_lease_names_this_host(api: Api) -> None:
    leases = (
        await api.get(LEASES, labelSelector="apiserver.kubernetes.io/identity=kube-apiserver")
    ).body["items"]
    [lease] = leases
    name = lease["metadata"]["name"]
    hostname = lease["metadata"]["labels"]["kubernetes.io/hostname"]
    assert name == identity_lease_name(hostname)
    holder, _, suffix = lease["spec"]["holderIdentity"].partition("_")
    assert holder == name and len(suffix) == 36
    assert lease["spec"]["leaseDurationSeconds"] == 3600
    assert lease["spec"]["renewTime"].endswith("Z") and "." in lease["spec"]["renewTime"]


async def test_deleted_objects_come_back_and_a_steady_state_writes_nothing(fast: Api) -> None:
    before = {path: (await fast.get(path)).body for path in (SERVICE, ENDPOINTS, SLICE)}
    await asyncio.sleep(0.6)  # three passes: nothing to change, so nothing written
    for path, obj in before.items():
        again = (await fast.get(path)).body
        assert again["metadata"]["resourceVersion"] == obj["metadata"]["resourceVersion"], path
    for path in (SLICE, ENDPOINTS, SERVICE):
        assert (await fast.delete(path)).status == 200
    for path, obj in before.items():
        old = uid(obj)
        await until(fast, path, lambda body, old=old: uid(body) != old)


async def test_an_edited_service_stays_edited_but_endpoints_are_put_back(fast: Api) -> None:
    service = (await fast.get(SERVICE)).body
    service["spec"]["ports"][0]["port"] = 8443
    service["metadata"]["labels"]["extra"] = "kept"
    assert (await fast.put(SERVICE, service)).status == 200
    endpoints = (await fast.get(ENDPOINTS)).body
    real_ip = endpoints["subsets"][0]["addresses"][0]["ip"]
    endpoints["subsets"][0]["addresses"] = [{"ip": "10.1.2.3"}]
    endpoints["metadata"]["labels"] = {"mine": "yes"}
    assert (await fast.put(ENDPOINTS, endpoints)).status == 200

    body = await until(fast, ENDPOINTS, lambda b: b["subsets"][0]["addresses"] == [{"ip": real_ip}])
    # the reconciler adds its label and keeps the others (setSkipMirrorTrue)
    assert body["metadata"]["labels"] == {
        "mine": "yes",
        "endpointslice.kubernetes.io/skip-mirror": "true",
    }

    await until(fast, SLICE, lambda found: found["endpoints"][0]["addresses"] == [real_ip])
    await asyncio.sleep(0.5)
    # 1.32 creates the Service when it is missing and never reconciles it afterwards
    kept = (await fast.get(SERVICE)).body
    assert kept["spec"]["ports"][0]["port"] == 8443
    assert kept["metadata"]["labels"]["extra"] == "kept"


async def test_the_identity_lease_is_renewed_and_made_again(fast: Api) -> None:
    selector = "apiserver.kubernetes.io/identity=kube-apiserver"
    [lease] = (await fast.get(LEASES, labelSelector=selector)).body["items"]
    path = f"{LEASES}/{lease['metadata']['name']}"

    renewed = lease["spec"]["renewTime"]
    later = await until(fast, path, lambda body: body["spec"]["renewTime"] != renewed)
    assert later["spec"]["holderIdentity"] == lease["spec"]["holderIdentity"]
    assert (await fast.delete(path)).status == 200

    again = await until(fast, path, lambda body: uid(body) != uid(lease))
    assert again["spec"]["holderIdentity"] == lease["spec"]["holderIdentity"]


async def test_the_servers_writes_pass_admission_as_system_apiserver(fast: Api) -> None:
    """The loopback client's writes are requests: a policy refusing the API server's user
    keeps a deleted EndpointSlice from coming back; another user's write is let through."""
    policy = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": "no-apiserver-slices"},
        "spec": {
            "failurePolicy": "Fail",
            "matchConstraints": {
                "resourceRules": [
                    {
                        "apiGroups": ["discovery.k8s.io"],
                        "apiVersions": ["v1"],
                        "operations": ["CREATE"],
                        "resources": ["endpointslices"],
                    }
                ]
            },
            "validations": [{"expression": "request.userInfo.username != 'system:apiserver'"}],
        },
    }
    binding = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": "no-apiserver-slices"},
        "spec": {"policyName": "no-apiserver-slices", "validationActions": ["Deny"]},
    }
    base = "/apis/admissionregistration.k8s.io/v1"
    assert (await fast.post(f"{base}/validatingadmissionpolicies", policy)).status == 201
    assert (await fast.post(f"{base}/validatingadmissionpolicybindings", binding)).status == 201
    await asyncio.sleep(0.3)  # the policy is in force
    assert (await fast.delete(SLICE)).status == 200
    await asyncio.sleep(1.0)  # five passes, each refused
    assert (await fast.get(SLICE)).status == 404
    await fast.delete(f"{base}/validatingadmissionpolicybindings/no-apiserver-slices")

    await until(fast, SLICE, lambda body: True)


async def test_a_deleted_kube_node_lease_namespace_comes_back(
    kube_apiserver_factory: Callable[..., LocalApiServer],
) -> None:
    server = kube_apiserver_factory(extra_args=["--post-start-interval", "0.2"])
    async with await open_api(server) as session:
        api = Api(server, session)
        path = "/api/v1/namespaces/kube-node-lease"
        old = (await api.get(path)).body
        assert (await api.delete(path)).status == 200

        await until(api, path, lambda body: uid(body) != uid(old))


async def test_legacy_token_tracking_keeps_a_readable_date(fast: Api) -> None:
    path = "/api/v1/namespaces/kube-system/configmaps/kube-apiserver-legacy-service-account-token-tracking"  # noqa: E501
    tracking = (await fast.get(path)).body
    since = tracking["data"]["since"]
    today = time.strftime("%Y-%m-%d", time.gmtime())
    started = time.strftime("%Y-%m-%d", time.gmtime(time.time() - 60))  # across midnight
    assert since in (today, started)
    tracking["data"]["since"] = "yesterday"
    assert (await fast.put(path, tracking)).status == 200
    await until(fast, path, lambda body: body["data"]["since"] == since)
    assert (await fast.delete(path)).status == 200
    await asyncio.sleep(1.0)  # five passes: a creation is allowed once per 30 minutes
    assert (await fast.get(path)).status == 404


async def test_a_restart_keeps_what_is_already_right(
    kube_apiserver_factory: Callable[..., LocalApiServer],
) -> None:
    """A server restarted on its data directory finds its objects and rewrites none of
    them (only the identity Lease is renewed, holder kept)."""
    server = kube_apiserver_factory()
    paths = (
        SERVICE,
        ENDPOINTS,
        SLICE,
        CLIENT_CA,
        "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas/exempt",
        "/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations/workload-low",
    )
    async with await open_api(server) as session:
        api = Api(server, session)
        before = {path: (await api.get(path)).body["metadata"] for path in paths}
        [lease] = (await api.get(LEASES)).body["items"]
    server.restart()
    async with await open_api(server) as session:
        api = Api(server, session)
        for path, meta in before.items():
            after = (await api.get(path)).body["metadata"]
            assert (after["uid"], after["resourceVersion"]) == (
                meta["uid"],
                meta["resourceVersion"],
            ), path
        [again] = (await api.get(LEASES)).body["items"]
        assert again["metadata"]["uid"] == lease["metadata"]["uid"]
        assert again["spec"]["holderIdentity"] == lease["spec"]["holderIdentity"]
