"""The PodToIp controller: one PodToIp per pod that has an IP, kept equal to the pod's IP.

Level-triggered: ``reconcile`` is handed a pod's key, never an event, and
builds the desired state from what the caches hold now. So it does the right
thing after a restart or a missed event: a PodToIp whose pod is gone (or
terminating) is deleted, because ``owns(PodToIp)`` maps every PodToIp back to
its pod's key and the pod is absent from the cache.
"""

from __future__ import annotations

import logging

from kubeforge import Builder, Manager, Request, Result, errors
from kubeforge.core.meta import ObjectMeta, OwnerReference
from kubeforge.models.core_v1 import Pod

from .api import PodToIp, PodToIpSpec

__all__ = ["desired_podtoip", "setup"]

log = logging.getLogger("podtoip")


def desired_podtoip(pod: Pod) -> PodToIp | None:
    """The PodToIp a pod should have, or ``None`` if it should have none."""
    ip = pod.status.pod_ip if pod.status else None
    if not ip or pod.metadata.deletion_timestamp:
        return None
    name = pod.metadata.name or ""
    owner = OwnerReference(
        api_version="v1",
        kind="Pod",
        name=name,
        uid=pod.metadata.uid or "",
        controller=True,
        block_owner_deletion=True,
    )
    return PodToIp(
        metadata=ObjectMeta(name=name, namespace=pod.metadata.namespace, owner_references=[owner]),
        spec=PodToIpSpec(pod_name=name, pod_address=ip),
    )


def setup(mgr: Manager) -> None:
    """Register the controller with ``mgr`` (what ``kubeforge run`` calls)."""
    pods = mgr.cache.store(Pod)
    podtoips = mgr.cache.store(PodToIp)

    async def reconcile(request: Request) -> Result:
        api = mgr.client.api(PodToIp, namespace=request.namespace)
        pod = pods.get(request.key)
        desired = desired_podtoip(pod) if pod is not None else None
        current = podtoips.get(request.key)
        if desired is None:
            if current is not None:
                try:
                    await api.delete(request.name)
                    log.info("deleted podtoip %s", request.key)
                except errors.NotFound:
                    pass
            return Result()
        if current is None:
            try:
                await api.create(desired)
                log.info("created podtoip %s -> %s", request.key, desired.spec.pod_address)
            except errors.AlreadyExists:
                return Result(requeue=True)  # our cache is behind; look again
            return Result()
        if current.spec != desired.spec or current.metadata.owner_references != (
            desired.metadata.owner_references
        ):
            current.spec = desired.spec
            current.metadata.owner_references = desired.metadata.owner_references
            # replace() sends the cached resourceVersion: a Conflict means we acted on
            # stale state, and the error makes the controller retry with backoff.
            await api.replace(current)
            log.info("updated podtoip %s -> %s", request.key, desired.spec.pod_address)
        return Result()

    (
        Builder(mgr)
        .named("podtoip")
        .for_(Pod)
        .owns(PodToIp)
        .with_options(max_concurrent_reconciles=2)
        .complete(reconcile)
    )
