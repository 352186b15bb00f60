"""What objects cost in quota and how sums print, as kubernetes 1.32's evaluators and
``resource.Quantity`` compute them (``pkg/quota/v1/evaluator/core``,
``component-helpers/resource.PodRequests``)."""

from __future__ import annotations

from typing import Any

import pytest

from kubeforge.apiserver.quota.evaluators import evaluator_for, evaluators_for
from kubeforge.apiserver.quota.pods import missing_resources, pod_matches_scope, pod_usage
from kubeforge.apiserver.quota.quantity import add, parse_list, render_list
from kubeforge.apiserver.quota.usage import quota_status


@pytest.mark.parametrize(
    ("first", "second", "total"),
    [
        ("512Mi", "512Mi", "1Gi"),  # BinarySI stays binary
        ("0", "500m", "500m"),  # a zero takes the other's format
        ("1", "500m", "1500m"),
        ("0", "1Gi", "1Gi"),
        ("1k", "1Ki", "2024"),  # the first term's format (DecimalSI)
        ("100Mi", "1", "104857601"),  # binary, but not a multiple of 1024
        ("1e3", "1e3", "2e3"),  # DecimalExponent keeps its exponent
    ],
)
def test_sums_print_in_the_format_of_their_first_nonzero_term(
    first: str, second: str, total: str
) -> None:
    summed = add(parse_list({"r": first}), parse_list({"r": second}))
    assert render_list(summed) == {"r": total}


def _container(name: str, **resources: dict[str, str]) -> dict[str, Any]:
    return {"name": name, "image": "nginx", "resources": resources}


