"""Every namespace's ``kube-root-ca.crt`` ConfigMap, kept by the root-CA publisher as
kube-controller-manager keeps it: the CA the kubeconfig trusts, recreated and repaired
(off by default here: the server is started with it named)."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubeforge.testing import LocalApiServer

from .kf_kubectl import Kubectl, until

pytestmark = pytest.mark.kubectl


def _trusted_ca(server: LocalApiServer) -> str:
    config = yaml.safe_load(server.kubeconfig.read_text())
    data = config["clusters"][0]["cluster"]["certificate-authority-data"]
    return base64.b64decode(data).decode()


def _published(kubectl: Kubectl, wanted: str) -> dict[str, Any]:
    def read() -> dict[str, Any]:
        done = kubectl.complete("get", "configmap", "kube-root-ca.crt", "-o", "json")
        return json.loads(done.stdout) if done.returncode == 0 else {}

    found: dict[str, Any] = until(read, lambda cm: cm.get("data", {}).get("ca.crt") == wanted)
    return found


def test_each_namespace_gets_the_servers_ca_back_after_a_delete_or_an_edit(
    tmp_path: Path,
) -> None:
    with LocalApiServer(controllers="*,root-ca-certificate-publisher") as server:
        _check_publisher(server, Kubectl(server.kubeconfig, tmp_path / "cache", "default"))


def _check_publisher(server: LocalApiServer, kubectl: Kubectl) -> None:
    ca = _trusted_ca(server)
    first = _published(kubectl, ca)
    assert "kube-apiserver" in first["metadata"]["annotations"]["kubernetes.io/description"]
    kubectl.complete("delete", "configmap", "kube-root-ca.crt").check_returncode()
    _published(kubectl, ca)
    patch = json.dumps({"data": {"ca.crt": "not a CA"}})
    kubectl.complete("patch", "configmap", "kube-root-ca.crt", "-p", patch).check_returncode()
    _published(kubectl, ca)
