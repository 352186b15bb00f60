"""Every namespace's ``kube-root-ca.crt`` ConfigMap, kept by the root-CA publisher as
kube-controller-manager keeps it, on by default: the CA the kubeconfig trusts, in every
namespace, recreated and repaired."""

from __future__ import annotations

import base64
import json
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
    kubectl: Kubectl, compat_server: LocalApiServer
) -> None:
    ca = _trusted_ca(compat_server)
    first = _published(kubectl, ca)  # the test's fresh namespace got one, as on a cluster
    assert "kube-apiserver" in first["metadata"]["annotations"]["kubernetes.io/description"]
    kubectl.complete("delete", "configmap", "kube-root-ca.crt").check_returncode()
    _published(kubectl, ca)
    patch = json.dumps({"data": {"ca.crt": "not a CA"}})
    kubectl.complete("patch", "configmap", "kube-root-ca.crt", "-p", patch).check_returncode()
    _published(kubectl, ca)


def test_a_removed_description_is_put_back(kubectl: Kubectl, compat_server: LocalApiServer) -> None:
    ca = _trusted_ca(compat_server)
    _published(kubectl, ca)
    done = kubectl.complete(
        "annotate", "configmap", "kube-root-ca.crt", "kubernetes.io/description-"
    )
    done.check_returncode()

    kubectl.until(
        ("configmap", "kube-root-ca.crt"),
        lambda cm: "kubernetes.io/description" in cm["metadata"].get("annotations", {}),
    )
