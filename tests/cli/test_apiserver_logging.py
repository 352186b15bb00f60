"""``kubeforge apiserver -v``: one log line per request, watches at start and end, no secrets.

Every test runs the server as a real process, makes real HTTPS requests (stdlib
``urllib``, kubectl for the watch), stops the server so its log is complete, then
reads what it wrote.
"""

from __future__ import annotations

import base64
import json
import os
import re
import signal
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubeforge.testing import LocalApiServer

AGENT = "kubeforge-log-test/1.0"
WRONG_TOKEN = "wrong-token-9d41c7e2"
SECRET_VALUE = "s3cret-value-never-logged-4b1e"
ADMIN_LINE = re.compile(
    r"^GET /api/v1/namespaces\?limit=500 200 \d+\.\d(ms|s) \d+(\.\d)?(B|KiB) "
    rf'user=kubernetes-admin agent="{re.escape(AGENT)}"$'
)

Factory = Callable[..., LocalApiServer]


def request(
    url: str,
    context: ssl.SSLContext,
    method: str,
    path: str,
    *,
    token: str,
    body: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
) -> int:
    """One HTTPS request; returns the status (errors included)."""
    sent = urllib.request.Request(
        url + path,
        method=method,
        data=json.dumps(body).encode() if body is not None else None,
        headers={
            "Authorization": f"Bearer {token}",
            "User-Agent": AGENT,
            "Content-Type": "application/json",
            **(headers or {}),
        },
    )
    try:
        with urllib.request.urlopen(sent, context=context, timeout=30) as answer:
            answer.read()
            return int(answer.status)
    except urllib.error.HTTPError as error:
        error.read()
        return int(error.code)


def call(server: LocalApiServer, method: str, path: str, **kwargs: Any) -> int:
    kwargs.setdefault("token", server.token)
    return request(server.url, server.ssl_context(), method, path, **kwargs)


def request_lines(log: str) -> list[str]:
    """The messages of the request logger, in order."""
    marker = " kubeforge.apiserver.http: "
    return [line.split(marker, 1)[1] for line in log.splitlines() if marker in line]


def test_v_logs_each_request_with_method_uri_status_latency_size_user_and_agent(
    kube_apiserver_factory: Factory,
) -> None:
    server = kube_apiserver_factory(data_dir=None, extra_args=("-v",))
    assert call(server, "GET", "/api/v1/namespaces?limit=500") == 200
    assert call(server, "GET", "/api/v1/namespaces", token=WRONG_TOKEN) == 401
    alice = _token_of(server.kubeconfig_for("alice", ["devs"]))
    assert call(server, "GET", "/api/v1/namespaces/default/pods", token=alice) == 200
    as_bob = {"Impersonate-User": "bob"}
    assert call(server, "GET", "/api/v1/namespaces/default", headers=as_bob) == 200
    server.stop()

    lines = request_lines(server.log())
    assert [line for line in lines if ADMIN_LINE.match(line)], lines
    assert any(
        line.startswith("GET /api/v1/namespaces 401 ") and " user=- " in line for line in lines
    ), lines
    assert any(
        line.startswith("GET /api/v1/namespaces/default/pods 200 ") and " user=alice " in line
        for line in lines
    ), lines
    assert any(
        line.startswith("GET /api/v1/namespaces/default 200 ")
        and " user=bob (impersonated) " in line
        for line in lines
    ), lines
    assert alice not in server.log()


def test_no_token_and_no_secret_data_ever_reach_the_request_log(
    kube_apiserver_factory: Factory,
) -> None:
    server = kube_apiserver_factory(data_dir=None, extra_args=("-vv",))
    encoded = base64.b64encode(SECRET_VALUE.encode()).decode()
    secret = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "db", "namespace": "default"},
        "data": {"password": encoded},
    }
    assert call(server, "POST", "/api/v1/namespaces/default/secrets", body=secret) == 201
    assert call(server, "GET", "/api/v1/namespaces/default/secrets/db") == 200
    assert call(server, "GET", "/api/v1/namespaces/default/secrets", token=WRONG_TOKEN) == 401
    server.stop()

    log = server.log()
    assert "DEBUG" in log, "-vv is not at debug level"
    assert any(
        line.startswith("POST /api/v1/namespaces/default/secrets 201 ")
        for line in request_lines(log)
    ), log
    for needle in (server.token, WRONG_TOKEN, SECRET_VALUE, encoded, "Bearer"):
        assert needle not in log


