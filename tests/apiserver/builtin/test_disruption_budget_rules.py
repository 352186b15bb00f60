"""PodDisruptionBudgets are validated as 1.32's ValidatePodDisruptionBudget and its status
update (policy/v1) do, over HTTP."""

from __future__ import annotations

from typing import Any

from kf_http import Api
from kf_podspec import causes

MERGE = "application/merge-patch+json"
PERCENT = (
    "a valid percent string must be a numeric string followed by an ending '%' "
    "(e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"
)


def budget(name: str, **spec: Any) -> dict[str, Any]:
    selector = {"matchLabels": {"app": "web"}}
    return {"metadata": {"name": name}, "spec": {"selector": selector, **spec}}


def path(namespace: str, name: str = "") -> str:
    base = f"/apis/policy/v1/namespaces/{namespace}/poddisruptionbudgets"
    return f"{base}/{name}" if name else base


async def test_a_budget_sets_one_bound_as_a_count_or_a_percentage(api: Api, namespace: str) -> None:
    both = budget("both", minAvailable=1, maxUnavailable="150%")
    found = causes(await api.post(path(namespace), both))
    assert found[0][0] == "spec"
    assert found[0][1].startswith(
        "Invalid value: policy.PodDisruptionBudgetSpec{MinAvailable:(*intstr.IntOrString)("
    )
    assert found[0][1].endswith(": minAvailable and maxUnavailable cannot be both set")
    assert found[1:] == [
        (
            "spec.maxUnavailable",
            'Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"150%"}: must not be '
            "greater than 100%",
        )
    ]
    odd = budget("odd", minAvailable="half", unhealthyPodEvictionPolicy="Never")
    assert causes(await api.post(path(namespace), odd)) == [
        (
            "spec.minAvailable",
            f'Invalid value: intstr.IntOrString{{Type:1, IntVal:0, StrVal:"half"}}: {PERCENT}',
        ),
        (
            "spec.unhealthyPodEvictionPolicy",
            'Unsupported value: "Never": supported values: "AlwaysAllow", "IfHealthyBudget"',
        ),
    ]
    negative = budget("neg", maxUnavailable=-1)
    assert causes(await api.post(path(namespace), negative)) == [
        ("spec.maxUnavailable", "Invalid value: -1: must be greater than or equal to 0")
    ]
    bad_selector = budget("sel", minAvailable=1, selector={"matchLabels": {"app": "a b"}})
    assert (
        causes(await api.post(path(namespace), bad_selector))[0][0] == "spec.selector.matchLabels"
    )


async def test_a_budget_name_need_only_be_a_path_segment(api: Api, namespace: str) -> None:
    created = await api.post(path(namespace), budget("Web_Budget", minAvailable=1))
    assert created.status == 201, created.body
    slashed = await api.post(path(namespace), budget("a%b", minAvailable=1))
    assert causes(slashed) == [("metadata.name", "Invalid value: \"a%b\": may not contain '%'")]


async def test_a_budget_may_change_its_bounds_and_keeps_generation(
    api: Api, namespace: str
) -> None:
    created = await api.post(path(namespace), budget("web", minAvailable="50%"))
    assert created.status == 201, created.body
    moved = await api.patch(
        path(namespace, "web"), {"spec": {"minAvailable": None, "maxUnavailable": 1}}, MERGE
    )
    assert moved.status == 200, moved.body
    assert moved.body["metadata"]["generation"] == 2


async def test_budget_status_counts_and_conditions_are_validated(api: Api, namespace: str) -> None:
    assert (await api.post(path(namespace), budget("st", minAvailable=1))).status == 201
    status = {
        "status": {
            "disruptionsAllowed": -1,
            "conditions": [
                {"type": "DisruptionAllowed", "status": "Maybe", "reason": "no way"},
            ],
        }
    }
    reply = await api.patch(f"{path(namespace, 'st')}/status", status, MERGE)
    found = causes(reply)
    assert found[:2] == [
        (
            "status.conditions[0].status",
            'Unsupported value: "Maybe": supported values: "False", "True", "Unknown"',
        ),
        ("status.conditions[0].lastTransitionTime", "Required value: must be set"),
    ]
    assert found[2][0] == "status.conditions[0].reason"
    assert found[2][1].startswith('Invalid value: "no way": a condition reason must start')
    assert found[3] == (
        "status.disruptionsAllowed",
        "Invalid value: -1: must be greater than or equal to 0",
    )
