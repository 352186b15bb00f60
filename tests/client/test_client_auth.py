"""Credentials against the real local API server: exec plugins (v1 and v1beta1) issuing and
rotating tokens, a 401 forcing a fresh one, token files rotating, in-cluster config, and a
proxy in the way."""

from __future__ import annotations

import asyncio
import base64
import datetime
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from kubeforge.client import Client, ExecAuth, ExecPluginError
from kubeforge.config import ClientConfig, ExecConfig, load_config, load_incluster_config
from kubeforge.core.errors import Unauthorized
from kubeforge.core.meta import ObjectMeta
from kubeforge.models import Namespace
from kubeforge.testing import LocalApiServer

PLUGIN = """
import json, os, sys
state = sys.argv[1]
with open(state) as f:
    plan = json.load(f)
issued = plan["issued"]
token, expires = plan["tokens"][min(issued, len(plan["tokens"]) - 1)]
plan["issued"] = issued + 1
plan["exec_info"] = json.loads(os.environ["KUBERNETES_EXEC_INFO"])
plan["region"] = os.environ.get("REGION")
with open(state, "w") as f:
    json.dump(plan, f)
status = {"token": token}
if expires:
    status["expirationTimestamp"] = expires
print(json.dumps({"apiVersion": plan["api_version"], "kind": "ExecCredential", "status": status}))
"""

V1 = "client.authentication.k8s.io/v1"
V1BETA1 = "client.authentication.k8s.io/v1beta1"


class Plugin:
    """A plugin script and the plan it follows: which token to print on each run."""

    def __init__(self, tmp_path: Path, tokens: list[tuple[str, str | None]], api_version: str):
        self.script = tmp_path / "plugin.py"
        self.script.write_text(PLUGIN)
        self.state = tmp_path / "plan.json"
        self.state.write_text(
            json.dumps({"issued": 0, "tokens": tokens, "api_version": api_version})
        )
        self.config = ExecConfig(
            command=sys.executable,
            args=(str(self.script), str(self.state)),
            api_version=api_version,
            env=(("REGION", "eu-1"),),
            interactive_mode="Never",
            provide_cluster_info=True,
            cluster_config={"audience": "local"},
            source='kubeconfig: context "dev": user "u"',
        )

    @property
    def plan(self) -> dict[str, Any]:
        return dict(json.loads(self.state.read_text()))


def server_config(server: LocalApiServer, **changes: Any) -> ClientConfig:
    base = load_config(server.kubeconfig)
    return ClientConfig(server=base.server, ca_data=base.ca_data, source="kubeconfig", **changes)


def later(hours: float) -> str:
    when = datetime.datetime.now(datetime.UTC) + datetime.timedelta(hours=hours)
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


@pytest.mark.parametrize("api_version", [V1, V1BETA1])
async def test_an_exec_plugin_token_is_used_and_cached_until_expiry(
    kube_apiserver: LocalApiServer, tmp_path: Path, api_version: str
) -> None:
    plugin = Plugin(tmp_path, [(kube_apiserver.token, later(1))], api_version)
    async with Client(server_config(kube_apiserver, exec_plugin=plugin.config)) as client:
        for _ in range(3):
            await client.api(Namespace).list(limit=1)
    assert plugin.plan["issued"] == 1


async def test_a_rejected_exec_token_is_replaced_by_running_the_plugin_again(
    kube_apiserver: LocalApiServer, tmp_path: Path
) -> None:
    # The first token looks valid for an hour but the server refuses it (revoked, say).
    plugin = Plugin(tmp_path, [("revoked", later(1)), (kube_apiserver.token, None)], V1)
    async with Client(server_config(kube_apiserver, exec_plugin=plugin.config)) as client:
        results = await asyncio.gather(*(client.api(Namespace).list(limit=1) for _ in range(4)))
    assert all(page.items for page in results)
    assert plugin.plan["issued"] == 2  # one re-run for all the requests that failed together


async def test_a_plugin_that_keeps_issuing_bad_tokens_ends_in_unauthorized(
    kube_apiserver: LocalApiServer, tmp_path: Path
) -> None:
    plugin = Plugin(tmp_path, [("bad", None)], V1)
    async with Client(server_config(kube_apiserver, exec_plugin=plugin.config)) as client:
        with pytest.raises(Unauthorized):
            await client.api(Namespace).list(limit=1)
    assert plugin.plan["issued"] == 2


