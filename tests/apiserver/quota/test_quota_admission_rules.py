"""Whether a write fits its namespace's quotas, in the words of kubernetes 1.32's
resourcequota admission (``CheckRequest``)."""

from __future__ import annotations

from typing import Any

import pytest

from kubeforge.apiserver.quota.admit import QuotaDenied, check_request
from kubeforge.apiserver.quota.evaluators import Evaluator, evaluator_for
from kubeforge.apiserver.quota.quantity import render_list


def _evaluator(group: str, plural: str) -> Evaluator:
    found = evaluator_for(group, plural)
    assert found is not None
    return found


def _quota(
    name: str, hard: dict[str, str], used: dict[str, str] | None, **spec: Any
) -> dict[str, Any]:
    status: dict[str, Any] = {"hard": hard}
    if used is not None:
        status["used"] = used
    return {
        "metadata": {"name": name, "namespace": "n"},
        "spec": {"hard": hard, **spec},
        "status": status,
    }


def _pod(requests: dict[str, str], **spec: Any) -> dict[str, Any]:
    container = {"name": "app", "resources": {"requests": requests, "limits": dict(requests)}}
    return {"metadata": {"name": "p"}, "spec": {"containers": [container], **spec}}


def _denied(quotas: list[dict[str, Any]], plural: str, obj: dict[str, Any], **kw: Any) -> str:
    with pytest.raises(QuotaDenied) as caught:
        check_request(
            quotas, _evaluator("", plural), kw.get("op", "CREATE"), obj, kw.get("old"), 0.0
        )
    return str(caught.value)


def test_every_exceeded_resource_is_named_in_order() -> None:
    quota = _quota(
        "compute",
        {"requests.cpu": "1", "requests.memory": "1Gi", "pods": "10"},
        {"requests.cpu": "800m", "requests.memory": "512Mi", "pods": "1"},
    )
    message = _denied([quota], "pods", _pod({"cpu": "500m", "memory": "1Gi"}))
    assert message == (
        "exceeded quota: compute, requested: requests.cpu=500m,requests.memory=1Gi, "
        "used: requests.cpu=800m,requests.memory=512Mi, "
        "limited: requests.cpu=1,requests.memory=1Gi"
    )


def test_an_admitted_pod_is_added_to_used() -> None:
    quota = _quota("q", {"pods": "2", "requests.cpu": "2"}, {"pods": "1", "requests.cpu": "0"})
    (charge,) = check_request(
        [quota], _evaluator("", "pods"), "CREATE", _pod({"cpu": "250m"}), None, 0.0
    )
    assert render_list(charge.used) == {"pods": "2", "requests.cpu": "250m"}


def test_a_quota_without_usage_refuses_until_the_controller_fills_it() -> None:
    quota = _quota("fresh", {"pods": "2", "requests.cpu": "2"}, None)
    message = _denied([quota], "pods", _pod({"cpu": "1"}))
    assert message == "status unknown for quota: fresh, resources: pods,requests.cpu"


def test_a_quota_the_controller_has_not_seen_limits_nothing() -> None:
    unseen = {"metadata": {"name": "new"}, "spec": {"hard": {"pods": "0"}}}
    assert check_request([unseen], _evaluator("", "pods"), "CREATE", _pod({}), None, 0.0) == []


def test_a_missing_request_fails_the_quota() -> None:
    quota = _quota("mem", {"requests.memory": "1Gi"}, {"requests.memory": "0"})
    message = _denied([quota], "pods", _pod({"cpu": "1"}))
    assert message == "failed quota: mem: must specify requests.memory for: app"


def test_scopes_choose_the_quotas_that_apply() -> None:
    best_effort = _quota("be", {"pods": "0"}, {"pods": "0"}, scopes=["BestEffort"])
    assert (
        check_request(
            [best_effort], _evaluator("", "pods"), "CREATE", _pod({"cpu": "1"}), None, 0.0
        )
        == []
    )
    message = _denied([best_effort], "pods", _pod({}))
    assert message.startswith("exceeded quota: be, requested: pods=1, used: pods=0")
    by_class = _quota(
        "high",
        {"pods": "0"},
        {"pods": "0"},
        scopeSelector={
            "matchExpressions": [
                {"scopeName": "PriorityClass", "operator": "In", "values": ["high"]}
            ]
        },
    )
    low = _pod({}, priorityClassName="low")
    assert check_request([by_class], _evaluator("", "pods"), "CREATE", low, None, 0.0) == []
    assert _denied([by_class], "pods", _pod({}, priorityClassName="high")).startswith(
        "exceeded quota: high"
    )


def _service(kind: str, ports: int) -> dict[str, Any]:
    spec = {"type": kind, "ports": [{"port": 80 + i} for i in range(ports)]}
    return {"metadata": {"name": "s", "resourceVersion": "5"}, "spec": spec}


def test_a_service_update_is_charged_what_it_adds() -> None:
    quota = _quota(
        "svc",
        {"services": "5", "services.nodeports": "1"},
        {"services": "1", "services.nodeports": "0"},
    )
    old = _service("ClusterIP", 2)
    message = _denied([quota], "services", _service("NodePort", 2), op="UPDATE", old=old)
    assert message == (
        "exceeded quota: svc, requested: services.nodeports=2, used: services.nodeports=0, "
        "limited: services.nodeports=1"
    )
    same = check_request(
        [quota], _evaluator("", "services"), "UPDATE", _service("ClusterIP", 3), old, 0.0
    )
    assert same == []


def test_claims_are_limited_per_storage_class() -> None:
    hard = {"gold.storageclass.storage.k8s.io/requests.storage": "10Gi"}
    quota = _quota("gold", hard, {"gold.storageclass.storage.k8s.io/requests.storage": "8Gi"})
    claim = {
        "metadata": {"name": "c"},
        "spec": {"storageClassName": "gold", "resources": {"requests": {"storage": "4Gi"}}},
    }
    message = _denied([quota], "persistentvolumeclaims", claim)
    assert message == (
        "exceeded quota: gold, requested: gold.storageclass.storage.k8s.io/requests.storage=4Gi, "
        "used: gold.storageclass.storage.k8s.io/requests.storage=8Gi, "
        "limited: gold.storageclass.storage.k8s.io/requests.storage=10Gi"
    )
    silver = {**claim, "spec": {**claim["spec"], "storageClassName": "silver"}}
    assert (
        check_request([quota], _evaluator("", "persistentvolumeclaims"), "CREATE", silver, None, 0)
        == []
    )


def test_object_counts_charge_creates_only() -> None:
    quota = _quota("counts", {"configmaps": "1"}, {"configmaps": "1"})
    message = _denied([quota], "configmaps", {"metadata": {"name": "x"}})
    assert message == (
        "exceeded quota: counts, requested: configmaps=1, used: configmaps=1, limited: configmaps=1"
    )
    assert (
        check_request([quota], _evaluator("", "configmaps"), "UPDATE", {"metadata": {}}, None, 0.0)
        == []
    )
