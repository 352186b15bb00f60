"""The PersistentVolume binder (1.32's ``persistentvolume`` controller), with the simulated
provisioner of ``provisioner``: claims become Bound.

A claim without ``storageClassName`` gets the default class (the retroactive default
assignment). A claim naming a volume (``spec.volumeName``) binds to that one only: not
there yet -> Pending; bound elsewhere -> ``FailedBinding``; not fitting ->
``VolumeMismatch`` (``Cannot bind to requested volume "<pv>": <why>``). Otherwise the
smallest Available volume of its class that fits is bound (one pre-bound to the claim
first); failing that, a claim of class ``""`` waits (``FailedBinding``: ``no persistent
volumes available for this claim and no storage class is set``), one whose class does not
exist fails (``ProvisioningFailed``), and under ``WaitForFirstConsumer`` the claim waits
(``WaitForFirstConsumer``) until a pod using it is on a node — then it gets
``volume.kubernetes.io/selected-node`` (the scheduler's VolumeBinding plugin writes it on
a cluster; here the binder does, for it). Then the class's provisioner is asked
(``volume.kubernetes.io/storage-provisioner``, ``ExternalProvisioning``): ours provisions
``pvc-<uid>`` (``Provisioning``, ``ProvisioningSucceeded``), another one is waited for.
Binding writes the claim's ``spec.volumeName``, ``pv.kubernetes.io/bind-completed``,
``pv.kubernetes.io/bound-by-controller`` (the side whose reference the controller wrote)
and phase ``Bound`` on both. Volumes nobody claims are ``Available``; a deleted claim's
volume is deleted (``reclaimPolicy: Delete``) or left ``Released``.

Entry point: ``VolumeBinder(cluster)``. Keys are claims' ``(namespace, name)``; a
volume's key is ``("", name)`` (claims always have a namespace).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from typing import Any

from kubeforge.apiserver.authn.authenticator import ADMIN
from kubeforge.apiserver.controllers.cluster import Cluster, copy
from kubeforge.apiserver.controllers.eager import run_eagerly
from kubeforge.apiserver.controllers.loop import ControllerLoop, Key, KeyMapper, key_of, own_key
from kubeforge.apiserver.controllers.nodes import quantity
from kubeforge.apiserver.controllers.provisioner import (
    DEFAULT_CLASS,
    PROVISIONER,
    claim_ref,
    standard_class,
    volume_for,
)
from kubeforge.apiserver.controllers.requests import ControllerRequests
from kubeforge.apiserver.failures import StatusError
from kubeforge.apiserver.storage.sqlite import Event, ResourceKey

__all__ = ["PROVISIONER", "VolumeBinder", "claims_of"]

_CLAIMS = ("", "persistentvolumeclaims")
_VOLUMES = ("", "persistentvolumes")
_CLASSES = ("storage.k8s.io", "storageclasses")
_PODS = ("", "pods")
_SELECTED_NODE = "volume.kubernetes.io/selected-node"
_BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller"
_PROVISIONER_NOTES = (
    "volume.beta.kubernetes.io/storage-provisioner",
    "volume.kubernetes.io/storage-provisioner",
)
_COMPONENT = "persistentvolume-controller"
_NO_CLASS = "no persistent volumes available for this claim and no storage class is set"


def claims_of(pod: dict[str, Any]) -> list[str]:
    """The claims a pod's volumes name."""
    volumes = (pod.get("spec") or {}).get("volumes") or []
    return [
        str(v["persistentVolumeClaim"]["claimName"])
        for v in volumes
        if isinstance(v, dict) and (v.get("persistentVolumeClaim") or {}).get("claimName")
    ]


def _spec(obj: dict[str, Any]) -> dict[str, Any]:
    return obj.get("spec") or {}


def _size(obj: dict[str, Any]) -> Any:
    """A volume's capacity or a claim's request of storage."""
    spec = _spec(obj)
    amounts = (
        spec["capacity"] if "capacity" in spec else (spec.get("resources") or {}).get("requests")
    )
    return quantity((amounts or {}).get("storage", "0"))


