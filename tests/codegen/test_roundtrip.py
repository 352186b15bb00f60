"""Round trips: model -> CRD -> model -> CRD keeps the schema; so does a third-party CRD."""

from __future__ import annotations

import copy
import json
import typing
from pathlib import Path
from types import ModuleType
from typing import Annotated, Any, Literal

import kubernetes_validate
import pytest

from crd.kf_ships import Carrier, CarrierV1Alpha1, Frigate
from crd.kf_structural import structural_problems
from kubeforge.core.meta import decode, encode
from kubeforge.core.resource import Resource
from kubeforge.crd import Default, EmbeddedResource, generate_crd, generate_models, render_yaml
from kubeforge.crd._docs import normalise

from .conftest import CERTIFICATES, SERVICE_MONITORS, Load, fixture_crd, one_version_crd


def crd_from(modules: dict[str, ModuleType], kind: str) -> dict[str, Any]:
    classes: list[type[Resource]] = [
        getattr(module, kind) for module in modules.values() if hasattr(module, kind)
    ]
    return generate_crd(classes)


def comparable(crd: dict[str, Any]) -> dict[str, Any]:
    """The CRD's spec as a trip through models keeps it: descriptions normalised,
    int-or-string spelt with its anyOf, the standard apiVersion/kind descriptions aside."""
    spec = copy.deepcopy(crd["spec"])

    def visit(node: dict[str, Any]) -> None:
        if "description" in node:
            node["description"] = normalise(node["description"])
        if node.get("x-kubernetes-int-or-string"):
            node.setdefault("anyOf", [{"type": "integer"}, {"type": "string"}])
        for child in (node.get("properties") or {}).values():
            visit(child)
        for key in ("items", "additionalProperties"):
            if isinstance(node.get(key), dict):
                visit(node[key])

    for version in spec["versions"]:
        root = version["schema"]["openAPIV3Schema"]
        for name in ("apiVersion", "kind"):
            root["properties"][name].pop("description", None)
        visit(root)
    return spec


@pytest.mark.parametrize(
    ("classes", "kind"),
    [((Carrier, CarrierV1Alpha1), "Carrier"), ((Frigate,), "Frigate")],
    ids=["carrier", "frigate"],
)
def test_model_to_crd_to_model_to_crd_gives_the_same_crd(
    generated: Load, classes: tuple[type[Resource], ...], kind: str
) -> None:
    first = generate_crd(list(classes))
    second = crd_from(generated(first), kind)
    assert second == first
    assert render_yaml(second) == render_yaml(first)


@pytest.mark.parametrize(
    ("path", "kind"),
    [(CERTIFICATES, "Certificate"), (SERVICE_MONITORS, "ServiceMonitor")],
    ids=["cert-manager", "prometheus-operator"],
)
def test_a_third_party_crd_survives_a_trip_through_models(
    generated: Load, path: Path, kind: str
) -> None:
    original = fixture_crd(path)
    again = crd_from(generated(path.read_text()), kind)
    assert again["metadata"]["name"] == original["metadata"]["name"]
    assert comparable(again) == comparable(original)
    assert kubernetes_validate.validate(again, "1.32.0", strict=True)
    for version in again["spec"]["versions"]:
        assert structural_problems(version["schema"]["openAPIV3Schema"]) == []


def test_a_root_that_keeps_unknown_fields_round_trips(generated: Load) -> None:
    crd = fixture_crd(SERVICE_MONITORS)
    root = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    root["x-kubernetes-preserve-unknown-fields"] = True
    root["x-kubernetes-validations"] = [{"rule": "has(self.spec)", "message": "spec is required"}]
    module = generated(crd)["servicemonitor_v1"]
    assert module.ServiceMonitor.crd.preserve_unknown_fields is True
    assert comparable(crd_from({"m": module}, "ServiceMonitor")) == comparable(crd)


@pytest.mark.parametrize("path", [CERTIFICATES, SERVICE_MONITORS], ids=["cert", "smon"])
def test_models_from_the_regenerated_crd_are_the_same_source(
    generated: Load, tmp_path: Path, path: Path
) -> None:
    modules = generated(path.read_text())
    kind = fixture_crd(path)["spec"]["names"]["kind"]
    regenerated = crd_from(modules, kind)
    folder = tmp_path / "same"
    assert generate_models(regenerated, package="m", directory=folder) == generate_models(
        path.read_text(), package="m", directory=folder
    )


JOBSETS = one_version_crd(
    "batch.example.com",
    "JobSet",
    {
        "type": "object",
        "properties": {
            "apiVersion": {"type": "string"},
            "kind": {"type": "string"},
            "metadata": {"type": "object"},
            "spec": {
                "type": "object",
                "required": ["parallelism", "template"],
                "properties": {
                    "parallelism": {
                        "anyOf": [{"type": "integer"}, {"type": "string"}],
                        "x-kubernetes-int-or-string": True,
                    },
                    "deadline": {"type": "integer", "nullable": True},
                    "config": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                    "anything": {"x-kubernetes-preserve-unknown-fields": True},
                    "template": {
                        "type": "object",
                        "x-kubernetes-embedded-resource": True,
                        "x-kubernetes-preserve-unknown-fields": True,
                    },
                    "mode": {"type": "string", "enum": ["fast", "slow"], "default": "fast"},
                },
            },
        },
    },
)


def test_nullable_int_or_string_preserved_and_embedded_fields_map_faithfully(
    generated: Load,
) -> None:
    module = generated(JOBSETS)["jobset_v1"]
    hints = typing.get_type_hints(module.JobSetSpec, include_extras=True)
    assert hints["parallelism"] == int | str  # required: no default
    assert hints["config"] == dict[str, Any] | None
    assert hints["anything"] == Any
    assert hints["template"] == Annotated[dict[str, Any], EmbeddedResource()]
    assert hints["mode"] == Annotated[Literal["fast", "slow"], Default("fast")] | None
    wire = {
        "apiVersion": "batch.example.com/v1",
        "kind": "JobSet",
        "metadata": {"name": "nightly"},
        "spec": {
            "parallelism": "50%",
            "deadline": None,
            "config": {"retries": {"max": [3, "x"]}},
            "anything": [1, "two"],
            "template": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "t"}},
        },
    }
    jobset = decode(json.dumps(wire).encode(), module.JobSet)
    assert jobset.spec.deadline is None and jobset.spec.mode is None
    assert json.loads(encode(jobset)) == wire  # the null of a nullable field is kept
    spec = module.JobSetSpec(parallelism=0, template={})
    assert json.loads(encode(spec)) == {"parallelism": 0, "template": {}}  # deadline unset
    spec.deadline = None
    assert json.loads(encode(spec))["deadline"] is None  # set to None: sent as null
    assert comparable(crd_from({"m": module}, "JobSet")) == comparable(JOBSETS)
