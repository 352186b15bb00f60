"""The paths of a subtree only one side of a comparison has (what a create owns, what a
removal takes away), built node by node, are exactly the paths the definition gives: every
node, every map key, every list item by its key, below each other. Checked on every
Kubernetes 1.32 fixture kind, and on shapes the schema does not expect."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kubeforge.apiserver.smd.fieldpath import FieldSet, field_element
from kubeforge.apiserver.smd.fieldpath import Path as FieldPath
from kubeforge.apiserver.smd.schema import ANY, Atom, builtin_root, crd_root
from kubeforge.apiserver.smd.typed import TypedError, compare, item_element

_RELATIVE = Path("shared/research/test-vectors/k8s-api-testdata/v1.32.0")


def _fixtures() -> list[Path]:
    for parent in Path(__file__).resolve().parents:
        if (parent / _RELATIVE).is_dir():
            return sorted((parent / _RELATIVE).glob("*.json"))
    return []


def _typed(path: Path) -> tuple[dict[str, Any], Atom] | None:
    obj = json.loads(path.read_text())
    if not isinstance(obj, dict) or "apiVersion" not in obj or "kind" not in obj:
        return None
    group, _, version = str(obj["apiVersion"]).rpartition("/")
    atom = builtin_root(group, version, str(obj["kind"]))
    return None if atom is None else (obj, atom)


TYPED = [(p.stem, typed) for p in _fixtures() if (typed := _typed(p)) is not None]


def _reference(value: Any, atom: Atom, path: FieldPath, out: FieldSet) -> None:
    """The definition, path by path: the node itself, then everything below it."""
    if path:
        out.insert(path)
    if value is None or atom.is_leaf(value) or not value:
        return
    if isinstance(value, dict):
        for key, child in value.items():
            _reference(child, atom.child(key) or ANY, (*path, field_element(key)), out)
    elif isinstance(value, list):
        seen = set()
        for index, item in enumerate(value):
            try:
                element = item_element(atom, item, path, index)
            except TypedError:
                continue  # an item that cannot be keyed owns nothing
            if element not in seen:
                seen.add(element)
                _reference(item, atom.element or ANY, (*path, element), out)


def _expected(obj: dict[str, Any], atom: Atom) -> FieldSet:
    out = FieldSet()
    _reference(obj, atom, (), out)
    return out


def test_the_fixtures_are_there() -> None:
    assert len(TYPED) >= 80  # the kinds with a schema; absent fixtures fail here


@pytest.mark.parametrize(("name", "typed"), TYPED, ids=[name for name, _ in TYPED])
def test_a_created_or_removed_object_owns_exactly_its_paths(
    name: str, typed: tuple[dict[str, Any], Atom]
) -> None:
    obj, atom = typed
    expected = _expected(obj, atom)
    assert compare({}, obj, atom).added == expected
    assert compare(obj, {}, atom).removed == expected
    assert compare({}, obj, atom).added.to_fields_v1() == expected.to_fields_v1()


def test_shapes_the_schema_does_not_expect_own_what_the_definition_says() -> None:
    pod = builtin_root("", "v1", "Pod")
    assert pod is not None
    odd: dict[str, Any] = {
        "metadata": {"labels": "not-a-map", "annotations": {}, "finalizers": ["a", "a", "b"]},
        "spec": {
            "containers": [
                {"name": "a", "ports": [{"containerPort": 1}, {"containerPort": 1}]},
                {"image": "no-name"},  # cannot be keyed: owns nothing
                "not-a-map",
                {"name": "a", "image": "repeated key"},
            ],
            "nodeSelector": {"x": None},
            "volumes": [],
            "unknown": {"deep": [{"a": 1}, [2]]},
        },
        "status": 7,
    }
    untyped = crd_root(None)
    for atom in (pod, untyped):
        assert compare({}, odd, atom).added == _expected(odd, atom)
    later = {**odd, "spec": {**odd["spec"], "extra": {"x": [1, 2]}}}
    added = FieldSet()
    _reference({"x": [1, 2]}, ANY, (field_element("spec"), field_element("extra")), added)
    assert compare(odd, later, pod).added == added
