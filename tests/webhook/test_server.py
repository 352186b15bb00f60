"""The webhook server over real HTTPS: routing, bad requests, failures, metrics, certificate
reloads, readiness and graceful shutdown."""

from __future__ import annotations

import asyncio
import ssl
from pathlib import Path

import pytest
from cryptography import x509
from prometheus_client import generate_latest

from kubeforge.webhook import AdmissionRequest, AdmissionResponse, AdmissionWebhook, ServingCert

from .kf_webhook import post, review, running_server, ship


def allow_all(request: AdmissionRequest) -> AdmissionResponse:
    return AdmissionResponse.allow()


async def test_a_raw_handler_sees_the_request_and_answers_with_its_uid(tmp_path: Path) -> None:
    seen: list[AdmissionRequest] = []

    async def handler(request: AdmissionRequest) -> AdmissionResponse:
        seen.append(request)
        return AdmissionResponse.denied("no ships on Sundays", warnings=["it is Sunday"])

    async with running_server(tmp_path) as (server, cert):
        server.register("/check", AdmissionWebhook(handler))
        await server.start()
        body = review("CREATE", ship(size=1), dry_run=True)
        status, answer = await post(server, cert, "/check", body)
    assert status == 200
    assert answer["apiVersion"] == "admission.k8s.io/v1"
    assert answer["kind"] == "AdmissionReview"
    assert answer["response"] == {
        "uid": body["request"]["uid"],
        "allowed": False,
        "status": {
            "metadata": {},
            "code": 403,
            "reason": "Forbidden",
            "message": "no ships on Sundays",
        },
        "warnings": ["it is Sunday"],
    }
    request = seen[0]
    assert (request.operation, request.dry_run, request.name) == ("CREATE", True, "s")
    assert request.user_info.username == "alice"
    assert request.user_info.groups == ("devs",)
    assert request.object == ship(size=1)


async def test_a_v1beta1_review_is_answered_in_v1beta1(tmp_path: Path) -> None:
    async with running_server(tmp_path) as (server, cert):
        server.register("/check", AdmissionWebhook(allow_all))
        await server.start()
        _, answer = await post(server, cert, "/check", review("CREATE", ship(), version="v1beta1"))
    assert answer["apiVersion"] == "admission.k8s.io/v1beta1"
    assert answer["response"]["allowed"] is True


async def test_a_handler_that_raises_is_a_500_refusal_with_the_error(tmp_path: Path) -> None:
    def broken(request: AdmissionRequest) -> AdmissionResponse:
        raise KeyError("spec")

    async with running_server(tmp_path) as (server, cert):
        server.register("/check", AdmissionWebhook(broken, on_panic=server.on_panic))
        await server.start()
        body = review("CREATE", ship())
        status, answer = await post(server, cert, "/check", body)
        metrics = generate_latest(server.metrics.registry).decode()
    assert status == 200
    response = answer["response"]
    assert response["uid"] == body["request"]["uid"]
    assert response["allowed"] is False
    assert response["status"]["code"] == 500
    assert response["status"]["message"] == "KeyError: 'spec' [recovered]"
    assert "controller_runtime_webhook_panics_total 1.0" in metrics


@pytest.mark.parametrize(
    ("body", "content_type", "message"),
    [
        (b"", "application/json", "request body is empty"),
        (b"{}", "text/plain", "contentType=text/plain, expected application/json"),
        (b"{nope", "application/json", "couldn't decode the request body"),
        (b'{"kind": "Pod"}', "application/json", "the request body is not an AdmissionReview"),
    ],
)
async def test_bad_requests_get_a_400_result(
    tmp_path: Path, body: bytes, content_type: str, message: str
) -> None:
    async with running_server(tmp_path) as (server, cert):
        server.register("/check", AdmissionWebhook(allow_all))
        await server.start()
        status, answer = await post(server, cert, "/check", body, content_type=content_type)
    assert status == 200
    assert answer["response"]["allowed"] is False
    assert answer["response"]["status"]["code"] == 400
    assert answer["response"]["status"]["message"].startswith(message)


async def test_unknown_paths_are_404_and_paths_register_once(tmp_path: Path) -> None:
    async with running_server(tmp_path) as (server, cert):
        server.register("/check", AdmissionWebhook(allow_all))
        with pytest.raises(ValueError, match="can't register duplicate path: /check"):
            server.register("/check", AdmissionWebhook(allow_all))
        await server.start()
        status, _ = await post(server, cert, "/elsewhere", review("CREATE", ship()))
    assert status == 404


