"""DELETE as a real cluster does it, watched: preconditions, DeleteOptions validation,
finalizers, the garbage collector's propagation policies and namespace termination."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from typing import Any

from kf_http import Api, configmap, open_api, pod

from kubeforge.testing import LocalApiServer

_HOLD = "example.com/hold"


def _ref(owner: dict[str, Any], *, block: bool | None = True) -> dict[str, Any]:
    ref = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "name": owner["metadata"]["name"],
        "uid": owner["metadata"]["uid"],
    }
    if block is not None:
        ref["blockOwnerDeletion"] = block
    return ref


def _dependent(name: str, *owners: dict[str, Any], finalizers: tuple[str, ...] = ()) -> Any:
    body = configmap(name)
    body["metadata"]["ownerReferences"] = list(owners)
    if finalizers:
        body["metadata"]["finalizers"] = list(finalizers)
    return body


async def _until(
    events: AsyncIterator[dict[str, Any]], done: Any, limit: int = 50
) -> list[tuple[str, str]]:
    """``(type, name)`` of each event until ``done(event)`` (inclusive)."""
    seen: list[tuple[str, str]] = []
    async for event in events:
        seen.append((event["type"], event["object"]["metadata"]["name"]))
        if done(event) or len(seen) >= limit:
            break
    return seen


async def _release(api: Api, path: str) -> None:
    """Remove the test's holding finalizer (a controller finishing its cleanup)."""
    current = (await api.get(path)).body
    current["metadata"]["finalizers"] = [
        f for f in current["metadata"].get("finalizers", []) if f != _HOLD
    ]
    reply = await api.put(path, current)
    assert reply.status == 200, reply.body


