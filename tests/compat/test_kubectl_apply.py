"""kubectl's apply (client- and server-side), patch of every type, label and annotate, unchanged,
against the local server; and the official client's server-side apply."""

from __future__ import annotations

import json
from typing import Any

import pytest
from kubernetes import client as k8s_client
from kubernetes.client.rest import ApiException

from .kf_kubectl import CRD_MANIFEST, Kubectl

pytestmark = pytest.mark.kubectl

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def _configmap(name: str, **data: str) -> str:
    lines = "".join(f"  {k}: '{v}'\n" for k, v in data.items())
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n{lines}"


def _deployment(name: str, *containers: str, replicas: int = 1) -> str:
    items = "".join(f"      - name: {c}\n        image: nginx:1.27\n" for c in containers)
    return (
        "apiVersion: apps/v1\nkind: Deployment\n"
        f"metadata:\n  name: {name}\n"
        f"spec:\n  replicas: {replicas}\n"
        f"  selector:\n    matchLabels:\n      app: {name}\n"
        f"  template:\n    metadata:\n      labels:\n        app: {name}\n"
        f"    spec:\n      containers:\n{items}"
    )


def _get(kubectl: Kubectl, *args: str) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(
        kubectl.run("get", *args, "-o", "json", "--show-managed-fields")
    )
    return result


