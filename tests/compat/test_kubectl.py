"""The real kubectl, unchanged, against the local API server."""

from __future__ import annotations

import json

import pytest

from .kf_kubectl import CRD_MANIFEST, Kubectl

pytestmark = pytest.mark.kubectl


def _manifest(name: str, pod: str, address: str) -> str:
    return (
        "apiVersion: example.com/v1\n"
        "kind: Podtoip\n"
        f"metadata:\n  name: {name}\n"
        f"spec:\n  podName: {pod}\n  podAddress: {address}\n"
    )


def _pod(name: str) -> str:
    return (
        f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n"
        "spec:\n  containers:\n  - name: app\n    image: nginx\n"
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
    kubectl.run("create", "-f", "-", stdin=_pod("web"))
    [header, row] = _rows(kubectl.run("get", "pods"))
    assert header == ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]
    assert row[0] == "web"
    assert row[1].endswith("/1")
    wide_header = _rows(kubectl.run("get", "pods", "-o", "wide"))[0]
    assert wide_header[5:7] == ["IP", "NODE"]


def _widget_crd(*fields: str) -> str:
    properties = "".join(
        f"                {field}:\n                  type: string\n"
        f"                  description: The {field} of the widget.\n"
        for field in fields
    )
    return (
        "apiVersion: apiextensions.k8s.io/v1\n"
        "kind: CustomResourceDefinition\n"
        "metadata:\n  name: widgets.compat.example.com\n"
        "spec:\n"
        "  group: compat.example.com\n"
        "  scope: Cluster\n"
        "  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wdg]}\n"
        "  versions:\n"
        "  - name: v1\n    served: true\n    storage: true\n"
        "    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n"
        "          spec:\n            type: object\n            properties:\n" + properties
    )


def test_a_crd_comes_and_goes_from_discovery_and_explain(kubectl: Kubectl) -> None:
    kubectl.run("apply", "-f", "-", stdin=_widget_crd("colour"), namespaced=False)
    kubectl.run(
        "wait", "--for=condition=Established", "crd/widgets.compat.example.com", namespaced=False
    )
    rows = {row[0]: row for row in _rows(kubectl.run("api-resources", "--no-headers"))}
    assert rows["widgets"][1:] == ["wdg", "compat.example.com/v1", "false", "Widget"]
    assert "The colour of the widget." in kubectl.run("explain", "widgets.spec")

    # Same cache directory: kubectl must notice the new schema through the OpenAPI hash.
    kubectl.run("apply", "-f", "-", stdin=_widget_crd("colour", "size"), namespaced=False)
    explained = kubectl.run("explain", "widgets.spec")
    assert "The size of the widget." in explained

    kubectl.run("delete", "crd", "widgets.compat.example.com", namespaced=False)
    names = [row[0] for row in _rows(kubectl.run("api-resources", "--no-headers"))]
    assert "widgets" not in names
    assert "the server doesn't have a resource type" in kubectl.fails("get", "wdg")


def test_get_across_namespaces_adds_the_namespace_column(
    kubectl: Kubectl, crd_installed: str
) -> None:
    kubectl.run("create", "-f", "-", stdin=_manifest("all-0", "all-0", "10.4.0.1"))
    rows = _rows(kubectl.run("get", "ptp", "--all-namespaces"))
    assert rows[0] == ["NAMESPACE", "NAME", "POD", "ADDRESS", "AGE"]
    assert [kubectl.namespace, "all-0", "all-0", "10.4.0.1"] in [row[:4] for row in rows[1:]]


def test_sort_by_asks_for_whole_objects_and_sorts_on_them(
    kubectl: Kubectl, crd_installed: str
) -> None:
    for name, address in (("s-a", "10.5.0.3"), ("s-b", "10.5.0.1"), ("s-c", "10.5.0.2")):
        kubectl.run("create", "-f", "-", stdin=_manifest(name, name, address))
    output = kubectl.run("get", "ptp", "--sort-by=.spec.podAddress", "--no-headers")
    assert [row[0] for row in _rows(output)] == ["s-b", "s-c", "s-a"]


def test_crds_list_with_name_and_created_at(kubectl: Kubectl, crd_installed: str) -> None:
    [header, *rows] = _rows(kubectl.run("get", "crd", namespaced=False))
    assert header == ["NAME", "CREATED", "AT"]
    assert crd_installed in [row[0] for row in rows]


def test_get_all_includes_custom_resources_only_by_category(
    kubectl: Kubectl, crd_installed: str
) -> None:
    kubectl.run("create", "-f", "-", stdin=_pod("cat"))
    kubectl.run("create", "-f", "-", stdin=_manifest("cat-0", "cat", "10.6.0.1"))
    output = kubectl.run("get", "all")
    assert "pod/cat" in output
    assert "podtoip" not in output
