"""The control plane's writes through admission: ``python -m benchmarks.admission [--quick]``.

Starts ``kubeforge apiserver`` as a real process (in memory, 4 simulated nodes, the
ReplicaSet controller and the housekeeping ones), creates a ReplicaSet of ``--pods``
pods and waits until every pod is ready; the server's CPU seconds (``/proc``) over
that span, per pod, is the figure. Variants, in one run, alternating rounds:

* **no webhook**: no webhook or policy matches a pod: the controller's creates go
  straight to the store (the common case, which must cost what it did before the
  controllers' writes went through admission);
* **validating webhook**: an HTTPS validating webhook (in this process) allows every
  pod create in the namespace: each of the ReplicaSet controller's creates waits for
  it, as on a cluster;
* **policy**: a ValidatingAdmissionPolicy on pod creates that checks
  ``request.userInfo.username`` (CEL in the server, no webhook);
* with ``$KF_BENCH_BASE`` naming another checkout, **no webhook** on a server of that
  checkout too (before/after in one run).

Writes ``benchmarks/results/admission.json`` (``-quick`` for ``--quick``).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import os
import socket
import statistics
import tempfile
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web
from benchmarks._report import clean_exit_on_sigterm, environment, print_table, write_results
from benchmarks.apiserver.__main__ import _base_source

from kubeforge.apiserver.server.tls import Credentials
from kubeforge.testing import LocalApiServer

ADMISSION = "/apis/admissionregistration.k8s.io/v1"
CONTROLLERS = "replicaset,namespace,serviceaccount,garbage-collector"
POD_CREATES = [
    {"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"]}
]
Install = Callable[["Session", str], Awaitable[None]]


def _server_cpu(server: LocalApiServer) -> float:
    """Seconds of CPU the server process has used (user + system)."""
    pid = server.process_id()
    assert pid is not None
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Webhook:
    """An HTTPS validating webhook that allows everything and counts its calls."""

    def __init__(self) -> None:
        self.calls = 0
        self.url = ""
        self.ca_bundle = ""
        self._runner: web.AppRunner | None = None

    async def start(self) -> None:
        credentials = Credentials.load_or_create(Path(tempfile.mkdtemp()) / "tls")
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = int(sock.getsockname()[1])
        app = web.Application()
        app.router.add_post("/{tail:.*}", self._allow)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", port, ssl_context=credentials.ssl_context())
        await site.start()
        self.url = f"https://127.0.0.1:{port}"
        self.ca_bundle = base64.b64encode(credentials.ca_pem).decode()

    async def _allow(self, request: web.Request) -> web.Response:
        review = await request.json()
        self.calls += 1
        response = {"uid": review["request"]["uid"], "allowed": True}
        kind = {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"}
        return web.json_response({**kind, "response": response})

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()


class Session:
    """Requests to one server, as its admin."""

    def __init__(self, server: LocalApiServer, http: aiohttp.ClientSession) -> None:
        self.server = server
        self.http = http
        self.headers = {"Authorization": f"Bearer {server.token}"}

    async def send(self, method: str, path: str, body: Any = None) -> dict[str, Any]:
        url = self.server.url + path
        async with self.http.request(method, url, json=body, headers=self.headers) as answer:
            reply: dict[str, Any] = await answer.json()
            assert answer.status < 300, reply
            return reply


def _selector(namespace: str) -> dict[str, Any]:
    return {"matchLabels": {"kubernetes.io/metadata.name": namespace}}


def webhook_variant(hook: Webhook) -> Install:
    async def install(session: Session, namespace: str) -> None:
        spec = {
            "name": "allow.example.com",
            "clientConfig": {"url": hook.url, "caBundle": hook.ca_bundle},
            "rules": POD_CREATES,
            "sideEffects": "None",
            "admissionReviewVersions": ["v1"],
            "namespaceSelector": _selector(namespace),
        }
        body = {"metadata": {"name": "allow"}, "webhooks": [spec]}
        await session.send("POST", f"{ADMISSION}/validatingwebhookconfigurations", body)

    return install


async def install_policy(session: Session, namespace: str) -> None:
    spec = {
        "matchConstraints": {
            "resourceRules": POD_CREATES,
            "namespaceSelector": _selector(namespace),
        },
        "validations": [{"expression": "request.userInfo.username != 'system:anonymous'"}],
    }
    await session.send("POST", f"{ADMISSION}/validatingadmissionpolicies",
                       {"metadata": {"name": "named"}, "spec": spec})  # fmt: skip
    binding = {"policyName": "named", "validationActions": ["Deny"]}
    await session.send("POST", f"{ADMISSION}/validatingadmissionpolicybindings",
                       {"metadata": {"name": "named"}, "spec": binding})  # fmt: skip


async def no_admission(session: Session, namespace: str) -> None:
    del session, namespace


def _replica_set(pods: int) -> dict[str, Any]:
    labels = {"app": "bench"}
    template = {"metadata": {"labels": labels},
                "spec": {"containers": [{"name": "main", "image": "nginx"}]}}  # fmt: skip
    spec = {"replicas": pods, "selector": {"matchLabels": labels}, "template": template}
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "bench"},
            "spec": spec}  # fmt: skip


@contextlib.contextmanager
def _server(source: str | None) -> Iterator[LocalApiServer]:
    """A fresh server, of ``source`` (a checkout's ``src``) when given."""
    server = LocalApiServer(nodes=4, controllers=CONTROLLERS)
    before = os.environ.get("PYTHONPATH")
    try:
        if source is not None:
            os.environ["PYTHONPATH"] = source  # the server process imports kubeforge there
        server.start()
    finally:
        os.environ.pop("PYTHONPATH", None)
        if before is not None:
            os.environ["PYTHONPATH"] = before
    try:
        yield server
    finally:
        server.close()


async def one_round(install: Install, pods: int, source: str | None = None) -> float:
    """Server CPU milliseconds per pod, on a fresh server, from the ReplicaSet's create to
    every pod ready."""
    with _server(source) as server:
        async with aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(ssl=False)
        ) as http:  # the server's CA is its own; traffic stays on 127.0.0.1
            session = Session(server, http)
            namespace = "bench"
            await session.send("POST", "/api/v1/namespaces", {"metadata": {"name": namespace}})
            await install(session, namespace)
            await asyncio.sleep(1.0)  # the ServiceAccount and root CA settle first
            path = f"/apis/apps/v1/namespaces/{namespace}/replicasets"
            before = _server_cpu(server)
            await session.send("POST", path, _replica_set(pods))
            for _ in range(6000):  # a bound on the wait
                status = (await session.send("GET", f"{path}/bench")).get("status") or {}
                if status.get("readyReplicas") == pods:
                    break
                await asyncio.sleep(0.1)
            else:
                raise RuntimeError(f"the ReplicaSet never had {pods} ready pods")
            return 1000 * (_server_cpu(server) - before) / pods


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    hook = Webhook()
    await hook.start()
    base = _base_source()  # the baseline checkout's compiled src, as the apiserver run's
    variants: dict[str, tuple[Install, str | None]] = {
        "no webhook": (no_admission, None),
        "validating webhook": (webhook_variant(hook), None),
        "policy": (install_policy, None),
    }
    if base is not None:
        variants = {"no webhook, $KF_BENCH_BASE": (no_admission, base), **variants}
    rounds: dict[str, list[float]] = {name: [] for name in variants}
    try:
        for _ in range(args.rounds):
            for name, (install, source) in variants.items():
                rounds[name].append(round(await one_round(install, args.pods, source), 3))
    finally:
        await hook.stop()
    assert hook.calls == args.pods * args.rounds, hook.calls  # every create waited for it
    return {
        "base": os.environ.get("KF_BENCH_BASE", ""),
        "pods": args.pods,
        "rounds": args.rounds,
        "server_cpu_ms_per_pod": {n: statistics.median(v) for n, v in rounds.items()},
        "all_rounds": rounds,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.admission")
    parser.add_argument("--pods", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="a tenth of the pods, one round")
    args = parser.parse_args(argv)
    if args.quick:
        args.pods, args.rounds = max(args.pods // 10, 10), 1
    clean_exit_on_sigterm()
    report = {**environment("benchmarks.admission", argv), **asyncio.run(measure(args))}
    medians = report["server_cpu_ms_per_pod"]
    print_table(["variant", "server CPU ms per pod (median)"], list(medians.items()))
    print(write_results("admission", report, quick=args.quick))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
