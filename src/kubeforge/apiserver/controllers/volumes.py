"""The PersistentVolume binder with a simulated provisioner: claims become Bound.

The server starts with a default StorageClass when none exists, ``standard`` as kind's
(``storageclass.kubernetes.io/is-default-class: "true"``, ``volumeBindingMode:
WaitForFirstConsumer``, ``reclaimPolicy: Delete``), its provisioner ``kubeforge.dev/hostpath``.
Each claim is then handled as the 1.32 ``persistentvolume`` controller and an external
provisioner handle it: a claim without ``storageClassName`` gets the default class (the
retroactive default assignment); a matching Available volume is bound first; otherwise,
under ``WaitForFirstConsumer``, the claim waits (``WaitForFirstConsumer`` event) until a
pod using it is on a node (``volume.kubernetes.io/selected-node``); then a volume
``pvc-<claim uid>`` is provisioned (``ExternalProvisioning``, ``Provisioning``,
``ProvisioningSucceeded``) and both are bound: the claim gets ``spec.volumeName``,
``pv.kubernetes.io/bind-completed: "yes"``, ``pv.kubernetes.io/bound-by-controller:
"yes"``, the ``storage-provisioner`` annotations and phase ``Bound``. A deleted claim's
volume is deleted (``reclaimPolicy: Delete``) or left ``Released``.

Entry point: ``VolumeBinder(cluster)``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kubeforge.apiserver.controllers.cluster import Cluster, copy
from kubeforge.apiserver.controllers.loop import Key, KeyedLoop, key_of
from kubeforge.apiserver.controllers.nodes import quantity
from kubeforge.apiserver.storage.sqlite import Event

__all__ = ["PROVISIONER", "VolumeBinder"]

PROVISIONER = "kubeforge.dev/hostpath"
_CLAIMS = ("", "persistentvolumeclaims")
_VOLUMES = ("", "persistentvolumes")
_CLASSES = ("storage.k8s.io", "storageclasses")
_PODS = ("", "pods")
_DEFAULT = "storageclass.kubernetes.io/is-default-class"
_SELECTED_NODE = "volume.kubernetes.io/selected-node"
_COMPONENT = "persistentvolume-controller"


def _claims_of(pod: dict[str, Any]) -> list[str]:
    volumes = (pod.get("spec") or {}).get("volumes") or []
    return [
        str(v["persistentVolumeClaim"]["claimName"])
        for v in volumes
        if isinstance(v, dict) and (v.get("persistentVolumeClaim") or {}).get("claimName")
    ]


def _request(claim: dict[str, Any]) -> Any:
    requests = ((claim.get("spec") or {}).get("resources") or {}).get("requests") or {}
    return quantity(requests.get("storage", "0"))


class VolumeBinder(KeyedLoop):
    resource = _CLAIMS

    def __init__(self, cluster: Cluster) -> None:
        super().__init__(cluster.engine, cluster.registry)
        self.cluster = cluster
        self._told_to_wait: set[str] = set()

    def start(self) -> None:
        if not self.cluster.list(_CLASSES):
            self.cluster.create(_CLASSES, "", _standard_class())
        super().start()

    def keys_for(self, event: Event) -> Iterable[Key]:
        if event.resource == _CLAIMS:
            return (key_of(event.object),)
        if event.resource == _PODS and (event.object.get("spec") or {}).get("nodeName"):
            namespace = event.object["metadata"].get("namespace") or ""
            return [(namespace, name) for name in _claims_of(event.object)]
        if event.resource == _CLASSES:
            return [key_of(c) for c in self.cluster.list(_CLAIMS) if not _bound(c)]
        return ()

    def sync(self, key: Key) -> float | None:
        claim = self.cluster.get(_CLAIMS, *key)
        if claim is None:
            self._release(*key)
            return None
        if _bound(claim) or claim["metadata"].get("deletionTimestamp"):
            return None
        spec = claim.get("spec") or {}
        if spec.get("storageClassName") is None:
            default = self._default_class()
            if default is not None:
                body = copy(claim)
                body["spec"]["storageClassName"] = default["metadata"]["name"]
                self.cluster.update(_CLAIMS, body)
            return None
        volume = self._available_volume(claim)
        if volume is None:
            volume = self._provision(claim)
        if volume is not None:
            self._bind(claim, volume)
        return None

    # --- finding or making a volume ---------------------------------------------------------

    def _default_class(self) -> dict[str, Any] | None:
        defaults = [
            c
            for c in self.cluster.list(_CLASSES)
            if (c["metadata"].get("annotations") or {}).get(_DEFAULT) == "true"
        ]
        # several defaults: the newest wins, as GetDefaultClass picks it
        return max(
            defaults, key=lambda c: str(c["metadata"].get("creationTimestamp")), default=None
        )

    def _available_volume(self, claim: dict[str, Any]) -> dict[str, Any] | None:
        spec = claim.get("spec") or {}
        wanted_modes = set(spec.get("accessModes") or [])
        fitting = [
            v
            for v in self.cluster.list(_VOLUMES)
            if (v.get("status") or {}).get("phase") in (None, "Pending", "Available")
            and not (v.get("spec") or {}).get("claimRef")
            and (v.get("spec") or {}).get("storageClassName", "") == spec.get("storageClassName")
            and wanted_modes <= set((v.get("spec") or {}).get("accessModes") or [])
            and quantity(((v.get("spec") or {}).get("capacity") or {}).get("storage", "0"))
            >= _request(claim)
        ]
        # the smallest volume that fits, as findBestMatchForClaim chooses
        return min(
            fitting,
            key=lambda v: quantity(v["spec"]["capacity"]["storage"]),
            default=None,
        )

    def _provision(self, claim: dict[str, Any]) -> dict[str, Any] | None:
        name = (claim.get("spec") or {}).get("storageClassName") or ""
        storage_class = self.cluster.get(_CLASSES, "", name) if name else None
        if storage_class is None or storage_class.get("provisioner") != PROVISIONER:
            return None  # a static volume may still come; a real cluster waits too
        node = self._selected_node(claim, storage_class)
        if node is None:
            return None
        self._event(
            claim,
            "Normal",
            "ExternalProvisioning",
            f"Waiting for a volume to be created either by the external provisioner "
            f"'{PROVISIONER}' or manually by the system administrator. If volume creation "
            f"is delayed, please verify that the provisioner is running and correctly "
            f"registered.",
        )
        meta = claim["metadata"]
        self._event(
            claim,
            "Normal",
            "Provisioning",
            f'External provisioner is provisioning volume for claim "{meta.get("namespace")}'
            f'/{meta["name"]}"',
            component=PROVISIONER,
        )
        volume = self.cluster.create(_VOLUMES, "", _volume_for(claim, storage_class, node))
        self._event(
            claim,
            "Normal",
            "ProvisioningSucceeded",
            f"Successfully provisioned volume {volume['metadata']['name']}",
            component=PROVISIONER,
        )
        return volume

    def _selected_node(self, claim: dict[str, Any], storage_class: dict[str, Any]) -> str | None:
        """The node a WaitForFirstConsumer claim's first pod went to ("" for Immediate)."""
        if storage_class.get("volumeBindingMode") != "WaitForFirstConsumer":
            return ""
        annotations = claim["metadata"].get("annotations") or {}
        if annotations.get(_SELECTED_NODE):
            return str(annotations[_SELECTED_NODE])
        meta = claim["metadata"]
        for pod in self.cluster.list(_PODS, meta.get("namespace") or ""):
            node = (pod.get("spec") or {}).get("nodeName")
            if node and meta["name"] in _claims_of(pod):
                return str(node)
        if meta["uid"] not in self._told_to_wait:
            self._told_to_wait.add(meta["uid"])
            message = "waiting for first consumer to be created before binding"
            self._event(claim, "Normal", "WaitForFirstConsumer", message)
        return None

    # --- binding ----------------------------------------------------------------------------

    def _bind(self, claim: dict[str, Any], volume: dict[str, Any]) -> None:
        meta = claim["metadata"]
        bound_volume = copy(volume)
        bound_volume["spec"]["claimRef"] = {
            "kind": "PersistentVolumeClaim",
            "namespace": meta.get("namespace"),
            "name": meta["name"],
            "uid": meta["uid"],
            "apiVersion": "v1",
            "resourceVersion": meta.get("resourceVersion"),
        }
        bound_volume = self.cluster.update(_VOLUMES, bound_volume)
        bound_volume["status"] = {"phase": "Bound"}
        self.cluster.update_status(_VOLUMES, bound_volume)
        body = copy(claim)
        notes = body["metadata"].setdefault("annotations", {})
        notes["pv.kubernetes.io/bind-completed"] = "yes"
        notes["pv.kubernetes.io/bound-by-controller"] = "yes"
        if (volume["metadata"].get("annotations") or {}).get("pv.kubernetes.io/provisioned-by"):
            notes["volume.beta.kubernetes.io/storage-provisioner"] = PROVISIONER
            notes["volume.kubernetes.io/storage-provisioner"] = PROVISIONER
        body["spec"]["volumeName"] = volume["metadata"]["name"]
        body = self.cluster.update(_CLAIMS, body)
        body["status"] = {
            "phase": "Bound",
            "accessModes": list(volume["spec"].get("accessModes") or []),
            "capacity": dict(volume["spec"].get("capacity") or {}),
        }
        self.cluster.update_status(_CLAIMS, body)

    def _release(self, namespace: str, name: str) -> None:
        """A claim is gone: its volume is deleted or kept ``Released``, as its policy says."""
        for volume in self.cluster.list(_VOLUMES):
            ref = (volume.get("spec") or {}).get("claimRef") or {}
            if (ref.get("namespace"), ref.get("name")) != (namespace, name):
                continue
            if (volume.get("status") or {}).get("phase") == "Released":
                continue
            vmeta = volume["metadata"]
            if volume["spec"].get("persistentVolumeReclaimPolicy") == "Delete":
                self.cluster.delete(_VOLUMES, "", vmeta["name"], uid=vmeta["uid"])
            else:
                released = copy(volume)
                released["status"] = {"phase": "Released"}
                self.cluster.update_status(_VOLUMES, released)

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


