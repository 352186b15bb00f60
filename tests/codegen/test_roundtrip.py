"""Round trips: model -> CRD -> model -> CRD keeps the schema; so does a third-party CRD."""

from __future__ import annotations

import copy
from pathlib import Path
from types import ModuleType
from typing import Any

import kubernetes_validate
import pytest

from crd.kf_ships import Carrier, CarrierV1Alpha1, Frigate
from crd.kf_structural import structural_problems
from kubeforge.core.resource import Resource
from kubeforge.crd import generate_crd, generate_models, render_yaml
from kubeforge.crd._docs import normalise

from .conftest import CERTIFICATES, SERVICE_MONITORS, Load, fixture_crd


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
