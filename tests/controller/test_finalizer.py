"""The finalizer helper against the real local API server: guarded add, cleanup, guarded remove."""

from __future__ import annotations

from typing import Any

import pytest

from kubeforge.controller import add_finalizer, finalizer, has_finalizer, remove_finalizer
from kubeforge.core import errors
from kubeforge.core.meta import ObjectMeta
from kubeforge.models.core_v1 import ConfigMap
from kubeforge.reconcile import Result
from watch.kf_server import configmap, fresh_namespace

pytestmark = pytest.mark.live

NAME = "example.com/cleanup"


class Steps:
    def __init__(self, *, fail_cleanup: bool = False) -> None:
        self.applied: list[Any] = []
        self.cleaned: list[Any] = []
        self.fail_cleanup = fail_cleanup

    async def apply(self, obj: Any) -> Result:
        self.applied.append(obj)
        return Result(requeue_after=30)

    async def cleanup(self, obj: Any) -> Result:
        self.cleaned.append(obj)
        if self.fail_cleanup:
            raise RuntimeError("the external thing is still there")
        return Result()


async def test_a_missing_finalizer_is_added_then_apply_runs_on_the_patched_object(client):
    namespace = await fresh_namespace(client, "fin-add")
    api = client.api(ConfigMap, namespace=namespace)
    obj = await api.create(configmap("a", namespace))
    steps = Steps()
    result = await finalizer(api, NAME, obj, apply=steps.apply, cleanup=steps.cleanup)
    assert result == Result(requeue_after=30)
    [applied] = steps.applied
    assert applied.metadata.finalizers == [NAME]
    assert (await api.get("a")).metadata.finalizers == [NAME]
    # Already there: apply runs with the object as given, nothing is patched.
    rv = applied.metadata.resource_version
    await finalizer(api, NAME, applied, apply=steps.apply, cleanup=steps.cleanup)
    assert (await api.get("a")).metadata.resource_version == rv
    assert steps.cleaned == []


async def test_the_add_is_appended_to_other_finalizers_and_refused_if_they_changed(client):
    namespace = await fresh_namespace(client, "fin-guard")
    api = client.api(ConfigMap, namespace=namespace)
    meta = ObjectMeta(name="a", namespace=namespace, finalizers=["other/one"])
    obj = await api.create(ConfigMap(metadata=meta))
    await api.patch("a", {"metadata": {"finalizers": ["other/one", "other/two"]}})
    steps = Steps()
    with pytest.raises(errors.Invalid):  # obj is stale: its finalizer list changed meanwhile
        await finalizer(api, NAME, obj, apply=steps.apply, cleanup=steps.cleanup)
    assert steps.applied == []
    fresh = await api.get("a")
    await finalizer(api, NAME, fresh, apply=steps.apply, cleanup=steps.cleanup)
    assert (await api.get("a")).metadata.finalizers == ["other/one", "other/two", NAME]


async def test_a_stale_object_without_finalizers_cannot_overwrite_a_new_list(client):
    namespace = await fresh_namespace(client, "fin-null")
    api = client.api(ConfigMap, namespace=namespace)
    stale = await api.create(configmap("a", namespace))
    await api.patch("a", {"metadata": {"finalizers": ["other/one"]}})
    with pytest.raises(errors.Invalid):
        await finalizer(api, NAME, stale, apply=Steps().apply, cleanup=Steps().cleanup)
    assert (await api.get("a")).metadata.finalizers == ["other/one"]


async def test_deletion_runs_cleanup_then_releases_the_object(client):
    namespace = await fresh_namespace(client, "fin-delete")
    api = client.api(ConfigMap, namespace=namespace)
    steps = Steps()
    obj = await api.create(configmap("a", namespace))
    await finalizer(api, NAME, obj, apply=steps.apply, cleanup=steps.cleanup)
    await api.delete("a")
    deleting = await api.get("a")  # held back by our finalizer
    assert deleting.metadata.deletion_timestamp is not None
    result = await finalizer(api, NAME, deleting, apply=steps.apply, cleanup=steps.cleanup)
    assert result == Result()
    assert len(steps.cleaned) == 1 and len(steps.applied) == 1
    with pytest.raises(errors.NotFound):
        await api.get("a")
    # A stale copy still naming us runs cleanup again (cleanups must be idempotent);
    # the object being gone already is fine.
    again = await finalizer(api, NAME, deleting, apply=steps.apply, cleanup=steps.cleanup)
    assert again == Result()
    assert len(steps.cleaned) == 2
    # Deleting without our name: nothing to do.
    remove_finalizer(deleting, NAME)
    assert await finalizer(api, NAME, deleting, apply=steps.apply, cleanup=steps.cleanup) is None
    assert len(steps.cleaned) == 2 and len(steps.applied) == 1


async def test_a_failed_cleanup_keeps_the_finalizer_and_other_finalizers_are_left_alone(client):
    namespace = await fresh_namespace(client, "fin-fail")
    api = client.api(ConfigMap, namespace=namespace)
    meta = ObjectMeta(name="a", namespace=namespace, finalizers=["other/one", NAME])
    await api.create(ConfigMap(metadata=meta))
    await api.delete("a")
    deleting = await api.get("a")
    failing = Steps(fail_cleanup=True)
    with pytest.raises(RuntimeError, match="still there"):
        await finalizer(api, NAME, deleting, apply=failing.apply, cleanup=failing.cleanup)
    assert (await api.get("a")).metadata.finalizers == ["other/one", NAME]
    await finalizer(api, NAME, deleting, apply=failing.apply, cleanup=Steps().cleanup)
    left = await api.get("a")
    assert left.metadata.finalizers == ["other/one"]


async def test_the_remove_is_refused_when_our_name_moved(client):
    namespace = await fresh_namespace(client, "fin-moved")
    api = client.api(ConfigMap, namespace=namespace)
    meta = ObjectMeta(name="a", namespace=namespace, finalizers=["other/one", NAME])
    await api.create(ConfigMap(metadata=meta))
    await api.delete("a")
    stale = await api.get("a")
    await api.patch(
        "a", [{"op": "remove", "path": "/metadata/finalizers/0"}], patch_type="json"
    )  # index 1 -> 0
    with pytest.raises(errors.Invalid):
        await finalizer(api, NAME, stale, apply=Steps().apply, cleanup=Steps().cleanup)
    assert (await api.get("a")).metadata.finalizers == [NAME]


async def test_dynamic_objects_work_the_same(client):
    namespace = await fresh_namespace(client, "fin-dict")
    api = client.dynamic(ConfigMap.info, namespace=namespace)
    obj = await api.create({"metadata": {"name": "a", "namespace": namespace}})
    steps = Steps()
    await finalizer(api, NAME, obj, apply=steps.apply, cleanup=steps.cleanup)
    assert steps.applied[0]["metadata"]["finalizers"] == [NAME]


def test_in_memory_helpers_change_only_the_object():
    obj = configmap("a", "ns")
    assert add_finalizer(obj, NAME) and not add_finalizer(obj, NAME)
    assert has_finalizer(obj, NAME)
    assert remove_finalizer(obj, NAME) and not remove_finalizer(obj, NAME)
    assert obj.metadata.finalizers is None
    as_dict: dict[str, Any] = {"metadata": {}}
    add_finalizer(as_dict, NAME)
    assert as_dict["metadata"]["finalizers"] == [NAME]