def _standard_class() -> dict[str, Any]:
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {"name": "standard", "annotations": {_DEFAULT: "true"}},
        "provisioner": PROVISIONER,
        "reclaimPolicy": "Delete",
        "volumeBindingMode": "WaitForFirstConsumer",
    }


def _volume_for(claim: dict[str, Any], storage_class: dict[str, Any], node: str) -> dict[str, Any]:
    """The volume the simulated provisioner makes: a host path on the chosen node."""
    meta, spec = claim["metadata"], claim.get("spec") or {}
    name = f"pvc-{meta['uid']}"
    volume_spec: dict[str, Any] = {
        "capacity": {
            "storage": str(
                ((spec.get("resources") or {}).get("requests") or {}).get("storage", "0")
            )
        },
        "accessModes": list(spec.get("accessModes") or ["ReadWriteOnce"]),
        "persistentVolumeReclaimPolicy": storage_class.get("reclaimPolicy") or "Delete",
        "storageClassName": storage_class["metadata"]["name"],
        "volumeMode": spec.get("volumeMode") or "Filesystem",
        "hostPath": {"path": f"/var/lib/kubeforge/volumes/{name}", "type": "DirectoryOrCreate"},
    }
    if node:
        term = {"key": "kubernetes.io/hostname", "operator": "In", "values": [node]}
        volume_spec["nodeAffinity"] = {
            "required": {"nodeSelectorTerms": [{"matchExpressions": [term]}]}
        }
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {
            "name": name,
            "annotations": {"pv.kubernetes.io/provisioned-by": PROVISIONER},
        },
        "spec": volume_spec,
    }
