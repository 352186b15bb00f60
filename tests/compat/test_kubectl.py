"""The real kubectl, unchanged, against the local API server."""

from __future__ import annotations

import json

import pytest

from .helpers import CRD_MANIFEST, Kubectl

pytestmark = pytest.mark.kubectl


def _manifest(name: str, pod: str, address: str) -> str:
    return (
        "apiVersion: example.com/v1\n"
        "kind: Podtoip\n"
        f"metadata:\n  name: {name}\n"
        f"spec:\n  podName: {pod}\n  podAddress: {address}\n"
    )


def _rows(output: str) -> list[list[str]]:
    return [line.split() for line in output.strip().splitlines()]


def test_kubectl_version_sees_a_1_32_server(kubectl: Kubectl) -> None:
    versions = json.loads(kubectl.run("version", "--output=json"))
    server = versions["serverVersion"]
    assert (server["major"], server["minor"]) == ("1", "32")
    assert server["gitVersion"].startswith("v1.32.")


def test_imperative_create_commands_work(kubectl: Kubectl) -> None:
    # kubectl's generators send built-in kinds through the typed client, whose request
    # bodies are protobuf, unlike `create -f`, which sends JSON.
    name = f"{kubectl.namespace}-extra"
    assert kubectl.run("create", "namespace", name, namespaced=False).strip() == (
        f"namespace/{name} created"
    )
    created = kubectl.run("create", "configmap", "imperative", "--from-literal=key=value")
    assert created.strip() == "configmap/imperative created"
    value = kubectl.run("get", "configmap", "imperative", "-o", "jsonpath={.data.key}")
    assert value == "value"


def test_api_resources_lists_built_ins_and_the_crd_with_its_short_name(
    kubectl: Kubectl, crd_installed: str
) -> None:
    rows = {row[0]: row for row in _rows(kubectl.run("api-resources", "--no-headers"))}
    assert rows["pods"][1:] == ["po", "v1", "true", "Pod"]
    assert rows["namespaces"][1:] == ["ns", "v1", "false", "Namespace"]
    assert rows["podtoips"][1:] == ["ptp", "example.com/v1", "true", "Podtoip"]
    assert "customresourcedefinitions" in rows


def test_api_resources_wide_shows_the_verbs(kubectl: Kubectl, crd_installed: str) -> None:
    output = kubectl.run("api-resources", "--api-group=example.com", "-o", "wide")
    [header, row] = _rows(output)
    assert header[header.index("KIND") + 1] == "VERBS"
    assert row[:5] == ["podtoips", "ptp", "example.com/v1", "true", "Podtoip"]
    assert set(row[5].split(",")) >= {"create", "get", "list", "watch", "delete", "patch"}


def test_applying_the_crd_again_changes_nothing(kubectl: Kubectl, crd_installed: str) -> None:
    output = kubectl.run("apply", "-f", str(CRD_MANIFEST), namespaced=False)
    assert "unchanged" in output
    established = kubectl.run(
        "get",
        "crd",
        crd_installed,
        "-o",
        "jsonpath={.status.conditions[?(@.type=='Established')].status}",
        namespaced=False,
    )
    assert established == "True"


def test_custom_resources_round_trip_by_short_name(kubectl: Kubectl, crd_installed: str) -> None:
    created = kubectl.run("create", "-f", "-", stdin=_manifest("web-0", "web-0", "10.0.0.5"))
    assert created.strip() == "podtoip.example.com/web-0 created"

    fetched = json.loads(kubectl.run("get", "ptp", "web-0", "-o", "json"))
    assert fetched["kind"] == "Podtoip"
    assert fetched["spec"] == {"podName": "web-0", "podAddress": "10.0.0.5"}
    assert fetched["metadata"]["namespace"] == kubectl.namespace

    kubectl.run("create", "-f", "-", stdin=_manifest("web-1", "web-1", "10.0.0.6"))
    listed = json.loads(kubectl.run("get", "podtoips", "-o", "json"))
    assert sorted(item["metadata"]["name"] for item in listed["items"]) == ["web-0", "web-1"]

    deleted = kubectl.run("delete", "ptp", "web-0")
    assert deleted.strip() == 'podtoip.example.com "web-0" deleted'
    missing = kubectl.fails("get", "ptp", "web-0")
    assert 'podtoips.example.com "web-0" not found' in missing
    assert [row[0] for row in _rows(kubectl.run("get", "ptp", "--no-headers"))] == ["web-1"]


