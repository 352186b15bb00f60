"""The simulated storage: a default StorageClass and the external provisioner behind it.

The server starts with ``standard`` when no StorageClass exists, as kind's
(``storageclass.kubernetes.io/is-default-class: "true"``, ``volumeBindingMode:
WaitForFirstConsumer``, ``reclaimPolicy: Delete``), its provisioner
``kubeforge.dev/hostpath``. That provisioner, like an external-provisioner sidecar, makes
``pvc-<claim uid>``: a host path on the claim's selected node (a node affinity to it),
the claim's size and access modes, already pointing at the claim (``claimRef``), annotated
``pv.kubernetes.io/provisioned-by``; the binder then binds the two.

Entry points: ``PROVISIONER``, ``standard_class()``, ``volume_for(claim, class, node)``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["DEFAULT_CLASS", "PROVISIONER", "claim_ref", "standard_class", "volume_for"]

PROVISIONER = "kubeforge.dev/hostpath"
DEFAULT_CLASS = "storageclass.kubernetes.io/is-default-class"


def standard_class() -> dict[str, Any]:
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {"name": "standard", "annotations": {DEFAULT_CLASS: "true"}},
        "provisioner": PROVISIONER,
        "reclaimPolicy": "Delete",
        "volumeBindingMode": "WaitForFirstConsumer",
    }


def claim_ref(claim: dict[str, Any]) -> dict[str, Any]:
    """The ``spec.claimRef`` a volume bound to ``claim`` carries."""
    meta = claim["metadata"]
    return {
        "kind": "PersistentVolumeClaim",
        "namespace": meta.get("namespace"),
        "name": meta["name"],
        "uid": meta["uid"],
        "apiVersion": "v1",
        "resourceVersion": meta.get("resourceVersion"),
    }


def volume_for(claim: dict[str, Any], storage_class: dict[str, Any], node: str) -> dict[str, Any]:
    """The volume the simulated provisioner makes for ``claim`` (on ``node``, if any)."""
    meta, spec = claim["metadata"], claim.get("spec") or {}
    name = f"pvc-{meta['uid']}"
    requested = ((spec.get("resources") or {}).get("requests") or {}).get("storage", "0")
    volume_spec: dict[str, Any] = {
        "capacity": {"storage": str(requested)},
        "accessModes": list(spec.get("accessModes") or ["ReadWriteOnce"]),
        "claimRef": claim_ref(claim),
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
