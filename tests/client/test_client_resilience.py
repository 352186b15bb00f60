"""Retries, Retry-After, rate limiting, timeouts, dead watches, warnings and the request headers
the client sends, against a scripted HTTP server (the local server never sends 429/5xx or
stalls on purpose). Time is a FakeClock: waiting is observed, never spent."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import orjson
import pytest
from aiohttp import web
from kf_scripted import ok, scripted_server, status

from kubeforge.client import Client, KubernetesWarning, Preconditions
from kubeforge.config import ClientConfig
from kubeforge.core.clock import FakeClock
from kubeforge.core.errors import InternalError, TooManyRequests, TransportError, Unauthorized
from kubeforge.core.meta import ObjectMeta
from kubeforge.models import ConfigMap


async def settle(clock: FakeClock, task: asyncio.Task[Any], deadline: float) -> None:
    """Wait until ``task`` sleeps, check its wake-up time, and let that time pass."""
    await clock.wait_for_sleepers(1)
    assert clock.next_deadline == pytest.approx(clock.now() + deadline)
    clock.advance(deadline)


async def test_a_429_is_retried_after_the_servers_retry_after() -> None:
    clock = FakeClock()
    async with (
        scripted_server(status(429, "TooManyRequests", **{"Retry-After": "7"}), ok()) as srv,
        Client(srv.config(), clock=clock) as client,
    ):
        task = asyncio.create_task(client.request("POST", "/api/v1/x", body={}))
        await settle(clock, task, 7.0)
        assert (await task)["kind"] == "ConfigMap"
    assert [s.method for s in srv.seen] == ["POST", "POST"]


async def test_retry_after_seconds_in_the_status_is_honoured_without_the_header() -> None:
    clock = FakeClock()
    throttled = (429, {"kind": "Status", "code": 429, "details": {"retryAfterSeconds": 3}}, {})
    async with (
        scripted_server(throttled, ok()) as srv,
        Client(srv.config(), clock=clock) as client,
    ):
        task = asyncio.create_task(client.request("GET", "/api/v1/x"))
        await settle(clock, task, 3.0)
        await task


async def test_a_5xx_read_is_retried_with_backoff() -> None:
    clock = FakeClock()
    async with (
        scripted_server(status(503), status(502), ok()) as srv,
        Client(srv.config(), clock=clock) as client,
    ):
        task = asyncio.create_task(client.request("GET", "/api/v1/x"))
        for _ in range(2):
            await clock.wait_for_sleepers(1)
            delay = (clock.next_deadline or 0) - clock.now()
            assert 0 < delay <= 0.2
            clock.advance(delay)
        await task
    assert len(srv.seen) == 3


async def test_a_5xx_write_without_retry_after_is_not_repeated() -> None:
    async with (
        scripted_server(status(500, "InternalError"), ok()) as srv,
        Client(srv.config(), clock=FakeClock()) as client,
    ):
        with pytest.raises(InternalError):
            await client.request("POST", "/api/v1/x", body={})
    assert len(srv.seen) == 1


async def test_a_5xx_write_with_retry_after_is_repeated() -> None:
    clock = FakeClock()
    async with (
        scripted_server(status(503, **{"Retry-After": "2"}), ok()) as srv,
        Client(srv.config(), clock=clock) as client,
    ):
        task = asyncio.create_task(client.request("PATCH", "/api/v1/x", body={}))
        await settle(clock, task, 2.0)
        await task


async def test_retries_stop_after_max_retries_with_the_last_error() -> None:
    clock = FakeClock()
    throttled = status(429, "TooManyRequests", **{"Retry-After": "1"})
    async with (
        scripted_server(throttled, throttled, throttled, ok()) as srv,
        Client(srv.config(max_retries=2), clock=clock) as client,
    ):
        task = asyncio.create_task(client.request("GET", "/api/v1/x"))
        for _ in range(2):
            await settle(clock, task, 1.0)
        with pytest.raises(TooManyRequests):
            await task
    assert len(srv.seen) == 3


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_a_refused_connection_is_retried_even_for_writes_then_reported() -> None:
    clock = FakeClock()
    config = ClientConfig(server=f"http://127.0.0.1:{free_port()}", max_retries=1)
    async with Client(config, clock=clock) as client:
        task = asyncio.create_task(client.request("POST", "/api/v1/x", body={}))
        await clock.wait_for_sleepers(1)
        clock.advance(1.0)
        with pytest.raises(TransportError, match=r"POST http://127\.0\.0\.1"):
            await task


async def test_the_rate_limiter_paces_requests_beyond_the_burst() -> None:
    clock = FakeClock()
    async with (
        scripted_server() as srv,
        Client(srv.config(qps=2.0, burst=1), clock=clock) as client,
    ):
        await client.request("GET", "/a")  # the burst token: no wait
        task = asyncio.create_task(client.request("GET", "/b"))
        await settle(clock, task, 0.5)
        await task
    assert [s.path for s in srv.seen] == ["/a", "/b"]


async def test_without_qps_nothing_is_throttled() -> None:
    clock = FakeClock()
    async with scripted_server() as srv, Client(srv.config(), clock=clock) as client:
        await asyncio.gather(*(client.request("GET", f"/{i}") for i in range(20)))
    assert len(srv.seen) == 20 and clock.now() == 0


async def test_a_slow_answer_hits_the_per_request_timeout() -> None:
    async def stall(request: web.Request) -> web.StreamResponse:
        await asyncio.sleep(30)
        return web.Response()

    async with scripted_server(stall) as srv, Client(srv.config(), clock=FakeClock()) as client:
        api = client.api(ConfigMap, namespace="ns", timeout=0.2)
        with pytest.raises(TransportError, match="timed out"):
            await api.get("slow")


async def test_a_watch_that_goes_silent_is_reported_as_a_dead_connection() -> None:
    async def one_event_then_silence(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "application/json"})
        await response.prepare(request)
        event = {"type": "ADDED", "object": {"metadata": {"name": "first"}}}
        await response.write(orjson.dumps(event) + b"\n")
        await asyncio.sleep(30)
        return response

    async with scripted_server(one_event_then_silence) as srv, Client(srv.config()) as client:
        events = client.api(ConfigMap, namespace="ns").watch(idle_timeout=0.3)
        first = await anext(events)
        assert first.object.metadata.name == "first"
        with pytest.raises(TransportError, match="presumed dead"):
            await anext(events)


async def test_server_warnings_become_kubernetes_warnings() -> None:
    warned = ok(Warning='299 - "unknown field \\"spec.foo\\""\n299 - "v1beta1 is deprecated"')
    async with scripted_server(warned) as srv, Client(srv.config()) as client:
        with pytest.warns(KubernetesWarning) as caught:
            await client.request("GET", "/api/v1/x")
    assert [str(w.message) for w in caught] == [
        'unknown field "spec.foo"',
        "v1beta1 is deprecated",
    ]


class RotatingAuth:
    def __init__(self) -> None:
        self.token = "old"
        self.refreshed: list[str | None] = []

    async def authorization(self) -> str | None:
        return f"Bearer {self.token}"

    async def refresh(self, rejected: str | None) -> bool:
        self.refreshed.append(rejected)
        self.token = "new"
        return True


async def test_a_401_asks_the_auth_for_new_credentials_once_and_retries() -> None:
    auth = RotatingAuth()
    async with (
        scripted_server(status(401, "Unauthorized"), ok(), status(401), status(401)) as srv,
        Client(srv.config(), auth=auth) as client,
    ):
        await client.request("GET", "/a")
        with pytest.raises(Unauthorized):
            await client.request("GET", "/b")
    assert [s.headers["authorization"] for s in srv.seen] == [
        ["Bearer old"],
        ["Bearer new"],
        ["Bearer new"],
        ["Bearer new"],
    ]
    assert auth.refreshed == ["Bearer old", "Bearer new"]


async def test_impersonation_sends_one_header_per_group_and_extra_value() -> None:
    async with scripted_server() as srv:
        config = srv.config(
            impersonate_user="jane",
            impersonate_uid="42",
            impersonate_groups=("devs", "ops"),
            impersonate_extra={"example.com/scopes": ("view", "edit")},
        )
        async with Client(config) as client:
            await client.request("GET", "/api")
    headers = srv.seen[0].headers
    assert headers["impersonate-user"] == ["jane"]
    assert headers["impersonate-uid"] == ["42"]
    assert headers["impersonate-group"] == ["devs", "ops"]
    assert headers["impersonate-extra-example.com%2fscopes"] == ["view", "edit"]


async def test_basic_auth_credentials_become_a_basic_header() -> None:
    async with (
        scripted_server() as srv,
        Client(srv.config(username="admin", password="pw")) as client,
    ):
        await client.request("GET", "/api")
    assert srv.seen[0].headers["authorization"] == ["Basic YWRtaW46cHc="]


async def test_write_options_and_apply_go_out_as_the_api_expects() -> None:
    cm = ConfigMap(metadata=ObjectMeta(name="c"), data={"k": "v"})
    async with scripted_server() as srv, Client(srv.config()) as client:
        api = client.api(ConfigMap, namespace="ns")
        await api.create(cm, dry_run=True, field_manager="me", field_validation="Strict")
        await api.apply(cm, field_manager="me", force=True)
        await api.delete(
            "c",
            grace_period_seconds=0,
            propagation_policy="Foreground",
            preconditions=Preconditions(uid="u1", resource_version="9"),
            dry_run=True,
        )
    create, apply, delete = srv.seen
    assert create.query == [
        ("dryRun", "All"),
        ("fieldManager", "me"),
        ("fieldValidation", "Strict"),
    ]
    assert (apply.method, apply.path) == ("PATCH", "/api/v1/namespaces/ns/configmaps/c")
    assert apply.headers["content-type"] == ["application/apply-patch+yaml"]
    assert apply.query == [("fieldManager", "me"), ("force", "true")]
    assert orjson.loads(apply.body)["kind"] == "ConfigMap"
    assert orjson.loads(delete.body) == {
        "kind": "DeleteOptions",
        "apiVersion": "v1",
        "gracePeriodSeconds": 0,
        "propagationPolicy": "Foreground",
        "preconditions": {"uid": "u1", "resourceVersion": "9"},
        "dryRun": ["All"],
    }


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[str, int | None]] = []

    def request_done(self, method: str, host: str, code: int | None, seconds: float) -> None:
        self.calls.append((method, code))


async def test_the_observer_sees_every_attempt() -> None:
    clock, recorder = FakeClock(), Recorder()
    throttled = status(429, **{"Retry-After": "1"})
    async with (
        scripted_server(throttled, ok()) as srv,
        Client(srv.config(), observer=recorder, clock=clock) as client,
    ):
        task = asyncio.create_task(client.request("GET", "/x"))
        await settle(clock, task, 1.0)
        await task
    assert recorder.calls == [("GET", 429), ("GET", 200)]
