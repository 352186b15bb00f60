"""A manager's /metrics and /readyz after real reconciles against the local API server."""

from __future__ import annotations

import asyncio
from urllib.parse import urlsplit

import aiohttp
import pytest
from prometheus_client.metrics_core import Metric
from prometheus_client.parser import text_string_to_metric_families

from kubeforge.config import load_config
from kubeforge.controller import Builder
from kubeforge.models.core_v1 import ConfigMap
from kubeforge.reconcile import Request, Result, TerminalError
from kubeforge.runtime import Manager, ManagerOptions
from watch.kf_server import ROOT_CA, configmap, eventually, fresh_namespace

pytestmark = pytest.mark.live

CONTROLLER = "observed"


async def scrape(session: aiohttp.ClientSession, url: str) -> dict[str, Metric]:
    async with session.get(url + "/metrics") as response:
        assert response.status == 200
        assert response.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        text = await response.text()
    return {family.name: family for family in text_string_to_metric_families(text)}


def sample(family: Metric, suffix: str = "", **labels: str) -> float:
    matches = [
        s.value
        for s in family.samples
        if s.name == family.name + suffix and all(s.labels.get(k) == v for k, v in labels.items())
    ]
    assert len(matches) == 1, (family.name, labels, family.samples)
    return matches[0]


async def test_metrics_and_readiness_after_real_reconciles(kube_apiserver, client):
    namespace = await fresh_namespace(client, "metrics")
    failed_once: set[str] = set()
    finished: list[str] = []

    async def reconcile(request: Request) -> Result:
        name = request.name
        if name == "flaky" and name not in failed_once:
            failed_once.add(name)
            raise RuntimeError("first attempt fails")
        if name == "invalid":
            raise TerminalError("spec cannot work")
        finished.append(name)
        return Result(requeue_after=3600) if name == "periodic" else Result()

    options = ManagerOptions(
        metrics_bind_address="127.0.0.1:0", health_probe_bind_address="127.0.0.1:0"
    )
    mgr = Manager(load_config(kube_apiserver.kubeconfig), options=options)
    Builder(mgr).named(CONTROLLER).for_(ConfigMap, namespace=namespace).with_options(
        max_concurrent_reconciles=2
    ).complete(reconcile)
    for name in ("plain", "flaky", "invalid", "periodic"):
        await client.api(ConfigMap, namespace=namespace).create(configmap(name, namespace))
    running = asyncio.create_task(mgr.run())
    try:
        reconciles = {"controller": CONTROLLER}
        count = "controller_runtime_reconcile_time_seconds_count"
        # plain, flaky twice, invalid, periodic, and the namespace's kube-root-ca.crt
        await eventually(lambda: mgr.metrics.registry.get_sample_value(count, reconciles) == 6)
        assert set(finished) == {"plain", "flaky", "periodic", ROOT_CA}
        assert mgr.metrics_server is not None and mgr.probe_server is not None
        async with aiohttp.ClientSession() as session:
            families = await scrape(session, mgr.metrics_server.url)
            async with session.get(mgr.probe_server.url + "/readyz?verbose") as response:
                readyz = (response.status, await response.text())
    finally:
        mgr.stop()
        await running

    assert readyz == (200, "[+]informer-sync ok\n[+]ping ok\nreadyz check passed\n")
    expected = {
        "controller_runtime_reconcile": "counter",
        "controller_runtime_reconcile_errors": "counter",
        "controller_runtime_terminal_reconcile_errors": "counter",
        "controller_runtime_reconcile_panics": "counter",
        "controller_runtime_reconcile_time_seconds": "histogram",
        "controller_runtime_max_concurrent_reconciles": "gauge",
        "controller_runtime_active_workers": "gauge",
        "workqueue_depth": "gauge",
        "workqueue_adds": "counter",
        "workqueue_queue_duration_seconds": "histogram",
        "workqueue_work_duration_seconds": "histogram",
        "workqueue_unfinished_work_seconds": "gauge",
        "workqueue_longest_running_processor_seconds": "gauge",
        "workqueue_retries": "counter",
        "rest_client_requests": "counter",
        "rest_client_request_duration_seconds": "histogram",
    }
    assert {name: families[name].type for name in expected} == expected

    total = families["controller_runtime_reconcile"]
    results = {s.labels["result"] for s in total.samples if s.name.endswith("_total")}
    assert results == {"success", "error", "requeue", "requeue_after"}
    assert sample(total, "_total", controller=CONTROLLER, result="success") == 3
    assert sample(total, "_total", controller=CONTROLLER, result="requeue_after") == 1
    assert sample(total, "_total", controller=CONTROLLER, result="error") == 2
    assert sample(total, "_total", controller=CONTROLLER, result="requeue") == 0
    errors = families["controller_runtime_terminal_reconcile_errors"]
    assert sample(errors, "_total", controller=CONTROLLER) == 1
    assert sample(families["controller_runtime_reconcile_panics"], "_total") == 1  # RuntimeError
    workers = families["controller_runtime_max_concurrent_reconciles"]
    assert sample(workers, controller=CONTROLLER) == 2
    time = families["controller_runtime_reconcile_time_seconds"]
    assert sample(time, "_count", controller=CONTROLLER) == 6  # kube-root-ca.crt's included
    assert sample(time, "_bucket", controller=CONTROLLER, le="60.0") == 6

    queue = {"name": CONTROLLER, "controller": CONTROLLER}
    assert sample(families["workqueue_adds"], "_total", **queue) >= 6
    # client-go counts every delayed add: the flaky retry and the requeue_after.
    assert sample(families["workqueue_retries"], "_total", **queue) == 2
    assert sample(families["workqueue_work_duration_seconds"], "_count", **queue) == 6

    host = urlsplit(mgr.client.config.server).netloc
    requests = families["rest_client_requests"]
    listed = sample(requests, "_total", code="200", method="GET", host=host)
    assert listed >= 1  # the informer's list (and its watch)
    assert families["leader_election_master_status"].samples == []  # no election configured
