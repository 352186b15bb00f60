"""A create's managedFields entry is remembered by the object's shape: objects of one shape
get the entry worked out for the first, with their own time; any other shape, or an
object holding lists, gets its own."""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.fieldmanager import managed
from kubeforge.apiserver.smd.fieldpath import FieldSet, field_element
from kubeforge.apiserver.smd.schema import builtin_root, crd_root

CONFIGMAP = builtin_root("", "v1", "ConfigMap")
POD = builtin_root("", "v1", "Pod")
assert CONFIGMAP is not None and POD is not None
UNTYPED = crd_root(None)


def create(obj: dict[str, Any], *, atom: Any = CONFIGMAP, **kw: Any) -> Any:
    args: dict[str, Any] = {
        "sent": None,
        "manager": "kubectl",
        "subresource": "",
        "api_version": obj["apiVersion"],
        "atom": atom,
        "ignored": FieldSet(),
        "now": "2024-01-01T00:00:00Z",
    }
    args.update(kw)
    return managed.update(old=None, new=obj, **args)


def configmap(name: str, **data: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}


def fields(entries: Any) -> Any:
    [entry] = entries
    return entry["fieldsV1"]


def test_objects_of_one_shape_get_equal_entries_each_with_its_own_time() -> None:
    first = create(configmap("a", key="one"), now="2024-01-01T00:00:00Z")
    second = create(configmap("b", key="two"), now="2024-01-01T00:00:05Z")

    assert first[0]["time"] == "2024-01-01T00:00:00Z"
    assert second[0]["time"] == "2024-01-01T00:00:05Z"
    assert {**second[0], "time": ""} == {**first[0], "time": ""}
    assert fields(second) == {"f:data": {".": {}, "f:key": {}}}


def test_a_remembered_entry_is_a_copy_the_caller_may_change() -> None:
    create(configmap("a", key="one"))
    changed = create(configmap("b", key="two"))
    changed[0]["fieldsV1"]["f:data"]["f:other"] = {}

    again = create(configmap("c", key="three"))

    assert fields(again) == {"f:data": {".": {}, "f:key": {}}}


def test_another_key_or_another_manager_is_another_entry() -> None:
    create(configmap("a", key="one"))

    assert fields(create(configmap("b", key="one", more="x"))) == {
        "f:data": {".": {}, "f:key": {}, "f:more": {}}
    }
    assert create(configmap("c", key="one"), manager="helm")[0]["manager"] == "helm"


def test_a_map_where_the_last_object_had_a_scalar_is_another_shape() -> None:
    widget = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}
    scalar = create({**widget, "spec": {"size": "big"}}, atom=UNTYPED)
    nested = create({**widget, "spec": {"size": {"min": 1}}}, atom=UNTYPED)

    assert fields(scalar) == {"f:spec": {".": {}, "f:size": {}}}
    assert fields(nested) == {"f:spec": {".": {}, "f:size": {".": {}, "f:min": {}}}}


def test_objects_with_lists_are_worked_out_each_time_by_their_items() -> None:
    def pod(container: str) -> dict[str, Any]:
        return {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "p"},
            "spec": {"containers": [{"name": container, "image": "nginx"}]},
        }

    web = fields(create(pod("web"), atom=POD))
    sidecar = fields(create(pod("sidecar"), atom=POD))

    assert 'k:{"name":"web"}' in web["f:spec"]["f:containers"]
    assert 'k:{"name":"sidecar"}' in sidecar["f:spec"]["f:containers"]


def test_fields_the_endpoint_does_not_own_are_part_of_the_shape() -> None:
    status = FieldSet()
    status.insert((field_element("status"),))
    obj = {**configmap("a", key="one"), "status": {"phase": "x"}}

    owned = fields(create(obj, atom=UNTYPED))
    not_owned = fields(create(obj, atom=UNTYPED, ignored=status))

    assert "f:status" in owned
    assert "f:status" not in not_owned
