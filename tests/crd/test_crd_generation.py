"""generate_crd: names, versions, schema mapping of every supported type and marker, errors."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

import msgspec
import pytest
from msgspec import Meta

from kubeforge import Model, Resource, ResourceInfo, errors
from kubeforge.core.errors import KubeforgeError
from kubeforge.core.meta import decode, encode
from kubeforge.crd import (
    CRDOptions,
    ListType,
    SchemaError,
    generate_crd,
    generate_crds,
    model_schema,
    resources_in,
    version_priority,
)

from . import kf_ships
from .kf_ships import Carrier, CarrierV1Alpha1, Frigate


def spec_of(crd: dict[str, Any], version: str = "v1") -> dict[str, Any]:
    for entry in crd["spec"]["versions"]:
        if entry["name"] == version:
            return dict(entry["schema"]["openAPIV3Schema"]["properties"]["spec"])
    raise AssertionError(f"no version {version}")


def test_the_seed_frigate_becomes_the_crd_kubebuilder_would_write() -> None:
    crd = generate_crd(Frigate)
    version = crd["spec"]["versions"][0]
    schema = version["schema"]["openAPIV3Schema"]
    assert crd["metadata"] == {"name": "frigates.ship.example.com"}
    assert crd["spec"]["names"] == {
        "kind": "Frigate",
        "listKind": "FrigateList",
        "plural": "frigates",
        "singular": "frigate",
    }
    assert crd["spec"]["scope"] == "Namespaced"
    assert (version["name"], version["served"], version["storage"]) == ("v1beta1", True, True)
    assert version["subresources"] == {"status": {}}
    assert schema["description"] == "Frigate is the Schema for the frigates API."
    assert schema["properties"]["spec"] == {
        "description": "FrigateSpec defines the desired state of Frigate.",
        "properties": {
            "demo": {"description": "Demo is a second example field.", "type": "string"},
            "foo": {"description": "Foo is an example field of Frigate.", "type": "string"},
        },
        "type": "object",
    }
    assert schema["properties"]["status"]["properties"]["created"]["type"] == "boolean"
    assert schema["properties"]["metadata"] == {"type": "object"}
    assert "required" not in schema


def test_keys_come_out_in_alphabetical_order_at_every_level() -> None:
    def check(node: Any) -> None:
        if isinstance(node, dict):
            assert list(node) == sorted(node)
            for value in node.values():
                check(value)
        elif isinstance(node, list):
            for value in node:
                check(value)

    check(generate_crd([Carrier, CarrierV1Alpha1]))


def test_scalars_bounds_lengths_and_patterns_come_from_meta() -> None:
    spec = spec_of(generate_crd(Carrier))["properties"]
    assert spec["replicas"] == {
        "default": 1,
        "description": "How many carriers to run.",
        "maximum": 10,
        "minimum": 0,
        "type": "integer",
    }
    assert spec["ratio"]["exclusiveMinimum"] is True
    assert (spec["ratio"]["minimum"], spec["ratio"]["maximum"]) == (0.0, 1.0)
    assert spec["ratio"]["multipleOf"] == 0.25
    assert spec["hostname"]["format"] == "hostname"
    assert spec["hostname"]["pattern"] == "^[a-z0-9.-]+$"
    ports = spec["ports"]["items"]["properties"]
    assert (ports["name"]["minLength"], ports["name"]["maxLength"]) == (1, 15)
    assert spec["ports"]["maxItems"] == 8
    assert spec["labels"]["maxProperties"] == 20
    assert spec["weights"]["minProperties"] == 1
    assert spec["weights"]["additionalProperties"] == {"minimum": 0, "type": "integer"}
    assert spec["aliases"]["items"] == {"minLength": 1, "type": "string"}
    assert spec["title"] == {
        "description": "Shown by kubectl explain.",
        "title": "Title",
        "type": "string",
    }


def test_enums_come_from_literals_and_enum_classes() -> None:
    spec = spec_of(generate_crd(Carrier))["properties"]
    assert spec["level"] == {
        "default": 2,
        "description": "Alert level, as a number.",
        "enum": [1, 2],
        "type": "integer",
    }
    assert spec["mode"]["enum"] == ["fast", "slow"]
    assert spec["mode"]["default"] == "fast"
    crew = spec["crew"]["properties"]
    assert crew["rank"] == {"default": "sailor", "enum": ["captain", "sailor"], "type": "string"}


def test_required_means_no_default_or_the_required_marker() -> None:
    crd = generate_crd(Carrier)
    root = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    spec = spec_of(crd)
    assert root["required"] == ["spec"]
    assert spec["required"] == ["window"]
    assert spec["properties"]["crew"]["required"] == ["captain"]
    assert "default" not in spec["properties"]["crew"]["properties"]["captain"]
    assert spec["properties"]["ports"]["items"]["required"] == ["name"]


def test_zero_defaults_mean_unset_and_default_states_them_outright() -> None:
    spec = spec_of(generate_crd(Carrier))["properties"]
    assert "default" not in spec["title"]  # = ""
    assert "default" not in spec["tags"]  # = set()
    assert "default" not in spec["crew"]  # default_factory=Crew
    assert spec["paused"]["default"] is False  # Annotated[bool, Default(False)]
    assert spec["port"]["default"] == 8080


def test_int_or_string_and_free_form_values() -> None:
    spec = spec_of(generate_crd(Carrier))["properties"]
    assert spec["port"]["x-kubernetes-int-or-string"] is True
    assert spec["port"]["anyOf"] == [{"type": "integer"}, {"type": "string"}]
    assert "type" not in spec["port"]
    assert spec["capacity"]["pattern"] == "^[0-9]+(Ki|Mi|Gi)$"
    assert spec["config"] == {
        "description": "Free-form configuration, kept as given.",
        "type": "object",
        "x-kubernetes-preserve-unknown-fields": True,
    }
    assert spec["payload"] == {
        "description": "Any JSON value at all.",
        "x-kubernetes-preserve-unknown-fields": True,
    }
    assert spec["template"]["x-kubernetes-embedded-resource"] is True
    assert spec["notes"]["x-kubernetes-preserve-unknown-fields"] is True
    assert spec["notes"]["properties"]["start"]["type"] == "integer"


def test_strings_with_formats_tuples_and_frozensets() -> None:
    spec = spec_of(generate_crd(Carrier))["properties"]
    assert spec["serial"] == {"format": "uuid", "type": "string"}
    assert spec["commissioned"] == {"format": "date", "type": "string"}
    assert spec["launched"]["format"] == "date-time"
    assert spec["blob"]["format"] == "byte"
    assert spec["shifts"]["items"] == {"minimum": 0, "type": "integer"}
    assert spec["zones"]["x-kubernetes-list-type"] == "set"


def test_examples_extra_json_schema_and_object_defaults() -> None:
    spec = spec_of(generate_crd(Carrier))["properties"]
    assert spec["motto"] == {"example": "Ever onward", "type": "string"}
    assert spec["callsign"]["nullable"] is True
    assert spec["escort"]["default"] == {}


def test_list_and_map_types() -> None:
    spec = spec_of(generate_crd(Carrier))["properties"]
    assert spec["ports"]["x-kubernetes-list-type"] == "map"
    assert spec["ports"]["x-kubernetes-list-map-keys"] == ["name"]
    assert spec["tags"]["x-kubernetes-list-type"] == "set"
    assert spec["aliases"]["x-kubernetes-list-type"] == "atomic"
    assert spec["labels"]["x-kubernetes-map-type"] == "atomic"


def test_cel_rules_on_fields_and_on_the_whole_object() -> None:
    crd = generate_crd(Carrier)
    root = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    spec = spec_of(crd)["properties"]
    assert spec["window"]["x-kubernetes-validations"] == [
        {
            "message": "start must not be after end",
            "rule": "!has(self.start) || self.start <= self.end",
        }
    ]
    assert spec["tier"]["x-kubernetes-validations"] == [
        {"message": "tier is immutable", "rule": "self == oldSelf"}
    ]
    assert spec["budget"]["x-kubernetes-validations"] == [
        {
            "messageExpression": "self > 10000 ? 'budget is over 10000' : 'budget is over 1000'",
            "reason": "FieldValueForbidden",
            "rule": "self <= 1000",
        }
    ]
    assert spec["crew"]["x-kubernetes-validations"][0]["fieldPath"] == ".size"
    assert root["x-kubernetes-validations"] == [
        {"message": "name too long", "rule": "self.metadata.name.size() <= 40"}
    ]


def test_descriptions_prefer_meta_then_field_docstring_then_class_docstring() -> None:
    spec = spec_of(generate_crd(Carrier))
    assert spec["description"].startswith("CarrierSpec is the desired state of a Carrier.\n\n")
    assert spec["properties"]["window"]["description"] == (
        "When maintenance may happen (required: no default)."
    )
    assert spec["properties"]["crew"]["description"] == "Who serves on the carrier."
    assert spec["properties"]["title"]["description"] == "Shown by kubectl explain."


def test_printer_columns_take_their_type_from_the_schema() -> None:
    columns = generate_crd(Carrier)["spec"]["versions"][0]["additionalPrinterColumns"]
    assert [(c["name"], c["type"]) for c in columns] == [
        ("Replicas", "integer"),
        ("Mode", "string"),
        ("Launched", "date"),
        ("Ready", "integer"),
        ("Age", "date"),
    ]
    assert columns[3]["priority"] == 1
    assert columns[1]["description"] == "How it sails"


def test_versions_share_one_crd_with_one_storage_version_in_priority_order() -> None:
    crd = generate_crd([CarrierV1Alpha1, Carrier])
    versions = crd["spec"]["versions"]
    assert [(v["name"], v["storage"]) for v in versions] == [("v1", True), ("v1alpha1", False)]
    assert versions[1]["deprecated"] is True
    assert "subresources" not in versions[1]
    assert versions[0]["subresources"]["scale"] == {
        "labelSelectorPath": ".status.selector",
        "specReplicasPath": ".spec.replicas",
        "statusReplicasPath": ".status.replicas",
    }
    assert versions[0]["selectableFields"] == [{"jsonPath": ".spec.mode"}]
    assert crd["spec"]["names"]["categories"] == ["fleet", "all"]
    assert crd["spec"]["names"]["shortNames"] == ["cv"]


def test_version_priority_orders_like_kubernetes() -> None:
    names = ["v1alpha1", "v2", "foo", "v1beta2", "v1", "v1beta1", "v10", "v2alpha1"]
    assert sorted(names, key=version_priority) == [
        "v10",
        "v2",
        "v1",
        "v1beta2",
        "v1beta1",
        "v2alpha1",
        "v1alpha1",
        "foo",
    ]


def test_generate_crds_and_resources_in_find_every_kind_of_a_module() -> None:
    classes = resources_in(kf_ships)
    assert classes == [Carrier, CarrierV1Alpha1, Frigate]
    crds = generate_crds(classes)
    assert [c["metadata"]["name"] for c in crds] == [
        "carriers.ship.example.com",
        "frigates.ship.example.com",
    ]


# --- errors --------------------------------------------------------------------------------


class Node(Model):
    children: list[Node] = []


class Loop(Resource):
    info = ResourceInfo(group="x.example.com", version="v1", kind="Loop", plural="loops")
    spec: Node = msgspec.field(default_factory=Node)


class EitherSpec(Model):
    value: int | list[int] = 0


class Entry(Model):
    key: str | None = None


class MapByOptionalKey(Model):
    items: Annotated[list[Entry], ListType("map", keys=("key",))] = []


def twin(version: str, *, storage: bool, group: str = "x.example.com") -> type[Resource]:
    class Twin(Resource):
        info = ResourceInfo(group=group, version=version, kind="Twin", plural="twins")
        crd = CRDOptions(storage=storage)

    return Twin


def test_recursive_models_are_refused_with_the_path() -> None:
    with pytest.raises(SchemaError, match=r"children\.\[\]: Node contains itself"):
        generate_crd(Loop)


def test_unions_other_than_int_or_string_are_refused() -> None:
    with pytest.raises(SchemaError, match=r"value: the union int \| list"):
        model_schema(EitherSpec)


def test_list_map_keys_must_be_required_or_defaulted() -> None:
    with pytest.raises(SchemaError, match="list map key 'key' must be required"):
        model_schema(MapByOptionalKey)


class CountSpec(Model):
    count: int


class Counted(Resource):
    info = ResourceInfo(group="x.example.com", version="v1", kind="Counted", plural="counteds")
    spec: CountSpec


def test_a_top_level_field_without_default_is_required_and_a_bookmark_still_decodes() -> None:
    schema = generate_crd(Counted)["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    assert schema["required"] == ["spec"]
    assert schema["properties"]["spec"]["required"] == ["count"]
    bookmark = b'{"apiVersion": "x.example.com/v1", "kind": "Counted", "metadata": {}}'
    assert decode(bookmark, Counted).spec.count == 0  # Go's zero value, as a Go client reads it
    assert b'"count":0' in encode(Counted(spec=CountSpec(count=0)))  # passed, and so sent


def test_several_versions_need_exactly_one_storage_version() -> None:
    with pytest.raises(ValueError, match="exactly one version"):
        generate_crd([twin("v1", storage=False), twin("v2", storage=False)])
    with pytest.raises(ValueError, match="exactly one version"):
        generate_crd([twin("v1", storage=True), twin("v2", storage=True)])
    assert generate_crd([twin("v1", storage=False), twin("v2", storage=True)])


def test_versions_of_different_groups_are_not_one_crd() -> None:
    with pytest.raises(ValueError, match=r"group 'y\.example\.com' differs"):
        generate_crd([twin("v1", storage=True), twin("v2", storage=False, group="y.example.com")])


def test_meta_constraints_apply_to_the_type_they_annotate() -> None:
    class Bounds(Model):
        names: Annotated[list[Annotated[str, Meta(max_length=3)]], Meta(min_length=2)] = []

    schema = model_schema(Bounds)["properties"]["names"]
    assert schema == {"items": {"maxLength": 3, "type": "string"}, "minItems": 2, "type": "array"}


def test_a_crd_attribute_that_is_not_crd_options_is_explained() -> None:
    class Odd(Resource):
        info = ResourceInfo(group="x.example.com", version="v1", kind="Odd", plural="odds")
        crd: ClassVar[object] = {"categories": ["all"]}

    with pytest.raises(ValueError, match=r"crd must be a CRDOptions.*without an annotation"):
        generate_crd(Odd)


def test_a_schema_error_is_a_kubeforge_error_and_a_value_error() -> None:
    with pytest.raises(SchemaError) as caught:
        generate_crd(Loop)
    assert isinstance(caught.value, KubeforgeError)
    assert isinstance(caught.value, ValueError)
    assert SchemaError is errors.SchemaError


def test_names_the_server_would_refuse_are_refused_in_its_words() -> None:
    class Bad(Resource):
        info = ResourceInfo(
            group="ships", version="1v", kind="Bad_Kind", plural="bad.ships", short_names=("ok",)
        )

    with pytest.raises(ValueError) as caught:
        generate_crd(Bad)
    problems = str(caught.value).removeprefix("Bad_Kind: ").split("; ")
    dns1035 = (
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with "
        "an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
        "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
    )
    assert problems == [
        'spec.group: Invalid value: "ships": should be a domain with at least one dot',
        f'spec.names.plural: Invalid value: "bad.ships": {dns1035}',
        'spec.names.kind: Invalid value: "Bad_Kind": may have mixed case, but should '
        f"otherwise match: {dns1035}",
        'spec.names.listKind: Invalid value: "Bad_KindList": may have mixed case, but should '
        f"otherwise match: {dns1035}",
        f'spec.versions[0].name: Invalid value: "1v": {dns1035}',
    ]
