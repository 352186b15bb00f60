"""Two `kubeforge run --leader-elect` processes against the local API server: one active at a time.

Each process runs a tiny controller that keeps reconciling one ConfigMap while it
leads and appends ``<pid> begin|end <wall time>`` to a shared activity log (one
``O_APPEND`` write per line, so lines never interleave). The log is the proof
that the two were never active at once; the one time bound checked is the one
the lease protocol promises: after a ``kill -9`` the standby leads within the
lease duration plus one (jittered) retry period.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from kubeforge.client import Client
from kubeforge.models.coordination_v1 import Lease, LeaseSpec
from kubeforge.models.core_v1 import ConfigMap
from watch.kf_server import configmap, fresh_namespace

LEASE = "failover-lock"
LEASE_DURATION, RENEW_DEADLINE, RETRY_PERIOD = 4.0, 3.0, 0.5
CONTROLLER = """
import asyncio
import os
import time

from kubeforge import Builder, Result
from kubeforge.models.core_v1 import ConfigMap

LOG = os.environ["KF_ACTIVITY_LOG"]


def note(event):
    line = f"{os.getpid()} {event} {time.time():.6f}\\n".encode()
    fd = os.open(LOG, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)


def setup(mgr):
    async def reconcile(request):
        note("begin")
        await asyncio.sleep(0.02)
        note("end")
        return Result(requeue_after=0.1)

    namespace = os.environ["KF_NAMESPACE"]
    Builder(mgr).named("heartbeat").for_(ConfigMap, namespace=namespace).complete(reconcile)
"""


@dataclass(frozen=True)
class Line:
    pid: int
    event: str
    at: float


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for(condition: Callable[[], Any], what: str, timeout: float = 30.0) -> Any:
    """Poll until ``condition()`` is truthy (an upper bound on waiting, not a timing check)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = condition()
        if result:
            return result
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


class Replica:
    """One ``kubeforge run`` process with its own metrics and probe ports."""

    def __init__(self, tmp: Path, name: str, kubeconfig: Path, namespace: str, log: Path) -> None:
        self.name = name
        self.metrics_port, self.probe_port = free_port(), free_port()
        self.output = tmp / f"{name}.out"
        target = tmp / "heartbeat.py"
        if not target.exists():
            target.write_text(CONTROLLER)
        command = [
            sys.executable, "-m", "kubeforge.cli", "-v", "run", str(target),
            "--kubeconfig", str(kubeconfig),
            "--leader-elect",
            "--leader-election-id", LEASE,
            "--leader-election-namespace", namespace,
            "--leader-elect-lease-duration", f"{LEASE_DURATION}s",
            "--leader-elect-renew-deadline", f"{RENEW_DEADLINE}s",
            "--leader-elect-retry-period", f"{RETRY_PERIOD * 1000:.0f}ms",
            "--metrics-bind-address", f"127.0.0.1:{self.metrics_port}",
            "--health-probe-bind-address", f"127.0.0.1:{self.probe_port}",
        ]  # fmt: skip
        env = {**os.environ, "KF_ACTIVITY_LOG": str(log), "KF_NAMESPACE": namespace}
        with self.output.open("wb") as out:
            self.process = subprocess.Popen(
                command, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env
            )

    @property
    def pid(self) -> int:
        return self.process.pid

    def get(self, port: int, path: str) -> tuple[int, str] | None:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as answer:
                return answer.status, answer.read().decode()
        except urllib.error.HTTPError as err:
            return err.code, err.read().decode()
        except OSError:
            return None  # not listening yet

    def ready(self) -> bool:
        return self.get(self.probe_port, "/readyz") == (200, "ok")

    def leader_status(self) -> float | None:
        answer = self.get(self.metrics_port, "/metrics")
        if answer is None:
            return None
        for family in text_string_to_metric_families(answer[1]):
            for sample in family.samples:
                if sample.name == "leader_election_master_status":
                    return sample.value
        return None

    def exit_code(self, timeout: float = 30.0) -> int:
        return self.process.wait(timeout)

    def log(self) -> str:
        return self.output.read_text(errors="replace")

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def read_log(log: Path) -> list[Line]:
    if not log.exists():
        return []
    lines = []
    for raw in log.read_text().splitlines():
        pid, event, at = raw.split()
        lines.append(Line(int(pid), event, float(at)))
    return lines


