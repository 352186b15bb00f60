"""Claims bound by the default StorageClass through the real kubectl, as kind's cluster shows them.

``standard`` is the default class (WaitForFirstConsumer): a claim alone stays Pending
with the ``WaitForFirstConsumer`` event; the first pod using it puts it on a node and a
``pvc-<uid>`` volume is provisioned and bound. An ``Immediate`` class binds at once, and
the volume goes with the claim under ``reclaimPolicy: Delete``.
"""

from __future__ import annotations

import json
from typing import Any

from .kf_kubectl import Kubectl
from .test_kubectl_statefulsets import _manifest


def _claim(name: str, **spec: Any) -> str:
    body = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name},
        "spec": {
            "accessModes": ["ReadWriteOnce"],
            "resources": {"requests": {"storage": "2Gi"}},
            **spec,
        },
    }
    return json.dumps(body)


def _pod_using(name: str, claim: str) -> str:
    body = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {
            "containers": [{"name": "main", "image": "nginx"}],
            "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": claim}}],
        },
    }
    return json.dumps(body)


def test_the_default_class_binds_a_claim_once_its_first_pod_is_on_a_node(
    kubectl: Kubectl,
) -> None:
    sc = kubectl.json("storageclass", "standard")
    assert sc["metadata"]["annotations"]["storageclass.kubernetes.io/is-default-class"] == "true"
    assert sc["volumeBindingMode"] == "WaitForFirstConsumer"

    kubectl.run("create", "-f", "-", stdin=_claim("data"))
    waiting = kubectl.until(("pvc", "data"), lambda c: c["spec"].get("storageClassName"))
    assert waiting["spec"]["storageClassName"] == "standard"
    assert waiting["status"]["phase"] == "Pending"
    kubectl.until(
        ("events", "--field-selector", "involvedObject.name=data"),
        lambda b: [e["reason"] for e in b["items"]] == ["WaitForFirstConsumer"],
    )

    kubectl.run("create", "-f", "-", stdin=_pod_using("user", "data"))
    bound = kubectl.until(("pvc", "data"), lambda c: c["status"]["phase"] == "Bound")
    node = kubectl.json("pod", "user")["spec"]["nodeName"]
    volume_name = f"pvc-{bound['metadata']['uid']}"
    assert bound["spec"]["volumeName"] == volume_name
    notes = bound["metadata"]["annotations"]
    assert notes["pv.kubernetes.io/bind-completed"] == "yes"
    assert notes["pv.kubernetes.io/bound-by-controller"] == "yes"
    assert notes["volume.kubernetes.io/storage-provisioner"] == "kubeforge.dev/hostpath"
    assert bound["status"]["capacity"] == {"storage": "2Gi"}
    assert bound["status"]["accessModes"] == ["ReadWriteOnce"]

    volume = kubectl.json("pv", volume_name)
    assert volume["status"]["phase"] == "Bound"
    assert volume["spec"]["claimRef"]["uid"] == bound["metadata"]["uid"]
    assert volume["spec"]["storageClassName"] == "standard"
    terms = volume["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"]
    assert terms[0]["matchExpressions"][0]["values"] == [node]
    reasons = [e["reason"] for e in kubectl.events("PersistentVolumeClaim", "data")]
    assert reasons[-1] == "ProvisioningSucceeded"
    assert "Bound" in kubectl.run("get", "pvc", "data")


def test_an_immediate_class_binds_at_once_and_the_volume_goes_with_the_claim(
    kubectl: Kubectl,
) -> None:
    name = f"now-{kubectl.namespace}"
    manifest = {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {"name": name},
        "provisioner": "kubeforge.dev/hostpath",
        "volumeBindingMode": "Immediate",
    }
    kubectl.run("create", "-f", "-", stdin=json.dumps(manifest), namespaced=False)
    kubectl.run("create", "-f", "-", stdin=_claim("fast", storageClassName=name))
    bound = kubectl.until(("pvc", "fast"), lambda c: c["status"]["phase"] == "Bound")
    volume_name = bound["spec"]["volumeName"]
    assert "nodeAffinity" not in kubectl.json("pv", volume_name)["spec"]
    kubectl.run("delete", "pvc", "fast")
    kubectl.until(
        ("pv",),
        lambda b: volume_name not in [v["metadata"]["name"] for v in b["items"]],
    )


def test_a_stateful_sets_claims_are_bound_on_the_nodes_of_its_pods(kubectl: Kubectl) -> None:
    kubectl.run("create", "-f", "-", stdin=_manifest("vol", 2))
    kubectl.run("rollout", "status", "sts/vol", "--timeout=60s")
    kubectl.until(
        ("pvc",),
        lambda b: len(b["items"]) == 2 and all(c["status"]["phase"] == "Bound" for c in b["items"]),
    )
