"""Generated CRDs against the apiextensions v1 JSON schema and the structural-schema rules."""

from __future__ import annotations

import copy
from typing import Any

import jsonschema
import kubernetes_validate
import pytest

from kubeforge.crd import generate_crd

from .kf_ships import Carrier, CarrierV1Alpha1, Frigate, valid_carrier
from .kf_structural import structural_problems

KUBERNETES = "1.32.0"
GENERATED = {
    "frigates": generate_crd(Frigate),
    "carriers": generate_crd([Carrier, CarrierV1Alpha1]),
}


def schema_of(crd: dict[str, Any], version: str) -> dict[str, Any]:
    entry = next(v for v in crd["spec"]["versions"] if v["name"] == version)
    return dict(entry["schema"]["openAPIV3Schema"])


@pytest.mark.parametrize("name", sorted(GENERATED))
def test_generated_crds_pass_the_apiextensions_v1_json_schema(name: str) -> None:
    assert kubernetes_validate.validate(GENERATED[name], KUBERNETES, strict=True)


def test_the_json_schema_check_catches_a_misspelt_keyword() -> None:
    broken = copy.deepcopy(GENERATED["frigates"])
    broken["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["propertise"] = {}
    with pytest.raises(kubernetes_validate.ValidationError, match="propertise"):
        kubernetes_validate.validate(broken, KUBERNETES, strict=True)


@pytest.mark.parametrize(
    ("name", "version"), [("frigates", "v1beta1"), ("carriers", "v1"), ("carriers", "v1alpha1")]
)
def test_generated_schemas_are_structural_and_their_defaults_valid(name: str, version: str) -> None:
    assert structural_problems(schema_of(GENERATED[name], version)) == []


def test_the_structural_check_catches_untyped_nodes_and_bad_defaults() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"description": "no type"},
            "b": {"type": "integer", "minimum": 1, "default": 0},
            "c": {"type": "array", "items": {"type": "object"}, "x-kubernetes-list-type": "set"},
        },
    }
    assert structural_problems(schema) == [
        ".a: no type",
        ".b: default 0 is invalid: 0 is less than the minimum of 1",
        ".c: a set of non-scalars",
    ]


def test_the_sample_object_is_valid_against_the_generated_schema() -> None:
    schema = schema_of(GENERATED["carriers"], "v1")
    jsonschema.Draft4Validator(schema).validate(valid_carrier("sample"))


def test_a_quantity_pattern_on_int_or_string_rejects_a_bad_suffix() -> None:
    schema = schema_of(GENERATED["carriers"], "v1")
    bad = valid_carrier("sample")
    bad["spec"]["capacity"] = "10Xi"
    with pytest.raises(jsonschema.ValidationError, match="does not match"):
        jsonschema.Draft4Validator(schema).validate(bad)
    bad["spec"]["capacity"] = 10
    jsonschema.Draft4Validator(schema).validate(bad)
