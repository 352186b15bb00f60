"""The managedFields operations without HTTP: Update entries, apply ownership and removal, the
cap on Update entries, clearing, before-first-apply and kubectl's client-side take-over."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from kubeforge.apiserver.fieldmanager import managed
from kubeforge.apiserver.fieldmanager.conflicts import ApplyConflict
from kubeforge.apiserver.fieldmanager.entries import decode, encode, keep_timestamps
from kubeforge.apiserver.fieldmanager.last_applied import LAST_APPLIED
from kubeforge.apiserver.smd.fieldpath import FieldSet, field_element
from kubeforge.apiserver.smd.schema import builtin_root

CONFIGMAP = builtin_root("", "v1", "ConfigMap")
assert CONFIGMAP is not None
NOTHING = FieldSet()


def cm(**data: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": data}


def update(old: dict[str, Any] | None, new: dict[str, Any], manager: str, **kw: Any) -> Any:
    args: dict[str, Any] = {
        "sent": None,
        "subresource": "",
        "api_version": "v1",
        "atom": CONFIGMAP,
        "ignored": NOTHING,
        "now": "2024-01-01T00:00:00Z",
    }
    args.update(kw)
    return managed.update(old=old, new=new, manager=manager, **args)


def apply(live: dict[str, Any], config: dict[str, Any], manager: str, **kw: Any) -> Any:
    args: dict[str, Any] = {
        "force": False,
        "subresource": "",
        "api_version": "v1",
        "atom": CONFIGMAP,
        "ignored": NOTHING,
        "now": "2024-01-01T00:00:01Z",
        "empty": {"apiVersion": "v1", "kind": "ConfigMap"},
    }
    args.update(kw)
    return managed.apply(live=live, config=config, manager=manager, **args)


def with_fields(obj: dict[str, Any], fields: Any) -> dict[str, Any]:
    return {**obj, "metadata": {**obj["metadata"], "managedFields": fields}}


def test_entries_decode_and_encode_in_the_real_servers_order() -> None:
    raw = [
        {
            "manager": "b",
            "operation": "Update",
            "apiVersion": "v1",
            "time": "2024-01-02T00:00:00Z",
            "fieldsType": "FieldsV1",
            "fieldsV1": {"f:data": {"f:x": {}}},
        },
        {
            "manager": "a",
            "operation": "Update",
            "apiVersion": "v1",
            "time": "2024-01-01T00:00:00Z",
            "fieldsType": "FieldsV1",
            "fieldsV1": {"f:data": {"f:y": {}}},
            "subresource": "status",
        },
        {
            "manager": "z",
            "operation": "Apply",
            "apiVersion": "v1",
            "time": "2024-01-03T00:00:00Z",
            "fieldsType": "FieldsV1",
            "fieldsV1": {"f:data": {"f:z": {}}},
        },
    ]
    assert [e["manager"] for e in encode(decode(raw))] == ["z", "a", "b"]
    assert encode(decode(raw))[1] == raw[1]


@pytest.mark.parametrize(
    "bad",
    [
        [{"operation": "Patch", "apiVersion": "v1", "fieldsType": "FieldsV1"}],
        [{"operation": "Update", "fieldsType": "FieldsV1"}],
        [{"operation": "Update", "apiVersion": "v1", "fieldsType": "FieldsV2"}],
        [{"operation": "Update", "apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": []}],
    ],
)
def test_malformed_entries_are_refused(bad: Any) -> None:
    with pytest.raises(ValueError):
        decode(bad)


def test_an_update_takes_what_it_changes_from_others_and_removals_leave_everyone() -> None:
    created = update(None, cm(a="1", b="2"), "maker")
    assert created[0]["fieldsV1"] == {"f:data": {".": {}, "f:a": {}, "f:b": {}}}
    old = with_fields(cm(a="1", b="2"), created)
    after = update(old, cm(a="9"), "editor")
    owners = {e["manager"]: e["fieldsV1"] for e in after}
    # maker keeps the map itself (a member without children encodes as {})
    assert owners == {"maker": {"f:data": {}}, "editor": {"f:data": {"f:a": {}}}}


def test_an_update_that_changes_nothing_keeps_entries_and_times() -> None:
    created = update(None, cm(a="1"), "maker")
    old = with_fields(cm(a="1"), created)
    assert update(old, cm(a="1"), "someone", now="2030-01-01T00:00:00Z") == created


def test_ten_update_entries_at_most_older_ones_fold_into_ancient_changes() -> None:
    obj = cm(k0="v")
    fields = update(None, obj, "m00", now="2024-01-01T00:00:00Z")
    for i in range(1, 12):
        new = cm(**{f"k{j}": "v" for j in range(i + 1)})
        fields = update(
            with_fields(obj, fields), new, f"m{i:02d}", now=f"2024-01-01T00:00:{i:02d}Z"
        )
        obj = new
    managers = [e["manager"] for e in fields]
    assert len(managers) == 10
    assert "ancient-changes" in managers
    ancient = next(e for e in fields if e["manager"] == "ancient-changes")
    assert set(ancient["fieldsV1"]["f:data"]) >= {"f:k0", "f:k1", "f:k2"}


def test_sent_managed_fields_replace_the_stored_ones_unless_malformed() -> None:
    created = update(None, cm(a="1"), "maker")
    old = with_fields(cm(a="1"), created)
    rewritten = [{**created[0], "manager": "renamed"}]
    assert update(old, cm(a="1"), "x", sent=rewritten)[0]["manager"] == "renamed"
    assert update(old, cm(a="1"), "x", sent=[{"bogus": 1}]) == created
    assert update(old, cm(a="1"), "x", sent=[{}]) is None  # a reset clears them
    assert update(old, cm(a="1"), "x", sent=rewritten, subresource="status") == created


def test_keep_timestamps_restores_times_when_nothing_else_changed() -> None:
    entry = update(None, cm(a="1"), "m")[0]
    old = with_fields(cm(a="1"), [entry])
    moved = with_fields(cm(a="1"), [{**entry, "time": "2099-01-01T00:00:00Z"}])
    keep_timestamps(old, moved)
    assert moved["metadata"]["managedFields"] == [entry]
    changed = with_fields(cm(a="2"), [{**entry, "time": "2099-01-01T00:00:00Z"}])
    keep_timestamps(old, changed)
    assert changed["metadata"]["managedFields"][0]["time"] == "2099-01-01T00:00:00Z"


def test_apply_on_an_untracked_object_first_records_before_first_apply() -> None:
    result = apply(cm(a="1", b="2"), cm(b="2", c="3"), "applier")
    owners = {e["manager"]: e for e in result.managed_fields}
    assert owners["before-first-apply"]["operation"] == "Update"
    assert owners["before-first-apply"]["fieldsV1"] == {"f:data": {".": {}, "f:a": {}, "f:b": {}}}
    assert owners["applier"]["fieldsV1"] == {"f:data": {"f:b": {}, "f:c": {}}}
    assert result.object["data"] == {"a": "1", "b": "2", "c": "3"}


def test_an_apply_that_changes_nothing_keeps_the_live_object_and_its_time() -> None:
    first = apply(cm(), cm(a="1"), "m")
    live = with_fields(first.object, first.managed_fields)
    again = apply(live, cm(a="1"), "m", now="2030-01-01T00:00:00Z")
    assert not again.changed
    assert again.managed_fields == first.managed_fields


def test_status_applies_ignore_everything_but_status_fields() -> None:
    ignored = FieldSet()
    ignored.insert((field_element("data"),))
    result = apply(cm(), cm(a="1"), "m", subresource="status", ignored=ignored)
    assert result.managed_fields == []


def test_kubectl_takes_over_fields_its_client_side_apply_set() -> None:
    annotation = orjson.dumps(cm(a="1")).decode()
    live = cm(a="1")
    live["metadata"]["annotations"] = {LAST_APPLIED: annotation}
    csa = update(None, live, "kubectl-client-side-apply")
    live = with_fields(live, csa)
    with pytest.raises(ApplyConflict):
        apply(live, cm(a="2"), "someone-else")
    result = apply(live, cm(a="2"), "kubectl")
    assert result.object["data"] == {"a": "2"}
    synced = orjson.loads(result.object["metadata"]["annotations"][LAST_APPLIED])
    assert synced["data"] == {"a": "2"}
    owners = {e["manager"]: e["fieldsV1"] for e in result.managed_fields}
    assert owners["kubectl"] == {"f:data": {"f:a": {}}}


def test_a_conflict_message_names_every_manager_and_path() -> None:
    first = apply(cm(), cm(a="1", b="1"), "alice")
    live = with_fields(first.object, first.managed_fields)
    second = apply(live, cm(c="1"), "bob")
    live = with_fields(second.object, second.managed_fields)
    with pytest.raises(ApplyConflict) as conflict:
        apply(live, cm(a="2", c="2"), "carol")
    assert conflict.value.message == (
        'Apply failed with 2 conflicts: conflicts with "alice":\n- .data.a\n'
        'conflicts with "bob":\n- .data.c'
    )