def mismatch(volume: dict[str, Any], claim: dict[str, Any]) -> str | None:
    """``checkVolumeSatisfyClaim``: why ``volume`` cannot serve ``claim``, if it cannot."""
    if volume["metadata"].get("deletionTimestamp"):
        return f'the volume is marked for deletion "{volume["metadata"]["name"]}"'
    if _size(volume) < _size(claim):
        return "requested PV is too small"
    if (_spec(volume).get("storageClassName") or "") != (
        _spec(claim).get("storageClassName") or ""
    ):
        return "storageClassName does not match"
    if (_spec(volume).get("volumeMode") or "Filesystem") != (
        _spec(claim).get("volumeMode") or "Filesystem"
    ):
        return "incompatible volumeMode"
    if not set(_spec(claim).get("accessModes") or []) <= set(
        _spec(volume).get("accessModes") or []
    ):
        return "incompatible accessMode"
    return None


def _claimed_by(volume: dict[str, Any], claim: dict[str, Any]) -> bool | None:
    """True if the volume's claimRef names the claim, False if another, None if none."""
    ref = _spec(volume).get("claimRef")
    if not ref:
        return None
    meta = claim["metadata"]
    same = (ref.get("namespace"), ref.get("name")) == (meta.get("namespace"), meta["name"])
    return same and ref.get("uid") in (None, "", meta["uid"])


async def _install_standard_class(cluster: Cluster) -> None:
    """The default class as kind installs it: no 1.32 server component creates a
    StorageClass (its post-start hooks make namespaces, priority classes and RBAC
    roles), kind applies its ``standard`` manifest with kubectl as the cluster's admin,
    an ordinary request that admission sees; a refused one is left out, as it would be
    there."""
    with contextlib.suppress(StatusError):
        await ControllerRequests(cluster, ADMIN).create(_CLASSES, "", standard_class())


