"""Events follow 1.32's events.go over HTTP: /api/v1 writes meet only the legacy rules,
events.k8s.io/v1 writes the strict ones too, and every field path names the core/v1
field (Go validates the one internal Event both APIs store)."""

from __future__ import annotations

from typing import Any

from kf_http import Api
from kf_podspec import causes

MERGE = "application/merge-patch+json"
QUALIFIED = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and "
    "end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
    "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)


def core_event(name: str, **fields: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": name},
        "reason": "Pulled",
        "message": "pulled",
        "type": "Normal",
        **fields,
    }


def new_event(name: str, namespace: str, **fields: Any) -> dict[str, Any]:
    return {
        "apiVersion": "events.k8s.io/v1",
        "kind": "Event",
        "metadata": {"name": name},
        "eventTime": "2025-01-02T03:04:05.123450Z",
        "reportingController": "example.com/widgets",
        "reportingInstance": "widgets-0",
        "action": "Reconcile",
        "reason": "Synced",
        "type": "Normal",
        "note": "synced",
        "regarding": {"kind": "Widget", "name": "w1", "namespace": namespace},
        **fields,
    }


def core_path(namespace: str, name: str = "") -> str:
    return f"/api/v1/namespaces/{namespace}/events" + (f"/{name}" if name else "")


def events_path(namespace: str, name: str = "") -> str:
    base = f"/apis/events.k8s.io/v1/namespaces/{namespace}/events"
    return f"{base}/{name}" if name else base


async def test_a_legacy_event_lives_in_its_objects_namespace(api: Api, namespace: str) -> None:
    unnamespaced = core_event("a", involvedObject={"kind": "Pod", "name": "p"})
    assert causes(await api.post(core_path(namespace), unnamespaced)) == [
        ("involvedObject.namespace", 'Invalid value: "": does not match event.namespace')
    ]
    elsewhere = core_event("b", involvedObject={"kind": "Pod", "name": "p", "namespace": "x"})
    assert causes(await api.post(core_path(namespace), elsewhere)) == [
        ("involvedObject.namespace", 'Invalid value: "x": does not match event.namespace')
    ]
    # A cluster-scoped object's events go to "default".
    node = core_event(f"node-{namespace}", involvedObject={"kind": "Node", "name": "n1"})
    created = await api.post(core_path("default"), node)
    assert created.status == 201, created.body
    await api.delete(core_path("default", f"node-{namespace}"))


async def test_core_v1_checks_only_that_the_name_is_a_path_segment(
    api: Api, namespace: str
) -> None:
    involved = {"kind": "Pod", "name": "p", "namespace": namespace}
    odd = await api.post(core_path(namespace), core_event("Pod_Web.1", involvedObject=involved))
    assert odd.status == 201, odd.body
    slashed = await api.post(core_path(namespace), core_event("a%b", involvedObject=involved))
    assert causes(slashed) == [("metadata.name", "Invalid value: \"a%b\": may not contain '%'")]
    strict = await api.post(events_path(namespace), new_event("Pod_Web.2", namespace))
    assert causes(strict)[0][0] == "metadata.name"


async def test_a_new_style_core_event_names_its_reporter_action_and_reason(
    api: Api, namespace: str
) -> None:
    bare = {
        "metadata": {"name": "bare"},
        "eventTime": "2025-01-02T03:04:05.000001Z",
        "involvedObject": {"kind": "Pod", "name": "p", "namespace": namespace},
        "message": "x" * 1025,
    }
    assert causes(await api.post(core_path(namespace), bare)) == [
        ("reportingController", "Required value"),
        ("reportingController", 'Invalid value: "": name part must be non-empty'),
        ("reportingController", f'Invalid value: "": {QUALIFIED}'),
        ("reportingInstance", "Required value"),
        ("action", "Required value"),
        ("reason", "Required value"),
        ("message", 'Invalid value: "": can have at most 1024 characters'),
    ]
    long = {
        **bare,
        "reportingComponent": "bad name",
        "reportingInstance": "i" * 129,
        "action": "a",
        "reason": "r" * 129,
        "message": "ok",
    }
    assert causes(await api.post(core_path(namespace), long)) == [
        ("reportingController", f'Invalid value: "bad name": {QUALIFIED}'),
        ("reportingInstance", 'Invalid value: "": can have at most 128 characters'),
        ("reason", 'Invalid value: "": can have at most 128 characters'),
    ]
    # Without an object namespace, a new-style event may be in default or kube-system only.
    cluster = {**bare, "message": "ok", "reportingComponent": "kubelet", "reportingInstance": "n"}
    cluster |= {"action": "Start", "reason": "Started", "involvedObject": {"kind": "Node"}}
    assert causes(await api.post(core_path(namespace), cluster)) == [
        ("involvedObject.namespace", 'Invalid value: "": does not match event.namespace')
    ]


