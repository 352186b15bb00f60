"""PriorityClasses and RuntimeClasses follow 1.32's scheduling and node validation (and the
Priority admission plugin's one-default rule), over HTTP."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from kf_http import Api, open_api
from kf_podspec import causes

from kubeforge.testing import LocalApiServer

MERGE = "application/merge-patch+json"
CLASSES = "/apis/scheduling.k8s.io/v1/priorityclasses"
RUNTIMES = "/apis/node.k8s.io/v1/runtimeclasses"
LABEL_1123 = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', "
    "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)


@pytest.fixture(scope="module")
def own_server() -> Iterator[LocalApiServer]:
    """A server of this module's: a global default PriorityClass would give every other
    test's pods its priority."""
    with LocalApiServer(simulate_node=False, controllers="namespace") as server:
        yield server


@pytest.fixture
async def own(own_server: LocalApiServer) -> AsyncIterator[Api]:
    session = await open_api(own_server)
    async with session:
        yield Api(own_server, session)


def priority_class(name: str, **fields: Any) -> dict[str, Any]:
    return {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        **fields,
    }


def runtime_class(name: str, **fields: Any) -> dict[str, Any]:
    return {
        "apiVersion": "node.k8s.io/v1",
        "kind": "RuntimeClass",
        "metadata": {"name": name},
        "handler": "runc",
        **fields,
    }


async def test_priority_values_and_the_system_prefix(own: Api) -> None:
    too_high = priority_class("too-high", value=1_000_000_001, preemptionPolicy="Sometimes")
    assert causes(await own.post(CLASSES, too_high)) == [
        ("value", "Forbidden: maximum allowed value of a user defined priority is 1000000000"),
        (
            "preemptionPolicy",
            'Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"',
        ),
    ]
    reserved = priority_class("system-mine", value=5)
    assert causes(await own.post(CLASSES, reserved)) == [
        (
            "metadata.name",
            "Forbidden: priority class names with 'system-' prefix are reserved for system use "
            "only. error: system-mine is not a known system priority class",
        )
    ]
    wrong = priority_class("system-node-critical", value=5)
    found = causes(await own.post(CLASSES, wrong))
    assert found[0][1].endswith(
        "error: value of system-node-critical PriorityClass must be 2000001000"
    )
    # No value is Go's zero, which is a valid priority; the policy is defaulted.
    zero = await own.post(CLASSES, priority_class("zero"))
    assert zero.status == 201, zero.body
    assert zero.body["preemptionPolicy"] == "PreemptLowerPriority"


async def test_value_and_preemption_policy_are_immutable(own: Api) -> None:
    created = await own.post(CLASSES, priority_class("fixed", value=10, preemptionPolicy="Never"))
    assert created.status == 201, created.body
    changed = await own.patch(
        f"{CLASSES}/fixed", {"value": 11, "preemptionPolicy": "PreemptLowerPriority"}, MERGE
    )
    assert causes(changed) == [
        ("value", "Forbidden: may not be changed in an update."),
        ("preemptionPolicy", 'Invalid value: "PreemptLowerPriority": field is immutable'),
    ]
    described = await own.patch(f"{CLASSES}/fixed", {"description": "ten"}, MERGE)
    assert described.status == 200, described.body


async def test_only_one_class_may_be_the_global_default(own: Api) -> None:
    first = await own.post(CLASSES, priority_class("first-default", value=1, globalDefault=True))
    assert first.status == 201, first.body
    try:
        second = await own.post(CLASSES, priority_class("second", value=2, globalDefault=True))
        assert second.status == 403
        assert second.body["reason"] == "Forbidden"
        assert second.body["message"] == (
            'priorityclasses.scheduling.k8s.io "second" is forbidden: PriorityClass '
            "first-default is already marked as default. Only one default can exist"
        )
        again = await own.patch(f"{CLASSES}/first-default", {"description": "still"}, MERGE)
        assert again.status == 200, again.body
    finally:
        await own.delete(f"{CLASSES}/first-default")


async def test_a_runtime_class_handler_overhead_and_scheduling(own: Api) -> None:
    toleration = {"key": "gpu", "operator": "Equal", "value": "yes", "effect": "NoSchedule"}
    body = runtime_class(
        "bad-runtime",
        handler="Run_C",
        overhead={"podFixed": {"cpu": "-1", "memory": "10Mi", "pods": "1", "gpu": "1"}},
        scheduling={
            "nodeSelector": {"bad key!": "ok"},
            "tolerations": [
                toleration,
                {**toleration, "tolerationSeconds": None},
                {"operator": "Equal"},
            ],
        },
    )
    found = causes(await own.post(RUNTIMES, body))
    assert found[0] == ("handler", f'Invalid value: "Run_C": {LABEL_1123}')
    # Pod-level names: "pods" is a standard resource, "gpu" is not (sorted: Go's map order).
    assert found[1:3] == [
        ("overhead.limits[cpu]", 'Invalid value: "-1": must be greater than or equal to 0'),
        (
            "overhead.limits[gpu]",
            'Invalid value: "gpu": must be a standard resource type or fully qualified',
        ),
    ]
    assert found[3][0] == "scheduling.nodeSelector"
    assert found[3][1].startswith('Invalid value: "bad key!": name part must consist of')
    assert found[4:] == [
        (
            "scheduling.tolerations[2].operator",
            'Invalid value: "Equal": operator must be Exists when `key` is empty, which means '
            '"match all values and all keys"',
        ),
        (
            "scheduling.tolerations[1]",
            'Duplicate value: core.Toleration{Key:"gpu", Operator:"Equal", Value:"yes", '
            'Effect:"NoSchedule", TolerationSeconds:(*int64)(nil)}',
        ),
    ]
    empty = await own.post(RUNTIMES, runtime_class("no-handler", handler=""))
    assert causes(empty) == [("handler", f'Invalid value: "": {LABEL_1123}')]


async def test_a_runtime_class_keeps_its_handler_and_warns_of_old_labels(own: Api) -> None:
    selector = {"beta.kubernetes.io/os": "linux"}
    created = await own.post(RUNTIMES, runtime_class("kata", scheduling={"nodeSelector": selector}))
    assert created.status == 201, created.body
    assert created.headers.getall("Warning") == [
        '299 - "scheduling.nodeSelector: deprecated since v1.14; use '
        '\\"kubernetes.io/os\\" instead"'
    ]
    changed = await own.patch(f"{RUNTIMES}/kata", {"handler": "kata"}, MERGE)
    assert causes(changed) == [("handler", 'Invalid value: "kata": field is immutable')]


async def test_a_runtime_class_update_must_name_a_resource_version(own: Api) -> None:
    created = await own.post(RUNTIMES, runtime_class("gvisor"))
    assert created.status == 201, created.body
    unconditional = await own.put(f"{RUNTIMES}/gvisor", runtime_class("gvisor"))
    assert causes(unconditional) == [
        ("metadata.resourceVersion", "Invalid value: 0x0: must be specified for an update")
    ]