class VolumeBinder(ControllerLoop):
    resource = _CLAIMS
    account = "persistent-volume-binder"

    def __init__(self, cluster: Cluster) -> None:
        super().__init__(cluster)
        self._told: set[tuple[str, str]] = set()

    def start(self) -> None:
        if not self.cluster.list(_CLASSES):
            self._installing = run_eagerly(_install_standard_class(self.cluster))
        super().start()
        for volume in self.cluster.list(_VOLUMES):
            self.enqueue(("", volume["metadata"]["name"]))

    def key_mappers(self) -> dict[ResourceKey, KeyMapper]:
        return {
            _CLAIMS: own_key,
            _VOLUMES: self._volume_keys,
            _PODS: self._pod_keys,
            _CLASSES: self._class_keys,
        }

    def _class_keys(self, event: Event) -> Iterable[Key]:
        return [key_of(c) for c in self.cluster.list(_CLAIMS) if not _bound(c)]

    @staticmethod
    def _volume_keys(event: Event) -> Iterable[Key]:
        keys = [("", str(event.object["metadata"]["name"]))]
        ref = _spec(event.object).get("claimRef") or {}
        if ref.get("namespace") and ref.get("name"):
            keys.append((str(ref["namespace"]), str(ref["name"])))
        return keys

    @staticmethod
    def _pod_keys(event: Event) -> Iterable[Key]:
        if _spec(event.object).get("nodeName"):
            namespace = event.object["metadata"].get("namespace") or ""
            return [(namespace, name) for name in claims_of(event.object)]
        return ()

    async def sync(self, key: Key) -> float | None:
        if not key[0]:
            await self._sync_volume(key[1])
            return None
        claim = self.cluster.get(_CLAIMS, *key)
        if claim is None:
            await self._release(*key)
        elif not _bound(claim) and not claim["metadata"].get("deletionTimestamp"):
            await self._sync_claim(claim)
        return None

    async def _sync_volume(self, name: str) -> None:
        """``syncVolume`` for a volume nobody claims: it is Available."""
        volume = self.cluster.get(_VOLUMES, "", name)
        if (
            volume is None
            or volume["metadata"].get("deletionTimestamp")
            or _spec(volume).get("claimRef")
        ):
            return
        if (volume.get("status") or {}).get("phase") != "Available":
            body = copy(volume)
            body["status"] = {"phase": "Available"}
            await self.api.update_status(_VOLUMES, body)

    async def _sync_claim(self, claim: dict[str, Any]) -> None:
        spec = _spec(claim)
        if spec.get("volumeName"):
            await self._sync_requested(claim, str(spec["volumeName"]))
            return
        if spec.get("storageClassName") is None:
            default = self._default_class()
            if default is not None:
                body = copy(claim)
                body["spec"]["storageClassName"] = default["metadata"]["name"]
                await self.api.update(_CLAIMS, body)
                return
        volume = self._best_match(claim)
        if volume is not None:
            await self._bind(claim, volume)
            return
        class_name = spec.get("storageClassName") or ""
        if not class_name:
            self._event(claim, "Normal", "FailedBinding", _NO_CLASS)
            return
        storage_class = self.cluster.get(_CLASSES, "", class_name)
        if storage_class is None:
            message = f'storageclass.storage.k8s.io "{class_name}" not found'
            self._event(claim, "Warning", "ProvisioningFailed", message)
            return
        node = await self._selected_node(claim, storage_class)
        if node is not None:
            await self._provision(claim, storage_class, node)

    async def _sync_requested(self, claim: dict[str, Any], name: str) -> None:
        """The claim names its volume (``syncUnboundClaim`` with ``spec.volumeName``)."""
        volume = self.cluster.get(_VOLUMES, "", name)
        if volume is None:
            return  # Pending until it exists
        owner = _claimed_by(volume, claim)
        if owner is False:
            message = f'volume "{name}" already bound to a different claim.'
            self._event(claim, "Warning", "FailedBinding", message)
            return
        why = mismatch(volume, claim) if owner is None else None
        if why is not None:
            message = f'Cannot bind to requested volume "{name}": {why}'
            self._event(claim, "Warning", "VolumeMismatch", message)
            return
        await self._bind(claim, volume)

    # --- finding or making a volume ---------------------------------------------------------

    def _default_class(self) -> dict[str, Any] | None:
        defaults = [
            c
            for c in self.cluster.list(_CLASSES)
            if (c["metadata"].get("annotations") or {}).get(DEFAULT_CLASS) == "true"
        ]
        # several defaults: the newest wins, as GetDefaultClass picks it
        return max(
            defaults, key=lambda c: str(c["metadata"].get("creationTimestamp")), default=None
        )

    def _best_match(self, claim: dict[str, Any]) -> dict[str, Any] | None:
        """``findBestMatchForClaim``: a volume pre-bound to the claim, else the smallest
        unclaimed one that fits."""
        fitting = []
        for volume in self.cluster.list(_VOLUMES):
            owner = _claimed_by(volume, claim)
            if owner is False or mismatch(volume, claim) is not None:
                continue
            if owner:
                return volume
            if not _spec(volume).get("claimRef"):
                fitting.append(volume)
        return min(fitting, key=_size, default=None)

    async def _selected_node(
        self, claim: dict[str, Any], storage_class: dict[str, Any]
    ) -> str | None:
        """The node a WaitForFirstConsumer claim's first pod went to ("" for Immediate),
        written into the claim's selected-node annotation; None while there is none."""
        if storage_class.get("volumeBindingMode") != "WaitForFirstConsumer":
            return ""
        meta = claim["metadata"]
        chosen = (meta.get("annotations") or {}).get(_SELECTED_NODE)
        if chosen:
            return str(chosen)
        for pod in self.cluster.list(_PODS, meta.get("namespace") or ""):
            node = _spec(pod).get("nodeName")
            if node and meta["name"] in claims_of(pod):
                body = copy(claim)
                body["metadata"].setdefault("annotations", {})[_SELECTED_NODE] = str(node)
                await self.api.update(_CLAIMS, body)
                return None  # the update brings the claim back with its node
        if (meta["uid"], "wait") not in self._told:
            self._told.add((meta["uid"], "wait"))
            message = "waiting for first consumer to be created before binding"
            self._event(claim, "Normal", "WaitForFirstConsumer", message)
        return None

    async def _provision(
        self, claim: dict[str, Any], storage_class: dict[str, Any], node: str
    ) -> None:
        provisioner = str(storage_class.get("provisioner") or "")
        notes = claim["metadata"].get("annotations") or {}
        if any(notes.get(n) != provisioner for n in _PROVISIONER_NOTES):
            body = copy(claim)
            for note in _PROVISIONER_NOTES:
                body["metadata"].setdefault("annotations", {})[note] = provisioner
            await self.api.update(_CLAIMS, body)
            return  # the update brings the claim back, annotated as a provisioner expects
        meta = claim["metadata"]
        if (meta["uid"], "external") not in self._told:
            self._told.add((meta["uid"], "external"))
            self._event(
                claim,
                "Normal",
                "ExternalProvisioning",
                f"Waiting for a volume to be created either by the external provisioner "
                f"'{provisioner}' or manually by the system administrator. If volume creation "
                f"is delayed, please verify that the provisioner is running and correctly "
                f"registered.",
            )
        if provisioner != PROVISIONER:
            return  # another provisioner's business; a static volume may come too
        who = f"{meta.get('namespace')}/{meta['name']}"
        self._event(
            claim,
            "Normal",
            "Provisioning",
            f'External provisioner is provisioning volume for claim "{who}"',
            component=PROVISIONER,
        )
        volume = await self.api.create(_VOLUMES, "", volume_for(claim, storage_class, node))
        message = f"Successfully provisioned volume {volume['metadata']['name']}"
        self._event(claim, "Normal", "ProvisioningSucceeded", message, component=PROVISIONER)
        await self._bind(claim, volume)

    # --- binding ----------------------------------------------------------------------------

    async def _bind(self, claim: dict[str, Any], volume: dict[str, Any]) -> None:
        """``bind``: the volume's claimRef and phase, then the claim's volumeName and phase."""
        bound_volume = copy(volume)
        if not _spec(volume).get("claimRef"):
            bound_volume["metadata"].setdefault("annotations", {})[_BOUND_BY_CONTROLLER] = "yes"
        bound_volume["spec"]["claimRef"] = claim_ref(claim)
        bound_volume = await self.api.update(_VOLUMES, bound_volume)
        bound_volume["status"] = {"phase": "Bound"}
        await self.api.update_status(_VOLUMES, bound_volume)
        body = copy(claim)
        notes = body["metadata"].setdefault("annotations", {})
        if _spec(claim).get("volumeName") != volume["metadata"]["name"]:
            body["spec"]["volumeName"] = volume["metadata"]["name"]
            notes[_BOUND_BY_CONTROLLER] = "yes"
        notes["pv.kubernetes.io/bind-completed"] = "yes"
        body = await self.api.update(_CLAIMS, body)
        body["status"] = {
            "phase": "Bound",
            "accessModes": list(_spec(volume).get("accessModes") or []),
            "capacity": dict(_spec(volume).get("capacity") or {}),
        }
        await self.api.update_status(_CLAIMS, body)

    async def _release(self, namespace: str, name: str) -> None:
        """A claim is gone: its volume is deleted or kept ``Released``, as its policy says."""
        for volume in self.cluster.list(_VOLUMES):
            ref = _spec(volume).get("claimRef") or {}
            if (ref.get("namespace"), ref.get("name")) != (namespace, name):
                continue
            if (volume.get("status") or {}).get("phase") == "Released" or volume["metadata"].get(
                "deletionTimestamp"
            ):
                continue
            vmeta = volume["metadata"]
            released = copy(volume)
            released["status"] = {"phase": "Released"}
            await self.api.update_status(_VOLUMES, released)  # no longer Bound: unprotected
            if _spec(volume).get("persistentVolumeReclaimPolicy") == "Delete":
                await self.api.delete(_VOLUMES, "", vmeta["name"], uid=vmeta["uid"])

    def _event(
        self,
        claim: dict[str, Any],
        kind: str,
        reason: str,
        message: str,
        component: str = _COMPONENT,
    ) -> None:
        self.cluster.record(claim, kind, reason, message, component=component)


def _bound(claim: dict[str, Any]) -> bool:
    return (claim.get("status") or {}).get("phase") == "Bound"
