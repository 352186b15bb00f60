"""Table output for kubectl get: negotiation, CRD printer columns, built-in columns."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from aiohttp.test_utils import make_mocked_request

from kubeforge.apiserver.builtin.resources import BUILTIN_RESOURCES
from kubeforge.apiserver.endpoints import tables
from kubeforge.apiserver.failures import StatusError
from kubeforge.apiserver.printers.columns import human_duration
from kubeforge.apiserver.registry.served import Registry, ServedResource
from kubeforge.core.resource import ResourceInfo

NOW = datetime(2024, 5, 1, 12, 0, 0, tzinfo=UTC)
KUBECTL_GET_ACCEPT = (
    "application/json;as=Table;v=v1;g=meta.k8s.io,"
    "application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
)


def _stamp(delta: timedelta) -> str:
    return (NOW - delta).strftime("%Y-%m-%dT%H:%M:%SZ")


def _widget(columns: tuple[dict[str, Any], ...] = ()) -> ServedResource:
    info = ResourceInfo(group="example.com", version="v1", kind="Widget", plural="widgets")
    return ServedResource(
        info=info, schema={"type": "object"}, builtin=False, printer_columns=columns
    )


def _builtin(group: str, plural: str) -> ServedResource:
    served = Registry(BUILTIN_RESOURCES).lookup(group, "v1", plural)
    assert served is not None
    return served


def _obj(name: str, **fields: Any) -> dict[str, Any]:
    meta = {"name": name, "namespace": "default", "creationTimestamp": _stamp(timedelta(minutes=5))}
    return {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": meta, **fields}


def _accepts(header: str) -> bool:
    return tables.wants_table(make_mocked_request("GET", "/", headers={"Accept": header}))


def test_kubectl_get_asks_for_a_table() -> None:
    assert _accepts(KUBECTL_GET_ACCEPT)


def test_plain_json_clients_do_not_get_a_table() -> None:
    assert not _accepts("application/json")
    assert not _accepts("application/json, application/json;as=Table;v=v1;g=meta.k8s.io")
    assert not tables.wants_table(make_mocked_request("GET", "/"))


def test_kinds_the_server_cannot_produce_are_skipped_while_negotiating() -> None:
    accept = (
        "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,"
        "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,"
        "application/json;as=Table;v=v1;g=meta.k8s.io"
    )
    assert _accepts(accept)


def test_printer_columns_are_evaluated_per_type() -> None:
    columns = (
        {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"},
        {"name": "Ready", "type": "boolean", "jsonPath": ".status.ready"},
        {"name": "Ratio", "type": "number", "jsonPath": ".status.ratio"},
        {"name": "Phase", "type": "string", "jsonPath": ".status.phase", "priority": 1},
        {"name": "Seen", "type": "date", "jsonPath": ".status.seen"},
    )
    widget = _obj(
        "w1",
        spec={"replicas": 3},
        status={"ready": True, "ratio": 1, "phase": "Up", "seen": _stamp(timedelta(hours=2))},
    )
    table = tables.to_table(_widget(columns), [widget], {"resourceVersion": "42"}, "", now=NOW)
    assert table["kind"] == "Table"
    assert table["apiVersion"] == "meta.k8s.io/v1"
    assert table["metadata"] == {"resourceVersion": "42"}
    names = [c["name"] for c in table["columnDefinitions"]]
    assert names == ["Name", "Replicas", "Ready", "Ratio", "Phase", "Seen"]
    assert table["columnDefinitions"][0]["format"] == "name"
    assert table["columnDefinitions"][4]["priority"] == 1
    assert table["rows"][0]["cells"] == ["w1", 3, True, 1.0, "Up", "120m"]


def test_missing_fields_and_bad_paths_give_empty_cells_not_errors() -> None:
    columns = (
        {"name": "Missing", "type": "string", "jsonPath": ".spec.nothing"},
        {"name": "Broken", "type": "string", "jsonPath": ".spec[?(@.x ~ 1)]"},
        {"name": "WrongType", "type": "integer", "jsonPath": ".spec.word"},
        {"name": "BadDate", "type": "date", "jsonPath": ".spec.word"},
    )
    table = tables.to_table(_widget(columns), [_obj("w", spec={"word": "hi"})], {}, "", now=NOW)
    assert table["rows"][0]["cells"] == ["w", None, None, None, "<invalid>"]


def test_string_columns_print_non_string_values() -> None:
    columns = (
        {"name": "Count", "type": "string", "jsonPath": ".spec.count"},
        {"name": "Flag", "type": "string", "jsonPath": ".spec.flag"},
        {"name": "Map", "type": "string", "jsonPath": ".spec.map"},
    )
    widget = _obj("w", spec={"count": 7, "flag": False, "map": {"a": 1}})
    [row] = tables.to_table(_widget(columns), [widget], {}, "", now=NOW)["rows"]
    assert row["cells"] == ["w", "7", "false", '{"a":1}']


def test_condition_filter_columns_pick_the_matching_condition() -> None:
    columns = (
        {
            "name": "Ready",
            "type": "string",
            "jsonPath": '.status.conditions[?(@.type=="Ready")].status',
        },
    )
    status = {
        "conditions": [{"type": "Synced", "status": "False"}, {"type": "Ready", "status": "True"}]
    }
    [row] = tables.to_table(_widget(columns), [_obj("w", status=status)], {}, "", now=NOW)["rows"]
    assert row["cells"] == ["w", "True"]


def test_a_crd_without_printer_columns_shows_name_and_age() -> None:
    table = tables.to_table(_widget(), [_obj("w1"), _obj("w2")], {"continue": "abc"}, "", now=NOW)
    assert [c["name"] for c in table["columnDefinitions"]] == ["Name", "Age"]
    assert [r["cells"] for r in table["rows"]] == [["w1", "5m"], ["w2", "5m"]]
    assert table["metadata"] == {"continue": "abc"}


def test_include_object_metadata_is_the_default_and_wraps_partial_metadata() -> None:
    widget = _obj("w1", spec={"x": 1})
    [row] = tables.to_table(_widget(), [widget], {}, "", now=NOW)["rows"]
    assert row["object"] == {
        "kind": "PartialObjectMetadata",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": widget["metadata"],
    }


def test_include_object_object_and_none() -> None:
    widget = _obj("w1", spec={"x": 1})
    [full] = tables.to_table(_widget(), [widget], {}, "Object", now=NOW)["rows"]
    assert full["object"] == widget
    [bare] = tables.to_table(_widget(), [widget], {}, "None", now=NOW)["rows"]
    assert "object" not in bare


def test_an_unknown_include_object_value_is_a_bad_request() -> None:
    with pytest.raises(StatusError) as caught:
        tables.to_table(_widget(), [], {}, "Everything", now=NOW)
    assert caught.value.code == 400
    assert caught.value.status["reason"] == "BadRequest"
    assert "includeObject" in caught.value.status["message"]


def test_watch_events_after_the_first_can_omit_the_column_definitions() -> None:
    table = tables.to_table(_widget(), [_obj("w1")], {}, "", with_headers=False, now=NOW)
    assert table["columnDefinitions"] == []
    assert len(table["rows"]) == 1


def test_built_ins_without_bespoke_columns_show_name_and_created_at() -> None:
    crd = {"metadata": {"name": "widgets.example.com", "creationTimestamp": "2024-01-01T00:00:00Z"}}
    served = _builtin("apiextensions.k8s.io", "customresourcedefinitions")
    table = tables.to_table(served, [crd], {}, "", now=NOW)
    assert [(c["name"], c["type"]) for c in table["columnDefinitions"]] == [
        ("Name", "string"),
        ("Created At", "date"),
    ]
    assert table["rows"][0]["cells"] == ["widgets.example.com", "2024-01-01T00:00:00Z"]


def _pod(**status: Any) -> dict[str, Any]:
    return {
        "metadata": {"name": "web-0", "creationTimestamp": _stamp(timedelta(hours=3))},
        "spec": {"containers": [{"name": "app"}, {"name": "sidecar"}], "nodeName": "n1"},
        "status": status,
    }


def _pod_cells(pod: dict[str, Any]) -> list[Any]:
    [row] = tables.to_table(_builtin("", "pods"), [pod], {}, "None", now=NOW)["rows"]
    cells: list[Any] = row["cells"]
    return cells


def test_pods_get_ready_status_restarts_and_age_columns() -> None:
    served = _builtin("", "pods")
    table = tables.to_table(served, [], {}, "", now=NOW)
    shown = [c["name"] for c in table["columnDefinitions"] if c["priority"] == 0]
    assert shown == ["Name", "Ready", "Status", "Restarts", "Age"]


def test_a_running_pod_counts_ready_containers_and_recent_restarts() -> None:
    restarted = {"terminated": {"finishedAt": _stamp(timedelta(minutes=2)), "exitCode": 1}}
    pod = _pod(
        phase="Running",
        podIP="10.0.0.7",
        containerStatuses=[
            {"name": "app", "ready": True, "state": {"running": {}}, "restartCount": 0},
            {
                "name": "sidecar",
                "ready": False,
                "state": {"running": {}},
                "restartCount": 2,
                "lastState": restarted,
            },
        ],
    )
    assert _pod_cells(pod) == [
        "web-0",
        "1/2",
        "Running",
        "2 (2m ago)",
        "3h",
        "10.0.0.7",
        "n1",
        "<none>",
        "<none>",
    ]


def test_a_waiting_container_reason_becomes_the_pod_status() -> None:
    pod = _pod(
        phase="Pending",
        containerStatuses=[
            {"name": "app", "state": {"waiting": {"reason": "ImagePullBackOff"}}},
        ],
    )
    cells = _pod_cells(pod)
    assert cells[1:4] == ["0/2", "ImagePullBackOff", "0"]


def test_a_pod_being_deleted_shows_terminating() -> None:
    pod = _pod(phase="Running")
    pod["metadata"]["deletionTimestamp"] = _stamp(timedelta(seconds=1))
    assert _pod_cells(pod)[2] == "Terminating"


def test_a_pod_stuck_in_init_containers_says_so() -> None:
    pod = _pod(
        phase="Pending",
        initContainerStatuses=[{"name": "init", "state": {"running": {}}}],
    )
    pod["spec"]["initContainers"] = [{"name": "init"}]
    assert _pod_cells(pod)[2] == "Init:0/1"


def test_namespaces_config_maps_and_secrets_have_their_own_columns() -> None:
    created = _stamp(timedelta(days=3))
    ns = {"metadata": {"name": "dev", "creationTimestamp": created}, "status": {"phase": "Active"}}
    cm = {"metadata": {"name": "c", "creationTimestamp": created}, "data": {"a": "1", "b": "2"}}
    secret = {"metadata": {"name": "s", "creationTimestamp": created}, "type": "Opaque"}
    cases = [("namespaces", ns, ["dev", "Active", "3d"]), ("configmaps", cm, ["c", 2, "3d"])]
    cases.append(("secrets", secret, ["s", "Opaque", 0, "3d"]))
    for plural, obj, cells in cases:
        [row] = tables.to_table(_builtin("", plural), [obj], {}, "", now=NOW)["rows"]
        assert row["cells"] == cells, plural


def test_ages_read_like_kubectls() -> None:
    cases = {
        0: "0s",
        59: "59s",
        119: "119s",
        120: "2m",
        125: "2m5s",
        3600: "60m",
        3 * 3600: "3h",
        7 * 3600 + 60 * 5: "7h5m",
        30 * 3600: "30h",
        2 * 86400: "2d",
        10 * 86400: "10d",
        3 * 365 * 86400: "3y",
    }
    assert {seconds: human_duration(seconds) for seconds in cases} == cases
