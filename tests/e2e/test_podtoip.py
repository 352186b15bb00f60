"""PodToIp end to end: the example controller against the real local API server."""

from __future__ import annotations

from types import ModuleType

from kubeforge.client import Client
from kubeforge.core import errors
from kubeforge.models.core_v1 import Pod

from .conftest import RunningManager, eventually, make_pod


async def _differences(client: Client, podtoip: ModuleType, namespace: str) -> list[str]:
    pods = (await client.api(Pod, namespace=namespace).list()).items
    ptps = (await client.api(podtoip.PodToIp, namespace=namespace).list()).items
    problems: list[str] = podtoip.waiting_for_ip(pods) + podtoip.differences(pods, ptps)
    return problems


async def test_every_running_pod_gets_a_podtoip_with_its_ip_and_an_owner_reference(
    client: Client, podtoip: ModuleType, namespace: str, controller: RunningManager
) -> None:
    for i in range(5):
        await client.api(Pod, namespace=namespace).create(make_pod(f"web-{i}", namespace))

    await eventually(lambda: _differences(client, podtoip, namespace))

    ptps = (await client.api(podtoip.PodToIp, namespace=namespace).list()).items
    pods = {p.metadata.name: p for p in (await client.api(Pod, namespace=namespace).list()).items}
    assert sorted(p.metadata.name for p in ptps) == [f"web-{i}" for i in range(5)]
    for ptp in ptps:
        pod = pods[ptp.metadata.name]
        assert pod.status is not None
        assert ptp.spec.pod_address == pod.status.pod_ip
        assert ptp.spec.pod_name == pod.metadata.name
        (owner,) = ptp.metadata.owner_references or []
        assert (owner.kind, owner.name, owner.uid) == ("Pod", pod.metadata.name, pod.metadata.uid)


async def test_a_changed_pod_ip_is_followed(
    client: Client, podtoip: ModuleType, namespace: str, controller: RunningManager
) -> None:
    pods = client.api(Pod, namespace=namespace)
    await pods.create(make_pod("moving", namespace))
    await eventually(lambda: _differences(client, podtoip, namespace))

    pod = await pods.get("moving")
    assert pod.status is not None
    pod.status.pod_ip = "10.244.250.250"
    await pods.replace_status(pod)

    async def follows() -> list[str]:
        ptp = await client.api(podtoip.PodToIp, namespace=namespace).get("moving")
        return [] if ptp.spec.pod_address == "10.244.250.250" else [ptp.spec.pod_address]

    await eventually(follows)


async def test_deleting_a_pod_deletes_its_podtoip(
    client: Client, podtoip: ModuleType, namespace: str, controller: RunningManager
) -> None:
    pods = client.api(Pod, namespace=namespace)
    for name in ("keep", "drop"):
        await pods.create(make_pod(name, namespace))
    await eventually(lambda: _differences(client, podtoip, namespace))

    await pods.delete("drop")

    async def only_keep_left() -> list[str]:
        names = [
            p.metadata.name
            for p in (await client.api(podtoip.PodToIp, namespace=namespace).list()).items
        ]
        return [] if names == ["keep"] else [str(names)]

    await eventually(only_keep_left)


async def test_a_pod_that_starts_deleting_loses_its_podtoip_at_once(
    client: Client, podtoip: ModuleType, namespace: str, controller: RunningManager
) -> None:
    pods = client.api(Pod, namespace=namespace)
    pod = make_pod("finalized", namespace)
    pod.metadata.finalizers = ["example.com/hold"]
    await pods.create(pod)
    await eventually(lambda: _differences(client, podtoip, namespace))

    await pods.delete("finalized")  # the finalizer keeps the pod, terminating

    async def podtoip_gone() -> list[str]:
        try:
            await client.api(podtoip.PodToIp, namespace=namespace).get("finalized")
        except errors.NotFound:
            return []
        return ["podtoip still there"]

    await eventually(podtoip_gone)
    assert (await pods.get("finalized")).metadata.deletion_timestamp is not None
    await pods.patch("finalized", {"metadata": {"finalizers": None}})


async def test_pods_deleted_while_the_controller_was_down_lose_their_podtoips_after_restart(
    client: Client, podtoip: ModuleType, namespace: str, controller: RunningManager
) -> None:
    pods = client.api(Pod, namespace=namespace)
    for i in range(4):
        await pods.create(make_pod(f"p-{i}", namespace))
    await eventually(lambda: _differences(client, podtoip, namespace))

    await controller.stop()
    await pods.delete("p-0", grace_period_seconds=0)
    await pods.delete("p-1", grace_period_seconds=0)
    await pods.create(make_pod("p-new", namespace))
    await controller.start()

    await eventually(lambda: _differences(client, podtoip, namespace))
    names = sorted(
        p.metadata.name or ""
        for p in (await client.api(podtoip.PodToIp, namespace=namespace).list()).items
    )
    assert names == ["p-2", "p-3", "p-new"]


def test_the_committed_crd_is_generated_from_the_model(podtoip: ModuleType) -> None:
    assert podtoip.CRD_PATH.read_text() == podtoip.api.crd_yaml()
