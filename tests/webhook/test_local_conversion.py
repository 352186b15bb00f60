"""End to end on the local API server: reading, listing and writing another version of a
custom resource goes through the Python hub-and-spoke conversion that ``kube_webhooks``
serves (the server calls ``/convert`` with ConversionReview v1, trusting the caBundle)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from compat.kf_kubectl import Kubectl
from kubeforge.client import Client
from kubeforge.config import load_config
from kubeforge.core.meta import Model
from kubeforge.core.resource import Resource, ResourceInfo
from kubeforge.crd import CRDOptions, generate_crd, install_crds
from kubeforge.runtime import Manager
from kubeforge.testing import LocalApiServer
from kubeforge.webhook import Conversion, TypeWebhooks

pytestmark = pytest.mark.kubectl


class RigV1(Model):
    masts: int = 0


class Sloop(Resource):  # the hub, and the stored version
    info = ResourceInfo("harbor.example.com", "v1", "Sloop", "sloops")
    crd = CRDOptions(storage=True)
    spec: RigV1 = msgspec.field(default_factory=RigV1)


class RigV2(Model):
    mast_count: int = 0


class SloopV2(Resource):
    info = ResourceInfo("harbor.example.com", "v2", "Sloop", "sloops")
    spec: RigV2 = msgspec.field(default_factory=RigV2)


def to_hub(src: SloopV2) -> Sloop:
    if src.spec.mast_count > 9:
        raise ValueError("a sloop has at most 9 masts")
    return Sloop(metadata=src.metadata, spec=RigV1(masts=src.spec.mast_count))


def from_hub(hub: Sloop) -> SloopV2:
    return SloopV2(metadata=hub.metadata, spec=RigV2(mast_count=hub.spec.masts))


WEBHOOKS = TypeWebhooks(
    Sloop, conversion=Conversion(hub=Sloop).spoke(SloopV2, to_hub=to_hub, from_hub=from_hub)
)


def setup(mgr: Manager) -> None:
    WEBHOOKS.complete(mgr)


@pytest.fixture
async def served(kube_apiserver: LocalApiServer, kube_webhooks: Any) -> Manager:
    async with Client(load_config(kube_apiserver.kubeconfig)) as client:
        await install_crds(client, [generate_crd([Sloop, SloopV2])])
    manager: Manager = kube_webhooks(setup)
    return manager


@pytest.fixture
def kubectl(kube_apiserver: LocalApiServer, tmp_path: Path) -> Kubectl:
    return Kubectl(kube_apiserver.kubeconfig, tmp_path / "cache", "default")


def _sloop(version: str, name: str, spec: dict[str, Any]) -> str:
    metadata = {"name": name, "namespace": "default", "annotations": {"keep": "me"}}
    body = {"apiVersion": f"harbor.example.com/{version}", "kind": "Sloop", "metadata": metadata}
    return json.dumps({**body, "spec": spec})


async def test_an_object_written_as_v2_is_stored_as_v1_and_read_as_either(
    served: Manager, kubectl: Kubectl
) -> None:
    kubectl.run("create", "-f", "-", stdin=_sloop("v2", "swift", {"mastCount": 2}))
    as_v1 = json.loads(kubectl.run("get", "sloops.v1.harbor.example.com", "swift", "-o", "json"))
    assert as_v1["apiVersion"] == "harbor.example.com/v1"
    assert as_v1["spec"] == {"masts": 2}
    assert as_v1["metadata"]["annotations"] == {"keep": "me"}
    as_v2 = json.loads(kubectl.run("get", "sloops.v2.harbor.example.com", "swift", "-o", "json"))
    assert as_v2["spec"] == {"mastCount": 2}
    listed = json.loads(kubectl.run("get", "sloops.v2.harbor.example.com", "-o", "json"))
    assert {item["spec"]["mastCount"] for item in listed["items"]} >= {2}
    text = served.metrics.render().decode()
    assert 'controller_runtime_webhook_requests_total{code="200",webhook="/convert"}' in text


async def test_a_conversion_that_fails_is_the_server_s_error(
    served: Manager, kubectl: Kubectl
) -> None:
    bad = _sloop("v2", "broken", {"mastCount": 12})
    stderr = kubectl.fails("create", "-f", "-", stdin=bad)
    assert (
        "conversion webhook for harbor.example.com/v2, Kind=Sloop failed: "
        "Sloop v2 failed to convert to hub version v1: a sloop has at most 9 masts"
    ) in stderr
    assert "NotFound" in kubectl.fails("get", "sloops.v1.harbor.example.com", "broken")
