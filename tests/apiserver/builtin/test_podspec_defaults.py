"""A pod spec's volume and probe defaults, as kubernetes 1.32's ``pkg/apis/core/v1/defaults.go``
and the ``+default`` markers of ``k8s.io/api/core/v1`` fill them, in pods and in templates:
a volume without a source is an ``emptyDir``, file modes are 0644 (420), token
projections last an hour, downward API field paths are in ``v1``."""

from __future__ import annotations

from typing import Any

from kf_http import Api
from kf_podspec import created, deployment, pod

MOUNT = "/etc/data"
VOLUMES: list[dict[str, Any]] = [
    {"name": "scratch"},
    {"name": "creds", "secret": {"secretName": "creds"}},
    {"name": "conf", "configMap": {"name": "conf"}},
    {"name": "host", "hostPath": {"path": "/var/log"}},
    {"name": "meta", "downwardAPI": {"items": [
        {"path": "labels", "fieldRef": {"fieldPath": "metadata.labels"}}]}},
    {"name": "token", "projected": {"sources": [
        {"serviceAccountToken": {"path": "token", "audience": "vault"}},
        {"downwardAPI": {"items": [
            {"path": "ns", "fieldRef": {"fieldPath": "metadata.namespace"}}]}},
    ]}},
    {"name": "disk", "rbd": {"monitors": ["10.0.0.1:6789"], "image": "disk"}},
]  # fmt: skip
DEFAULTED: list[dict[str, Any]] = [
    {"name": "scratch", "emptyDir": {}},
    {"name": "creds", "secret": {"secretName": "creds", "defaultMode": 420}},
    {"name": "conf", "configMap": {"name": "conf", "defaultMode": 420}},
    {"name": "host", "hostPath": {"path": "/var/log", "type": ""}},
    {"name": "meta", "downwardAPI": {"defaultMode": 420, "items": [
        {"path": "labels", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.labels"}}]}},
    {"name": "token", "projected": {"defaultMode": 420, "sources": [
        {"serviceAccountToken": {"path": "token", "audience": "vault", "expirationSeconds": 3600}},
        {"downwardAPI": {"items": [
            {"path": "ns", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}},
    ]}},
    {"name": "disk", "rbd": {"monitors": ["10.0.0.1:6789"], "image": "disk", "pool": "rbd",
                             "user": "admin", "keyring": "/etc/ceph/keyring"}},
]  # fmt: skip
GRPC_PROBE = {"grpc": {"port": 9000}}


def _own(volumes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The test's volumes (the ServiceAccount admission adds a kube-api-access one)."""
    return [v for v in volumes if not v["name"].startswith("kube-api-access-")]


async def test_a_pods_volumes_and_grpc_probe_are_defaulted(api: Api, namespace: str) -> None:
    body = pod("volumes", {"livenessProbe": GRPC_PROBE}, volumes=VOLUMES)
    stored = await created(api, namespace, body)
    assert _own(stored["spec"]["volumes"]) == DEFAULTED
    probe = stored["spec"]["containers"][0]["livenessProbe"]
    assert probe["grpc"] == {"port": 9000, "service": ""}


async def test_a_templates_volumes_are_defaulted_too(api: Api, namespace: str) -> None:
    body = deployment("volumes", volumes=VOLUMES)
    reply = await api.post(f"/apis/apps/v1/namespaces/{namespace}/deployments", body)
    assert reply.status == 201, reply.body
    template_spec = reply.body["spec"]["template"]["spec"]
    assert template_spec["volumes"] == DEFAULTED
    assert "enableServiceLinks" not in template_spec  # SetDefaults_Pod's, never a template's