def test_get_prints_the_crd_printer_columns(kubectl: Kubectl, crd_installed: str) -> None:
    kubectl.run("create", "-f", "-", stdin=_manifest("api-0", "api-0", "10.1.2.3"))
    [header, row] = _rows(kubectl.run("get", "ptp"))
    assert header == ["NAME", "POD", "ADDRESS", "AGE"]
    assert row[:3] == ["api-0", "api-0", "10.1.2.3"]
    assert row[3].endswith(("s", "m"))


def test_an_empty_namespace_says_so(kubectl: Kubectl, crd_installed: str) -> None:
    done = kubectl.fails("get", "ptp", "missing")
    assert "NotFound" in done
    assert kubectl.run("get", "ptp") == ""


def test_apply_creates_then_configures_a_custom_resource(
    kubectl: Kubectl, crd_installed: str
) -> None:
    first = kubectl.run("apply", "-f", "-", stdin=_manifest("db-0", "db-0", "10.0.0.9"))
    assert first.strip() == "podtoip.example.com/db-0 created"
    second = kubectl.run("apply", "-f", "-", stdin=_manifest("db-0", "db-0", "10.0.0.10"))
    assert second.strip() == "podtoip.example.com/db-0 configured"
    address = kubectl.run("get", "ptp", "db-0", "-o", "jsonpath={.spec.podAddress}")
    assert address == "10.0.0.10"


def test_apply_configures_a_built_in_with_a_strategic_merge_patch(kubectl: Kubectl) -> None:
    manifest = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  {}: '{}'\n"
    assert "created" in kubectl.run("apply", "-f", "-", stdin=manifest.format("mode", "fast"))
    assert "configured" in kubectl.run("apply", "-f", "-", stdin=manifest.format("mode", "safe"))
    data = json.loads(kubectl.run("get", "configmap", "settings", "-o", "jsonpath={.data}"))
    assert data == {"mode": "safe"}
    [header, row] = _rows(kubectl.run("get", "configmap", "settings"))
    assert header == ["NAME", "DATA", "AGE"]
    assert row[:2] == ["settings", "1"]


def test_strict_validation_rejects_unknown_fields(kubectl: Kubectl, crd_installed: str) -> None:
    manifest = _manifest("typo-0", "typo-0", "10.0.0.1") + "  podAdress: 10.0.0.2\n"
    done = kubectl.fails("create", "-f", "-", stdin=manifest)
    assert "unknown field" in done
    assert "podAdress" in done


def test_explain_describes_the_crd_spec(kubectl: Kubectl, crd_installed: str) -> None:
    output = kubectl.run("explain", "ptp.spec")
    assert "KIND:       Podtoip" in output
    assert "GROUP:      example.com" in output
    assert "Which pod to follow, and its address." in output
    assert "podName\t<string>" in output
    assert "Name of the pod in the same namespace." in output


def test_explain_describes_a_built_in_kind(kubectl: Kubectl) -> None:
    output = kubectl.run("explain", "configmaps")
    assert "KIND:       ConfigMap" in output
    assert "data\t<map[string]string>" in output


def test_get_watch_prints_existing_rows_then_new_ones(kubectl: Kubectl, crd_installed: str) -> None:
    kubectl.run("create", "-f", "-", stdin=_manifest("w-0", "w-0", "10.0.3.1"))
    stream = kubectl.stream("get", "ptp", "--watch")
    try:
        assert stream.next_line().split() == ["NAME", "POD", "ADDRESS", "AGE"]
        assert stream.next_line().split()[:3] == ["w-0", "w-0", "10.0.3.1"]
        kubectl.run("create", "-f", "-", stdin=_manifest("w-1", "w-1", "10.0.3.2"))
        assert stream.next_line().split()[:3] == ["w-1", "w-1", "10.0.3.2"]
    finally:
        stream.close()


def test_pods_print_ready_status_and_restarts(kubectl: Kubectl) -> None:
    pod = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n"
        "spec:\n  containers:\n  - name: app\n    image: nginx\n"
    )
    kubectl.run("create", "-f", "-", stdin=pod)
    [header, row] = _rows(kubectl.run("get", "pods"))
    assert header == ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]
    assert row[0] == "web"
    assert row[1].endswith("/1")
    wide_header = _rows(kubectl.run("get", "pods", "-o", "wide"))[0]
    assert wide_header[5:7] == ["IP", "NODE"]
