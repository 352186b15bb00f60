"""HorizontalPodAutoscalers are defaulted and validated as 1.32's autoscaling/v2 defaults.go
and ValidateHorizontalPodAutoscaler (and its status update), over HTTP through both v2 and
v1, whose CPU target is judged as the metric it converts to."""

from __future__ import annotations

from typing import Any

from kf_http import Api
from kf_podspec import causes

MERGE = "application/merge-patch+json"
SUPPORTED_SOURCES = (
    'supported values: "ContainerResource", "External", "Object", "Pods", "Resource"'
)


def hpa(name: str, version: str = "v2", **spec: Any) -> dict[str, Any]:
    target = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}
    return {
        "apiVersion": f"autoscaling/{version}",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": name},
        "spec": {"scaleTargetRef": target, "maxReplicas": 5, **spec},
    }


def path(namespace: str, name: str = "", version: str = "v2") -> str:
    base = f"/apis/autoscaling/{version}/namespaces/{namespace}/horizontalpodautoscalers"
    return f"{base}/{name}" if name else base


def resource(name: str, **target: Any) -> dict[str, Any]:
    return {"type": "Resource", "resource": {"name": name, "target": target}}


async def test_replica_bounds_and_the_target_reference(api: Api, namespace: str) -> None:
    body = hpa("bounds", minReplicas=0, maxReplicas=-1, scaleTargetRef={"name": "a/b"})
    assert causes(await api.post(path(namespace), body)) == [
        ("spec.minReplicas", "Invalid value: 0: must be greater than or equal to 1"),
        ("spec.maxReplicas", "Invalid value: -1: must be greater than 0"),
        ("spec.maxReplicas", "Invalid value: -1: must be greater than or equal to `minReplicas`"),
        ("spec.scaleTargetRef.kind", "Required value"),
        ("spec.scaleTargetRef.name", "Invalid value: \"a/b\": may not contain '/'"),
        # With the gate off 0 is refused anyway, yet Go still checks the metrics for it.
        (
            "spec.metrics",
            "Forbidden: must specify at least one Object or External metric to support scaling "
            "to zero replicas",
        ),
    ]


async def test_metrics_by_source_and_target_type(api: Api, namespace: str) -> None:
    metrics = [
        {"type": "Pods", "pods": {"metric": {}, "target": {"type": "Value", "value": "-1"}}},
        {"type": "Object", "resource": {"name": "cpu"}},
        resource("", type="Percent", averageUtilization=0, averageValue="100m"),
        {"type": "Bogus"},
        {
            "type": "External",
            "external": {
                "metric": {"name": "q%1"},
                "target": {"type": "Value", "value": "1", "averageValue": "2"},
            },
        },
        {
            "type": "ContainerResource",
            "containerResource": {
                "name": "gpu",
                "container": "Web_1",
                "target": {"type": "AverageValue", "averageValue": "1"},
            },
        },
    ]
    found = causes(await api.post(path(namespace), hpa("metrics", metrics=metrics)))
    assert found[:10] == [
        ("spec.metrics[0].pods.metric.name", "Required value: must specify a metric name"),
        (
            "spec.metrics[0].pods.target.value",
            found[1][1],
        ),
        (
            "spec.metrics[0].pods.target.averageValue",
            "Required value: must specify a positive target averageValue",
        ),
        (
            "spec.metrics[1].resource.target.type",
            "Required value: must specify a metric target type",
        ),
        (
            "spec.metrics[1].resource.target.type",
            'Invalid value: "": must be either Utilization, Value, or AverageValue',
        ),
        (
            "spec.metrics[1].resource.target.averageUtilization",
            "Required value: must set either a target raw value or a target utilization",
        ),
        (
            "spec.metrics[1].object",
            "Required value: must populate information for the given metric source",
        ),
        ("spec.metrics[2].resource.name", "Required value: must specify a resource name"),
        (
            "spec.metrics[2].resource.target.type",
            'Invalid value: "Percent": must be either Utilization, Value, or AverageValue',
        ),
        (
            "spec.metrics[2].resource.target.averageUtilization",
            "Invalid value: 0: must be greater than 0",
        ),
    ]
    assert found[1][1].startswith(
        "Invalid value: resource.Quantity{i:resource.int64Amount{value:-1"
    )
    assert found[1][1].endswith("must be positive")
    assert found[10:] == [
        (
            "spec.metrics[2].resource.target.averageValue",
            "Forbidden: may not set both a target raw value and a target utilization",
        ),
        ("spec.metrics[3].type", f'Unsupported value: "Bogus": {SUPPORTED_SOURCES}'),
        ("spec.metrics[3].type", f'Unsupported value: "Bogus": {SUPPORTED_SOURCES}'),
        ("spec.metrics[4].external.metric.name", "Invalid value: \"q%1\": may not contain '%'"),
        (
            "spec.metrics[4].external.target.value",
            "Forbidden: may not set both a target value for metric and a per-pod target",
        ),
        (
            "spec.metrics[5].containerResource.name",
            'Invalid value: "gpu": must be a standard resource type or fully qualified',
        ),
        (
            "spec.metrics[5].containerResource.name",
            'Invalid value: "gpu": must be a standard resource for containers',
        ),
        ("spec.metrics[5].containerResource.container", found[-1][1]),
    ]
    assert found[-1][1].startswith('Invalid value: "Web_1": a lowercase RFC 1123 label')


