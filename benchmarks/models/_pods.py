"""A realistic pod list as a kubelet-managed cluster returns it, for the decode benchmark.

See ``pod_list_json()``. Every pod differs in name, uid, IPs and resourceVersion (so
no contender profits from repeated strings), and carries what real pods carry:
managedFields from two managers, a projected service-account volume, probes,
resources, tolerations, five conditions and a container status.
"""

from __future__ import annotations

from typing import Any

import orjson

__all__ = ["pod", "pod_list_json"]


def _fields_v1() -> list[dict[str, Any]]:
    return [
        {
            "apiVersion": "v1",
            "fieldsType": "FieldsV1",
            "fieldsV1": {
                "f:metadata": {
                    "f:generateName": {},
                    "f:labels": {".": {}, "f:app": {}, "f:pod-template-hash": {}},
                    "f:ownerReferences": {".": {}, 'k:{"uid":"5b0a3c52"}': {}},
                },
                "f:spec": {
                    "f:containers": {
                        'k:{"name":"app"}': {
                            ".": {},
                            "f:image": {},
                            "f:imagePullPolicy": {},
                            "f:name": {},
                            "f:ports": {
                                ".": {},
                                'k:{"containerPort":8080,"protocol":"TCP"}': {
                                    ".": {},
                                    "f:containerPort": {},
                                    "f:name": {},
                                    "f:protocol": {},
                                },
                            },
                            "f:resources": {
                                ".": {},
                                "f:limits": {".": {}, "f:memory": {}},
                                "f:requests": {".": {}, "f:cpu": {}, "f:memory": {}},
                            },
                        }
                    },
                    "f:dnsPolicy": {},
                    "f:restartPolicy": {},
                    "f:schedulerName": {},
                    "f:terminationGracePeriodSeconds": {},
                },
            },
            "manager": "kube-controller-manager",
            "operation": "Update",
            "time": "2025-01-10T09:00:03Z",
        },
        {
            "apiVersion": "v1",
            "fieldsType": "FieldsV1",
            "fieldsV1": {
                "f:status": {
                    "f:conditions": {
                        'k:{"type":"Ready"}': {
                            ".": {},
                            "f:lastProbeTime": {},
                            "f:lastTransitionTime": {},
                            "f:status": {},
                            "f:type": {},
                        }
                    },
                    "f:containerStatuses": {},
                    "f:hostIP": {},
                    "f:hostIPs": {},
                    "f:phase": {},
                    "f:podIP": {},
                    "f:podIPs": {".": {}, 'k:{"ip":"10.244.0.12"}': {".": {}, "f:ip": {}}},
                    "f:startTime": {},
                }
            },
            "manager": "kubelet",
            "operation": "Update",
            "subresource": "status",
            "time": "2025-01-10T09:00:07Z",
        },
    ]


def _condition(kind: str, when: str) -> dict[str, Any]:
    return {"lastProbeTime": None, "lastTransitionTime": when, "status": "True", "type": kind}