def _pod(*containers: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": "p"}, "spec": {"containers": list(containers), **spec}}


def test_a_pod_is_charged_its_containers_or_its_largest_init_container() -> None:
    pod = _pod(
        _container("a", requests={"cpu": "100m", "memory": "64Mi"}, limits={"cpu": "200m"}),
        _container("b", requests={"cpu": "300m"}),
        initContainers=[_container("init", requests={"cpu": "1"})],
    )
    assert render_list(pod_usage(pod, 0.0)) == {
        "count/pods": "1",
        "cpu": "1",
        "limits.cpu": "200m",
        "memory": "64Mi",
        "pods": "1",
        "requests.cpu": "1",
        "requests.memory": "64Mi",
    }


def test_sidecars_add_up_and_overhead_is_added() -> None:
    sidecar = {**_container("proxy", requests={"cpu": "100m"}), "restartPolicy": "Always"}
    pod = _pod(
        _container("app", requests={"cpu": "200m"}, limits={"memory": "1Gi"}),
        initContainers=[sidecar, _container("migrate", requests={"cpu": "250m"})],
        overhead={"cpu": "50m", "memory": "10Mi"},
    )
    usage = render_list(pod_usage(pod, 0.0))
    assert usage["requests.cpu"] == "400m"  # max(200m + 100m, 250m + 100m) + 50m
    assert usage["requests.memory"] == "10Mi"
    assert usage["limits.memory"] == "1034Mi"  # overhead on a limit that is set
    assert "limits.cpu" not in usage


def test_hugepages_and_extended_resources_are_charged_as_requests() -> None:
    pod = _pod(
        _container("a", requests={"hugepages-2Mi": "4Mi", "example.com/gpu": "2"}),
    )
    usage = render_list(pod_usage(pod, 0.0))
    assert usage["hugepages-2Mi"] == usage["requests.hugepages-2Mi"] == "4Mi"
    assert usage["requests.example.com/gpu"] == "2"
    assert "example.com/gpu" not in usage


def test_finished_pods_and_pods_past_their_grace_period_only_count() -> None:
    pod = _pod(_container("a", requests={"cpu": "1"}))
    finished = {**pod, "status": {"phase": "Succeeded"}}
    assert render_list(pod_usage(finished, 0.0)) == {"count/pods": "1"}
    deleting = {
        **pod,
        "metadata": {
            "name": "p",
            "deletionTimestamp": "2020-01-01T00:00:00Z",
            "deletionGracePeriodSeconds": 30,
        },
    }
    assert render_list(pod_usage(deleting, 1577836800.0 + 31)) == {"count/pods": "1"}
    assert "pods" in pod_usage(deleting, 1577836800.0 + 29)


def test_a_quota_on_cpu_or_memory_makes_every_container_state_it() -> None:
    pod = _pod(
        _container("b"),
        _container("a", requests={"memory": "1Mi"}),
        initContainers=[_container("init", limits={"cpu": "1"})],
    )
    problem = missing_resources(["limits.cpu", "requests.memory", "pods", "count/pods"], pod)
    assert problem == "must specify limits.cpu for: a,b; requests.memory for: b,init"
    assert missing_resources(["pods", "requests.storage"], pod) is None


@pytest.mark.parametrize(
    ("selector", "spec", "expected"),
    [
        ({"scopeName": "Terminating"}, {"activeDeadlineSeconds": 0}, True),
        ({"scopeName": "Terminating"}, {}, False),
        ({"scopeName": "NotTerminating"}, {}, True),
        ({"scopeName": "BestEffort"}, {}, True),
        ({"scopeName": "NotBestEffort"}, {}, False),
        ({"scopeName": "PriorityClass", "operator": "Exists"}, {"priorityClassName": "hi"}, True),
        ({"scopeName": "PriorityClass", "operator": "Exists"}, {}, False),
        (
            {"scopeName": "PriorityClass", "operator": "In", "values": ["hi", "mid"]},
            {"priorityClassName": "mid"},
            True,
        ),
        ({"scopeName": "PriorityClass", "operator": "NotIn", "values": ["hi"]}, {}, True),
        ({"scopeName": "PriorityClass", "operator": "DoesNotExist"}, {}, True),
        (
            {"scopeName": "CrossNamespacePodAffinity", "operator": "Exists"},
            {
                "affinity": {
                    "podAntiAffinity": {
                        "preferredDuringSchedulingIgnoredDuringExecution": [
                            {"weight": 1, "podAffinityTerm": {"namespaceSelector": {}}}
                        ]
                    }
                }
            },
            True,
        ),
    ],
)
def test_pod_scopes(selector: dict[str, Any], spec: dict[str, Any], expected: bool) -> None:
    pod = _pod(_container("a"), **spec)
    assert pod_matches_scope(selector, pod) is expected


def test_services_count_load_balancers_and_node_ports() -> None:
    services = evaluator_for("", "services")
    assert services is not None
    ports = [{"port": 80}, {"port": 443, "nodePort": 30443}]
    balancer = {"spec": {"type": "LoadBalancer", "ports": ports}}
    assert render_list(services.usage(balancer, 0.0)) == {
        "count/services": "1",
        "services": "1",
        "services.loadbalancers": "1",
        "services.nodeports": "2",
    }
    balancer["spec"]["allocateLoadBalancerNodePorts"] = False
    assert render_list(services.usage(balancer, 0.0))["services.nodeports"] == "1"
    cluster_ip = {"spec": {"type": "ClusterIP", "ports": ports}}
    assert render_list(services.usage(cluster_ip, 0.0))["services.nodeports"] == "0"


def test_claims_count_storage_per_class_in_whole_bytes() -> None:
    claims = evaluator_for("", "persistentvolumeclaims")
    assert claims is not None
    claim = {
        "metadata": {"name": "c"},
        "spec": {"storageClassName": "gold", "resources": {"requests": {"storage": "1.5"}}},
        "status": {"allocatedResources": {"storage": "1Gi"}},
    }
    assert render_list(claims.usage(claim, 0.0)) == {
        "count/persistentvolumeclaims": "1",
        "gold.storageclass.storage.k8s.io/persistentvolumeclaims": "1",
        "gold.storageclass.storage.k8s.io/requests.storage": "1Gi",
        "persistentvolumeclaims": "1",
        "requests.storage": "1Gi",
    }
    assert claims.matching_resources(["bronze.storageclass.storage.k8s.io/requests.storage"])


def test_other_kinds_are_counted_and_events_are_ignored() -> None:
    deployments = evaluator_for("apps", "deployments")
    assert deployments is not None
    assert render_list(deployments.usage({}, 0.0)) == {"count/deployments.apps": "1"}
    secrets = evaluator_for("", "secrets")
    assert secrets is not None
    assert sorted(secrets.usage({}, 0.0)) == ["count/secrets", "secrets"]
    assert evaluator_for("", "events") is None
    assert evaluator_for("events.k8s.io", "events") is None


def test_the_controller_fills_hard_and_used_and_keeps_what_it_cannot_measure() -> None:
    quota = {
        "metadata": {"name": "q", "namespace": "n"},
        "spec": {
            "hard": {
                "pods": "4",
                "requests.memory": "1024Mi",
                "count/widgets.example.com": "3",
                "count/deployments.apps": "2",
            }
        },
        "status": {"used": {"count/widgets.example.com": "7", "secrets": "1"}},
    }
    stored = {
        ("", "pods"): [
            _pod(_container("a", requests={"memory": "256Mi"})),
            {**_pod(_container("b", requests={"memory": "1Gi"})), "status": {"phase": "Failed"}},
        ],
    }

    def objects(group: str, plural: str) -> list[dict[str, Any]]:
        return stored.get((group, plural), [])

    evaluators = evaluators_for(quota["spec"]["hard"], lambda group, _: group == "apps")
    assert quota_status(quota, evaluators, objects, 0.0) == {
        "hard": {
            "count/deployments.apps": "2",
            "count/widgets.example.com": "3",
            "pods": "4",
            "requests.memory": "1Gi",
        },
        "used": {
            "count/deployments.apps": "0",
            "count/widgets.example.com": "7",  # not served: nothing measures it
            "pods": "1",
            "requests.memory": "256Mi",
        },
    }