async def test_behavior_is_defaulted_and_validated(api: Api, namespace: str) -> None:
    created = await api.post(
        path(namespace), hpa("behaves", behavior={"scaleDown": {"policies": None}})
    )
    assert created.status == 201, created.body
    spec = created.body["spec"]
    assert spec["minReplicas"] == 1
    assert spec["metrics"] == [resource("cpu", type="Utilization", averageUtilization=80)]
    assert spec["behavior"] == {
        "scaleUp": {
            "stabilizationWindowSeconds": 0,
            "selectPolicy": "Max",
            "policies": [
                {"type": "Pods", "value": 4, "periodSeconds": 15},
                {"type": "Percent", "value": 100, "periodSeconds": 15},
            ],
        },
        "scaleDown": {
            "selectPolicy": "Max",
            "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}],
        },
    }
    assert created.body["metadata"]["generation"] == 1
    rules = {
        "scaleUp": {"stabilizationWindowSeconds": 3601, "selectPolicy": "Most", "policies": []},
        "scaleDown": {
            "stabilizationWindowSeconds": -1,
            "policies": [{"type": "Replicas", "value": 0, "periodSeconds": 1801}],
        },
    }
    bad = await api.patch(path(namespace, "behaves"), {"spec": {"behavior": rules}}, MERGE)
    assert causes(bad) == [
        (
            "spec.behavior.scaleUp.stabilizationWindowSeconds",
            "Invalid value: 3601: must be less than or equal to 3600",
        ),
        (
            "spec.behavior.scaleUp.selectPolicy",
            'Unsupported value: "Most": supported values: "Disabled", "Max", "Min"',
        ),
        ("spec.behavior.scaleUp.policies", "Required value: must specify at least one Policy"),
        (
            "spec.behavior.scaleDown.stabilizationWindowSeconds",
            "Invalid value: -1: must be greater than or equal to zero",
        ),
        (
            "spec.behavior.scaleDown.policies[0].type",
            'Unsupported value: "Replicas": supported values: "Percent", "Pods"',
        ),
        (
            "spec.behavior.scaleDown.policies[0].value",
            "Invalid value: 0: must be greater than zero",
        ),
        (
            "spec.behavior.scaleDown.policies[0].periodSeconds",
            "Invalid value: 1801: must be less than or equal to 1800",
        ),
    ]


async def test_v1_cpu_target_is_judged_as_its_v2_metric(api: Api, namespace: str) -> None:
    body = hpa("v1", "v1", targetCPUUtilizationPercentage=0, minReplicas=3, maxReplicas=2)
    assert causes(await api.post(path(namespace, version="v1"), body)) == [
        ("spec.maxReplicas", "Invalid value: 2: must be greater than or equal to `minReplicas`"),
        (
            "spec.metrics[0].resource.target.averageUtilization",
            "Invalid value: 0: must be greater than 0",
        ),
    ]
    fine = await api.post(
        path(namespace, version="v1"), hpa("v1", "v1", targetCPUUtilizationPercentage=50)
    )
    assert fine.status == 201, fine.body
    assert fine.body["spec"]["minReplicas"] == 1


async def test_status_counts_are_not_negative(api: Api, namespace: str) -> None:
    created = await api.post(path(namespace), hpa("status"))
    assert created.status == 201, created.body
    status = {"status": {"currentReplicas": -1, "desiredReplicas": -2}}
    reply = await api.patch(path(namespace, "status") + "/status", status, MERGE)
    assert causes(reply) == [
        ("status.currentReplicas", "Invalid value: -1: must be greater than or equal to 0"),
        ("status.desiredReplicas", "Invalid value: -2: must be greater than or equal to 0"),
    ]


async def test_a_metric_populates_only_its_own_source(api: Api, namespace: str) -> None:
    pods = {"metric": {"name": "qps"}, "target": {"type": "AverageValue", "averageValue": "10"}}
    both = {"type": "Pods", "pods": pods, "resource": {"name": "cpu"}}
    assert causes(await api.post(path(namespace), hpa("both", metrics=[both]))) == [
        ("spec.metrics[0].resource", "Forbidden: must populate the given metric source only")
    ]
    fine = await api.post(path(namespace), hpa("pods", metrics=[{"type": "Pods", "pods": pods}]))
    assert fine.status == 201, fine.body
