"""Decoding list pages and watch lines for both faces, and building REST paths."""

from __future__ import annotations

import msgspec
import orjson
import pytest

from kubeforge.client import ObjectList, WatchEvent
from kubeforge.client._codec import DictCodec, encode, typed_codec
from kubeforge.client._paths import collection_path, object_path
from kubeforge.core.errors import Gone, InternalError
from kubeforge.core.meta import Model, ObjectMeta
from kubeforge.core.resource import Resource, ResourceInfo


class ConfigMap(Resource):
    info = ResourceInfo(group="", version="v1", kind="ConfigMap", plural="configmaps")
    data: dict[str, str] | None = None


class WidgetStatus(Model):
    phase: str = ""


class Widget(Resource):
    info = ResourceInfo(group="example.com", version="v1", kind="Widget", plural="widgets")
    status: WidgetStatus | None = None


NODES = ResourceInfo(group="", version="v1", kind="Node", plural="nodes", namespaced=False)

EXPIRED = {
    "type": "ERROR",
    "object": {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": "too old resource version: 1 (5)",
        "reason": "Expired",
        "code": 410,
    },
}


def test_a_typed_list_page_decodes_items_version_and_continue_token() -> None:
    body = {
        "kind": "ConfigMapList",
        "apiVersion": "v1",
        "metadata": {"resourceVersion": "42", "continue": "next", "remainingItemCount": 3},
        "items": [{"metadata": {"name": "a"}, "data": {"k": "v"}}],
    }
    page = typed_codec(ConfigMap).decode_list(orjson.dumps(body))
    assert isinstance(page, ObjectList)
    assert (page.resource_version, page.continue_, page.remaining_item_count) == ("42", "next", 3)
    [item] = page.items
    assert isinstance(item, ConfigMap)
    assert (item.metadata.name, item.data, item.kind, item.api_version) == (
        "a",
        {"k": "v"},
        "ConfigMap",
        "v1",
    )


def test_the_last_page_has_no_continue_token() -> None:
    page = typed_codec(ConfigMap).decode_list(b'{"metadata":{"resourceVersion":"1"},"items":[]}')
    assert page.continue_ is None and page.items == []


def test_a_typed_watch_line_decodes_into_the_model() -> None:
    line = orjson.dumps({"type": "MODIFIED", "object": {"metadata": {"name": "a"}, "data": {}}})
    event = typed_codec(ConfigMap).decode_event(line)
    assert isinstance(event, WatchEvent)
    assert event.type == "MODIFIED"
    assert isinstance(event.object, ConfigMap) and event.object.metadata.name == "a"


def test_a_bookmark_carries_only_the_resource_version() -> None:
    line = b'{"type":"BOOKMARK","object":{"kind":"ConfigMap","metadata":{"resourceVersion":"7"}}}'
    event = typed_codec(ConfigMap).decode_event(line)
    assert (event.type, event.object.metadata.resource_version) == ("BOOKMARK", "7")


def test_an_error_event_that_fits_the_model_is_still_raised_as_gone() -> None:
    with pytest.raises(Gone) as info:
        typed_codec(ConfigMap).decode_event(orjson.dumps(EXPIRED))
    assert info.value.reason == "Expired"
    assert info.value.status == EXPIRED["object"]


def test_an_error_event_that_does_not_fit_the_model_is_raised_as_gone() -> None:
    # Widget.status is a struct; the Status's "status": "Failure" cannot decode into it.
    with pytest.raises(Gone):
        typed_codec(Widget).decode_event(orjson.dumps(EXPIRED))


def test_a_dynamic_error_event_is_raised_with_the_servers_status() -> None:
    with pytest.raises(Gone) as info:
        DictCodec(ConfigMap.info).decode_event(orjson.dumps(EXPIRED))
    assert info.value.message == "too old resource version: 1 (5)"


def test_an_error_event_without_a_status_becomes_an_internal_error() -> None:
    with pytest.raises(InternalError):
        DictCodec(ConfigMap.info).decode_event(b'{"type":"ERROR","object":"boom"}')


def test_an_object_that_does_not_fit_the_model_is_a_validation_error() -> None:
    with pytest.raises(msgspec.ValidationError):
        typed_codec(Widget).decode_event(b'{"type":"ADDED","object":{"status":"not a struct"}}')


def test_dynamic_list_items_get_api_version_and_kind_from_the_resource() -> None:
    body = b'{"metadata":{"resourceVersion":"3"},"items":[{"metadata":{"name":"a"}}]}'
    page = DictCodec(ConfigMap.info).decode_list(body)
    assert page.items == [{"metadata": {"name": "a"}, "apiVersion": "v1", "kind": "ConfigMap"}]
    assert page.resource_version == "3"


def test_typed_objects_encode_without_unset_fields_and_with_their_type() -> None:
    obj = ConfigMap(metadata=ObjectMeta(name="a", namespace="ns"), data={"k": "v"})
    assert orjson.loads(encode(obj)) == {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "a", "namespace": "ns"},
        "data": {"k": "v"},
    }


def test_typed_codecs_are_built_once_per_class() -> None:
    assert typed_codec(ConfigMap) is typed_codec(ConfigMap)


# --- paths ------------------------------------------------------------------------------------


def test_core_and_group_paths_follow_the_api_layout() -> None:
    assert collection_path(ConfigMap.info, "ns") == "/api/v1/namespaces/ns/configmaps"
    assert collection_path(Widget.info, "ns") == "/apis/example.com/v1/namespaces/ns/widgets"
    assert object_path(Widget.info, "ns", "w", "status") == (
        "/apis/example.com/v1/namespaces/ns/widgets/w/status"
    )


def test_a_namespaced_collection_without_namespace_spans_all_namespaces() -> None:
    assert collection_path(ConfigMap.info, None) == "/api/v1/configmaps"


def test_cluster_scoped_paths_ignore_the_namespace() -> None:
    assert object_path(NODES, "ignored", "n1") == "/api/v1/nodes/n1"


def test_a_namespaced_object_path_needs_a_namespace() -> None:
    with pytest.raises(ValueError, match='configmaps "a" is namespaced'):
        object_path(ConfigMap.info, None, "a")


def test_an_empty_name_never_becomes_a_collection_call() -> None:
    with pytest.raises(ValueError, match="object name is required"):
        object_path(ConfigMap.info, "ns", "")


def test_names_are_quoted_so_a_slash_cannot_change_the_route() -> None:
    assert object_path(ConfigMap.info, "ns", "a/b") == "/api/v1/namespaces/ns/configmaps/a%2Fb"
