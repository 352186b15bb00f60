"""managedFields' ``fieldsV1`` is kept as compact JSON bytes (client-go's ``FieldsV1.Raw``),
and every way into and out of a model treats it as the JSON object it is."""

from __future__ import annotations

import json
from typing import Any

import msgspec

from kubeforge.cache._packing import Unpacker, pack
from kubeforge.core.meta import ManagedFieldsEntry, convert, decode, encode, to_builtins
from kubeforge.models.core_v1 import Pod, PodList

FIELDS = {"f:metadata": {"f:labels": {".": {}, "f:app": {}}}, "f:spec": {"f:nodeName": {}}}


def _pod(name: str, **extra: Any) -> dict[str, Any]:
    entry = {"manager": "kubectl", "operation": "Update", "fieldsType": "FieldsV1"}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "managedFields": [{**entry, "fieldsV1": FIELDS}]},
        **extra,
    }


def test_decoded_field_sets_are_bytes_that_decode_to_the_wire_object() -> None:
    pod = decode(msgspec.json.encode(_pod("a")), Pod)
    assert pod.metadata is not None and pod.metadata.managed_fields
    entry = pod.metadata.managed_fields[0]
    assert isinstance(entry.fields_v1, msgspec.Raw)
    assert entry.fields() == FIELDS


def test_field_sets_decoded_from_a_list_do_not_keep_the_whole_body_alive() -> None:
    body = {"apiVersion": "v1", "kind": "PodList", "items": [_pod(f"p{i}") for i in range(50)]}
    pods = decode(msgspec.json.encode(body), PodList).items
    for pod in pods:
        assert pod.metadata is not None and pod.metadata.managed_fields
        raw = pod.metadata.managed_fields[0].fields_v1
        # Raw.copy() hands back the same object only when it already owns just its bytes.
        assert raw.copy() is raw
        assert bytes(raw) == msgspec.json.encode(FIELDS)


def test_objects_with_field_sets_encode_and_convert_back_to_the_same_json() -> None:
    wire = _pod("a", spec={"containers": [], "nodeName": "n"})
    pod = decode(msgspec.json.encode(wire), Pod)
    assert json.loads(encode(pod)) == wire
    assert to_builtins(pod) == wire
    assert convert(wire, Pod) == pod
    assert convert(to_builtins(pod), Pod) == pod


def test_unknown_fields_and_field_sets_survive_together() -> None:
    wire = _pod("a", spec={"containers": [], "nodeName": "n", "futureField": {"x": 1}})
    wire["metadata"]["managedFields"][0]["futureKey"] = "kept"
    pod = decode(msgspec.json.encode(wire), Pod)
    assert to_builtins(pod) == wire
    assert to_builtins(convert(wire, Pod)) == wire


def test_field_sets_compare_as_their_json_text() -> None:
    # As in client-go, two entries are equal when their bytes are: servers send compact JSON.
    compact = ManagedFieldsEntry(fields_v1=msgspec.Raw(b'{"f:a":{}}'))
    spaced = ManagedFieldsEntry(fields_v1=msgspec.Raw(b'{"f:a": {}}'))
    assert compact != spaced
    assert compact.fields() == spaced.fields()


def test_an_entry_without_field_sets_leaves_them_out() -> None:
    assert ManagedFieldsEntry(manager="m").fields() is None
    assert encode(ManagedFieldsEntry(manager="m")) == b'{"manager":"m"}'
    assert encode(ManagedFieldsEntry(manager="m", fields_v1=msgspec.Raw(b""))) == b'{"manager":"m"}'


def test_cached_copies_keep_field_sets() -> None:
    pod = decode(msgspec.json.encode(_pod("a")), Pod)
    copy = Unpacker.for_type(Pod)(pack(pod))
    assert copy == pod
    assert copy.metadata is not None and copy.metadata.managed_fields
    assert copy.metadata.managed_fields[0].fields() == FIELDS


def test_a_bad_value_is_still_reported_where_it_is() -> None:
    wire = _pod("a", spec={"nodeName": 7})
    try:
        convert(wire, Pod)
    except msgspec.ValidationError as error:
        assert "spec.nodeName" in str(error)
    else:
        raise AssertionError("a number where a string belongs was accepted")