async def test_the_plugin_gets_its_env_and_the_cluster_in_kubernetes_exec_info(
    kube_apiserver: LocalApiServer, tmp_path: Path
) -> None:
    plugin = Plugin(tmp_path, [(kube_apiserver.token, None)], V1)
    config = server_config(kube_apiserver, exec_plugin=plugin.config)
    await ExecAuth(plugin.config, config).authorization()
    plan = plugin.plan
    assert plan["region"] == "eu-1"
    info = plan["exec_info"]
    assert info["apiVersion"] == V1 and info["kind"] == "ExecCredential"
    assert info["spec"]["interactive"] is False
    cluster = info["spec"]["cluster"]
    assert cluster["server"] == config.server
    assert base64.b64decode(cluster["certificate-authority-data"]) == config.ca_data
    assert cluster["config"] == {"audience": "local"}


async def test_an_expired_exec_credential_is_fetched_again(tmp_path: Path) -> None:
    plugin = Plugin(tmp_path, [("t1", "2030-01-01T00:00:00Z"), ("t2", None)], V1)
    now = datetime.datetime(2029, 12, 31, tzinfo=datetime.UTC)
    auth = ExecAuth(plugin.config, ClientConfig(server="https://x"), now=lambda: now)
    assert await auth.authorization() == "Bearer t1"
    assert await auth.authorization() == "Bearer t1"
    now = datetime.datetime(2030, 1, 1, 0, 0, 1, tzinfo=datetime.UTC)
    assert await auth.authorization() == "Bearer t2"
    assert auth.runs == 2


async def test_a_missing_plugin_names_the_command_and_the_install_hint(tmp_path: Path) -> None:
    plugin = ExecConfig(
        command=str(tmp_path / "nope"),
        api_version=V1,
        install_hint="get it from the vendor",
        interactive_mode="Never",
        source='k.yaml: context "dev": user "u"',
    )
    with pytest.raises(ExecPluginError) as info:
        await ExecAuth(plugin, ClientConfig(server="https://x")).authorization()
    assert str(info.value) == (
        f'k.yaml: context "dev": user "u": exec plugin "{tmp_path / "nope"}": '
        "executable not found (get it from the vendor)"
    )


@pytest.mark.parametrize(
    ("script", "problem"),
    [
        (
            "import sys; print('token expired, log in again', file=sys.stderr); sys.exit(3)",
            "exited with code 3: token expired, log in again",
        ),
        ("print('hello')", "printed something that is not JSON"),
        (
            "import json; print(json.dumps({'apiVersion': '" + V1BETA1 + "', "
            "'kind': 'ExecCredential', 'status': {'token': 't'}}))",
            f"is configured for {V1} but answered in '{V1BETA1}'",
        ),
        (
            "import json; print(json.dumps({'apiVersion': '" + V1 + "', "
            "'kind': 'ExecCredential', 'status': {}}))",
            "returned neither a token nor a client certificate and key",
        ),
    ],
)
async def test_plugin_failures_are_explained(tmp_path: Path, script: str, problem: str) -> None:
    path = tmp_path / "p.py"
    path.write_text(script)
    plugin = ExecConfig(
        command=sys.executable, args=(str(path),), api_version=V1, interactive_mode="Never"
    )
    with pytest.raises(ExecPluginError, match="exec plugin") as info:
        await ExecAuth(plugin, ClientConfig(server="https://x")).authorization()
    assert str(info.value).endswith(problem)
    assert "t'" not in str(info.value)


async def test_a_plugin_issuing_a_client_certificate_hands_it_to_tls(tmp_path: Path) -> None:
    script = tmp_path / "p.py"
    script.write_text(
        "import json; print(json.dumps({'apiVersion': '" + V1 + "', 'kind': 'ExecCredential',"
        " 'status': {'clientCertificateData': 'CERT', 'clientKeyData': 'KEY'}}))"
    )
    plugin = ExecConfig(
        command=sys.executable, args=(str(script),), api_version=V1, interactive_mode="Never"
    )
    auth = ExecAuth(plugin, ClientConfig(server="https://x"))
    assert await auth.client_certificate() == (b"CERT", b"KEY")
    assert await auth.authorization() is None


