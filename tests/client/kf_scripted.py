"""Test helper: a tiny HTTP server that answers from a script and records every request.

Only for behaviours the local API server cannot be made to produce (429 with
Retry-After, 5xx, stalled or dead connections, Warning headers, echoing
impersonation headers). Each scripted reply is ``(status, body, headers)``, or a
coroutine function taking the request for anything fancier (stalling, streaming).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import orjson
from aiohttp import web

from kubeforge.config import ClientConfig

Reply = tuple[int, Any, dict[str, str]] | Callable[[web.Request], Awaitable[web.StreamResponse]]


@dataclass
class Seen:
    method: str
    path: str
    query: list[tuple[str, str]]
    headers: dict[str, list[str]]
    body: bytes


@dataclass
class ScriptedServer:
    url: str
    replies: list[Reply]
    seen: list[Seen] = field(default_factory=list)
    default: Reply = (200, {"kind": "Status", "status": "Success"}, {})

    def config(self, **settings: Any) -> ClientConfig:
        return ClientConfig(server=self.url, **settings)


def ok(body: Any = None, **headers: str) -> Reply:
    return (200, body if body is not None else {"kind": "ConfigMap", "metadata": {}}, headers)


def status(code: int, reason: str = "", **headers: str) -> Reply:
    body = {"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": code}
    if reason:
        body["reason"] = reason
    return (code, body, headers)


@asynccontextmanager
async def scripted_server(*replies: Reply) -> AsyncIterator[ScriptedServer]:
    server = ScriptedServer(url="", replies=list(replies))

    async def handle(request: web.Request) -> web.StreamResponse:
        headers: dict[str, list[str]] = {}
        for key, value in request.headers.items():
            headers.setdefault(key.lower(), []).append(value)
        server.seen.append(
            Seen(
                request.method,
                request.path,
                list(request.query.items()),
                headers,
                await request.read(),
            )
        )
        reply = server.replies.pop(0) if server.replies else server.default
        if callable(reply):
            return await reply(request)
        code, body, extra = reply
        response = web.Response(
            status=code, body=orjson.dumps(body), content_type="application/json"
        )
        for key, value in extra.items():
            for part in value.split("\n"):
                response.headers.add(key, part)
        return response

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", handle)
    runner = web.AppRunner(app, handle_signals=False, access_log=None, shutdown_timeout=0.1)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    server.url = f"http://127.0.0.1:{port}"
    try:
        yield server
    finally:
        await runner.cleanup()
