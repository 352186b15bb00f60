"""A ResourceQuota's spec is validated as 1.32's ``ValidateResourceQuota`` does it: 422
with Go's field paths and words (resource names, negative amounts, scopes against the
resources they limit, scope selector operators), and scopes are immutable."""

from __future__ import annotations

from typing import Any

import pytest
from kf_http import Api

pytestmark = pytest.mark.live


def _quota(name: str, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": name}, "spec": spec}


async def _causes(api: Api, namespace: str, body: dict[str, Any]) -> list[tuple[str, str]]:
    reply = await api.post(f"/api/v1/namespaces/{namespace}/resourcequotas", body)
    assert reply.status == 422, reply.body
    assert reply.body["reason"] == "Invalid"
    return [(c["field"], c["message"]) for c in reply.body["details"]["causes"]]


async def test_names_and_amounts(api: Api, namespace: str) -> None:
    body = _quota("q", hard={"limits.pods": "1", "cpu": "-1", "example.com/gpu": "1"})
    assert await _causes(api, namespace, body) == [
        ("spec.hard[cpu]", 'Invalid value: "-1": must be greater than or equal to 0'),
        (
            "spec.hard[limits.pods]",
            'Invalid value: "limits.pods": must be a standard resource type or fully qualified',
        ),
        (
            "spec.hard[limits.pods]",
            'Invalid value: "limits.pods": must be a standard resource for quota',
        ),
    ]


async def test_counted_resources_are_whole_numbers(api: Api, namespace: str) -> None:
    # Go prints the decoded Quantity (its String method needs a pointer); "1500m" keeps
    # its text as canonical, "1.5" does not.
    body = _quota("q", hard={"pods": "1.5", "count/configmaps": "1500m", "cpu": "1.5"})
    quantity = (
        "resource.Quantity{{i:resource.int64Amount{{value:{}, scale:{}}}, "
        'd:resource.infDecAmount{{Dec:(*inf.Dec)(nil)}}, s:"{}", Format:"DecimalSI"}}'
    )
    assert await _causes(api, namespace, body) == [
        (
            "spec.hard[count/configmaps]",
            f"Invalid value: {quantity.format(1500, -3, '1500m')}: must be an integer",
        ),
        ("spec.hard[pods]", f"Invalid value: {quantity.format(15, -1, '')}: must be an integer"),
    ]


async def test_scopes_must_fit_the_resources_and_each_other(api: Api, namespace: str) -> None:
    body = _quota("q", hard={"requests.storage": "1Gi", "pods": "1"}, scopes=["BestEffort"])
    assert await _causes(api, namespace, body) == [
        (
            "spec.scopes",
            'Invalid value: []core.ResourceQuotaScope{"BestEffort"}: '
            "unsupported scope applied to resource",
        )
    ]
    body = _quota("q", hard={"pods": "1"}, scopes=["Terminating", "NotTerminating"])
    assert await _causes(api, namespace, body) == [
        (
            "spec.scopes",
            'Invalid value: []core.ResourceQuotaScope{"Terminating", "NotTerminating"}: '
            "conflicting scopes",
        )
    ]


async def test_scope_selector_operators(api: Api, namespace: str) -> None:
    selector = {
        "matchExpressions": [
            {"scopeName": "PriorityClass", "operator": "In"},
            {"scopeName": "BestEffort", "operator": "In", "values": ["x"]},
        ]
    }
    body = _quota("q", hard={"pods": "1"}, scopeSelector=selector)
    path = "spec.scopeSelector.matchExpressions"
    assert await _causes(api, namespace, body) == [
        (
            f"{path}.values",
            "Required value: must be at least one value when `operator` is 'In' or 'NotIn' "
            "for scope selector",
        ),
        (
            f"{path}.operator",
            "Invalid value: \"In\": must be 'Exist' when scope is any of "
            "ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, "
            "ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or "
            "ResourceQuotaScopeCrossNamespacePodAffinity",
        ),
    ]


async def test_scopes_cannot_change(api: Api, namespace: str) -> None:
    path = f"/api/v1/namespaces/{namespace}/resourcequotas"
    created = await api.post(path, _quota("q", hard={"pods": "1"}, scopes=["BestEffort"]))
    assert created.status == 201, created.body
    patch = {"spec": {"scopes": ["NotBestEffort"]}}
    reply = await api.patch(f"{path}/q", patch, "application/merge-patch+json")
    assert reply.status == 422
    assert reply.body["message"] == (
        'ResourceQuota "q" is invalid: spec.scopes: Invalid value: '
        '[]core.ResourceQuotaScope{"NotBestEffort"}: field is immutable'
    )