# --- token files and in-cluster config ---------------------------------------------------------


async def test_a_token_file_rewritten_after_a_401_is_picked_up_at_once(
    kube_apiserver: LocalApiServer, tmp_path: Path
) -> None:
    token_file = tmp_path / "token"
    token_file.write_text("stale")
    config = server_config(kube_apiserver, token_file=token_file)
    async with Client(config) as client:
        with pytest.raises(Unauthorized):
            await client.api(Namespace).list(limit=1)
        token_file.write_text(kube_apiserver.token)  # the kubelet rotated the projected token
        assert (await client.api(Namespace).list(limit=1)).items


@pytest.fixture
def service_account(
    kube_apiserver: LocalApiServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Path:
    directory = tmp_path / "serviceaccount"
    directory.mkdir()
    (directory / "token").write_text(kube_apiserver.token)
    (directory / "ca.crt").write_bytes(kube_apiserver.ca_file.read_bytes())
    (directory / "namespace").write_text("kube-system")
    host, port = kube_apiserver.url.removeprefix("https://").rsplit(":", 1)
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", host)
    monkeypatch.setenv("KUBERNETES_SERVICE_PORT", port)
    return directory


async def test_in_cluster_config_reaches_the_server_and_follows_token_rotation(
    service_account: Path,
) -> None:
    config = load_incluster_config(service_account)
    assert config.namespace == "kube-system"
    async with Client(config) as client:
        assert (await client.api(Namespace).list(limit=1)).items
        token = (service_account / "token").read_text()
        (service_account / "token").write_text("rotated-but-wrong")
        with pytest.raises(Unauthorized):
            await client.api(Namespace).list(limit=1)
        (service_account / "token").write_text(token)
        assert (await client.api(Namespace).list(limit=1)).items


# --- a proxy in the way --------------------------------------------------------------------------


class ConnectProxy:
    """A minimal HTTP CONNECT proxy that records where it was asked to tunnel."""

    def __init__(self) -> None:
        self.tunnels: list[str] = []
        self.url = ""
        self._server: asyncio.Server | None = None

    async def __aenter__(self) -> ConnectProxy:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        request = await reader.readuntil(b"\r\n\r\n")
        method, target, _ = request.split(b"\r\n", 1)[0].decode().split(" ", 2)
        if method != "CONNECT":
            writer.close()
            return
        self.tunnels.append(target)
        host, port = target.rsplit(":", 1)
        up_reader, up_writer = await asyncio.open_connection(host, int(port))
        writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        await writer.drain()

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            try:
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            except ConnectionError:
                pass
            finally:
                dst.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))


@pytest.fixture
async def proxy() -> AsyncIterator[ConnectProxy]:
    async with ConnectProxy() as running:
        yield running


async def test_requests_tunnel_through_the_configured_proxy(
    kube_apiserver: LocalApiServer, proxy: ConnectProxy
) -> None:
    config = server_config(kube_apiserver, token=kube_apiserver.token, proxy_url=proxy.url)
    async with Client(config) as client:
        namespaces = client.api(Namespace)
        page = await namespaces.list(limit=1)
        assert page.items
        # A watch takes the proxy too (its own tunnel: it keeps its connection).
        watch = namespaces.watch(resource_version=page.resource_version, timeout_seconds=1)
        await namespaces.create(Namespace(metadata=ObjectMeta(name="through-the-proxy")))
        first = await anext(watch)
        assert first.object.metadata.name == "through-the-proxy"
        await watch.aclose()
    assert set(proxy.tunnels) == {kube_apiserver.url.removeprefix("https://")}


async def test_loopback_servers_ignore_the_environment_proxy(
    kube_apiserver: LocalApiServer, proxy: ConnectProxy, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTPS_PROXY", proxy.url)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    config = server_config(kube_apiserver, token=kube_apiserver.token)
    async with Client(config) as client:
        assert (await client.api(Namespace).list(limit=1)).items
    assert proxy.tunnels == []