def _managers(obj: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {e["manager"]: e for e in obj["metadata"].get("managedFields") or []}


def test_server_side_apply_conflicts_without_force_and_takes_over_with_it(
    kubectl: Kubectl,
) -> None:
    first = kubectl.run("apply", "--server-side", "-f", "-", stdin=_configmap("ssa", a="1"))
    assert first.strip() == "configmap/ssa serverside-applied"
    owner = _managers(_get(kubectl, "configmap", "ssa"))["kubectl"]
    assert owner["operation"] == "Apply"
    assert owner["fieldsV1"] == {"f:data": {"f:a": {}}}

    changed = _configmap("ssa", a="2")
    error = kubectl.fails(
        "apply", "--server-side", "--field-manager=rival", "-f", "-", stdin=changed
    )
    assert 'conflict with "kubectl": .data.a' in error
    assert "--force-conflicts" in error  # kubectl explains how to resolve it

    forced = kubectl.run(
        "apply",
        "--server-side",
        "--field-manager=rival",
        "--force-conflicts",
        "-f",
        "-",
        stdin=changed,
    )
    assert forced.strip() == "configmap/ssa serverside-applied"
    live = _get(kubectl, "configmap", "ssa")
    assert live["data"] == {"a": "2"}
    assert _managers(live)["rival"]["fieldsV1"] == {"f:data": {"f:a": {}}}
    assert "kubectl" not in _managers(live)


def test_server_side_apply_of_a_crd_and_its_custom_resources(
    kubectl: Kubectl, crd_installed: str
) -> None:
    crd = kubectl.run(
        "apply", "--server-side", "--force-conflicts", "-f", str(CRD_MANIFEST), namespaced=False
    )
    assert (
        crd.strip()
        == f"customresourcedefinition.apiextensions.k8s.io/{crd_installed} serverside-applied"
    )
    manifest = (
        "apiVersion: example.com/v1\nkind: Podtoip\nmetadata:\n  name: cr\n"
        "spec:\n  podName: web\n  podAddress: {}\n"
    )
    first = kubectl.run("apply", "--server-side", "-f", "-", stdin=manifest.format("10.0.0.1"))
    assert first.strip() == "podtoip.example.com/cr serverside-applied"
    error = kubectl.fails(
        "apply",
        "--server-side",
        "--field-manager=other",
        "-f",
        "-",
        stdin=manifest.format("10.0.0.2"),
    )
    assert 'conflict with "kubectl": .spec.podAddress' in error
    live = _get(kubectl, "ptp", "cr")
    assert live["spec"] == {"podName": "web", "podAddress": "10.0.0.1"}
    assert _managers(live)["kubectl"]["fieldsV1"] == {
        "f:spec": {"f:podAddress": {}, "f:podName": {}}
    }


def test_server_side_apply_removes_what_the_manifest_no_longer_sets(kubectl: Kubectl) -> None:
    kubectl.run("apply", "--server-side", "-f", "-", stdin=_configmap("trim", a="1", b="2"))
    kubectl.run("apply", "--server-side", "-f", "-", stdin=_configmap("trim", a="1"))
    assert _get(kubectl, "configmap", "trim")["data"] == {"a": "1"}


def test_server_side_dry_run_changes_nothing(kubectl: Kubectl) -> None:
    kubectl.run("apply", "--server-side", "-f", "-", stdin=_configmap("dry", a="1"))
    output = kubectl.run(
        "apply", "--server-side", "--dry-run=server", "-f", "-", stdin=_configmap("dry", a="2")
    )
    assert "serverside-applied (server dry run)" in output
    assert _get(kubectl, "configmap", "dry")["data"] == {"a": "1"}


def test_client_side_apply_creates_changes_and_removes_fields(kubectl: Kubectl) -> None:
    created = kubectl.run("apply", "-f", "-", stdin=_configmap("csa", a="1", b="2"))
    assert created.strip() == "configmap/csa created"
    live = _get(kubectl, "configmap", "csa")
    assert LAST_APPLIED in live["metadata"]["annotations"]
    assert _managers(live)["kubectl-client-side-apply"]["operation"] == "Update"

    unchanged = kubectl.run("apply", "-f", "-", stdin=_configmap("csa", a="1", b="2"))
    assert unchanged.strip() == "configmap/csa unchanged"

    configured = kubectl.run("apply", "-f", "-", stdin=_configmap("csa", a="9"))
    assert configured.strip() == "configmap/csa configured"
    live = _get(kubectl, "configmap", "csa")
    assert live["data"] == {"a": "9"}  # b left the manifest, so apply deleted it
    assert json.loads(live["metadata"]["annotations"][LAST_APPLIED])["data"] == {"a": "9"}


def test_client_side_apply_keeps_changes_made_by_others(kubectl: Kubectl) -> None:
    kubectl.run("apply", "-f", "-", stdin=_configmap("mixed", a="1"))
    kubectl.run("patch", "configmap", "mixed", "--type=merge", "-p", '{"data":{"extra":"x"}}')
    kubectl.run("apply", "-f", "-", stdin=_configmap("mixed", a="2"))
    assert _get(kubectl, "configmap", "mixed")["data"] == {"a": "2", "extra": "x"}


def test_client_side_apply_removes_a_container_from_a_pod_template(kubectl: Kubectl) -> None:
    kubectl.run("apply", "-f", "-", stdin=_deployment("web", "app", "sidecar"))
    template = _get(kubectl, "deployment", "web")["spec"]["template"]["spec"]
    assert [c["name"] for c in template["containers"]] == ["app", "sidecar"]
    output = kubectl.run("apply", "-f", "-", stdin=_deployment("web", "app", replicas=3))
    assert output.strip() == "deployment.apps/web configured"
    live = _get(kubectl, "deployment", "web")
    assert [c["name"] for c in live["spec"]["template"]["spec"]["containers"]] == ["app"]
    assert live["spec"]["replicas"] == 3


def test_server_side_apply_takes_over_from_client_side_apply_without_conflicts(
    kubectl: Kubectl,
) -> None:
    kubectl.run("apply", "-f", "-", stdin=_configmap("upgrade", a="1"))
    output = kubectl.run("apply", "--server-side", "-f", "-", stdin=_configmap("upgrade", a="2"))
    assert output.strip() == "configmap/upgrade serverside-applied"
    live = _get(kubectl, "configmap", "upgrade")
    assert live["data"] == {"a": "2"}
    assert json.loads(live["metadata"]["annotations"][LAST_APPLIED])["data"] == {"a": "2"}


@pytest.mark.parametrize(
    ("kind", "patch", "expected"),
    [
        ("merge", '{"data":{"a":null,"c":"3"}}', {"b": "2", "c": "3"}),
        ("strategic", '{"data":{"a":"x"}}', {"a": "x", "b": "2"}),
        ("json", '[{"op":"replace","path":"/data/b","value":"y"}]', {"a": "1", "b": "y"}),
    ],
)
def test_kubectl_patch_of_every_type(
    kubectl: Kubectl, kind: str, patch: str, expected: Any
) -> None:
    kubectl.run("create", "-f", "-", stdin=_configmap("p", a="1", b="2"))
    output = kubectl.run("patch", "configmap", "p", f"--type={kind}", "-p", patch)
    assert output.strip() == "configmap/p patched"
    live = _get(kubectl, "configmap", "p")
    assert live["data"] == expected
    assert "kubectl-patch" in _managers(live)
    again = kubectl.run("patch", "configmap", "p", f"--type={kind}", "-p", patch)
    if kind != "json" or "replace" in patch:
        assert again.strip() == "configmap/p patched (no change)"


def test_a_failing_json_patch_test_is_reported_by_kubectl(kubectl: Kubectl) -> None:
    kubectl.run("create", "-f", "-", stdin=_configmap("t", a="1"))
    error = kubectl.fails(
        "patch",
        "configmap",
        "t",
        "--type=json",
        "-p",
        '[{"op":"test","path":"/data/a","value":"2"}]',
    )
    assert "testing value /data/a failed" in error


def test_strategic_patch_of_a_pods_containers_by_name(kubectl: Kubectl) -> None:
    pod = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: smp\n"
        "spec:\n  containers:\n  - name: app\n    image: nginx:1.27\n"
        "  - name: log\n    image: busybox\n"
    )
    kubectl.run("create", "-f", "-", stdin=pod)
    kubectl.run(
        "patch", "pod", "smp", "-p", '{"spec":{"containers":[{"name":"log","image":"busybox:2"}]}}'
    )
    containers = _get(kubectl, "pod", "smp")["spec"]["containers"]
    assert [(c["name"], c["image"]) for c in containers] == [
        ("app", "nginx:1.27"),
        ("log", "busybox:2"),
    ]


