"""Typed <-> plain conversions keep fields the models do not declare (client-go's Unstructured
round trip): every built-in kind, real sample objects, lists, watch events and cache copies."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import msgspec
import msgspec.inspect as mi
import pytest
from kf_widgets import Widget

from kubeforge.cache._packing import Unpacker, pack
from kubeforge.client import from_dict, to_dict
from kubeforge.client._codec import DictCodec, encode, typed_codec
from kubeforge.core.meta import Model, ObjectMeta, decode
from kubeforge.core.resource import Resource
from kubeforge.models import KINDS, resource_class
from kubeforge.models.core_v1 import Pod

SAMPLES = Path(__file__).parent.parent / "models" / "samples"
_MAX_DEPTH = 5  # recursive schemas (JSONSchemaProps) are cut off here


def _value(t: mi.Type, depth: int) -> Any:
    """A value of type ``t`` that differs from every default, with an unknown key in each
    object a model declares (``msgspec.NODEFAULT`` when nothing sensible fits)."""
    if isinstance(t, mi.Metadata):
        return _value(t.type, depth)
    if isinstance(t, mi.UnionType):
        members = [m for m in t.types if not isinstance(m, mi.NoneType)]
        for member in sorted(members, key=lambda m: isinstance(m, mi.StructType)):
            value = _value(member, depth)
            if value is not msgspec.NODEFAULT:
                return value
        return msgspec.NODEFAULT
    if isinstance(t, mi.StructType):
        return _struct(t, depth) if depth < _MAX_DEPTH else msgspec.NODEFAULT
    if isinstance(t, mi.ListType):
        item = _value(t.item_type, depth + 1)
        return msgspec.NODEFAULT if item is msgspec.NODEFAULT else [item]
    if isinstance(t, mi.DictType):
        item = _value(t.value_type, depth + 1)
        return msgspec.NODEFAULT if item is msgspec.NODEFAULT else {"key": item}
    simple: dict[type, Any] = {
        mi.StrType: "text",
        mi.IntType: 7,
        mi.FloatType: 1.5,
        mi.BoolType: True,
        mi.AnyType: {"free": ["form", 1]},
    }
    return simple.get(type(t), msgspec.NODEFAULT)


_ZEROS: dict[type, Any] = {mi.ListType: [], mi.DictType: {}, mi.StrType: "", mi.IntType: 0}


def _struct(t: mi.StructType, depth: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for field in t.fields:
        if field.encode_name == "x-kubeforge-unknown-fields":
            continue
        value = _value(field.type, depth + 1)
        if value is msgspec.NODEFAULT and isinstance(field.type, mi.StructType):
            value = _struct(field.type, depth + 1)  # required: decoding would fill it in anyway
        if value is msgspec.NODEFAULT and field.required:
            value = _ZEROS.get(type(field.type), msgspec.NODEFAULT)  # too deep: Go's zero value
        if value is msgspec.NODEFAULT:
            continue
        out[field.encode_name] = value
    if issubclass(t.cls, Resource):
        out["apiVersion"], out["kind"] = t.cls.info.api_version, t.cls.info.kind
    out[f"futureField{depth}"] = {"nested": [depth, "x"]}
    return out


def _full_object(cls: type[Resource]) -> dict[str, Any]:
    info = mi.type_info(cls)
    assert isinstance(info, mi.StructType)
    return _struct(info, 0)


def _every_kind() -> list[type[Resource]]:
    return [
        getattr(importlib.import_module(f"kubeforge.models.{module}"), key[2])
        for key, module in sorted(KINDS.items())
    ]


@pytest.mark.parametrize("cls", _every_kind(), ids=lambda c: f"{c.info.api_version}/{c.__name__}")
def test_every_built_in_kind_round_trips_unknown_fields_at_every_level(
    cls: type[Resource],
) -> None:
    raw = _full_object(cls)
    data = json.dumps(raw).encode()
    obj = decode(data, cls)
    assert isinstance(obj, cls)
    assert obj.unknown_fields_ == {"futureField0": {"nested": [0, "x"]}}
    assert json.loads(encode(obj)) == raw
    assert to_dict(obj) == raw
    assert from_dict(raw, cls) == obj


def _inject(value: Any, t: mi.Type, depth: int = 0) -> None:
    """Add an unknown key to every object of ``value`` that a model describes."""
    if isinstance(t, mi.Metadata):
        _inject(value, t.type, depth)
    elif isinstance(t, mi.UnionType):
        for member in t.types:
            fits_object = isinstance(member, mi.StructType | mi.DictType)
            fits_array = isinstance(member, mi.ListType)
            if (isinstance(value, dict) and fits_object) or (
                isinstance(value, list) and fits_array
            ):
                _inject(value, member, depth)
    elif isinstance(t, mi.StructType) and isinstance(value, dict):
        fields = {f.encode_name: f.type for f in t.fields}
        for key, item in value.items():
            if key in fields:
                _inject(item, fields[key], depth + 1)
        value[f"addedIn2030x{depth}"] = {"depth": depth}
    elif isinstance(t, mi.ListType) and isinstance(value, list):
        for item in value:
            _inject(item, t.item_type, depth + 1)
    elif isinstance(t, mi.DictType) and isinstance(value, dict):
        for item in value.values():
            _inject(item, t.value_type, depth + 1)


@pytest.mark.parametrize("name", sorted(p.name for p in SAMPLES.glob("*.json")))
def test_real_sample_objects_keep_unknown_fields_through_typed_round_trips(name: str) -> None:
    raw = json.loads((SAMPLES / name).read_text())
    cls = resource_class(raw["apiVersion"], raw["kind"])
    assert cls is not None
    expected = to_dict(decode(json.dumps(raw).encode(), cls))  # zero values dropped as usual
    _inject(expected, mi.type_info(cls))
    obj = from_dict(expected, cls)
    assert to_dict(obj) == expected
    assert json.loads(encode(obj)) == expected
    assert to_dict(Unpacker.for_type(cls)(pack(obj))) == expected  # the cache's copies


def test_objects_without_unknown_fields_take_the_one_pass_path_unchanged() -> None:
    data = b'{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"},'
    data += b'"spec":{"containers":[],"nodeName":"n"}}'
    assert decode(data, Pod) == msgspec.json.decode(data, type=Pod)
    assert decode(data, Pod).unknown_fields_ is None
    assert encode(decode(data, Pod)) == data


def test_from_dict_leaves_the_callers_dict_untouched() -> None:
    raw = {"metadata": {"name": "a", "zone": "z"}, "spec": {"containers": [], "gpu": 1}}
    snapshot = json.loads(json.dumps(raw))
    pod = from_dict(raw, Pod)
    assert raw == snapshot
    assert pod.metadata.unknown_fields_ == {"zone": "z"}


def test_a_type_error_is_still_a_validation_error_even_with_unknown_fields_around() -> None:
    with pytest.raises(msgspec.ValidationError, match="Expected `str"):
        decode(b'{"metadata": {"name": 5, "other": 1}}', Pod)


def test_typed_list_pages_and_watch_events_keep_unknown_fields() -> None:
    codec = typed_codec(Pod)
    page = codec.decode_list(
        b'{"metadata":{"resourceVersion":"9","shardInfo":"s"},'
        b'"items":[{"metadata":{"name":"a"},"hint":1},{"metadata":{"name":"b"}}]}'
    )
    assert [p.unknown_fields_ for p in page.items] == [{"hint": 1}, None]
    assert page.resource_version == "9"
    event = codec.decode_event(b'{"type":"ADDED","object":{"metadata":{"name":"a","x":[1]}}}')
    assert event.object.metadata.unknown_fields_ == {"x": [1]}


def test_custom_resource_classes_keep_what_they_do_not_declare() -> None:
    raw = {
        "apiVersion": "client.kubeforge.test/v1",
        "kind": "Widget",
        "metadata": {"name": "w"},
        "spec": {"size": 3, "owner": "team-a", "limits": {"cpu": 2}},
        "status": {"phase": "Ready", "observedGeneration": 4},
    }
    widget = from_dict(raw, Widget)
    assert widget.spec.size == 3
    widget.spec.size = 4
    expected = json.loads(json.dumps(raw))
    expected["spec"]["size"] = 4
    assert to_dict(widget) == expected
    assert json.loads(encode(widget)) == expected


def test_a_model_can_opt_out_and_drop_unknown_fields() -> None:
    class Loose(Model, forbid_unknown_fields=False):
        name: str = ""

    assert decode(b'{"name":"a","extra":1}', Loose) == Loose(name="a")


def test_the_dynamic_face_is_lossless_by_nature() -> None:
    info = Widget.info
    body = (
        b'{"apiVersion":"client.kubeforge.test/v1","kind":"Widget","metadata":{"name":"w"},"zz":1}'
    )
    assert DictCodec(info).decode(body)["zz"] == 1


def test_unknown_fields_set_by_hand_are_sent_and_shown() -> None:
    meta = ObjectMeta(name="a", unknown_fields_={"newThing": True})
    assert json.loads(encode(meta)) == {"name": "a", "newThing": True}
    assert "newThing" in repr(meta)
