"""A CRD's defaults applied when custom resources are read back from storage."""

from __future__ import annotations

import copy
from typing import Any, cast

from kubeforge.apiserver.apiextensions.crds import CRDController
from kubeforge.apiserver.apiextensions.custom_resources import CustomResourceStrategy, read_defaults
from kubeforge.apiserver.apiextensions.defaulting import ReadDefaulter
from kubeforge.apiserver.registry.served import ServedResource
from kubeforge.apiserver.registry.strategy import Strategy
from kubeforge.core.resource import ResourceInfo

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "properties": {
                "replicas": {"type": "integer", "default": 1},
                "mode": {"type": "string", "default": "fast", "nullable": True},
                "limits": {
                    "type": "object",
                    "default": {},
                    "properties": {"cpu": {"type": "string", "default": "100m"}},
                },
                "ports": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"protocol": {"type": "string", "default": "TCP"}},
                    },
                },
                "labels": {
                    "type": "object",
                    "additionalProperties": {
                        "type": "object",
                        "properties": {"weight": {"type": "integer", "default": 5}},
                    },
                },
            },
        }
    },
}


def _defaulter() -> ReadDefaulter:
    defaulter = ReadDefaulter.of(SCHEMA)
    assert defaulter is not None
    return defaulter


def test_a_schema_without_defaults_needs_no_defaulter() -> None:
    assert ReadDefaulter.of({"type": "object", "properties": {"spec": {"type": "object"}}}) is None
    assert ReadDefaulter.of(None) is None


def test_missing_defaults_are_filled_at_every_depth_in_a_copy() -> None:
    stored = {
        "apiVersion": "example.com/v1",
        "spec": {"ports": [{"port": 80}, {"protocol": "UDP"}], "labels": {"a": {}}},
    }
    before = copy.deepcopy(stored)
    read = _defaulter().apply(stored)
    assert read["spec"] == {
        "replicas": 1,
        "mode": "fast",
        "limits": {"cpu": "100m"},  # the default {} is itself defaulted
        "ports": [{"port": 80, "protocol": "TCP"}, {"protocol": "UDP"}],
        "labels": {"a": {"weight": 5}},
    }
    assert stored == before  # the stored object is never touched


def test_an_object_lacking_nothing_is_returned_as_is() -> None:
    complete = {
        "spec": {
            "replicas": 3,
            "mode": None,  # nullable: an explicit null stays
            "limits": {"cpu": "1"},
            "ports": [{"protocol": "TCP"}],
        }
    }
    assert _defaulter().apply(complete) is complete


def test_a_null_in_a_non_nullable_field_is_defaulted() -> None:
    read = _defaulter().apply({"spec": {"replicas": None}})
    assert read["spec"]["replicas"] == 1


def test_nothing_is_defaulted_inside_an_object_that_does_not_exist() -> None:
    assert _defaulter().apply({"metadata": {"name": "x"}}) == {"metadata": {"name": "x"}}


class _NoController:
    """Reads never reach the controller; anything else would be a test bug."""


def _strategy(versions: list[dict[str, Any]]) -> CustomResourceStrategy:
    info = ResourceInfo("example.com", "v2", "Thing", "things", namespaced=True)
    served = ServedResource(info=info, schema=SCHEMA, builtin=False, crd_name="things.example.com")
    controller = cast(CRDController, _NoController())
    return CustomResourceStrategy(
        served, versions[-1], controller, read_defaults("example.com", versions)
    )


def test_objects_are_defaulted_with_the_schema_of_the_version_they_are_stored_at() -> None:
    old_schema = {
        "type": "object",
        "properties": {
            "spec": {"type": "object", "properties": {"tier": {"type": "string", "default": "b"}}}
        },
    }
    strategy = _strategy(
        [
            {
                "name": "v1",
                "served": False,
                "storage": False,
                "schema": {"openAPIV3Schema": old_schema},
            },
            {"name": "v2", "served": True, "storage": True, "schema": {"openAPIV3Schema": SCHEMA}},
        ]
    )
    at_v1 = strategy.on_read({"apiVersion": "example.com/v1", "spec": {}})
    assert at_v1["spec"] == {"tier": "b"}
    at_v2 = strategy.on_read({"apiVersion": "example.com/v2", "spec": {"limits": {"cpu": "1"}}})
    assert at_v2["spec"]["replicas"] == 1
    assert "tier" not in at_v2["spec"]


def test_reads_of_a_crd_without_defaults_and_of_built_ins_return_the_stored_object() -> None:
    plain = {"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {}}}
    stored = {"apiVersion": "example.com/v1", "spec": {}}
    assert _strategy([plain]).on_read(stored) is stored
    configmaps = ServedResource(info=ResourceInfo("", "v1", "ConfigMap", "configmaps"))
    assert Strategy(configmaps).on_read(stored) is stored