def test_a_watch_is_logged_when_it_starts_and_when_it_ends_never_once_per_event(
    kube_apiserver_factory: Factory,
) -> None:
    server = kube_apiserver_factory(data_dir=None, extra_args=("-v",))
    env = {**os.environ, "KUBECONFIG": str(server.kubeconfig)}
    watcher = subprocess.Popen(
        ["kubectl", "get", "configmaps", "--watch", "-o", "name"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=env,
        text=True,
    )
    try:
        _wait_for(lambda: "watch started" in server.log(), "the watch to start")
        for name in ("one", "two", "three"):
            body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}}
            assert call(server, "POST", "/api/v1/namespaces/default/configmaps", body=body) == 201
        assert watcher.stdout is not None
        seen = ""
        while "configmap/three" not in seen:  # every event reached kubectl
            line = watcher.stdout.readline()
            assert line, f"kubectl stopped watching: {seen}"
            seen += line
    finally:
        watcher.terminate()
        watcher.wait()
    _wait_for(lambda: "watch ended after " in server.log(), "the server to see the watch end")
    server.stop()

    watch_lines = [line for line in request_lines(server.log()) if "watch=true" in line]
    assert len(watch_lines) == 2, watch_lines
    assert re.match(
        r"^GET /api/v1/namespaces/default/configmaps\?.*watch=true.* 200 "
        r"watch started user=kubernetes-admin agent=\"kubectl/",
        watch_lines[0],
    )
    assert re.match(
        r"^GET .* 200 watch ended after \d+\.\d(ms|s) user=kubernetes-admin ", watch_lines[1]
    )


def test_without_v_the_server_logs_no_requests(kube_apiserver_factory: Factory) -> None:
    server = kube_apiserver_factory(data_dir=None)
    assert call(server, "GET", "/api/v1/namespaces") == 200
    assert call(server, "GET", "/api/v1/namespaces", token=WRONG_TOKEN) == 401
    server.stop()

    log = server.log()
    assert "serving on https://127.0.0.1:" in log
    assert request_lines(log) == []
    assert "/api/v1/namespaces" not in log


@pytest.mark.parametrize(
    "flags",
    [("apiserver", "-v"), ("-v", "apiserver")],
    ids=["kubeforge apiserver -v", "kubeforge -v apiserver"],
)
def test_the_kubeforge_command_logs_requests_with_v_before_or_after_apiserver(
    tmp_path: Path, flags: tuple[str, ...]
) -> None:
    kubeconfig = tmp_path / "kubeconfig"
    output = tmp_path / "server.log"
    command = [sys.executable, "-m", "kubeforge.cli", *flags, "--port", "0", "--in-memory"]
    with output.open("wb") as sink:
        process = subprocess.Popen(
            [*command, "--kubeconfig", str(kubeconfig)],
            stdout=sink,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    try:
        _wait_for(kubeconfig.exists, "the kubeconfig", process)
        _wait_for(lambda: _token_of(kubeconfig) != "", "a complete kubeconfig", process)
        config: Any = yaml.safe_load(kubeconfig.read_text())
        url = config["clusters"][0]["cluster"]["server"]
        ca = base64.b64decode(config["clusters"][0]["cluster"]["certificate-authority-data"])
        context = ssl.create_default_context(cadata=ca.decode())
        token = _token_of(kubeconfig)
        assert request(url, context, "GET", "/api/v1/namespaces?limit=500", token=token) == 200
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0

    log = output.read_text()
    assert [line for line in request_lines(log) if ADMIN_LINE.match(line)], log
    assert token not in log


def _token_of(kubeconfig: Path) -> str:
    try:
        config: Any = yaml.safe_load(kubeconfig.read_text())
        return str(config["users"][0]["user"]["token"])
    except (OSError, yaml.YAMLError, KeyError, IndexError, TypeError):
        return ""  # not written yet, or half-written


def _wait_for(
    ready: Callable[[], bool], what: str, process: subprocess.Popen[bytes] | None = None
) -> None:
    deadline = time.monotonic() + 30
    while not ready():
        if process is not None and process.poll() is not None:
            pytest.fail(f"the server exited with {process.returncode} before {what}")
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.05)