def pod(index: int) -> dict[str, Any]:
    """Pod number ``index`` of a 3-replica-set-per-node style workload."""
    name = f"app-{index // 100:04d}-7d9f8c6b5-{index:05d}"
    ip = f"10.{244 + index // 65536}.{index // 256 % 256}.{index % 256}"
    node = f"node-{index % 50:02d}"
    mount = {
        "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount",
        "name": f"kube-api-access-{index:05x}",
        "readOnly": True,
    }
    return {
        "metadata": {
            "creationTimestamp": "2025-01-10T09:00:03Z",
            "generateName": f"app-{index // 100:04d}-7d9f8c6b5-",
            "labels": {"app": f"app-{index // 100:04d}", "pod-template-hash": "7d9f8c6b5"},
            "managedFields": _fields_v1(),
            "name": name,
            "namespace": f"team-{index % 20:02d}",
            "ownerReferences": [
                {
                    "apiVersion": "apps/v1",
                    "blockOwnerDeletion": True,
                    "controller": True,
                    "kind": "ReplicaSet",
                    "name": f"app-{index // 100:04d}-7d9f8c6b5",
                    "uid": f"5b0a3c52-8d0e-4a57-9d43-{index:012x}",
                }
            ],
            "resourceVersion": str(100000 + index),
            "uid": f"0f4e6a1d-93a4-4b71-8a6c-{index:012x}",
        },
        "spec": {
            "containers": [
                {
                    "image": "registry.example.com/app:1.4.2",
                    "imagePullPolicy": "IfNotPresent",
                    "livenessProbe": {
                        "failureThreshold": 3,
                        "httpGet": {"path": "/healthz", "port": "http", "scheme": "HTTP"},
                        "periodSeconds": 10,
                        "successThreshold": 1,
                        "timeoutSeconds": 1,
                    },
                    "name": "app",
                    "ports": [{"containerPort": 8080, "name": "http", "protocol": "TCP"}],
                    "resources": {
                        "limits": {"memory": "256Mi"},
                        "requests": {"cpu": "100m", "memory": "128Mi"},
                    },
                    "terminationMessagePath": "/dev/termination-log",
                    "terminationMessagePolicy": "File",
                    "volumeMounts": [mount],
                }
            ],
            "dnsPolicy": "ClusterFirst",
            "enableServiceLinks": True,
            "nodeName": node,
            "preemptionPolicy": "PreemptLowerPriority",
            "priority": 0,
            "restartPolicy": "Always",
            "schedulerName": "default-scheduler",
            "securityContext": {},
            "serviceAccount": "default",
            "serviceAccountName": "default",
            "terminationGracePeriodSeconds": 30,
            "tolerations": [
                {
                    "effect": "NoExecute",
                    "key": "node.kubernetes.io/not-ready",
                    "operator": "Exists",
                    "tolerationSeconds": 300,
                },
                {
                    "effect": "NoExecute",
                    "key": "node.kubernetes.io/unreachable",
                    "operator": "Exists",
                    "tolerationSeconds": 300,
                },
            ],
            "volumes": [
                {
                    "name": mount["name"],
                    "projected": {
                        "defaultMode": 420,
                        "sources": [
                            {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
                            {
                                "configMap": {
                                    "items": [{"key": "ca.crt", "path": "ca.crt"}],
                                    "name": "kube-root-ca.crt",
                                }
                            },
                            {
                                "downwardAPI": {
                                    "items": [
                                        {
                                            "fieldRef": {
                                                "apiVersion": "v1",
                                                "fieldPath": "metadata.namespace",
                                            },
                                            "path": "namespace",
                                        }
                                    ]
                                }
                            },
                        ],
                    },
                }
            ],
        },
        "status": {
            "conditions": [
                _condition("PodReadyToStartContainers", "2025-01-10T09:00:06Z"),
                _condition("Initialized", "2025-01-10T09:00:03Z"),
                _condition("Ready", "2025-01-10T09:00:07Z"),
                _condition("ContainersReady", "2025-01-10T09:00:07Z"),
                _condition("PodScheduled", "2025-01-10T09:00:03Z"),
            ],
            "containerStatuses": [
                {
                    "containerID": f"containerd://{index:064x}",
                    "image": "registry.example.com/app:1.4.2",
                    "imageID": "registry.example.com/app@sha256:" + "ab" * 32,
                    "lastState": {},
                    "name": "app",
                    "ready": True,
                    "restartCount": index % 3,
                    "started": True,
                    "state": {"running": {"startedAt": "2025-01-10T09:00:05Z"}},
                    "volumeMounts": [{**mount, "recursiveReadOnly": "Disabled"}],
                }
            ],
            "hostIP": f"172.18.0.{index % 50 + 2}",
            "hostIPs": [{"ip": f"172.18.0.{index % 50 + 2}"}],
            "phase": "Running",
            "podIP": ip,
            "podIPs": [{"ip": ip}],
            "qosClass": "Burstable",
            "startTime": "2025-01-10T09:00:03Z",
        },
    }


def pod_list_json(count: int) -> bytes:
    """A ``PodList`` body of ``count`` pods, as ``GET /api/v1/pods`` returns it."""
    body = {
        "apiVersion": "v1",
        "kind": "PodList",
        "metadata": {"resourceVersion": str(100000 + count)},
        "items": [pod(i) for i in range(count)],
    }
    return orjson.dumps(body)
