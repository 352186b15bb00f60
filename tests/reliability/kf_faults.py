"""Fault injection helpers for the reliability suite (real processes and sockets, no mocks).

- ``TcpProxy``: a byte-for-byte TCP forwarder on loopback that can ``cut()`` every
  connection through it and refuse new ones until ``heal()``: a network partition
  between a controller and the API server, TLS untouched.
- ``Ledger`` + ``churn()``: pod creates, IP changes (``/status``) and deletes, each
  recorded as acknowledged or not, so a test can check afterwards that every
  write the server acknowledged is still there.
- ``KubeforgeRun``: ``kubeforge run TARGET`` as a subprocess with captured output.
- ``podtoip_problems()``: how the PodToIps differ from what the pods call for.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import yaml

from kubeforge.client import Client
from kubeforge.core import errors
from kubeforge.core.meta import ObjectMeta
from kubeforge.models.core_v1 import Container, Pod, PodSpec

ROOT = Path(__file__).resolve().parents[2]
PODTOIP = ROOT / "examples" / "podtoip"


class TcpProxy:
    """Forwards ``127.0.0.1:port`` to ``127.0.0.1:target_port`` until cut."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = 0
        self.connections = 0  # accepted while healthy, over the proxy's life
        self._cut = False
        self._server: asyncio.Server | None = None
        self._open: set[asyncio.StreamWriter] = set()

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = int(self._server.sockets[0].getsockname()[1])

    async def close(self) -> None:
        self.cut()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    def cut(self) -> None:
        """Drop every open connection (RST) and refuse new ones until ``heal()``."""
        self._cut = True
        for writer in list(self._open):
            writer.transport.abort()
        self._open.clear()

    def heal(self) -> None:
        self._cut = False

    def kubeconfig(self, original: Path, out: Path) -> Path:
        """A copy of ``original`` whose server is this proxy (same CA, token, host name)."""
        config = yaml.safe_load(original.read_text())
        for cluster in config["clusters"]:
            url = cluster["cluster"]["server"]
            cluster["cluster"]["server"] = f"{url.rsplit(':', 1)[0]}:{self.port}"
        out.write_text(yaml.safe_dump(config))
        return out

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self._cut:
            writer.transport.abort()
            return
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            writer.transport.abort()  # the server itself is down: so is the path to it
            return
        self.connections += 1
        self._open.update((writer, up_writer))
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))
        self._open.difference_update((writer, up_writer))


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass  # either side went away (or the proxy cut it): close the other
    finally:
        writer.transport.abort()


def make_pod(name: str, namespace: str) -> Pod:
    return Pod(
        metadata=ObjectMeta(name=name, namespace=namespace),
        spec=PodSpec(containers=[Container(name="app", image="nginx:1.27")]),
    )


@dataclass
class Ledger:
    """What the driver wrote, split into acknowledged and unknown outcomes."""

    created: set[str] = field(default_factory=set)
    deleted: set[str] = field(default_factory=set)
    ips: dict[str, str] = field(default_factory=dict)  # last acknowledged IP per pod
    unsure: set[str] = field(default_factory=set)  # a write failed in flight: either outcome
    acknowledged: int = 0
    failed: int = 0

    def lost_writes(self, pods: list[Pod]) -> list[str]:
        """Acknowledged writes the server no longer shows (ignores pods with an unsure write)."""
        live = {p.metadata.name or "": p for p in pods if not p.metadata.deletion_timestamp}
        problems = []
        for name in sorted(self.created - self.deleted - self.unsure):
            if name not in live:
                problems.append(f"acknowledged create of {name} is missing")
        for name in sorted(self.deleted - self.unsure):
            if name in live:
                problems.append(f"acknowledged delete of {name} did not stick")
        for name, ip in sorted(self.ips.items()):
            pod = live.get(name)
            if name in self.unsure or pod is None:
                continue
            actual = pod.status.pod_ip if pod.status else None
            if actual != ip:
                problems.append(f"acknowledged IP {ip} of {name} became {actual}")
        return problems


