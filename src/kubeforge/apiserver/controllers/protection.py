"""The storage-object-in-use protection controllers (``pvcprotection``, ``pvprotection``, 1.32).

Every claim carries ``kubernetes.io/pvc-protection`` and every volume
``kubernetes.io/pv-protection`` (on a cluster the StorageObjectInUseProtection admission
plugin adds them at creation; these controllers add them to any that lack them, as the
real ones do for objects made before the plugin). A deleted claim keeps its finalizer,
and so stays ``Terminating``, while a pod on a node names it in its volumes (finished
pods included: the kubelet may still hold the volume); a deleted volume keeps its own
while it is ``Bound``. Then the finalizer comes off and the object goes.

Entry points: ``ClaimProtection(cluster)``, ``VolumeProtection(cluster)``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kubeforge.apiserver.controllers.cluster import copy
from kubeforge.apiserver.controllers.loop import ControllerLoop, Key, KeyMapper, own_key
from kubeforge.apiserver.controllers.volumes import claims_of
from kubeforge.apiserver.storage.journal import ResourceKey
from kubeforge.apiserver.storage.sqlite import Event

__all__ = ["PVC_FINALIZER", "PV_FINALIZER", "ClaimProtection", "VolumeProtection"]

PVC_FINALIZER = "kubernetes.io/pvc-protection"
PV_FINALIZER = "kubernetes.io/pv-protection"
_CLAIMS = ("", "persistentvolumeclaims")
_VOLUMES = ("", "persistentvolumes")
_PODS = ("", "pods")


class _Protection(ControllerLoop):
    """Adds ``finalizer`` to live objects, removes it from deleted ones not in use."""

    finalizer = ""

    def in_use(self, obj: dict[str, Any]) -> bool:
        raise NotImplementedError

    async def sync(self, key: Key) -> float | None:
        obj = self.cluster.get(self.resource, *key)
        if obj is None:
            return None
        finalizers = list(obj["metadata"].get("finalizers") or [])
        deleting = bool(obj["metadata"].get("deletionTimestamp"))
        if deleting and self.finalizer in finalizers and not self.in_use(obj):
            finalizers.remove(self.finalizer)
        elif not deleting and self.finalizer not in finalizers:
            finalizers.append(self.finalizer)
        else:
            return None
        body = copy(obj)
        body["metadata"]["finalizers"] = finalizers
        await self.api.update(self.resource, body)
        return None


class ClaimProtection(_Protection):
    resource: ResourceKey = _CLAIMS
    account = "pvc-protection-controller"
    finalizer = PVC_FINALIZER

    def key_mappers(self) -> dict[ResourceKey, KeyMapper]:
        return {_CLAIMS: own_key, _PODS: self._pod_keys}

    @staticmethod
    def _pod_keys(event: Event) -> Iterable[Key]:
        pod = event.object
        # only a pod going away, ending or not yet on a node can free a claim
        ended = (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed")
        if event.type != "DELETED" and not ended and (pod.get("spec") or {}).get("nodeName"):
            return ()
        namespace = pod["metadata"].get("namespace") or ""
        return [(namespace, name) for name in claims_of(pod)]

    def in_use(self, obj: dict[str, Any]) -> bool:
        """``podUsesPVC``: a pod on a node names the claim in its volumes."""
        meta = obj["metadata"]
        return any(
            (pod.get("spec") or {}).get("nodeName") and meta["name"] in claims_of(pod)
            for pod in self.cluster.list(_PODS, meta.get("namespace") or "")
        )


class VolumeProtection(_Protection):
    resource: ResourceKey = _VOLUMES
    account = "pv-protection-controller"
    finalizer = PV_FINALIZER

    def in_use(self, obj: dict[str, Any]) -> bool:
        return (obj.get("status") or {}).get("phase") == "Bound"
