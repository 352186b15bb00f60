"""Managers with leader election against the local API server: one active at a time."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from kubeforge.config import load_config
from kubeforge.controller import Builder
from kubeforge.core.errors import KubeforgeError
from kubeforge.models.coordination_v1 import Lease, LeaseSpec
from kubeforge.models.core_v1 import ConfigMap
from kubeforge.reconcile import Request, Result
from kubeforge.runtime import LeaderElectionLost, LeaderElectionOptions, Manager, ManagerOptions
from watch.kf_server import configmap, eventually, fresh_namespace

pytestmark = pytest.mark.live

LEASE = "live-lock"


def candidate(
    kubeconfig: Any, namespace: str, identity: str, activity: list[tuple[str, str]]
) -> Manager:
    """A manager whose controller keeps reconciling one ConfigMap while it leads."""
    election = LeaderElectionOptions(
        LEASE,
        namespace=namespace,
        identity=identity,
        lease_duration=2,
        renew_deadline=1.5,
        retry_period=0.2,
    )
    mgr = Manager(load_config(kubeconfig), options=ManagerOptions(leader_election=election))

    async def reconcile(request: Request) -> Result:
        activity.append((identity, "begin"))
        await asyncio.sleep(0.01)
        activity.append((identity, "end"))
        return Result(requeue_after=0.05)

    Builder(mgr).named("busy").for_(ConfigMap, namespace=namespace).complete(reconcile)
    return mgr


class Housekeeping:
    """A runnable every replica runs, leader or not."""

    def __init__(self) -> None:
        self.started = False

    def need_leader_election(self) -> bool:
        return False

    async def start(self) -> None:
        self.started = True

    async def stop(self, grace_period: float | None = 30.0) -> None:
        self.started = False


def leader_gauge(mgr: Manager) -> float | None:
    return mgr.metrics.registry.get_sample_value("leader_election_master_status", {"name": LEASE})


async def test_a_standby_waits_and_takes_over_when_the_leader_shuts_down(kube_apiserver, client):
    namespace = await fresh_namespace(client, "leader")
    await client.api(ConfigMap, namespace=namespace).create(configmap("work", namespace))
    activity: list[tuple[str, str]] = []
    alpha = candidate(kube_apiserver.kubeconfig, namespace, "alpha", activity)
    beta = candidate(kube_apiserver.kubeconfig, namespace, "beta", activity)
    housekeeping = Housekeeping()
    beta.add(housekeeping)
    running_alpha = asyncio.create_task(alpha.run())
    await eventually(lambda: ("alpha", "end") in activity)
    running_beta = asyncio.create_task(beta.run())
    try:
        assert beta.elector is not None
        # Beta has read the lease and seen alpha hold it.
        await eventually(
            lambda: beta.elector is not None and beta.elector._reported_holder == "alpha"
        )
        for _ in range(400):  # a standby's caches sync too: it is ready, just not leading
            if await beta.readyz.check("informer-sync") is None:
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("the standby's caches never synced")
        assert not beta.started and not beta.is_leader
        await eventually(lambda: housekeeping.started)  # needs no lease: runs on a standby too
        assert (leader_gauge(alpha), leader_gauge(beta)) == (1, 0)
        alpha.stop()
        await running_alpha
        await eventually(lambda: ("beta", "end") in activity)
        assert beta.is_leader and beta.started
        assert (leader_gauge(alpha), leader_gauge(beta)) == (0, 1)
    finally:
        beta.stop()
        await running_beta
    holders = [who for who, _ in activity]
    switch = holders.index("beta")
    assert set(holders[:switch]) == {"alpha"} and set(holders[switch:]) == {"beta"}
    assert activity[switch - 1] == ("alpha", "end")  # alpha finished before beta began
    lease = await client.api(Lease, namespace=namespace).get(LEASE)
    assert lease.spec is not None and lease.spec.holder_identity == ""  # released by beta too


async def test_a_leader_whose_lease_is_taken_stops_at_once_and_run_raises(kube_apiserver, client):
    namespace = await fresh_namespace(client, "stolen")
    await client.api(ConfigMap, namespace=namespace).create(configmap("work", namespace))
    activity: list[tuple[str, str]] = []
    alpha = candidate(kube_apiserver.kubeconfig, namespace, "alpha", activity)
    running = asyncio.create_task(alpha.run())
    await eventually(lambda: ("alpha", "end") in activity)
    leases = client.api(Lease, namespace=namespace)
    lease = await leases.get(LEASE)
    assert lease.spec is not None
    lease.spec = LeaseSpec(holder_identity="intruder", lease_duration_seconds=3600)
    await leases.replace(lease)  # as if another replica had taken it over
    with pytest.raises(LeaderElectionLost, match=f"{namespace}/{LEASE}"):
        await asyncio.wait_for(running, 30)
    assert isinstance(LeaderElectionLost("x"), KubeforgeError)  # so `kubeforge run` exits 1
    assert not alpha.is_leader and leader_gauge(alpha) == 0
    still = await leases.get(LEASE)
    assert still.spec is not None and still.spec.holder_identity == "intruder"  # not released
