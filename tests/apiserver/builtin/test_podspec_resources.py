"""A container's ``resources`` as kubernetes 1.32's ``ValidateContainerResourceRequirements``
answers them: resource names, whole numbers of extended resources, requests equal to
limits where overcommit is not allowed, hugepages in whole pages beside cpu or memory."""

from __future__ import annotations

from typing import Any

from kf_http import Api
from kf_podspec import created, pod, refused

RESOURCES = "spec.containers[0].resources"


def _resources(**sections: dict[str, Any]) -> dict[str, Any]:
    return {"resources": sections}


async def test_an_extended_resource_needs_an_equal_limit(api: Api, namespace: str) -> None:
    requested = _resources(requests={"example.com/gpu": "1"})
    assert await refused(api, namespace, pod("no-limit", requested)) == [
        (
            f"{RESOURCES}.limits",
            "Required value: Limit must be set for non overcommitable resources",
        )
    ]
    unequal = _resources(requests={"example.com/gpu": "1"}, limits={"example.com/gpu": "2"})
    assert await refused(api, namespace, pod("unequal", unequal)) == [
        (f"{RESOURCES}.requests", 'Invalid value: "1": must be equal to example.com/gpu limit of 2')
    ]
    equal = _resources(requests={"example.com/gpu": "2"}, limits={"example.com/gpu": "2"})
    stored = await created(api, namespace, pod("equal", equal))
    assert stored["spec"]["containers"][0]["resources"]["limits"] == {"example.com/gpu": "2"}


async def test_an_extended_resource_is_a_whole_number(api: Api, namespace: str) -> None:
    # The request is defaulted from the limit, so both are refused; Go prints the
    # decoded Quantity, whose String method it cannot reach from a value.
    found = await refused(
        api, namespace, pod("half", _resources(limits={"example.com/gpu": "500m"}))
    )
    shown = (
        "resource.Quantity{i:resource.int64Amount{value:500, scale:-3}, "
        'd:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"500m", Format:"DecimalSI"}'
    )
    assert found == [
        (f"{RESOURCES}.limits[example.com/gpu]", f"Invalid value: {shown}: must be an integer"),
        (f"{RESOURCES}.requests[example.com/gpu]", f"Invalid value: {shown}: must be an integer"),
    ]


async def test_names_must_be_standard_or_extended(api: Api, namespace: str) -> None:
    found = await refused(api, namespace, pod("names", _resources(requests={"foo": "1"})))
    assert found == [
        (
            f"{RESOURCES}.requests[foo]",
            'Invalid value: "foo": must be a standard resource type or fully qualified',
        ),
        (
            f"{RESOURCES}.requests[foo]",
            'Invalid value: "foo": must be a standard resource for containers',
        ),
    ]
    found = await refused(api, namespace, pod("pods", _resources(requests={"pods": "1"})))
    assert found == [
        (
            f"{RESOURCES}.requests[pods]",
            'Invalid value: "pods": must be a standard resource for containers',
        )
    ]


async def test_hugepages_come_in_whole_pages_beside_cpu_or_memory(api: Api, namespace: str) -> None:
    partial = _resources(limits={"hugepages-2Mi": "3Mi", "memory": "1Gi"})
    message = 'Invalid value: "3Mi": 3Mi is not positive integer multiple of hugepages-2Mi'
    assert await refused(api, namespace, pod("partial", partial)) == [
        (f"{RESOURCES}.limits[hugepages-2Mi]", message),
        (f"{RESOURCES}.requests[hugepages-2Mi]", message),
    ]
    alone = _resources(limits={"hugepages-2Mi": "4Mi"})
    assert await refused(api, namespace, pod("alone", alone)) == [
        (RESOURCES, "Forbidden: HugePages require cpu or memory")
    ]
    whole = _resources(limits={"hugepages-2Mi": "4Mi", "cpu": "1"})
    stored = await created(api, namespace, pod("whole", whole))
    assert stored["spec"]["containers"][0]["resources"]["requests"]["hugepages-2Mi"] == "4Mi"
