"""Store/Writer: copies on read, indexes, and the atomic swap of a relist."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from kubeforge.cache import NAMESPACE_INDEX, Change, store
from kubeforge.cache.indexers import (
    OWNER_UID_INDEX,
    by_owner_uid,
    field_index,
    field_index_value,
    field_indexer,
)
from kubeforge.core.meta import ObjectMeta, OwnerReference, decode
from kubeforge.core.refs import ObjectKey
from kubeforge.models.core_v1 import ConfigMap
from kubeforge.watch import Apply, Delete, Init, InitApply, InitDone


def cm(name: str, namespace: str = "default", rv: str = "1", **labels: str) -> ConfigMap:
    meta = ObjectMeta(name=name, namespace=namespace, resource_version=rv, labels=labels or None)
    return ConfigMap(metadata=meta, data={"k": "v"})


def names(objs: list[Any]) -> list[str]:
    return sorted(o.metadata.name for o in objs)


def test_readers_get_copies_so_mutating_them_never_touches_the_cache():
    reader, writer = store(ConfigMap)
    writer.apply(Apply(cm("a")))
    got = reader.get(ObjectKey("default", "a"))
    assert got is not None
    got.data = {"mutated": "yes"}
    got.metadata.labels = {"x": "y"}
    listed = reader.list()[0]
    listed.data["k"] = "changed"
    fresh = reader.get("default/a")
    assert fresh is not None
    assert fresh.data == {"k": "v"}
    assert fresh.metadata.labels is None
    assert fresh == cm("a")


def test_dynamic_objects_are_copied_too():
    reader, writer = store(dict)
    writer.apply(Apply({"metadata": {"name": "a", "namespace": "ns"}, "data": {"k": "v"}}))
    got = reader.get("ns/a")
    assert got is not None
    got["data"]["k"] = "changed"
    assert reader.get("ns/a") == {"metadata": {"name": "a", "namespace": "ns"}, "data": {"k": "v"}}


def test_get_returns_none_for_an_unknown_key():
    reader, _ = store(ConfigMap)
    assert reader.get(ObjectKey("default", "missing")) is None


def test_list_filters_by_namespace_and_label_selector():
    reader, writer = store(ConfigMap)
    for obj in (cm("a", app="web"), cm("b"), cm("c", "other", app="web")):
        writer.apply(Apply(obj))
    assert names(reader.list()) == ["a", "b", "c"]
    assert names(reader.list("default")) == ["a", "b"]
    assert names(reader.list(label_selector="app=web")) == ["a", "c"]
    assert names(reader.list("default", label_selector="app=web")) == ["a"]
    assert reader.index_values(NAMESPACE_INDEX) == ["default", "other"]


def test_user_indexes_follow_updates_and_drop_empty_buckets():
    def by_app(obj: ConfigMap) -> list[str]:
        return [(obj.metadata.labels or {}).get("app", "")]

    reader, writer = store(ConfigMap, indexers={"app": by_app})
    writer.apply(Apply(cm("a", app="web")))
    writer.apply(Apply(cm("b", app="web")))
    assert reader.index_keys("app", "web") == [ObjectKey("default", "a"), ObjectKey("default", "b")]
    writer.apply(Apply(cm("a", rv="2", app="db")))
    assert names(reader.by_index("app", "web")) == ["b"]
    assert names(reader.by_index("app", "db")) == ["a"]
    writer.apply(Delete(cm("b")))
    assert reader.index_values("app") == ["db"]


def test_an_index_added_later_is_filled_from_the_current_contents():
    reader, writer = store(ConfigMap)
    writer.apply(Apply(cm("a", app="web")))
    reader.add_index("app", lambda o: [(o.metadata.labels or {}).get("app", "")])
    assert names(reader.by_index("app", "web")) == ["a"]
    with pytest.raises(ValueError):
        reader.add_index("app", lambda o: [])


def test_the_namespace_index_answers_every_read_and_forgets_an_emptied_namespace():
    reader, writer = store(ConfigMap)
    for obj in (cm("b"), cm("a"), cm("c", "other"), cm("n", "")):
        writer.apply(Apply(obj))
    assert len(reader) == 4
    assert reader.index_keys(NAMESPACE_INDEX, "default") == [
        ObjectKey("default", "a"),
        ObjectKey("default", "b"),
    ]
    assert names(reader.by_index(NAMESPACE_INDEX, "other")) == ["c"]
    assert sorted(reader.keys()) == [
        ObjectKey("", "n"),
        ObjectKey("default", "a"),
        ObjectKey("default", "b"),
        ObjectKey("other", "c"),
    ]
    assert "n" in reader and "default/a" in reader and "other/a" not in reader
    assert 42 not in reader
    writer.apply(Delete(cm("c", "other")))
    writer.apply(Apply(cm("a", rv="2")))  # an update is not a second object
    assert len(reader) == 3
    assert reader.index_values(NAMESPACE_INDEX) == ["", "default"]
    assert reader.index_keys(NAMESPACE_INDEX, "other") == []
    assert reader.list("other") == []
    with pytest.raises(KeyError):
        reader.by_index("missing", "x")


def test_a_relist_reports_what_vanished_from_a_namespace_it_no_longer_holds():
    reader, writer = store(ConfigMap)
    writer.apply(Apply(cm("a")))
    writer.apply(Apply(cm("c", "other")))
    writer.apply(Init())
    writer.apply(InitApply(cm("a", rv="2")))
    changes = writer.apply(InitDone())
    [gone] = [change for change in changes if change.is_delete]
    assert gone.final_state_unknown and gone.old() == cm("c", "other")
    assert [change.new() for change in changes if not change.is_delete] == [cm("a", rv="2")]
    assert len(reader) == 1 and reader.index_values(NAMESPACE_INDEX) == ["default"]


def sides(change: Change[Any]) -> tuple[Any, Any]:
    return change.old(), change.new()


def test_apply_and_delete_report_old_and_new():
    reader, writer = store(ConfigMap)
    first, second = cm("a"), cm("a", rv="2")
    [added] = writer.apply(Apply(first))
    assert added.is_add and sides(added) == (None, first)
    [updated] = writer.apply(Apply(second))
    assert not updated.is_add and not updated.is_delete
    assert sides(updated) == (first, second)
    final = cm("a", rv="3")
    [deleted] = writer.apply(Delete(final))
    assert deleted.is_delete and not deleted.final_state_unknown
    assert sides(deleted) == (final, None)
    assert len(reader) == 0


def test_each_side_of_a_change_is_a_fresh_copy_after_the_first():
    _, writer = store(ConfigMap)
    original = cm("a")
    [change] = writer.apply(Apply(original))
    first, second = change.new(), change.new()
    assert first is original  # the watcher's object: the store kept only its packed form
    assert second == original and second is not original


def test_deleting_an_unknown_object_is_ignored():
    _, writer = store(ConfigMap)
    assert writer.apply(Delete(cm("ghost"))) == []


def test_a_relist_is_invisible_until_init_done_then_swapped_in_whole():
    reader, writer = store(ConfigMap)
    for event in (Init(), InitApply(cm("a")), InitApply(cm("b")), InitDone("2")):
        writer.apply(event)
    assert reader.has_synced
    writer.apply(Init())
    writer.apply(InitApply(cm("b", rv="5")))
    assert names(reader.list()) == ["a", "b"]  # readers still see the old state
    assert reader.get("default/b") == cm("b")
    writer.apply(InitApply(cm("c", rv="6")))
    changes = writer.apply(InitDone("6"))
    assert names(reader.list()) == ["b", "c"]
    assert names(reader.list("default")) == ["b", "c"]  # indexes rebuilt with the swap
    rendered = []
    for change in changes:
        old, new = sides(change)
        rendered.append(
            (old.metadata.resource_version if old else None, new.metadata.name if new else None)
        )
    # Survivors are updates, newcomers adds, then the vanished object is deleted.
    assert rendered == [("1", "b"), (None, "c"), ("1", None)]
    vanished = changes[-1]
    assert vanished.is_delete and vanished.final_state_unknown
    assert vanished.old() == cm("a")  # the last state the cache knew


def test_a_restarted_relist_discards_the_partial_buffer():
    reader, writer = store(ConfigMap)
    for event in (Init(), InitApply(cm("stale")), Init(), InitApply(cm("a")), InitDone("1")):
        writer.apply(event)
    assert names(reader.list()) == ["a"]


async def test_wait_until_ready_returns_once_the_first_list_is_applied():
    reader, writer = store(ConfigMap)
    assert not reader.has_synced
    writer.apply(Init())
    writer.apply(InitDone("1"))
    await reader.wait_until_ready()
    assert reader.has_synced
    assert "default/a" not in reader


def test_a_transform_rewrites_objects_before_they_are_stored_or_reported():
    def stamp(obj: ConfigMap) -> ConfigMap:
        obj.metadata.annotations = {"seen": "yes"}
        return obj

    reader, writer = store(ConfigMap, transform=stamp)
    [change] = writer.apply(Apply(cm("a")))
    assert change.new().metadata.annotations == {"seen": "yes"}
    for event in (Init(), InitApply(cm("b")), InitDone("2")):
        writer.apply(event)
    assert [o.metadata.annotations for o in reader.list()] == [{"seen": "yes"}]


def test_the_owner_uid_index_finds_dependents_of_each_owner():
    reader, writer = store(ConfigMap, indexers={OWNER_UID_INDEX: by_owner_uid})

    def dependent(name: str, *uids: str) -> ConfigMap:
        obj = cm(name)
        obj.metadata.owner_references = [
            OwnerReference(api_version="v1", kind="Secret", name=f"s-{u}", uid=u) for u in uids
        ]
        return obj

    writer.apply(Apply(dependent("a", "u1")))
    writer.apply(Apply(dependent("b", "u1", "u2")))
    writer.apply(Apply(cm("orphan")))
    assert names(reader.by_index(OWNER_UID_INDEX, "u1")) == ["a", "b"]
    assert names(reader.by_index(OWNER_UID_INDEX, "u2")) == ["b"]
    writer.apply(Apply(dependent("b", "u2")))  # b drops its first owner
    assert names(reader.by_index(OWNER_UID_INDEX, "u1")) == ["a"]
    assert reader.index_values(OWNER_UID_INDEX) == ["u1", "u2"]


def test_a_field_index_answers_per_namespace_and_across_namespaces():
    index = field_index("data.node")
    reader, writer = store(
        ConfigMap, indexers={index: field_indexer(lambda o: [(o.data or {}).get("node", "")])}
    )
    for name, namespace, node in (("a", "x", "n1"), ("b", "y", "n1"), ("c", "x", "n2")):
        writer.apply(
            Apply(
                ConfigMap(metadata=ObjectMeta(name=name, namespace=namespace), data={"node": node})
            )
        )
    assert names(reader.by_index(index, field_index_value("x", "n1"))) == ["a"]
    assert names(reader.by_index(index, field_index_value(None, "n1"))) == ["a", "b"]


def test_a_store_refuses_objects_of_a_second_type():
    _, writer = store(ConfigMap)
    writer.apply(Apply(cm("a")))
    with pytest.raises(TypeError, match="ConfigMap"):
        writer.apply(Apply({"metadata": {"name": "b", "namespace": "default"}}))


def test_the_store_keeps_objects_compact_and_label_filters_skip_full_decodes():
    reader, writer = store(ConfigMap)
    writer.apply(Apply(cm("a", app="web")))
    packed = reader._packed()[0]
    assert isinstance(packed, bytes)
    assert len(packed) < 200
    assert names(reader.list(label_selector="app in (web, api)")) == ["a"]
    assert reader.list(label_selector="app=db") == []


def test_fields_the_model_does_not_declare_survive_the_cache():
    wire = {
        "metadata": {"name": "a", "namespace": "n", "futureMeta": 1},
        "data": {"k": "v"},
        "futureField": {"x": 1},
    }
    reader, writer = store(ConfigMap)
    writer.apply(Apply(decode(orjson.dumps(wire), ConfigMap)))
    cached = reader.get("n/a")
    assert cached is not None
    assert cached.unknown_fields_ == {"futureField": {"x": 1}}
    assert cached.metadata.unknown_fields_ == {"futureMeta": 1}
