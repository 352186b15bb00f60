"""Write options and the less common verbs against the real local API server: dryRun,
fieldManager, fieldValidation, delete preconditions and collections, status and scale
subresources, paginated iteration across thousands of objects, and server-side apply."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from kf_widgets import GROUP, Widget, WidgetSpec, WidgetStatus, crd_manifest

from kubeforge.client import Client, Preconditions
from kubeforge.core.errors import (
    AlreadyExists,
    BadRequest,
    Conflict,
    NotFound,
)
from kubeforge.core.meta import ObjectMeta
from kubeforge.models import ConfigMap, CustomResourceDefinition
from kubeforge.models.autoscaling_v1 import Scale, ScaleSpec
from watch.kf_server import own


def config_map(name: str, data: dict[str, str] | None = None, **labels: str) -> ConfigMap:
    return ConfigMap(metadata=ObjectMeta(name=name, labels=labels or None), data=data)


async def test_a_dry_run_create_answers_like_a_create_and_persists_nothing(
    client: Client, namespace: str
) -> None:
    cms = client.api(ConfigMap, namespace=namespace)
    answered = await cms.create(config_map("ghost", {"k": "v"}), dry_run=True)
    assert answered.metadata.name == "ghost" and answered.data == {"k": "v"}
    with pytest.raises(NotFound):
        await cms.get("ghost")


async def test_dry_run_replace_patch_and_delete_change_nothing(
    client: Client, namespace: str
) -> None:
    cms = client.api(ConfigMap, namespace=namespace)
    created = await cms.create(config_map("keep", {"v": "1"}))
    created.data = {"v": "replaced"}
    assert (await cms.replace(created, dry_run=True)).data == {"v": "replaced"}
    assert (await cms.patch("keep", {"data": {"v": "patched"}}, dry_run=True)).data == {
        "v": "patched"
    }
    await cms.delete("keep", dry_run=True)
    current = await cms.get("keep")
    assert current.data == {"v": "1"}
    assert current.metadata.resource_version == created.metadata.resource_version


async def test_strict_field_validation_refuses_an_unknown_field(
    client: Client, namespace: str
) -> None:
    cms = client.dynamic(ConfigMap.info, namespace=namespace)
    body = {"metadata": {"name": "strict"}, "data": {"a": "b"}, "color": "blue"}
    with pytest.raises(BadRequest, match='unknown field "color"'):
        await cms.create(body, field_validation="Strict")
    ignored = await cms.create(body, field_validation="Ignore")
    assert "color" not in ignored


async def test_a_delete_precondition_on_uid_protects_a_recreated_object(
    client: Client, namespace: str
) -> None:
    cms = client.api(ConfigMap, namespace=namespace)
    first = await cms.create(config_map("again"))
    await cms.delete("again")
    await cms.create(config_map("again"))
    with pytest.raises(Conflict, match=r"(?i)precondition"):
        await cms.delete("again", preconditions=Preconditions(uid=first.metadata.uid))
    assert (await cms.get("again")).metadata.uid != first.metadata.uid


async def test_a_delete_precondition_on_resource_version_must_be_current(
    client: Client, namespace: str
) -> None:
    cms = client.api(ConfigMap, namespace=namespace)
    stale = await cms.create(config_map("rv"))
    await cms.patch("rv", {"data": {"x": "y"}})
    with pytest.raises(Conflict):
        await cms.delete(
            "rv", preconditions=Preconditions(resource_version=stale.metadata.resource_version)
        )
    current = await cms.get("rv")
    await cms.delete(
        "rv",
        grace_period_seconds=0,
        preconditions=Preconditions(
            uid=current.metadata.uid, resource_version=current.metadata.resource_version
        ),
    )
    with pytest.raises(NotFound):
        await cms.get("rv")


async def test_delete_collection_removes_only_what_the_selector_picks(
    client: Client, namespace: str
) -> None:
    cms = client.api(ConfigMap, namespace=namespace)
    for i in range(4):
        await cms.create(config_map(f"tmp-{i}", tier="scratch" if i < 3 else "keep"))
    preview = await cms.delete_collection(label_selector="tier=scratch", dry_run=True)
    assert sorted(cm.metadata.name or "" for cm in preview) == ["tmp-0", "tmp-1", "tmp-2"]
    assert len((await cms.list(label_selector="tier")).items) == 4
    deleted = await cms.delete_collection(label_selector="tier=scratch")
    assert len(deleted) == 3
    left = await cms.list(label_selector="tier")
    assert [cm.metadata.name for cm in left.items] == ["tmp-3"]


async def test_delete_collection_across_all_namespaces_is_refused(client: Client) -> None:
    with pytest.raises(ValueError, match="needs a namespace"):
        await client.api(ConfigMap).delete_collection()


async def test_iterate_pages_through_thousands_of_objects_exactly_once(
    client: Client, namespace: str
) -> None:
    cms = client.api(ConfigMap, namespace=namespace)
    names = [f"cm-{i:05d}" for i in range(2000)]
    for start in range(0, len(names), 100):
        await asyncio.gather(*(cms.create(config_map(n)) for n in names[start : start + 100]))
    seen = [cm.metadata.name for cm in own([cm async for cm in cms.iterate(page_size=150)])]
    assert seen == names  # the server lists in name order; every object once


async def test_status_subresource_patch_and_replace_touch_only_the_status(
    client: Client, namespace: str, widget_crd: None
) -> None:
    widgets = client.api(Widget, namespace=namespace)
    await widgets.create(Widget(metadata=ObjectMeta(name="w"), spec=WidgetSpec(size=1)))
    patched = await widgets.patch_status("w", {"status": {"phase": "Ready"}, "spec": {"size": 99}})
    assert patched.status == WidgetStatus(phase="Ready") and patched.spec.size == 1
    patched.status = WidgetStatus(phase="Done")
    replaced = await widgets.replace_status(patched, field_manager="status-writer")
    assert replaced.status == WidgetStatus(phase="Done")


GADGETS = "gadgets." + GROUP


@pytest.fixture
async def gadget_crd(client: Client) -> None:
    """A CRD with a scale subresource (spec.replicas / status.replicas)."""
    manifest: dict[str, Any] = crd_manifest(GROUP, "Gadget", "gadgets")
    manifest["spec"]["versions"][0]["subresources"]["scale"] = {
        "specReplicasPath": ".spec.replicas",
        "statusReplicasPath": ".status.replicas",
    }
    try:
        await client.dynamic(CustomResourceDefinition.info).create(manifest)
    except AlreadyExists:
        return


async def test_the_scale_subresource_reads_and_writes_replicas(
    client: Client, namespace: str, gadget_crd: None
) -> None:
    info = await client.discovery.resolve(GADGETS)
    gadgets = client.dynamic(info, namespace=namespace)
    await gadgets.create({"metadata": {"name": "g"}, "spec": {"replicas": 1}})
    scale = await gadgets.get_scale("g")
    assert isinstance(scale, Scale) and scale.spec is not None and scale.spec.replicas == 1
    assert (await gadgets.patch_scale("g", {"spec": {"replicas": 3}})).spec == ScaleSpec(replicas=3)
    scale = await gadgets.get_scale("g")
    scale.spec = ScaleSpec(replicas=5)
    assert (await gadgets.replace_scale("g", scale)).spec == ScaleSpec(replicas=5)
    assert (await gadgets.get("g"))["spec"]["replicas"] == 5


async def test_server_side_apply_creates_then_owns_fields_and_conflicts_without_force(
    client: Client, namespace: str
) -> None:
    cms = client.api(ConfigMap, namespace=namespace)
    applied = await cms.apply(config_map("applied", {"owner": "me"}), field_manager="alice")
    assert applied.data == {"owner": "me"}
    managers = {e.manager: e.operation for e in applied.metadata.managed_fields or []}
    assert managers == {"alice": "Apply"}

    with pytest.raises(Conflict) as conflict:
        await cms.apply(config_map("applied", {"owner": "bob"}), field_manager="bob")
    causes = conflict.value.details.get("causes") or []
    assert [c.get("reason") for c in causes] == ["FieldManagerConflict"]
    assert 'conflict with "alice"' in conflict.value.message

    forced = await cms.apply(
        config_map("applied", {"owner": "bob"}), field_manager="bob", force=True
    )
    assert forced.data == {"owner": "bob"}


async def test_apply_without_a_field_manager_is_refused_before_sending(client: Client) -> None:
    with pytest.raises(ValueError, match="field_manager"):
        await client.api(ConfigMap, namespace="default").apply(config_map("x"), field_manager="")
