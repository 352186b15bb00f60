"""End to end on the local API server: kubectl's writes go through Python webhooks that the
``kube_webhooks`` fixture serves and installs (generated certificate, caBundle, url)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compat.kf_kubectl import Kubectl
from kubeforge.client import Client
from kubeforge.config import load_config
from kubeforge.core import errors
from kubeforge.crd import generate_crd, install_crds
from kubeforge.testing import LocalApiServer

from .kf_boats import Barge, setup

pytestmark = pytest.mark.kubectl


@pytest.fixture
async def boats(kube_apiserver: LocalApiServer, kube_webhooks: Any) -> None:
    async with Client(load_config(kube_apiserver.kubeconfig)) as client:
        await install_crds(client, [generate_crd(Barge)])
    kube_webhooks(setup)


def _boat(name: str, length: int, **extra: Any) -> str:
    metadata = {"name": name, "namespace": "default", **extra}
    return json.dumps(
        {
            "apiVersion": "harbor.example.com/v1",
            "kind": "Barge",
            "metadata": metadata,
            "spec": {"length": length},
        }
    )


@pytest.fixture
def kubectl(kube_apiserver: LocalApiServer, tmp_path: Path) -> Kubectl:
    return Kubectl(kube_apiserver.kubeconfig, tmp_path / "cache", "default")


async def test_kubectl_create_is_denied_with_the_validator_s_message(
    boats: None, kubectl: Kubectl, kube_apiserver: LocalApiServer
) -> None:
    stderr = kubectl.fails("create", "-f", "-", stdin=_boat("too-long", 31))
    # kubectl rebuilds an Invalid error from its causes, as against a real server.
    assert 'The Barge "too-long" is invalid: spec.length: Invalid value: 31: at most 30' in stderr
    assert "NotFound" in kubectl.fails("get", "barge", "too-long")
    async with Client(load_config(kube_apiserver.kubeconfig)) as client:
        with pytest.raises(errors.Invalid) as refused:
            await client.dynamic(Barge.info, namespace="default").create(
                json.loads(_boat("too-long", 31))
            )
    assert refused.value.message == (
        'admission webhook "vbarge-v1.kb.io" denied the request: Barge.harbor.example.com '
        '"too-long" is invalid: spec.length: Invalid value: 31: at most 30'
    )
    assert refused.value.details["causes"] == [
        {
            "reason": "FieldValueInvalid",
            "message": "Invalid value: 31: at most 30",
            "field": "spec.length",
        }
    ]


async def test_the_default_is_applied_and_warnings_reach_kubectl(
    boats: None, kubectl: Kubectl
) -> None:
    done = kubectl.complete("create", "-f", "-", stdin=_boat("dinghy", 2))
    assert done.returncode == 0, done.stderr
    assert "Warning: a barge this short may capsize" in done.stderr
    stored = json.loads(kubectl.run("get", "barge", "dinghy", "-o", "json"))
    assert stored["spec"] == {"length": 2, "flag": "blue"}
    annotations = stored["metadata"]["annotations"]
    assert annotations["harbor.example.com/dry-run"] == "false"
    assert annotations["harbor.example.com/admitted-by"]  # the kubeconfig's user


async def test_a_server_dry_run_reaches_the_webhooks(boats: None, kubectl: Kubectl) -> None:
    ghost = _boat("ghost", 5)
    out = kubectl.run("create", "--dry-run=server", "-o", "json", "-f", "-", stdin=ghost)
    annotations = json.loads(out)["metadata"]["annotations"]
    assert annotations["harbor.example.com/dry-run"] == "true"
    assert "NotFound" in kubectl.fails("get", "barge", "ghost")


async def test_update_and_delete_are_validated_against_the_old_object(
    boats: None, kubectl: Kubectl
) -> None:
    kubectl.run("create", "-f", "-", stdin=_boat("keel", 10, labels={"protected": "true"}))
    stderr = kubectl.fails("patch", "barge", "keel", "--type=merge", "-p", '{"spec":{"length":12}}')
    assert "spec.length: Forbidden: a barge keeps its length" in stderr
    stderr = kubectl.fails("delete", "barge", "keel")
    assert "metadata.labels: Forbidden: the barge is protected" in stderr
    kubectl.run("label", "barge", "keel", "protected=false", "--overwrite")
    kubectl.run("delete", "barge", "keel")
