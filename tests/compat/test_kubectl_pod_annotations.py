"""Pod annotations as kubectl sees a 1.32 server handle them: the AppArmor annotation
synced to its field with the deprecation warning kubectl prints (pkg/registry/core/pod
``applyAppArmorVersionSkew``), and a refused annotation in the server's words
(pkg/apis/core/validation ``ValidatePodSpecificAnnotations``)."""

from __future__ import annotations

import json

import pytest

from .kf_kubectl import Kubectl

pytestmark = pytest.mark.kubectl

KEY = "container.apparmor.security.beta.kubernetes.io/app"


def _manifest(name: str, annotations: dict[str, str]) -> str:
    spec = {"containers": [{"name": "app", "image": "nginx"}]}
    metadata = {"name": name, "annotations": annotations}
    return json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec})


def test_kubectl_shows_the_apparmor_deprecation_warning(kubectl: Kubectl) -> None:
    done = kubectl.complete("create", "-f", "-", stdin=_manifest("armored", {KEY: "unconfined"}))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "pod/armored created"
    assert (
        f'Warning: metadata.annotations[{KEY}]: deprecated since v1.30; use the "appArmorProfile" '
        "field instead"
    ) in done.stderr
    stored = kubectl.json("pod", "armored")
    context = stored["spec"]["containers"][0]["securityContext"]
    assert context["appArmorProfile"] == {"type": "Unconfined"}


def test_kubectl_reports_a_refused_annotation(kubectl: Kubectl) -> None:
    cost = "controller.kubernetes.io/pod-deletion-cost"
    error = kubectl.fails("create", "-f", "-", stdin=_manifest("costly", {cost: "high"}))
    assert (
        f'The Pod "costly" is invalid: metadata.annotations[{cost}]: Invalid value: "high": '
        "must be a 32bit integer"
    ) in error
