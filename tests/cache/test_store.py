"""Store/Writer: copies on read, indexes, and the atomic swap of a relist."""

from __future__ import annotations

from typing import Any

import pytest

from kubeforge.cache import NAMESPACE_INDEX, Change, store
from kubeforge.core.meta import ObjectMeta
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


def test_apply_and_delete_report_old_and_new():
    reader, writer = store(ConfigMap)
    first, second = cm("a"), cm("a", rv="2")
    assert writer.apply(Apply(first)) == [Change(None, first)]
    assert writer.apply(Apply(second)) == [Change(first, second)]
    final = cm("a", rv="3")
    assert writer.apply(Delete(final)) == [Change(final, None)]
    assert len(reader) == 0


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
    rendered = [
        (c.old.metadata.resource_version if c.old else None, c.new and c.new.metadata.name)
        for c in changes
    ]
    # Survivors are updates, newcomers adds, then the vanished object is deleted.
    assert rendered == [("1", "b"), (None, "c"), ("1", None)]
    assert changes[-1].old is not None and changes[-1].old.metadata.name == "a"


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
