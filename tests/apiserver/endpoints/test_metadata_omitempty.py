"""Empty metadata collections are absent, as Go's ``omitempty`` ObjectMeta leaves them:
removing the last label, annotation or finalizer leaves no ``{}``/``[]`` behind and no
field owned in managedFields."""

from __future__ import annotations

from kf_http import Api

JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"


def _configmap(name: str, **meta: object) -> dict[str, object]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, **meta}}


async def test_removing_the_last_label_and_finalizer_leaves_no_empty_collections(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    created = await api.post(path, _configmap("c", labels={"x": "1"}, finalizers=["a.io/b"]))
    assert created.status == 201
    ops = [
        {"op": "remove", "path": "/metadata/labels/x"},
        {"op": "remove", "path": "/metadata/finalizers/0"},
    ]
    patched = await api.patch(f"{path}/c", ops, JSON_PATCH)
    assert patched.status == 200
    meta = patched.body["metadata"]
    assert "labels" not in meta and "finalizers" not in meta
    assert "labels" not in (await api.get(f"{path}/c")).body["metadata"]


async def test_empty_and_null_collections_sent_on_create_are_left_out(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    body = _configmap("e", labels={}, annotations=None, finalizers=[], ownerReferences=[])
    created = await api.post(path, body)
    assert created.status == 201
    meta = created.body["metadata"]
    for key in ("labels", "annotations", "finalizers", "ownerReferences"):
        assert key not in meta, key


async def test_a_manager_whose_only_annotation_is_removed_owns_nothing(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    assert (await api.post(path, {**_configmap("a"), "data": {"k": "v"}})).status == 201
    added = await api.patch(
        f"{path}/a",
        {"metadata": {"annotations": {"x": "1"}}},
        MERGE_PATCH,
        params={"fieldManager": "annotate"},
    )
    assert {e["manager"] for e in added.body["metadata"]["managedFields"]} >= {"annotate"}
    removed = await api.patch(
        f"{path}/a",
        {"metadata": {"annotations": {"x": None}}},
        MERGE_PATCH,
        params={"fieldManager": "annotate"},
    )
    meta = removed.body["metadata"]
    assert "annotations" not in meta
    assert "annotate" not in {e["manager"] for e in meta["managedFields"]}