async def test_events_v1_refuses_the_legacy_fields_under_their_core_names(
    api: Api, namespace: str
) -> None:
    legacy = new_event(
        "legacy",
        namespace,
        type="Odd",
        series={"count": 1},
        deprecatedCount=2,
        deprecatedSource={"component": "kubelet"},
        deprecatedFirstTimestamp="2025-01-01T00:00:00Z",
        deprecatedLastTimestamp="2025-01-01T00:00:00Z",
    )
    assert causes(await api.post(events_path(namespace), legacy)) == [
        ("series.count", 'Invalid value: "": should be at least 2'),
        ("series.lastObservedTime", "Required value"),
        ("type", 'Invalid value: "": has invalid value: Odd'),
        ("firstTimestamp", 'Invalid value: "": needs to be unset'),
        ("lastTimestamp", 'Invalid value: "": needs to be unset'),
        ("count", 'Invalid value: "": needs to be unset'),
        ("source", 'Invalid value: "": needs to be unset'),
    ]
    # No eventTime makes it an old-style event to the legacy rules: no reporter needed.
    timeless = new_event("timeless", namespace)
    del timeless["eventTime"], timeless["reportingController"]
    assert causes(await api.post(events_path(namespace), timeless)) == [
        ("eventTime", "Required value")
    ]


async def test_events_v1_updates_hold_every_field_but_the_series(api: Api, namespace: str) -> None:
    created = await api.post(events_path(namespace), new_event("s", namespace))
    assert created.status == 201, created.body
    series = {"series": {"count": 2, "lastObservedTime": "2025-01-02T03:05:00.000000Z"}}
    assert (await api.patch(events_path(namespace, "s"), series, MERGE)).status == 200
    short = {"series": {"count": 1, "lastObservedTime": "2025-01-02T03:06:00.000000Z"}}
    assert causes(await api.patch(events_path(namespace, "s"), short, MERGE)) == [
        ("series.count", 'Invalid value: "": should be at least 2')
    ]
    changed = {
        "note": "changed",
        "reason": "Other",
        "eventTime": "2025-01-02T03:04:06.500000Z",
        "regarding": {"name": "w2"},
        "reportingController": "example.com/other",
    }
    reference = (
        f'core.ObjectReference{{Kind:"Widget", Namespace:"{namespace}", Name:"w2", UID:"", '
        'APIVersion:"", ResourceVersion:"", FieldPath:""}'
    )
    assert causes(await api.patch(events_path(namespace, "s"), changed, MERGE)) == [
        ("involvedObject", f"Invalid value: {reference}: field is immutable"),
        ("reason", 'Invalid value: "Other": field is immutable'),
        ("message", 'Invalid value: "changed": field is immutable'),
        ("reason", 'Invalid value: "Other": field is immutable'),
        ("eventTime", "Invalid value: 2025-01-02 03:04:06.5 +0000 UTC: field is immutable"),
        ("reportingController", 'Invalid value: "example.com/other": field is immutable'),
    ]


async def test_core_v1_updates_may_change_anything_legacy_rules_allow(
    api: Api, namespace: str
) -> None:
    created = await api.post(events_path(namespace), new_event("c", namespace))
    assert created.status == 201, created.body
    core = await api.patch(core_path(namespace, "c"), {"message": "now", "count": 4}, MERGE)
    assert core.status == 200, core.body
    assert core.body["message"] == "now"
    dropped = await api.patch(core_path(namespace, "c"), {"reportingComponent": None}, MERGE)
    assert causes(dropped)[0] == ("reportingController", "Required value")