def test_label_and_annotate_add_overwrite_and_remove(kubectl: Kubectl) -> None:
    kubectl.run("create", "-f", "-", stdin=_configmap("tagged", a="1"))
    assert kubectl.run("label", "configmap", "tagged", "tier=web").strip() == (
        "configmap/tagged labeled"
    )
    refused = kubectl.fails("label", "configmap", "tagged", "tier=db")
    assert "already has a value (web)" in refused
    kubectl.run("label", "configmap", "tagged", "tier=db", "--overwrite")
    kubectl.run("annotate", "configmap", "tagged", "note=hello")
    live = _get(kubectl, "configmap", "tagged")
    assert live["metadata"]["labels"] == {"tier": "db"}
    assert live["metadata"]["annotations"] == {"note": "hello"}
    assert _managers(live)["kubectl-label"]["fieldsV1"] == {
        "f:metadata": {"f:labels": {".": {}, "f:tier": {}}}
    }
    kubectl.run("label", "configmap", "tagged", "tier-")
    kubectl.run("annotate", "configmap", "tagged", "note-")
    live = _get(kubectl, "configmap", "tagged")
    assert not live["metadata"].get("labels")
    assert not live["metadata"].get("annotations")


def test_the_official_client_applies_server_side_and_sees_conflicts(api_client: Any) -> None:
    core = k8s_client.CoreV1Api(api_client)
    namespace = "default"
    name = "py-ssa"
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": "1"}}
    created = core.patch_namespaced_config_map(
        name, namespace, body, field_manager="py", _content_type="application/apply-patch+yaml"
    )
    assert created.data == {"k": "1"}
    assert created.metadata.managed_fields[0].manager == "py"
    body["data"] = {"k": "2"}
    with pytest.raises(ApiException) as failed:
        core.patch_namespaced_config_map(
            name,
            namespace,
            body,
            field_manager="other",
            _content_type="application/apply-patch+yaml",
        )
    assert failed.value.status == 409
    status = json.loads(failed.value.body)
    assert status["details"]["causes"][0]["reason"] == "FieldManagerConflict"
    forced = core.patch_namespaced_config_map(
        name,
        namespace,
        body,
        field_manager="other",
        force=True,
        _content_type="application/apply-patch+yaml",
    )
    assert forced.data == {"k": "2"}
    core.delete_namespaced_config_map(name, namespace)
