"""Field sets and typed operations behind managedFields: FieldsV1, ownership of applied
configurations, comparison, the apply merge and removal, on built-in and CRD types."""

from __future__ import annotations

from typing import Any

import pytest

from kubeforge.apiserver.smd import generate
from kubeforge.apiserver.smd.fieldpath import FieldSet, field_element, key_element, path_string
from kubeforge.apiserver.smd.schema import Atom, builtin_root, crd_root
from kubeforge.apiserver.smd.typed import TypedError, compare, merge, remove_items, to_field_set


def _atom(group: str, version: str, kind: str) -> Atom:
    atom = builtin_root(group, version, kind)
    assert atom is not None
    return atom


POD = _atom("", "v1", "Pod")
CONFIGMAP = _atom("", "v1", "ConfigMap")

WIDGET_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "properties": {
                "replicas": {"type": "integer"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "owners": {
                    "type": "array",
                    "x-kubernetes-list-type": "set",
                    "items": {"type": "string"},
                },
                "ports": {
                    "type": "array",
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["port", "protocol"],
                    "items": {
                        "type": "object",
                        "properties": {
                            "port": {"type": "integer"},
                            "protocol": {"type": "string", "default": "TCP"},
                            "name": {"type": "string"},
                        },
                    },
                },
                "selector": {
                    "type": "object",
                    "x-kubernetes-map-type": "atomic",
                    "additionalProperties": {"type": "string"},
                },
                "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
            },
        }
    },
}
WIDGET = crd_root(WIDGET_SCHEMA)


def test_the_builtin_type_table_is_generated_from_the_pinned_openapi() -> None:
    assert generate.render() == generate.OUTPUT.read_text("utf-8")


def test_fields_v1_round_trips_and_marks_nodes_that_are_also_members() -> None:
    document = {
        "f:metadata": {"f:labels": {".": {}, "f:app": {}}},
        "f:spec": {"f:containers": {'k:{"name":"web"}': {".": {}, "f:image": {}}}},
        "f:data": {},
    }
    fields = FieldSet.from_fields_v1(document)
    assert fields.to_fields_v1() == document
    assert fields.has((field_element("data"),))
    assert not fields.has((field_element("spec"),))
    paths = [path_string(p) for p in fields.paths()]
    assert paths == [
        ".data",
        ".metadata.labels",
        ".metadata.labels.app",
        '.spec.containers[name="web"]',
        '.spec.containers[name="web"].image',
    ]


def test_fields_v1_rejects_malformed_entries() -> None:
    with pytest.raises(ValueError):
        FieldSet.from_fields_v1({"x:name": {}})
    with pytest.raises(ValueError):
        FieldSet.from_fields_v1({"f:a": []})


def test_set_algebra_keeps_exact_paths_and_recursive_difference_drops_subtrees() -> None:
    spec, replicas = field_element("spec"), field_element("replicas")
    a = FieldSet()
    a.insert((spec,))
    a.insert((spec, replicas))
    b = FieldSet()
    b.insert((spec,))
    assert a.difference(b).to_fields_v1() == {"f:spec": {"f:replicas": {}}}
    assert a.recursive_difference(b).empty()
    assert a.intersection(b) == b
    assert b.union(a) == a


def test_an_applied_configuration_owns_scalars_items_and_undeclared_map_keys() -> None:
    config = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "labels": {"app": "web"}},
        "spec": {
            "containers": [{"name": "web", "image": "nginx", "ports": [{"containerPort": 80}]}],
            "securityContext": {},
        },
    }
    assert to_field_set(config, POD).to_fields_v1() == {
        "f:apiVersion": {},
        "f:kind": {},
        "f:metadata": {"f:labels": {"f:app": {}}, "f:name": {}},
        "f:spec": {
            "f:containers": {
                'k:{"name":"web"}': {
                    ".": {},
                    "f:image": {},
                    "f:name": {},
                    "f:ports": {
                        'k:{"containerPort":80,"protocol":"TCP"}': {
                            ".": {},
                            "f:containerPort": {},
                        }
                    },
                }
            },
            "f:securityContext": {},
        },
    }