async def test_requests_are_counted_under_controller_runtime_names(tmp_path: Path) -> None:
    async with running_server(tmp_path) as (server, cert):
        server.register("/check", AdmissionWebhook(allow_all))
        await server.start()
        for _ in range(3):
            await post(server, cert, "/check", review("CREATE", ship()))
        text = generate_latest(server.metrics.registry).decode()
    assert 'controller_runtime_webhook_requests_total{code="200",webhook="/check"} 3.0' in text
    assert 'controller_runtime_webhook_requests_total{code="500",webhook="/check"} 0.0' in text
    assert 'controller_runtime_webhook_requests_in_flight{webhook="/check"} 0.0' in text
    assert 'controller_runtime_webhook_latency_seconds_count{webhook="/check"} 3.0' in text
    assert "certwatcher_read_certificate_total 1.0" in text


async def _served_certificate(port: int, cert: ServingCert) -> x509.Certificate:
    context = ssl.create_default_context(cadata=cert.ca_pem.decode())
    context.check_hostname = False
    _, writer = await asyncio.open_connection("127.0.0.1", port, ssl=context)
    der = writer.get_extra_info("ssl_object").getpeercert(binary_form=True)
    writer.close()
    return x509.load_der_x509_certificate(der)


async def test_a_rotated_certificate_is_served_without_a_restart(tmp_path: Path) -> None:
    async with running_server(tmp_path, cert_poll_interval=0.05) as (server, first):
        server.register("/check", AdmissionWebhook(allow_all))
        await server.start()
        assert server.port is not None
        before = await _served_certificate(server.port, first)
        second = ServingCert.generate(["127.0.0.1"])
        second.write(tmp_path)
        async with asyncio.timeout(10):
            while (await _served_certificate_or_none(server.port, second)) is None:
                await asyncio.sleep(0.05)
        after = await _served_certificate(server.port, second)
        # Verified against the new CA only: the old CA did not sign this certificate.
        status, answer = await post(server, second, "/check", review("CREATE", ship()))
    assert before.serial_number != after.serial_number
    assert after == x509.load_pem_x509_certificate(second.cert_pem)
    assert (status, answer["response"]["allowed"]) == (200, True)


async def _served_certificate_or_none(port: int, cert: ServingCert) -> x509.Certificate | None:
    try:
        return await _served_certificate(port, cert)
    except ssl.SSLError:
        return None


async def test_a_broken_pair_keeps_the_previous_certificate_in_service(tmp_path: Path) -> None:
    async with running_server(tmp_path, cert_poll_interval=0.05) as (server, cert):
        await server.start()
        assert server.port is not None and server.cert_watcher is not None
        (tmp_path / "tls.key").write_bytes(ServingCert.generate(["x"]).key_pem)  # mismatched
        assert server.cert_watcher.check() is False
        served = await _served_certificate(server.port, cert)
        text = generate_latest(server.metrics.registry).decode()
    assert served.serial_number == x509.load_pem_x509_certificate(cert.cert_pem).serial_number
    assert "certwatcher_read_certificate_errors_total 1.0" in text


async def test_start_fails_without_a_certificate(tmp_path: Path) -> None:
    async with running_server(tmp_path / "certs") as (server, _):
        (tmp_path / "certs" / "tls.crt").unlink()
        with pytest.raises(FileNotFoundError):
            await server.start()
        assert not server.started


async def test_readiness_follows_the_server(tmp_path: Path) -> None:
    async with running_server(tmp_path) as (server, _):
        with pytest.raises(RuntimeError, match="webhook server has not been started yet"):
            await server.started_check()
        await server.start()
        await server.started_check()
        await server.stop()
        with pytest.raises(RuntimeError, match="not been started"):
            await server.started_check()


async def test_stop_lets_a_request_in_flight_finish(tmp_path: Path) -> None:
    entered = asyncio.Event()
    release = asyncio.Event()

    async def slow(request: AdmissionRequest) -> AdmissionResponse:
        entered.set()
        await release.wait()
        return AdmissionResponse.allow("finished")

    async with running_server(tmp_path) as (server, cert):
        server.register("/slow", AdmissionWebhook(slow))
        await server.start()
        call = asyncio.create_task(post(server, cert, "/slow", review("CREATE", ship())))
        await entered.wait()
        stopping = asyncio.create_task(server.stop())
        await asyncio.sleep(0.1)
        assert not stopping.done()  # waiting for the request in flight
        release.set()
        status, answer = await call
        await stopping
    assert (status, answer["response"]["status"]["message"]) == (200, "finished")
