"""The manager owns a webhook server: started before the caches, in /readyz and /metrics,
stopped on shutdown; a manager without webhooks opens no port."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from kubeforge.config import load_config
from kubeforge.runtime import Manager, ManagerOptions
from kubeforge.webhook import (
    AdmissionRequest,
    AdmissionResponse,
    AdmissionWebhook,
    ServingCert,
    WebhookServerOptions,
)

from .kf_webhook import post, review, ship


def _allow(request: AdmissionRequest) -> AdmissionResponse:
    return AdmissionResponse.allow()


async def test_the_manager_serves_its_webhooks_while_it_runs(
    kube_apiserver: Any, tmp_path: Path
) -> None:
    cert = ServingCert.generate(["127.0.0.1"])
    cert.write(tmp_path)
    options = ManagerOptions(webhook=WebhookServerOptions(port=0, cert_dir=str(tmp_path)))
    manager = Manager(load_config(kube_apiserver.kubeconfig), options=options)
    server = manager.webhook_server
    assert manager.webhook_server is server  # one per manager
    server.register("/check", AdmissionWebhook(_allow))
    running = asyncio.create_task(manager.run())
    try:
        async with asyncio.timeout(10):
            while not manager.started:
                await asyncio.sleep(0.01)
        assert server.started
        results = await manager.readyz.run()
        assert {r.name: r.error for r in results}["webhook"] is None
        status, answer = await post(server, cert, "/check", review("CREATE", ship()))
        assert (status, answer["response"]["allowed"]) == (200, True)
        text = manager.metrics.render().decode()
        assert 'controller_runtime_webhook_requests_total{code="200",webhook="/check"} 1.0' in text
    finally:
        manager.stop()
        await running
    assert not server.started


async def test_a_manager_without_webhooks_has_no_webhook_check(kube_apiserver: Any) -> None:
    manager = Manager(load_config(kube_apiserver.kubeconfig))
    running = asyncio.create_task(manager.run())
    try:
        async with asyncio.timeout(10):
            while not manager.started:
                await asyncio.sleep(0.01)
        names = [r.name for r in await manager.readyz.run()]
        assert "webhook" not in names
    finally:
        manager.stop()
        await running
