"""kubectl delete against the local server: cascades, finalizers and namespace deletion."""

from __future__ import annotations

import json

import pytest

from .kf_kubectl import Kubectl

pytestmark = pytest.mark.kubectl


def _family(kubectl: Kubectl, owner: str, *children: str) -> None:
    """An owner ConfigMap and children that name it as controller (blocking deletion)."""
    kubectl.run("create", "configmap", owner)
    uid = kubectl.run("get", "configmap", owner, "-o", "jsonpath={.metadata.uid}")
    for child in children:
        manifest = {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {
                "name": child,
                "ownerReferences": [
                    {
                        "apiVersion": "v1",
                        "kind": "ConfigMap",
                        "name": owner,
                        "uid": uid,
                        "controller": True,
                        "blockOwnerDeletion": True,
                    }
                ],
            },
        }
        kubectl.run("create", "-f", "-", stdin=json.dumps(manifest))


def _names(kubectl: Kubectl) -> list[str]:
    out = kubectl.run("get", "configmaps", "-o", "jsonpath={.items[*].metadata.name}")
    return sorted(name for name in out.split() if name != "kube-root-ca.crt")


def test_cascade_foreground_returns_once_the_children_and_the_owner_are_gone(
    kubectl: Kubectl,
) -> None:
    _family(kubectl, "parent", "child-a", "child-b")
    out = kubectl.run("delete", "configmap", "parent", "--cascade=foreground")
    assert out.strip() == 'configmap "parent" deleted'
    assert _names(kubectl) == []


def test_cascade_orphan_keeps_the_children_without_owner_references(kubectl: Kubectl) -> None:
    _family(kubectl, "parent", "child")
    kubectl.run("delete", "configmap", "parent", "--cascade=orphan")
    assert _names(kubectl) == ["child"]
    refs = kubectl.run("get", "configmap", "child", "-o", "jsonpath={.metadata.ownerReferences}")
    assert refs == ""


def test_cascade_background_deletes_the_owner_and_the_collector_the_children(
    kubectl: Kubectl,
) -> None:
    _family(kubectl, "parent", "child")
    kubectl.run("delete", "configmap", "parent", "--cascade=background")
    kubectl.run("wait", "--for=delete", "configmap/child", "--timeout=30s")
    assert _names(kubectl) == []


def test_delete_without_waiting_leaves_a_finalized_object_marked(kubectl: Kubectl) -> None:
    manifest = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "held", "finalizers": ["example.com/hold"]},
    }
    kubectl.run("create", "-f", "-", stdin=json.dumps(manifest))
    kubectl.run("delete", "configmap", "held", "--wait=false")
    stamp = kubectl.run("get", "configmap", "held", "-o", "jsonpath={.metadata.deletionTimestamp}")
    assert stamp.endswith("Z")
    kubectl.run(
        "patch", "configmap", "held", "--type=merge", "-p", '{"metadata":{"finalizers":null}}'
    )
    kubectl.run("wait", "--for=delete", "configmap/held", "--timeout=30s")


def test_deleting_a_namespace_empties_it_and_waits_for_it_to_go(kubectl: Kubectl) -> None:
    kubectl.run("create", "namespace", "doomed", namespaced=False)
    kubectl.run("create", "configmap", "inside", "--namespace=doomed", namespaced=False)
    out = kubectl.run("delete", "namespace", "doomed", namespaced=False)
    assert out.strip() == 'namespace "doomed" deleted'
    missing = kubectl.fails("get", "namespace", "doomed", namespaced=False)
    assert 'namespaces "doomed" not found' in missing
