"""The validation of Secrets, claims, Ingresses and NetworkPolicies as real clients meet it:
kubectl prints the server's 422 and warnings as it would from a 1.32 cluster, and the
official ``kubernetes`` package raises ``ApiException`` with the server's Status; a claim
grows only when its class allows it (PersistentVolumeClaimResize)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from kubernetes import client as k8s
from kubernetes.client.rest import ApiException

from .kf_kubectl import Kubectl, until


def _manifest(obj: dict[str, Any]) -> str:
    return json.dumps(obj)


def test_kubectl_shows_a_secret_types_missing_keys_and_the_tls_warning(kubectl: Kubectl) -> None:
    docker = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "registry"},
        "type": "kubernetes.io/dockerconfigjson",
        "stringData": {".dockerconfigjson": "{'auths': {}}"},
    }
    stderr = kubectl.fails("create", "-f", "-", stdin=_manifest(docker))
    assert stderr.strip() == (
        'The Secret "registry" is invalid: data[.dockerconfigjson]: Invalid value: '
        "\"<secret contents redacted>\": invalid character '\\'' looking for beginning of "
        "object key string"
    )
    tls = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "site"},
        "type": "kubernetes.io/tls",
        "stringData": {"tls.crt": "", "tls.key": ""},
    }
    done = kubectl.complete("create", "-f", "-", stdin=_manifest(tls))
    assert done.returncode == 0, done.stderr
    assert "Warning: tls: failed to find any PEM data in certificate input" in done.stderr


def test_kubectl_shows_every_broken_ingress_rule(kubectl: Kubectl) -> None:
    backend = {"service": {"name": "web", "port": {"name": "http", "number": 80}}}
    ingress = {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {"name": "shop"},
        "spec": {
            "rules": [
                {
                    "host": "10.0.0.1",
                    "http": {"paths": [{"path": "/", "pathType": "Prefix", "backend": backend}]},
                }
            ]
        },
    }
    stderr = kubectl.fails("create", "-f", "-", stdin=_manifest(ingress))
    assert 'The Ingress "shop" is invalid: ' in stderr
    assert (
        '* spec.rules[0].host: Invalid value: "10.0.0.1": must be a DNS name, not an IP address'
        in stderr
    )
    assert (
        '* spec.rules[0].http.paths[0].backend: Invalid value: "": cannot set both port name '
        "& port number" in stderr
    )


def test_the_official_client_gets_the_claim_and_policy_refusals(
    core_v1: Any, api_client: Any, namespace: str
) -> None:
    claim = k8s.V1PersistentVolumeClaim(
        metadata=k8s.V1ObjectMeta(name="empty"),
        spec=k8s.V1PersistentVolumeClaimSpec(
            resources=k8s.V1VolumeResourceRequirements(requests={"storage": "0"})
        ),
    )
    with pytest.raises(ApiException) as refused:
        core_v1.create_namespaced_persistent_volume_claim(namespace, claim)
    assert refused.value.status == 422
    status = json.loads(refused.value.body)
    assert [(c["field"], c["message"]) for c in status["details"]["causes"]] == [
        ("spec.accessModes", "Required value: at least 1 access mode is required"),
        ("spec.resources[storage]", 'Invalid value: "0": must be greater than zero'),
    ]
    policy = k8s.V1NetworkPolicy(
        metadata=k8s.V1ObjectMeta(name="deny"),
        spec=k8s.V1NetworkPolicySpec(
            pod_selector=k8s.V1LabelSelector(),
            ingress=[
                k8s.V1NetworkPolicyIngressRule(
                    _from=[k8s.V1NetworkPolicyPeer(ip_block=k8s.V1IPBlock(cidr="10.0.0.0/33"))]
                )
            ],
        ),
    )
    networking = k8s.NetworkingV1Api(api_client)
    with pytest.raises(ApiException) as bad_cidr:
        networking.create_namespaced_network_policy(namespace, policy)
    assert json.loads(bad_cidr.value.body)["message"] == (
        'NetworkPolicy.networking.k8s.io "deny" is invalid: '
        'spec.ingress[0].from[0].ipBlock.cidr: Invalid value: "10.0.0.0/33": not a valid CIDR'
    )


def _bound_claim(core: Any, namespace: str, storage_class: str) -> str:
    """A claim bound to a static volume of ``storage_class``; returns the volume's name."""
    volume = f"{namespace}-{storage_class}"
    core.create_persistent_volume(
        k8s.V1PersistentVolume(
            metadata=k8s.V1ObjectMeta(name=volume),
            spec=k8s.V1PersistentVolumeSpec(
                capacity={"storage": "1Gi"},
                access_modes=["ReadWriteOnce"],
                storage_class_name=storage_class,
                host_path=k8s.V1HostPathVolumeSource(path=f"/tmp/{volume}"),
            ),
        )
    )
    claim = k8s.V1PersistentVolumeClaim(
        metadata=k8s.V1ObjectMeta(name=storage_class),
        spec=k8s.V1PersistentVolumeClaimSpec(
            access_modes=["ReadWriteOnce"],
            resources=k8s.V1VolumeResourceRequirements(requests={"storage": "1Gi"}),
            storage_class_name=storage_class,
            volume_name=volume,
        ),
    )
    core.create_namespaced_persistent_volume_claim(namespace, claim)
    until(
        lambda: core.read_namespaced_persistent_volume_claim(storage_class, namespace),
        lambda c: c.status.phase == "Bound",
    )
    return volume


def test_a_bound_claim_grows_only_when_its_class_allows_expansion(
    core_v1: Any, api_client: Any, namespace: str
) -> None:
    storage = k8s.StorageV1Api(api_client)
    expandable = f"{namespace}-grow"
    storage.create_storage_class(
        k8s.V1StorageClass(
            metadata=k8s.V1ObjectMeta(name=expandable),
            provisioner="example.com/none",
            allow_volume_expansion=True,
        )
    )
    fixed = f"{namespace}-fixed"
    volumes = [_bound_claim(core_v1, namespace, name) for name in (expandable, fixed)]
    grow = {"spec": {"resources": {"requests": {"storage": "2Gi"}}}}
    try:
        grown = core_v1.patch_namespaced_persistent_volume_claim(expandable, namespace, grow)
        assert grown.spec.resources.requests == {"storage": "2Gi"}
        with pytest.raises(ApiException) as refused:
            core_v1.patch_namespaced_persistent_volume_claim(fixed, namespace, grow)
        assert refused.value.status == 403
        assert json.loads(refused.value.body)["message"] == (
            f'persistentvolumeclaims "{fixed}" is forbidden: only dynamically provisioned pvc '
            "can be resized and the storageclass that provisions the pvc must support resize"
        )
    finally:
        for name in (expandable, fixed):
            core_v1.delete_namespaced_persistent_volume_claim(name, namespace)
        for volume in volumes:
            core_v1.delete_persistent_volume(volume)
        storage.delete_storage_class(expandable)