def active(log: Path, replica: Replica) -> bool:
    return any(line.pid == replica.pid and line.event == "end" for line in read_log(log))


@pytest.fixture
async def namespace(client: Client) -> str:
    namespace = await fresh_namespace(client, "failover")
    await client.api(ConfigMap, namespace=namespace).create(configmap("work", namespace))
    return namespace


@pytest.fixture
def replicas(tmp_path: Path, kube_apiserver: Any, namespace: str) -> Iterator[Any]:
    started: list[Replica] = []
    log = tmp_path / "activity.log"

    def start(name: str) -> Replica:
        replica = Replica(tmp_path, name, kube_apiserver.kubeconfig, namespace, log)
        started.append(replica)
        return replica

    start.log = log  # type: ignore[attr-defined]
    yield start
    for replica in started:
        replica.close()


def leader_and_standby(replicas: Any) -> tuple[Replica, Replica]:
    """Start A, wait until it reconciles, then start B and wait until it is a ready standby."""
    log: Path = replicas.log
    alpha = replicas("alpha")
    wait_for(lambda: active(log, alpha), f"alpha to lead\n{alpha.log()}")
    beta = replicas("beta")
    wait_for(beta.ready, f"beta to be ready\n{beta.log()}")
    assert beta.leader_status() == 0
    assert alpha.leader_status() == 1
    assert not any(line.pid == beta.pid for line in read_log(log))
    return alpha, beta


def assert_never_active_together(lines: list[Line], first: Replica, second: Replica) -> None:
    pids = [line.pid for line in lines]
    assert set(pids) == {first.pid, second.pid}
    switch = pids.index(second.pid)
    assert set(pids[:switch]) == {first.pid}
    assert set(pids[switch:]) == {second.pid}


async def test_killing_the_leader_hands_over_within_lease_duration_plus_retry_period(replicas):
    log: Path = replicas.log
    alpha, beta = leader_and_standby(replicas)
    killed_at = time.time()
    os.kill(alpha.pid, signal.SIGKILL)
    alpha.exit_code()
    wait_for(lambda: active(log, beta), f"beta to take over\n{beta.log()}")

    lines = read_log(log)
    assert_never_active_together(lines, alpha, beta)
    takeover = next(line for line in lines if line.pid == beta.pid)
    assert all(line.at < killed_at for line in lines if line.pid == alpha.pid)
    assert takeover.at > killed_at
    assert beta.leader_status() == 1


async def test_a_clean_shutdown_releases_the_lease_and_the_standby_takes_over_at_once(
    replicas, client, namespace
):
    log: Path = replicas.log
    alpha, beta = leader_and_standby(replicas)
    stopping_at = time.time()
    alpha.process.send_signal(signal.SIGTERM)
    assert alpha.exit_code() == 0, alpha.log()
    wait_for(lambda: active(log, beta), f"beta to take over\n{beta.log()}")

    lines = read_log(log)
    assert_never_active_together(lines, alpha, beta)
    last_of_alpha = [line for line in lines if line.pid == alpha.pid][-1]
    assert last_of_alpha.event == "end"  # its last reconcile finished before it let go
    takeover = next(line for line in lines if line.pid == beta.pid)
    assert takeover.at > stopping_at
    assert "released lease" in alpha.log()  # handed over, not left to expire
    lease = await client.api(Lease, namespace=namespace).get(LEASE)
    assert lease.spec is not None
    assert lease.spec.holder_identity is not None
    assert lease.spec.holder_identity.startswith(socket.gethostname() + "_")
    assert lease.spec.lease_transitions == 1


async def test_a_replica_that_loses_its_lease_exits_with_status_1(replicas, client, namespace):
    log: Path = replicas.log
    alpha = replicas("alpha")
    wait_for(lambda: active(log, alpha), f"alpha to lead\n{alpha.log()}")
    leases = client.api(Lease, namespace=namespace)
    lease = await leases.get(LEASE)
    lease.spec = LeaseSpec(holder_identity="intruder", lease_duration_seconds=3600)
    await leases.replace(lease)
    assert alpha.exit_code() == 1, alpha.log()
    last_line = alpha.log().strip().splitlines()[-1]
    assert last_line.startswith("Error: leader election lost")
    assert (await leases.get(LEASE)).spec == lease.spec  # left to the intruder, not released