def test_crd_list_markers_decide_how_lists_are_owned() -> None:
    config = {
        "spec": {
            "tags": ["a", "b"],
            "owners": ["x"],
            "ports": [{"port": 80}],
            "selector": {"app": "w"},
            "extra": {"free": {"form": 1}},
        }
    }
    assert to_field_set(config, WIDGET).to_fields_v1() == {
        "f:spec": {
            "f:tags": {},  # no list-type marker: atomic
            "f:owners": {'v:"x"': {}},
            "f:ports": {'k:{"port":80,"protocol":"TCP"}': {".": {}, "f:port": {}}},
            "f:selector": {},  # atomic map
            "f:extra": {"f:free": {".": {}, "f:form": {}}},  # declared: not a member itself
        }
    }


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"spec": {"bogus": 1}}, ".spec.bogus: field not declared in schema"),
        (
            {"spec": {"containers": [{"image": "x"}]}},
            ".spec.containers: element 0: associative list with keys has an element that omits "
            'key field "name"',
        ),
        (
            {"spec": {"containers": [{"name": "a"}, {"name": "a"}]}},
            '.spec.containers: duplicate entries for key [name="a"]',
        ),
        ({"spec": {"containers": {"name": "a"}}}, ".spec.containers: expected list, got map"),
    ],
)
def test_configurations_that_do_not_fit_the_schema_are_refused(
    config: dict[str, Any], message: str
) -> None:
    with pytest.raises(TypedError, match=message.replace("[", r"\[").replace(".", r"\.")):
        to_field_set(config, POD)


def test_comparison_reports_new_nodes_and_changed_leaves() -> None:
    old = {"data": {"a": "1", "b": "2"}}
    new = {"data": {"a": "9", "c": "3"}, "metadata": {"labels": {"x": "y"}}}
    result = compare(old, new, CONFIGMAP)
    assert result.added.to_fields_v1() == {
        "f:data": {"f:c": {}},
        "f:metadata": {".": {}, "f:labels": {".": {}, "f:x": {}}},
    }
    assert result.modified.to_fields_v1() == {"f:data": {"f:a": {}}}
    assert result.removed.to_fields_v1() == {"f:data": {"f:b": {}}}


def test_the_apply_merge_keeps_live_only_items_in_place_and_follows_the_configuration() -> None:
    live = {"spec": {"containers": [{"name": "a"}, {"name": "side"}, {"name": "b"}]}}
    config = {"spec": {"containers": [{"name": "b", "image": "2"}, {"name": "a", "image": "1"}]}}
    merged = merge(live, config, POD)
    assert [c["name"] for c in merged["spec"]["containers"]] == ["side", "b", "a"]
    assert merged["spec"]["containers"][1] == {"name": "b", "image": "2"}


def test_the_apply_merge_replaces_atomic_lists_and_maps() -> None:
    live = {"spec": {"tags": ["a"], "selector": {"x": "1"}, "owners": ["o1"]}}
    config = {"spec": {"tags": ["b"], "selector": {"y": "2"}, "owners": ["o2"]}}
    assert merge(live, config, WIDGET)["spec"] == {
        "tags": ["b"],
        "selector": {"y": "2"},
        "owners": ["o1", "o2"],
    }


def test_removing_items_drops_maps_and_lists_it_empties() -> None:
    value = {"spec": {"owners": ["x"], "ports": [{"port": 80, "name": "a"}], "replicas": 1}}
    fields = FieldSet()
    fields.insert((field_element("spec"), field_element("owners"), ("v", '"x"')))
    fields.insert(
        (
            field_element("spec"),
            field_element("ports"),
            key_element({"port": 80, "protocol": "TCP"}),
        )
    )
    assert remove_items(value, fields, WIDGET) == {"spec": {"replicas": 1}}
