"""ManagerMetrics: controller-runtime's names and labels, one registry per manager."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

from kubeforge.runtime.metrics import REQUEST_DURATION_BUCKETS, ManagerMetrics
from kubeforge.workqueue import RateLimitingQueue


def families(metrics: ManagerMetrics) -> dict[str, object]:
    return {f.name: f for f in text_string_to_metric_families(metrics.render().decode())}


def test_two_managers_in_one_process_count_apart():
    first, second = ManagerMetrics(), ManagerMetrics()
    first.request_done("GET", "h:1", 200, 0.01)
    labels = {"code": "200", "method": "GET", "host": "h:1"}
    assert first.registry.get_sample_value("rest_client_requests_total", labels) == 1
    assert second.registry.get_sample_value("rest_client_requests_total", labels) is None


def test_a_request_without_an_answer_is_counted_with_client_gos_error_code():
    metrics = ManagerMetrics()
    metrics.request_done("PUT", "10.0.0.1:6443", None, 0.2)
    metrics.request_done("PUT", "10.0.0.1:6443", 409, 0.03)
    get = metrics.registry.get_sample_value
    assert (
        get(
            "rest_client_requests_total",
            {"code": "<error>", "method": "PUT", "host": "10.0.0.1:6443"},
        )
        == 1
    )
    assert (
        get("rest_client_requests_total", {"code": "409", "method": "PUT", "host": "10.0.0.1:6443"})
        == 1
    )
    duration = {"verb": "PUT", "host": "10.0.0.1:6443"}
    assert get("rest_client_request_duration_seconds_count", duration) == 2
    assert get("rest_client_request_duration_seconds_bucket", {**duration, "le": "0.005"}) == 0
    assert get("rest_client_request_duration_seconds_bucket", {**duration, "le": "0.25"}) == 2
    assert REQUEST_DURATION_BUCKETS[0] == 0.005 and REQUEST_DURATION_BUCKETS[-1] == 60.0


def test_the_leader_gauge_follows_the_lease():
    metrics = ManagerMetrics()
    metrics.set_leader("my-lock", False)
    assert (
        metrics.registry.get_sample_value("leader_election_master_status", {"name": "my-lock"}) == 0
    )
    metrics.set_leader("my-lock", True)
    assert (
        metrics.registry.get_sample_value("leader_election_master_status", {"name": "my-lock"}) == 1
    )


def test_a_named_queue_reports_every_workqueue_metric_with_name_and_controller_labels():
    metrics = ManagerMetrics()
    queue: RateLimitingQueue[str] = RateLimitingQueue(name="pods", metrics=metrics.queue_metrics)
    queue.add("a")
    found = families(metrics)
    for name, kind in {
        "workqueue_depth": "gauge",
        "workqueue_adds": "counter",
        "workqueue_queue_duration_seconds": "histogram",
        "workqueue_work_duration_seconds": "histogram",
        "workqueue_unfinished_work_seconds": "gauge",
        "workqueue_longest_running_processor_seconds": "gauge",
        "workqueue_retries": "counter",
    }.items():
        family = found[name]
        assert family.type == kind, name
        assert {
            tuple(sorted(s.labels.items())) for s in family.samples if "le" not in s.labels
        } == {(("controller", "pods"), ("name", "pods"))}, name
    depth = metrics.registry.get_sample_value(
        "workqueue_depth", {"name": "pods", "controller": "pods"}
    )
    assert depth == 1