async def churn(
    client: Client,
    namespace: str,
    ledger: Ledger,
    *,
    operations: int,
    seed: int,
    first: int = 0,
) -> None:
    """Random creates, IP changes and deletes, one at a time, each recorded in ``ledger``.

    Steps are numbered from ``first`` (new pods are ``churn-<step>``), so several
    calls can share one ledger.
    """
    rng = random.Random(seed)
    pods = client.api(Pod, namespace=namespace)
    for step in range(first, first + operations):
        alive = sorted(ledger.created - ledger.deleted)
        roll = rng.random()
        name = ""
        try:
            if roll < 0.4 or len(alive) < 5:
                name = f"churn-{step}"
                # AlreadyExists: a retried create whose first attempt landed.
                with contextlib.suppress(errors.AlreadyExists):
                    await pods.create(make_pod(name, namespace))
                ledger.created.add(name)
            elif roll < 0.75:
                name = rng.choice(alive)
                await _change_ip(pods, name, f"10.251.{step // 250}.{step % 250 + 1}", ledger)
            else:
                name = rng.choice(alive)
                with contextlib.suppress(errors.NotFound):
                    await pods.delete(name)
                ledger.deleted.add(name)
                ledger.ips.pop(name, None)
            ledger.acknowledged += 1
        except (errors.TransportError, errors.ApiError) as err:
            if isinstance(err, errors.ApiError) and err.code < 500 and err.code != 429:
                raise  # the server refused a good request: a real failure, not a fault
            ledger.failed += 1
            if name:
                ledger.unsure.add(name)
                if name.startswith("churn-") and name not in ledger.created:
                    ledger.created.add(name)  # maybe created: track it as unsure
            await asyncio.sleep(0.05)  # the server is away; don't spin


async def _change_ip(pods: Any, name: str, ip: str, ledger: Ledger) -> None:
    """Set a running pod's IP, as a CNI plugin re-addressing it would.

    Only a pod the node has started, and only over the version read: the
    simulated kubelet writes the IP when it starts a pod, and a change made
    before that would rightly be overwritten, not lost.
    """
    try:
        pod = await pods.get(name)
    except errors.NotFound:
        return
    if pod.metadata.deletion_timestamp or not (pod.status and pod.status.phase == "Running"):
        return
    body = {
        "metadata": {"resourceVersion": pod.metadata.resource_version},
        "status": {"podIP": ip, "podIPs": [{"ip": ip}]},
    }
    try:
        await pods.patch_status(name, body)
    except (errors.Conflict, errors.NotFound):
        return  # the node or a delete got there first: this change was refused, not lost
    ledger.ips[name] = ip


async def podtoip_problems(client: Client, podtoip: ModuleType, namespace: str) -> list[str]:
    pods = (await client.api(Pod, namespace=namespace).list()).items
    ptps = (await client.api(podtoip.PodToIp, namespace=namespace).list()).items
    problems: list[str] = podtoip.waiting_for_ip(pods) + podtoip.differences(pods, ptps)
    return problems


async def eventually(check: Callable[[], object], what: str, timeout: float = 60.0) -> None:
    """Await ``check()`` (a coroutine giving a list of problems) until it gives none.

    ``timeout`` bounds the wait so a stuck system fails instead of hanging; it is
    never a performance assertion.
    """
    problems: object = None
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        try:
            problems = await check()  # type: ignore[misc]
        except (errors.TransportError, errors.ServiceUnavailable) as err:
            problems = [f"server unreachable: {err}"]
        if not problems:
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"{what}: still {problems!r} after {timeout:g}s")


class KubeforgeRun:
    """``python -m kubeforge.cli [-v...] run TARGET --kubeconfig K`` with output in a file."""

    def __init__(self, target: Path, kubeconfig: Path, log: Path, *, verbosity: int = 1) -> None:
        self.log = log
        command = [sys.executable, "-m", "kubeforge.cli"]
        command += ["-" + "v" * verbosity] if verbosity else []
        command += ["run", str(target), "--kubeconfig", str(kubeconfig)]
        command += ["--metrics-bind-address", "0", "--health-probe-bind-address", "0"]
        with log.open("wb") as out:
            self.process = subprocess.Popen(
                command,
                cwd=ROOT,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )

    def running(self) -> bool:
        return self.process.poll() is None

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self) -> int:
        if self.running():
            self.process.send_signal(signal.SIGTERM)
            try:
                return self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
        return self.process.wait()
