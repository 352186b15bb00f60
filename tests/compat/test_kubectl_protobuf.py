"""kubectl's protobuf bodies keep every field: create job --from, debug --copy-to, drain.

These commands read an object, change it, and send it back as
``application/vnd.kubernetes.protobuf``; the pod template below sets the fields a
hand-written decoder used to drop (affinity, probes, lifecycle, envFrom,
securityContext, volumes, dnsConfig, hostAliases, topologySpreadConstraints ...).
``pods/eviction`` is not served yet, so ``drain`` runs with ``--disable-eviction``
(a protobuf ``DeleteOptions`` DELETE per pod).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from .kf_kubectl import Kubectl

pytestmark = pytest.mark.kubectl

_PROBE = {"httpGet": {"path": "/healthz", "port": 8080, "scheme": "HTTP"}, "periodSeconds": 7}


def _pod_spec() -> dict[str, Any]:
    container = {
        "name": "app",
        "image": "nginx:1.27",
        "args": ["--port", "8080"],
        "ports": [{"containerPort": 8080, "name": "http", "protocol": "TCP"}],
        "envFrom": [{"configMapRef": {"name": "settings"}, "prefix": "CFG_"}],
        "env": [{"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
        "livenessProbe": _PROBE,
        "readinessProbe": {"exec": {"command": ["cat", "/ready"]}, "failureThreshold": 5},
        "startupProbe": {"tcpSocket": {"port": "http"}, "initialDelaySeconds": 2},
        "lifecycle": {"preStop": {"exec": {"command": ["sleep", "3"]}}},
        "securityContext": {
            "runAsUser": 0,
            "allowPrivilegeEscalation": False,
            "capabilities": {"drop": ["ALL"]},
            "readOnlyRootFilesystem": True,
        },
        "resources": {"limits": {"cpu": "500m", "memory": "128Mi"}, "requests": {"cpu": "250m"}},
        "volumeMounts": [{"name": "cache", "mountPath": "/cache"}],
    }
    return {
        "containers": [container],
        "volumes": [
            {"name": "cache", "emptyDir": {"sizeLimit": "1Gi"}},
            {"name": "conf", "configMap": {"name": "settings", "defaultMode": 420}},
        ],
        "affinity": {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}
                    ]
                }
            }
        },
        "tolerations": [{"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}],
        "dnsConfig": {"nameservers": ["10.0.0.10"], "options": [{"name": "ndots", "value": "2"}]},
        "hostAliases": [{"ip": "10.1.2.3", "hostnames": ["db.local"]}],
        "topologySpreadConstraints": [
            {
                "maxSkew": 1,
                "topologyKey": "zone",
                "whenUnsatisfiable": "ScheduleAnyway",
                "labelSelector": {"matchLabels": {"app": "web"}},
            }
        ],
        "securityContext": {"fsGroup": 2000, "runAsNonRoot": False},
        "automountServiceAccountToken": False,
    }


def _get(kubectl: Kubectl, kind: str, name: str) -> dict[str, Any]:
    obj: dict[str, Any] = json.loads(kubectl.run("get", kind, name, "-o", "json"))
    return obj


def _assert_kept(sent: dict[str, Any], stored: dict[str, Any]) -> None:
    """Every field that was sent is stored as sent (defaults may have been added)."""
    for key, value in sent.items():
        assert key in stored, key
        if isinstance(value, dict):
            _assert_kept(value, stored[key])
        elif isinstance(value, list) and value and isinstance(value[0], dict):
            assert len(stored[key]) == len(value), key
            for one, other in zip(value, stored[key], strict=True):
                _assert_kept(one, other)
        else:
            assert stored[key] == value, key


def test_create_job_from_a_cronjob_keeps_the_whole_template(kubectl: Kubectl) -> None:
    spec = _pod_spec() | {"restartPolicy": "Never"}
    cronjob = {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": "nightly"},
        "spec": {
            "schedule": "0 3 * * *",
            "jobTemplate": {
                "spec": {"backoffLimit": 0, "template": {"metadata": {}, "spec": spec}}
            },
        },
    }
    kubectl.run("create", "-f", "-", stdin=json.dumps(cronjob))
    created = kubectl.run("create", "job", "manual", "--from=cronjob/nightly")
    assert created.strip() == "job.batch/manual created"
    job = _get(kubectl, "job", "manual")
    stored = _get(kubectl, "cronjob", "nightly")["spec"]["jobTemplate"]["spec"]
    assert job["spec"]["backoffLimit"] == 0
    _assert_kept(spec, job["spec"]["template"]["spec"])
    assert job["spec"]["template"]["spec"] == stored["template"]["spec"]


def test_debug_copy_to_keeps_every_field_of_the_pod(kubectl: Kubectl) -> None:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "src"}, "spec": _pod_spec()}
    kubectl.run("create", "-f", "-", stdin=json.dumps(pod))
    kubectl.run(
        "debug",
        "src",
        "--copy-to=src-copy",
        "--image=busybox:1.36",
        "--container=debugger",
        "--keep-liveness",
        "--keep-readiness",
        "--keep-startup",
        "--",
        "sleep",
        "60",
    )
    copy = _get(kubectl, "pod", "src-copy")["spec"]
    original = _get(kubectl, "pod", "src")["spec"]
    assert [c["name"] for c in copy["containers"]] == ["app", "debugger"]
    assert copy["containers"][0] == original["containers"][0]
    _assert_kept(_pod_spec()["containers"][0], copy["containers"][0])
    for field in ("affinity", "volumes", "dnsConfig", "hostAliases", "topologySpreadConstraints"):
        assert copy[field] == original[field], field
    assert copy["automountServiceAccountToken"] is False
    assert copy["securityContext"] == original["securityContext"]


def test_drain_without_eviction_deletes_with_protobuf_delete_options(kubectl: Kubectl) -> None:
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "drain-me"}}
    kubectl.run("create", "-f", "-", stdin=json.dumps(node), namespaced=False)
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "bare"},
        "spec": {"nodeName": "drain-me", "containers": [{"name": "c", "image": "nginx"}]},
    }
    kubectl.run("create", "-f", "-", stdin=json.dumps(pod))
    kubectl.run(
        "drain",
        "drain-me",
        "--disable-eviction",
        "--force",
        "--ignore-daemonsets",  # other tests' DaemonSets run a pod on every node
        "--grace-period=0",
        "--timeout=60s",
        namespaced=False,
    )
    assert _get(kubectl, "node", "drain-me")["spec"]["unschedulable"] is True
    assert "NotFound" in kubectl.fails("get", "pod", "bare")
    # The node has no kubelet: gone, it cannot draw later tests' DaemonSet pods while it
    # is still within its startup grace period (untainted, as on a cluster).
    kubectl.run("delete", "node", "drain-me", namespaced=False)
