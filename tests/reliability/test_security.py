"""The local server's security promises: tokens required, TLS only, loopback only, no leaks.

- A request with no token, or a wrong one, gets 401 and a ``Status``.
- Plain HTTP on the TLS port gets no API answer.
- The listening socket is bound to 127.0.0.1 only (read from the kernel's socket
  table, not from the server's own word).
- Run at its most verbose, with ``kubeforge -vv run`` reconciling Secrets against
  it and a client trying a wrong token, neither log holds the server's token, the
  wrong token, or a Secret's value (plain or base64).
"""

from __future__ import annotations

import asyncio
import base64
import http.client
import json
import socket
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kubeforge.client import Client
from kubeforge.config import load_config
from kubeforge.core import errors
from kubeforge.core.meta import ObjectMeta
from kubeforge.models.core_v1 import ConfigMap, Namespace, Secret
from kubeforge.testing import LocalApiServer
from reliability.kf_faults import KubeforgeRun, eventually
from reliability.kf_rawhttp import call


@pytest.mark.parametrize("token", [None, "wrong-token-5f0c", ""], ids=["none", "wrong", "empty"])
def test_requests_without_the_token_get_401_status(
    kube_apiserver: LocalApiServer, token: str | None
) -> None:
    for path in ("/api/v1/namespaces", "/api", "/apis", "/version"):
        status, body = call(kube_apiserver, "GET", path, token=token)
        assert status == 401, (path, body)
        assert body["kind"] == "Status" and body["reason"] == "Unauthorized", body
    status, _ = call(
        kube_apiserver,
        "POST",
        "/api/v1/namespaces",
        json.dumps({"metadata": {"name": "intruder"}}).encode(),
        token=token,
    )
    assert status == 401
    assert call(kube_apiserver, "GET", "/api/v1/namespaces/intruder")[0] == 404


def test_plain_http_on_the_tls_port_gets_no_api_answer(kube_apiserver: LocalApiServer) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", kube_apiserver.port, timeout=10)
    headers = {"Authorization": f"Bearer {kube_apiserver.token}"}
    try:
        connection.request("GET", "/api/v1/namespaces", headers=headers)
        response = connection.getresponse()
        status, body = response.status, response.read()
    except (ConnectionError, http.client.HTTPException, OSError):
        return  # refused outright: the TLS server could not make sense of it
    finally:
        connection.close()
    assert status == 400, (status, body)  # Go's TLS servers answer plain HTTP this way
    assert b"NamespaceList" not in body and b"items" not in body


def _listening(port: int) -> list[str]:
    """Local addresses of LISTEN sockets on ``port`` from the kernel's tables."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            address, state = fields[1], fields[3]
            host, _, port_hex = address.partition(":")
            if state == "0A" and int(port_hex, 16) == port:  # 0A: TCP_LISTEN
                found.append(_address(host))
    return found


def _address(hex_host: str) -> str:
    raw = bytes.fromhex(hex_host)
    if len(raw) == 4:
        return socket.inet_ntop(socket.AF_INET, raw[::-1])  # stored little-endian
    words = [raw[i : i + 4][::-1] for i in range(0, 16, 4)]
    return socket.inet_ntop(socket.AF_INET6, b"".join(words))


def test_the_server_listens_on_loopback_only(kube_apiserver: LocalApiServer) -> None:
    assert _listening(kube_apiserver.port) == ["127.0.0.1"]


SECRET_VALUE = "hunter2-do-not-log-7f3a9c"
WRONG_TOKEN = "wrong-token-b41d5e"
NAMESPACE = "no-leaks"

CONTROLLER = textwrap.dedent(
    f'''
    """Reconciles Secrets: records which keys each one has, never their values."""
    from kubeforge import Builder, Result, errors
    from kubeforge.core.meta import ObjectMeta
    from kubeforge.models.core_v1 import ConfigMap, Secret


    def setup(mgr):
        secrets = mgr.cache.store(Secret)

        async def reconcile(request):
            secret = secrets.get(request.key)
            if secret is None:
                return Result()
            seen = ConfigMap(
                metadata=ObjectMeta(name="seen-" + request.name),
                data={{"keys": ",".join(sorted(secret.data or {{}}))}},
            )
            try:
                await mgr.client.api(ConfigMap, namespace=request.namespace).create(seen)
            except errors.AlreadyExists:
                pass
            return Result()

        Builder(mgr).for_(Secret, namespace="{NAMESPACE}").complete(reconcile)
    '''
)


async def test_no_token_or_secret_value_appears_in_any_log_at_the_highest_verbosity(
    kube_apiserver_factory: Callable[..., Any], tmp_path: Path
) -> None:
    server = kube_apiserver_factory(extra_args=("-vv",))
    target = tmp_path / "secret_watcher.py"
    target.write_text(CONTROLLER)
    controller = KubeforgeRun(target, server.kubeconfig, tmp_path / "run.log", verbosity=2)
    try:
        async with Client(load_config(server.kubeconfig)) as client:
            await client.api(Namespace).create(Namespace(metadata=ObjectMeta(name=NAMESPACE)))
            secret = Secret(
                metadata=ObjectMeta(name="db", namespace=NAMESPACE),
                data={"password": base64.b64encode(SECRET_VALUE.encode()).decode()},
            )
            await client.api(Secret, namespace=NAMESPACE).create(secret)
            configmaps = client.api(ConfigMap, namespace=NAMESPACE)

            async def reconciled() -> list[str]:
                try:
                    seen = await configmaps.get("seen-db")
                except errors.NotFound:
                    return ["the controller has not reconciled the Secret yet"]
                return [] if seen.data == {"keys": "password"} else [str(seen.data)]

            await eventually(reconciled, "the Secret reconciled")
            status, _ = await asyncio.to_thread(
                call, server, "GET", f"/api/v1/namespaces/{NAMESPACE}/secrets", token=WRONG_TOKEN
            )
            assert status == 401
    finally:
        assert controller.stop() == 0, controller.output()[-3000:]
        server.stop()

    logs = {"server": server.log(), "kubeforge run -vv": controller.output()}
    for name, text in logs.items():
        assert "DEBUG" in text, f"the {name} log is not at debug level"
    encoded = base64.b64encode(SECRET_VALUE.encode()).decode()
    for name, text in logs.items():
        for needle, what in [
            (server.token, "the server's token"),
            (WRONG_TOKEN, "a wrong token"),
            (SECRET_VALUE, "a Secret's value"),
            (encoded, "a Secret's value in base64"),
        ]:
            assert needle not in text, f"{what} appears in the {name} log"
