"""kubectl against ``/openapi/v2``: client-side validation of ``kind: List`` files, and
client-side apply computing its strategic merge patches from the v2 definitions."""

from __future__ import annotations

import itertools
import json

import pytest

from .kf_kubectl import Kubectl

pytestmark = pytest.mark.kubectl

_gadgets = itertools.count()
RETRY = "if you choose to ignore these errors, turn validation off with --validate=false"


def _list(*items: str) -> str:
    """A ``kind: List`` manifest, the shape ``kubectl get -o yaml`` writes."""
    body = "".join("- " + item.strip().replace("\n", "\n  ") + "\n" for item in items)
    return f"apiVersion: v1\nkind: List\nitems:\n{body}"


def _configmap(name: str, extra: str = "data:\n  a: '1'") -> str:
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n{extra}\n"


def _podtoip(name: str, spec: str = "podName: web\n  podAddress: 10.0.0.7") -> str:
    return (
        f"apiVersion: example.com/v1\nkind: Podtoip\nmetadata:\n  name: {name}\nspec:\n  {spec}\n"
    )


def test_a_list_of_config_maps_and_a_custom_resource_is_applied_with_validation(
    kubectl: Kubectl, crd_installed: str
) -> None:
    manifest = _list(_configmap("one"), _configmap("two"), _podtoip("ptp-one"))
    out = kubectl.run("apply", "-f", "-", stdin=manifest)
    assert out.split("\n")[:3] == [
        "configmap/one created",
        "configmap/two created",
        "podtoip.example.com/ptp-one created",
    ]
    assert kubectl.run("get", "ptp", "ptp-one", "-o", "jsonpath={.spec.podName}") == "web"


def test_list_items_that_break_the_schema_are_refused_by_kubectl_itself(
    kubectl: Kubectl, crd_installed: str
) -> None:
    manifest = _list(
        _configmap("typo", "datta:\n  a: '1'"),
        _configmap("wrong-type", "immutable: 'no'"),
        _podtoip("ptp-typo", "podName: web\n  podAdress: 10.0.0.7"),
    )
    error = kubectl.fails("apply", "-f", "-", stdin=manifest)
    assert "error validating data: [" in error
    assert (
        'ValidationError(ConfigMap): unknown field "datta" in io.k8s.api.core.v1.ConfigMap' in error
    )
    assert (
        "ValidationError(ConfigMap.immutable): invalid type for "
        'io.k8s.api.core.v1.ConfigMap.immutable: got "string", expected "boolean"'
    ) in error
    assert 'unknown field "podAdress" in com.example.v1.Podtoip.spec' in error
    assert RETRY in error
    missing = kubectl.fails("get", "configmap/typo", "configmap/wrong-type", "ptp/ptp-typo")
    assert missing.count("NotFound") == 3

    unchecked = kubectl.complete(
        "apply", "--validate=false", "-f", "-", stdin=_list(_configmap("typo", "datta: {}"))
    )
    assert unchecked.returncode == 0, unchecked.stderr
    assert unchecked.stdout.strip() == "configmap/typo created"


def test_a_crd_installed_after_the_first_fetch_validates_list_items(kubectl: Kubectl) -> None:
    kubectl.run("apply", "-f", "-", stdin=_list(_configmap("first-fetch")))
    plural = f"gadgets{next(_gadgets)}{kubectl.namespace.replace('-', '')}"
    group = "v2.example.com"
    crd = (
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"
        f"metadata:\n  name: {plural}.{group}\n"
        f"spec:\n  group: {group}\n  scope: Namespaced\n"
        f"  names: {{plural: {plural}, kind: Gadget, singular: {plural[:-1]}}}\n"
        "  versions:\n  - name: v1\n    served: true\n    storage: true\n"
        "    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n"
        "          spec:\n            type: object\n            properties:\n"
        "              size: {type: integer}\n"
    )
    kubectl.run("apply", "-f", "-", stdin=crd, namespaced=False)
    kubectl.run("wait", "--for=condition=Established", f"crd/{plural}.{group}", namespaced=False)

    def gadget(spec: str) -> str:
        return f"apiVersion: {group}/v1\nkind: Gadget\nmetadata:\n  name: g\nspec:\n  {spec}\n"

    error = kubectl.fails("apply", "-f", "-", stdin=_list(gadget("size: big")))
    assert (
        'invalid type for com.example.v2.v1.Gadget.spec.size: got "string", expected "integer"'
        in error
    )
    out = kubectl.run("apply", "-f", "-", stdin=_list(gadget("size: 3")))
    assert out.strip() == f"gadget.{group}/g created"


def _deployment(containers: str) -> str:
    return (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n"
        "spec:\n  selector:\n    matchLabels: {app: web}\n"
        "  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1}}\n"
        "  template:\n    metadata:\n      labels: {app: web}\n"
        f"    spec:\n      containers:\n{containers}"
    )


def test_client_side_apply_removes_list_items_and_retained_keys_with_v2_served(
    kubectl: Kubectl,
) -> None:
    both = (
        "      - {name: app, image: nginx, env: [{name: A, value: '1'}, {name: B, value: '2'}]}\n"
        "      - {name: sidecar, image: busybox}\n"
    )
    kubectl.run("apply", "-f", "-", stdin=_deployment(both))
    one = "      - {name: app, image: nginx:2, env: [{name: A, value: '1'}]}\n"
    changed = _deployment(one).replace(
        "{type: RollingUpdate, rollingUpdate: {maxSurge: 1}}", "{type: Recreate}"
    )
    done = kubectl.complete("apply", "-f", "-", stdin=changed)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "deployment.apps/web configured"
    assert "warning" not in done.stderr.lower()
    spec = json.loads(kubectl.run("get", "deployment", "web", "-o", "json"))["spec"]
    assert spec["strategy"] == {"type": "Recreate"}
    containers = spec["template"]["spec"]["containers"]
    assert [(c["name"], c["image"]) for c in containers] == [("app", "nginx:2")]
    assert containers[0]["env"] == [{"name": "A", "value": "1"}]