async def test_failed_preconditions_are_409_naming_the_kind_with_the_real_message(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    created = (await api.post(path, configmap("pre"))).body
    uid, rv = created["metadata"]["uid"], created["metadata"]["resourceVersion"]
    wrong_uid = await api.delete(f"{path}/pre", {"preconditions": {"uid": "not-it"}})
    assert wrong_uid.status == 409
    assert wrong_uid.reason == "Conflict"
    assert wrong_uid.body["message"] == (
        f'Operation cannot be fulfilled on ConfigMap "pre": the UID in the precondition (not-it) '
        f"does not match the UID in record ({uid}). The object might have been deleted and "
        "then recreated"
    )
    assert wrong_uid.body["details"] == {"name": "pre", "kind": "ConfigMap"}
    wrong_rv = await api.delete(f"{path}/pre", {"preconditions": {"resourceVersion": "1"}})
    assert wrong_rv.status == 409
    assert wrong_rv.body["message"].endswith(
        f"the ResourceVersion in the precondition (1) does not match the ResourceVersion in "
        f"record ({rv}). The object might have been modified"
    )
    matching = {"preconditions": {"uid": uid, "resourceVersion": rv}}
    assert (await api.delete(f"{path}/pre", matching)).status == 200


async def test_invalid_delete_options_are_422_for_kind_delete_options(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    await api.post(path, configmap("opts"))
    both = await api.delete(
        f"{path}/opts", {"orphanDependents": True, "propagationPolicy": "Background"}
    )
    assert both.status == 422
    assert both.body["details"]["kind"] == "DeleteOptions"
    assert both.body["details"]["group"] == "meta.k8s.io"
    assert both.body["details"]["causes"][0]["field"] == "propagationPolicy"
    # ValidateDeleteOptions reports each rule that fails, in its order.
    both_wrong = await api.delete(
        f"{path}/opts", {"orphanDependents": False, "propagationPolicy": "X"}
    )
    assert both_wrong.status == 422
    causes = both_wrong.body["details"]["causes"]
    assert [(c["reason"], c["field"]) for c in causes] == [
        ("FieldValueInvalid", "propagationPolicy"),
        ("FieldValueNotSupported", "propagationPolicy"),
    ]
    assert causes[1]["message"] == (
        'Unsupported value: "X": supported values: "Foreground", "Background", "Orphan", "nil"'
    )
    dry_run = await api.delete(f"{path}/opts", {"dryRun": ["Some"]})
    assert dry_run.status == 422
    assert dry_run.body["details"]["causes"][0]["reason"] == "FieldValueNotSupported"
    assert (await api.get(f"{path}/opts")).status == 200


async def test_a_finalizer_holds_a_deleted_object_and_watchers_see_every_step(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    start = (await api.get(path)).body["metadata"]["resourceVersion"]
    body = configmap("held")
    body["metadata"]["finalizers"] = [_HOLD]
    await api.post(path, body)
    marked = await api.delete(f"{path}/held")
    assert marked.status == 200
    meta = marked.body["metadata"]
    assert meta["deletionTimestamp"] and meta["deletionGracePeriodSeconds"] == 0
    again = await api.delete(f"{path}/held")  # a repeated DELETE changes nothing
    assert again.body["metadata"]["resourceVersion"] == meta["resourceVersion"]
    current = (await api.get(f"{path}/held")).body
    current["metadata"]["finalizers"] = [_HOLD, "example.com/late"]
    late = await api.put(f"{path}/held", current)
    assert late.status == 422  # no new finalizers once deleting
    await _release(api, f"{path}/held")
    events = await _until(
        api.watch(path, resourceVersion=start, timeoutSeconds="5"),
        lambda e: e["type"] == "DELETED",
    )
    assert events == [("ADDED", "held"), ("MODIFIED", "held"), ("DELETED", "held")]


async def test_foreground_waits_only_for_dependents_that_block_owner_deletion(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    owner = (await api.post(path, configmap("fg-owner"))).body
    await api.post(path, _dependent("blocking", _ref(owner), finalizers=(_HOLD,)))
    await api.post(path, _dependent("free", _ref(owner, block=None)))
    start = (await api.get(path)).body["metadata"]["resourceVersion"]
    reply = await api.delete(f"{path}/fg-owner", {"propagationPolicy": "Foreground"})
    assert reply.body["metadata"]["finalizers"] == ["foregroundDeletion"]
    # Both dependents are deleted; "free" goes at once, "blocking" waits for its finalizer,
    # and so does the owner.
    seen = await _until(
        api.watch(path, resourceVersion=start, timeoutSeconds="10"),
        lambda e: e["type"] == "DELETED" and e["object"]["metadata"]["name"] == "free",
    )
    assert ("DELETED", "free") in seen
    blocking = (await api.get(f"{path}/blocking")).body
    assert blocking["metadata"]["deletionTimestamp"]
    assert (await api.get(f"{path}/fg-owner")).status == 200
    resume = (await api.get(path)).body["metadata"]["resourceVersion"]
    await _release(api, f"{path}/blocking")
    tail = await _until(
        api.watch(path, resourceVersion=resume, timeoutSeconds="10"),
        lambda e: e["type"] == "DELETED" and e["object"]["metadata"]["name"] == "fg-owner",
    )
    assert tail.index(("DELETED", "blocking")) < tail.index(("DELETED", "fg-owner"))


async def test_foreground_deletion_cascades_through_grandchildren_first(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    top = (await api.post(path, configmap("top"))).body
    middle = (await api.post(path, _dependent("middle", _ref(top)))).body
    await api.post(path, _dependent("bottom", _ref(middle)))
    start = (await api.get(path)).body["metadata"]["resourceVersion"]
    await api.delete(f"{path}/top", {"propagationPolicy": "Foreground"})
    events = await _until(
        api.watch(path, resourceVersion=start, timeoutSeconds="10"),
        lambda e: e["type"] == "DELETED" and e["object"]["metadata"]["name"] == "top",
    )
    deleted = [name for type_, name in events if type_ == "DELETED"]
    assert deleted == ["bottom", "middle", "top"]
    # The middle object was itself deleted in the foreground, waiting for "bottom".
    assert ("MODIFIED", "middle") in events


async def test_a_dependent_with_a_live_owner_survives_and_loses_the_dangling_reference(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    first = (await api.post(path, configmap("first"))).body
    second = (await api.post(path, configmap("second"))).body
    await api.post(path, _dependent("shared", _ref(first), _ref(second)))
    start = (await api.get(path)).body["metadata"]["resourceVersion"]
    await api.delete(f"{path}/first")
    events = await _until(
        api.watch(path, resourceVersion=start, fieldSelector="metadata.name=shared"),
        lambda e: e["type"] == "MODIFIED",
    )
    assert events == [("MODIFIED", "shared")]
    shared = (await api.get(f"{path}/shared")).body
    assert [ref["name"] for ref in shared["metadata"]["ownerReferences"]] == ["second"]


async def test_legacy_orphan_dependents_keeps_dependents(api: Api, namespace: str) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    owner = (await api.post(path, configmap("legacy"))).body
    await api.post(path, _dependent("kept", _ref(owner)))
    reply = await api.delete(f"{path}/legacy", {"orphanDependents": True})
    assert reply.body["metadata"]["finalizers"] == ["orphan"]
    await _until(
        api.watch(path, fieldSelector="metadata.name=legacy", timeoutSeconds="10"),
        lambda e: e["type"] == "DELETED",
    )
    kept = (await api.get(f"{path}/kept")).body
    assert not kept["metadata"].get("ownerReferences")


async def test_a_terminating_namespace_refuses_content_until_its_last_object_goes(
    api: Api,
) -> None:
    name = await api.create_namespace("term")
    path = f"/api/v1/namespaces/{name}/configmaps"
    body = configmap("slow")
    body["metadata"]["finalizers"] = [_HOLD]
    await api.post(path, body)
    start = (await api.get("/api/v1/namespaces")).body["metadata"]["resourceVersion"]
    deleted = await api.delete(f"/api/v1/namespaces/{name}")
    assert deleted.status == 200
    assert deleted.body["status"]["phase"] == "Terminating"
    refused = await api.post(path, configmap("late"))
    assert refused.status == 403
    assert refused.body["message"] == (
        f'configmaps "late" is forbidden: unable to create new content in namespace {name} '
        "because it is being terminated"
    )
    assert refused.body["details"]["causes"][0]["reason"] == "NamespaceTerminating"
    slow = (await api.get(f"{path}/slow")).body
    assert slow["metadata"]["deletionTimestamp"]  # the namespace controller deleted it
    status = (await api.get(f"/api/v1/namespaces/{name}")).body["status"]
    assert status["phase"] == "Terminating"
    conditions = {c["type"]: c for c in status.get("conditions", [])}
    while "NamespaceFinalizersRemaining" not in conditions:  # set right after the delete
        await asyncio.sleep(0.05)
        status = (await api.get(f"/api/v1/namespaces/{name}")).body["status"]
        conditions = {c["type"]: c for c in status.get("conditions", [])}
    assert conditions["NamespaceContentRemaining"]["message"] == (
        "Some resources are remaining: configmaps has 1 resource instances"
    )
    assert conditions["NamespaceFinalizersRemaining"]["message"] == (
        f"Some content in the namespace has finalizers remaining: {_HOLD} in 1 resource instances"
    )
    assert conditions["NamespaceDeletionContentFailure"]["status"] == "False"
    await _release(api, f"{path}/slow")
    events = await _until(
        api.watch(
            "/api/v1/namespaces",
            resourceVersion=start,
            fieldSelector=f"metadata.name={name}",
            timeoutSeconds="10",
        ),
        lambda e: e["type"] == "DELETED",
    )
    assert events[0] == ("MODIFIED", name)
    assert events[-1] == ("DELETED", name)


async def test_a_shorter_grace_period_moves_a_pod_deadline_earlier_by_the_difference(
    kube_apiserver_factory: Callable[..., LocalApiServer],
) -> None:
    server = kube_apiserver_factory(simulate_node=False)  # no kubelet: the pod waits
    path = "/api/v1/namespaces/default/pods"
    body = pod("graceful")
    body["spec"]["nodeName"] = "elsewhere"
    async with await open_api(server) as session:
        api = Api(server, session)
        await api.post(path, body)
        first = (await api.delete(f"{path}/graceful", {"gracePeriodSeconds": 30})).body
        assert first["metadata"]["deletionGracePeriodSeconds"] == 30
        shorter = (await api.delete(f"{path}/graceful", {"gracePeriodSeconds": 10})).body
        assert shorter["metadata"]["deletionGracePeriodSeconds"] == 10
        moved = _seconds(first["metadata"]["deletionTimestamp"]) - _seconds(
            shorter["metadata"]["deletionTimestamp"]
        )
        assert moved == 20
        longer = (await api.delete(f"{path}/graceful", {"gracePeriodSeconds": 20})).body
        assert longer["metadata"]["resourceVersion"] == shorter["metadata"]["resourceVersion"]
        now = await api.delete(f"{path}/graceful", {"gracePeriodSeconds": 0})
        assert now.status == 200
        assert (await api.get(f"{path}/graceful")).status == 404


def _seconds(stamp: str) -> float:
    return datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC).timestamp()
