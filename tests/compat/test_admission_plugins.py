"""The default admission plugins of a 1.32 kube-apiserver, seen by kubectl and the
official client: ServiceAccount, DefaultTolerationSeconds, Priority, LimitRanger and
DefaultStorageClass change or refuse what is created, in the plugins' words."""

from __future__ import annotations

import json
from typing import Any

import pytest
from kubernetes import client as k8s
from kubernetes.client.rest import ApiException

from .kf_kubectl import Kubectl

pytestmark = pytest.mark.kubectl

_TOKEN_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"


def _pod(name: str, **spec: Any) -> str:
    body = {"containers": [{"name": "app", "image": "nginx"}], **spec}
    return json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": body})


def _get(kubectl: Kubectl, *args: str) -> dict[str, Any]:
    done = kubectl.complete("get", *args, "-o", "json")
    done.check_returncode()
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_kubectl_run_gets_the_service_account_volume_and_the_default_tolerations(
    kubectl: Kubectl,
) -> None:
    kubectl.complete("run", "web", "--image=nginx").check_returncode()
    spec = _get(kubectl, "pod", "web")["spec"]
    assert spec["serviceAccountName"] == "default"
    assert spec["serviceAccount"] == "default"
    (volume,) = spec["volumes"]
    assert volume["name"].startswith("kube-api-access-")
    assert len(volume["name"]) == len("kube-api-access-") + 5
    assert volume["projected"] == {
        "defaultMode": 420,
        "sources": [
            {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
            {
                "configMap": {
                    "name": "kube-root-ca.crt",
                    "items": [{"key": "ca.crt", "path": "ca.crt"}],
                }
            },
            {
                "downwardAPI": {
                    "items": [
                        {
                            "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"},
                            "path": "namespace",
                        }
                    ]
                }
            },
        ],
    }
    assert spec["containers"][0]["volumeMounts"] == [
        {"name": volume["name"], "readOnly": True, "mountPath": _TOKEN_PATH}
    ]
    assert spec["tolerations"] == [
        {
            "key": f"node.kubernetes.io/{taint}",
            "operator": "Exists",
            "effect": "NoExecute",
            "tolerationSeconds": 300,
        }
        for taint in ("not-ready", "unreachable")
    ]
    assert spec["priority"] == 0
    assert spec["preemptionPolicy"] == "PreemptLowerPriority"


def test_automount_off_and_a_missing_account(kubectl: Kubectl) -> None:
    pod = _pod("quiet", automountServiceAccountToken=False)
    kubectl.complete("create", "-f", "-", stdin=pod).check_returncode()
    spec = _get(kubectl, "pod", "quiet")["spec"]
    assert "volumes" not in spec
    assert "volumeMounts" not in spec["containers"][0]
    error = kubectl.fails("create", "-f", "-", stdin=_pod("lost", serviceAccountName="ghost"))
    assert (
        'pods "lost" is forbidden: error looking up service account '
        f'{kubectl.namespace}/ghost: serviceaccount "ghost" not found' in error
    )


def test_priority_classes_resolve_and_refuse(kubectl: Kubectl, api_client: Any) -> None:
    pod = _pod("critical", priorityClassName="system-cluster-critical")
    kubectl.complete("create", "-f", "-", stdin=pod).check_returncode()
    assert _get(kubectl, "pod", "critical")["spec"]["priority"] == 2000000000
    error = kubectl.fails("create", "-f", "-", stdin=_pod("nope", priorityClassName="nope"))
    assert 'pods "nope" is forbidden: no PriorityClass with name nope was found' in error
    stated = _pod("stated", priorityClassName="system-node-critical", priority=5)
    error = kubectl.fails("create", "-f", "-", stdin=stated)
    assert (
        "the integer value of priority (5) must not be provided in pod spec; priority "
        "admission controller computed 2000001000 from the given PriorityClass name" in error
    )
    scheduling = k8s.SchedulingV1Api(api_client)
    name = f"{kubectl.namespace}-default"
    scheduling.create_priority_class(
        k8s.V1PriorityClass(metadata=k8s.V1ObjectMeta(name=name), value=7, global_default=True)
    )
    try:
        kubectl.complete("create", "-f", "-", stdin=_pod("defaulted")).check_returncode()
        spec = _get(kubectl, "pod", "defaulted")["spec"]
        assert (spec["priorityClassName"], spec["priority"]) == (name, 7)
        second = k8s.V1PriorityClass(
            metadata=k8s.V1ObjectMeta(name=f"{name}-2"), value=8, global_default=True
        )
        with pytest.raises(ApiException) as caught:
            scheduling.create_priority_class(second)
        assert caught.value.status == 403
        assert (
            f"PriorityClass {name} is already marked as default. Only one default can exist"
            in json.loads(caught.value.body)["message"]
        )
    finally:
        scheduling.delete_priority_class(name, _preload_content=False)


def test_limit_ranges_fill_and_bound_container_resources(kubectl: Kubectl) -> None:
    limits = {
        "apiVersion": "v1",
        "kind": "LimitRange",
        "metadata": {"name": "bounds"},
        "spec": {
            "limits": [
                {
                    "type": "Container",
                    "default": {"cpu": "500m"},
                    "defaultRequest": {"cpu": "100m", "memory": "64Mi"},
                    "max": {"cpu": "1"},
                }
            ]
        },
    }
    kubectl.complete("create", "-f", "-", stdin=json.dumps(limits)).check_returncode()
    kubectl.complete("create", "-f", "-", stdin=_pod("filled")).check_returncode()
    pod = _get(kubectl, "pod", "filled")
    assert pod["spec"]["containers"][0]["resources"] == {
        "limits": {"cpu": "500m"},
        "requests": {"cpu": "100m", "memory": "64Mi"},
    }
    assert pod["metadata"]["annotations"]["kubernetes.io/limit-ranger"] == (
        "LimitRanger plugin set: cpu, memory request for container app; cpu limit for container app"
    )
    big = {"containers": [{"name": "app", "image": "nginx", "resources": {"limits": {"cpu": "2"}}}]}
    error = kubectl.fails("create", "-f", "-", stdin=_pod("big", **big))
    assert 'pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2' in error


def test_a_claim_without_a_class_gets_the_default_one(kubectl: Kubectl, api_client: Any) -> None:
    storage = k8s.StorageV1Api(api_client)
    name = f"{kubectl.namespace}-standard"
    default = {"storageclass.kubernetes.io/is-default-class": "true"}
    storage.create_storage_class(
        k8s.V1StorageClass(
            metadata=k8s.V1ObjectMeta(name=name, annotations=default), provisioner="example.com/x"
        )
    )
    try:
        claim = k8s.V1PersistentVolumeClaim(
            metadata=k8s.V1ObjectMeta(name="data"),
            spec=k8s.V1PersistentVolumeClaimSpec(
                access_modes=["ReadWriteOnce"],
                resources=k8s.V1VolumeResourceRequirements(requests={"storage": "1Gi"}),
            ),
        )
        core = k8s.CoreV1Api(api_client)
        created = core.create_namespaced_persistent_volume_claim(kubectl.namespace, claim)
        assert created.spec.storage_class_name == name
        claim.metadata.name = "explicit"
        claim.spec.storage_class_name = ""
        created = core.create_namespaced_persistent_volume_claim(kubectl.namespace, claim)
        assert created.spec.storage_class_name == ""
    finally:
        storage.delete_storage_class(name, _preload_content=False)
