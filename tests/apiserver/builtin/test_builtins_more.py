"""Every other GA built-in of Kubernetes 1.32 as a stored resource: discovery facts, a full
round trip per kind (table-driven), and the defaults, validation, patching and table
output of the kinds controllers create most (Jobs, CronJobs, claims, HPAs ...).

Storage is under test, so the server runs no workload controller (``storage_api``):
nothing but the test writes these objects."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from kf_csr import request
from kf_http import Api

MERGE = "application/merge-patch+json"
STRATEGIC = "application/strategic-merge-patch+json"
APPLY = "application/apply-patch+yaml"
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"
AGGREGATED = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
CONTAINERS = [{"name": "main", "image": "busybox:1.36"}]
POD_TEMPLATE = {"metadata": {"labels": {"app": "x"}}, "spec": {"containers": CONTAINERS}}


@pytest.fixture
def api(storage_api: Api) -> Api:
    return storage_api


# 1.32 parses the request and its signature, and v1 defaults no usages.
CSR_SPEC = {"request": request(), "signerName": "example.com/signer", "usages": ["client auth"]}

# (group, version, plural, kind, namespaced, body fields of a minimal valid object)
KINDS: list[tuple[str, str, str, str, bool, dict[str, Any]]] = [
    ("", "v1", "limitranges", "LimitRange", True, {"spec": {"limits": [{"type": "Container"}]}}),
    (
        "",
        "v1",
        "persistentvolumeclaims",
        "PersistentVolumeClaim",
        True,
        {"spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}},
    ),
    (
        "",
        "v1",
        "persistentvolumes",
        "PersistentVolume",
        False,
        {
            "spec": {
                "capacity": {"storage": "1Gi"},
                "accessModes": ["ReadWriteOnce"],
                "hostPath": {"path": "/data"},
            }
        },
    ),
    ("", "v1", "podtemplates", "PodTemplate", True, {"template": POD_TEMPLATE}),
    (
        "",
        "v1",
        "replicationcontrollers",
        "ReplicationController",
        True,
        {"spec": {"template": POD_TEMPLATE}},
    ),
    ("", "v1", "resourcequotas", "ResourceQuota", True, {"spec": {"hard": {"pods": "2"}}}),
    (
        "admissionregistration.k8s.io",
        "v1",
        "validatingadmissionpolicies",
        "ValidatingAdmissionPolicy",
        False,
        # a real server requires matchConstraints with a resource rule (and compiles the
        # expressions)
        {
            "spec": {
                "matchConstraints": {
                    "resourceRules": [
                        {
                            "operations": ["CREATE"],
                            "apiGroups": [""],
                            "apiVersions": ["v1"],
                            "resources": ["configmaps"],
                        }
                    ]
                },
                "validations": [{"expression": "true"}],
            }
        },
    ),
    (
        "admissionregistration.k8s.io",
        "v1",
        "validatingadmissionpolicybindings",
        "ValidatingAdmissionPolicyBinding",
        False,
        {"spec": {"policyName": "p", "validationActions": ["Deny"]}},
    ),
    (
        "apiregistration.k8s.io",
        "v1",
        "apiservices",
        "APIService",
        False,
        {"spec": {"group": "example.com", "version": "v1", "groupPriorityMinimum": 100}},
    ),
    (
        "apps",
        "v1",
        "controllerrevisions",
        "ControllerRevision",
        True,
        {"revision": 1, "data": {"a": 1}},
    ),
    (
        "autoscaling",
        "v2",
        "horizontalpodautoscalers",
        "HorizontalPodAutoscaler",
        True,
        {"spec": {"scaleTargetRef": {"kind": "Deployment", "name": "d"}, "maxReplicas": 3}},
    ),
    (
        "autoscaling",
        "v1",
        "horizontalpodautoscalers",
        "HorizontalPodAutoscaler",
        True,
        {"spec": {"scaleTargetRef": {"kind": "Deployment", "name": "d"}, "maxReplicas": 3}},
    ),
    (
        "batch",
        "v1",
        "cronjobs",
        "CronJob",
        True,
        {
            "spec": {
                "schedule": "*/5 * * * *",
                "jobTemplate": {
                    "spec": {
                        "template": {"spec": {"containers": CONTAINERS, "restartPolicy": "Never"}}
                    }
                },
            }
        },
    ),
    (
        "batch",
        "v1",
        "jobs",
        "Job",
        True,
        {"spec": {"template": {"spec": {"containers": CONTAINERS, "restartPolicy": "Never"}}}},
    ),
    (
        "certificates.k8s.io",
        "v1",
        "certificatesigningrequests",
        "CertificateSigningRequest",
        False,
        {"spec": CSR_SPEC},
    ),
    (
        "discovery.k8s.io",
        "v1",
        "endpointslices",
        "EndpointSlice",
        True,
        {
            "addressType": "IPv4",
            "endpoints": [{"addresses": ["10.0.0.1"]}],
            "ports": [{"port": 80}],
        },
    ),
    (
        "flowcontrol.apiserver.k8s.io",
        "v1",
        "flowschemas",
        "FlowSchema",
        False,
        {"spec": {"priorityLevelConfiguration": {"name": "workload-low"}}},
    ),
    (
        "flowcontrol.apiserver.k8s.io",
        "v1",
        "prioritylevelconfigurations",
        "PriorityLevelConfiguration",
        False,
        # Only the level named "exempt" may be Exempt (1.32's validation)
        {"spec": {"type": "Limited", "limited": {"limitResponse": {"type": "Reject"}}}},
    ),
    (
        "networking.k8s.io",
        "v1",
        "ingressclasses",
        "IngressClass",
        False,
        {"spec": {"controller": "example.com/ingress"}},
    ),
    (
        "networking.k8s.io",
        "v1",
        "ingresses",
        "Ingress",
        True,
        {"spec": {"defaultBackend": {"service": {"name": "web", "port": {"number": 80}}}}},
    ),
    (
        "networking.k8s.io",
        "v1",
        "networkpolicies",
        "NetworkPolicy",
        True,
        {"spec": {"podSelector": {}}},
    ),
    ("node.k8s.io", "v1", "runtimeclasses", "RuntimeClass", False, {"handler": "runc"}),
    (
        "policy",
        "v1",
        "poddisruptionbudgets",
        "PodDisruptionBudget",
        True,
        {"spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "x"}}}},
    ),
    ("scheduling.k8s.io", "v1", "priorityclasses", "PriorityClass", False, {"value": 1000}),
    ("storage.k8s.io", "v1", "csidrivers", "CSIDriver", False, {"spec": {}}),
    ("storage.k8s.io", "v1", "csinodes", "CSINode", False, {"spec": {"drivers": []}}),
    (
        "storage.k8s.io",
        "v1",
        "csistoragecapacities",
        "CSIStorageCapacity",
        True,
        {"storageClassName": "fast"},
    ),
    ("storage.k8s.io", "v1", "storageclasses", "StorageClass", False, {"provisioner": "x.io/p"}),
    (
        "storage.k8s.io",
        "v1",
        "volumeattachments",
        "VolumeAttachment",
        False,
        # the attacher is a CSI driver name (a DNS subdomain) for storage.k8s.io/v1
        {"spec": {"attacher": "a.x.io", "nodeName": "n1", "source": {"persistentVolumeName": "v"}}},
    ),
]


def collection(group: str, version: str, plural: str, namespace: str | None) -> str:
    base = f"/api/{version}" if not group else f"/apis/{group}/{version}"
    scope = f"/namespaces/{namespace}" if namespace else ""
    return f"{base}{scope}/{plural}"


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


@pytest.mark.parametrize(
    ("group", "version", "plural", "kind", "namespaced", "fields"),
    KINDS,
    ids=[f"{k[2]}.{k[1]}" for k in KINDS],
)
async def test_each_kind_round_trips_create_get_list_watch_delete(
    api: Api,
    namespace: str,
    group: str,
    version: str,
    plural: str,
    kind: str,
    namespaced: bool,
    fields: dict[str, Any],
) -> None:
    path = collection(group, version, plural, namespace if namespaced else None)
    api_version = f"{group}/{version}" if group else version
    name = unique("v1.x" if plural == "apiservices" else "obj")
    start = await api.get(path)
    assert start.status == 200, start.body
    assert start.body["kind"] == f"{kind}List"
    body = {"apiVersion": api_version, "kind": kind, "metadata": {"name": name}, **fields}
    body["notAField"] = True
    created = await api.post(path, body)
    assert created.status == 201, created.body
    assert (created.body["apiVersion"], created.body["kind"]) == (api_version, kind)
    assert "notAField" not in created.body  # pruned as decoding into the Go type does
    assert 'unknown field \\"notAField' in created.headers.get("Warning", "")
    got = await api.get(f"{path}/{name}")
    assert got.status == 200 and got.body["metadata"]["uid"] == created.body["metadata"]["uid"]
    listed = await api.get(path, fieldSelector=f"metadata.name={name}")
    assert [item["metadata"]["name"] for item in listed.body["items"]] == [name]
    deleted = await api.delete(f"{path}/{name}")
    assert deleted.status == 200, deleted.body
    events = []
    async for event in api.watch(path, resourceVersion=start.body["metadata"]["resourceVersion"]):
        if event["object"]["metadata"]["name"] == name:
            events.append(event["type"])
        if event["type"] == "DELETED" and event["object"]["metadata"]["name"] == name:
            break
    if plural == "flowschemas":  # the API server's APF consumer writes its Dangling condition
        events = [e for e in events if e != "MODIFIED"]
    assert events == ["ADDED", "DELETED"]
    assert (await api.get(f"{path}/{name}")).status == 404


# (group, version, plural, namespaced, shortNames, categories, subresources)
FACTS = [
    ("", "v1", "persistentvolumeclaims", True, ["pvc"], [], ["status"]),
    ("", "v1", "persistentvolumes", False, ["pv"], [], ["status"]),
    ("", "v1", "replicationcontrollers", True, ["rc"], ["all"], ["scale", "status"]),
    ("", "v1", "resourcequotas", True, ["quota"], [], ["status"]),
    ("", "v1", "limitranges", True, ["limits"], [], []),
    ("batch", "v1", "jobs", True, [], ["all"], ["status"]),
    ("batch", "v1", "cronjobs", True, ["cj"], ["all"], ["status"]),
    ("autoscaling", "v2", "horizontalpodautoscalers", True, ["hpa"], ["all"], ["status"]),
    ("autoscaling", "v1", "horizontalpodautoscalers", True, ["hpa"], ["all"], ["status"]),
    ("networking.k8s.io", "v1", "ingresses", True, ["ing"], [], ["status"]),
    ("networking.k8s.io", "v1", "networkpolicies", True, ["netpol"], [], []),
    ("policy", "v1", "poddisruptionbudgets", True, ["pdb"], [], ["status"]),
    ("scheduling.k8s.io", "v1", "priorityclasses", False, ["pc"], [], []),
    ("storage.k8s.io", "v1", "storageclasses", False, ["sc"], [], []),
    (
        "admissionregistration.k8s.io",
        "v1",
        "mutatingwebhookconfigurations",
        False,
        [],
        ["api-extensions"],
        [],
    ),
    (
        "admissionregistration.k8s.io",
        "v1",
        "validatingadmissionpolicies",
        False,
        [],
        ["api-extensions"],
        ["status"],
    ),
    (
        "certificates.k8s.io",
        "v1",
        "certificatesigningrequests",
        False,
        ["csr"],
        [],
        ["approval", "status"],
    ),
]


async def test_legacy_discovery_gives_each_kind_its_real_facts(api: Api) -> None:
    for group, version, plural, namespaced, short, categories, subresources in FACTS:
        listing = await api.get(f"/api/{version}" if not group else f"/apis/{group}/{version}")
        entries = {r["name"]: r for r in listing.body["resources"]}
        entry = entries[plural]
        assert entry["namespaced"] is namespaced, plural
        assert entry.get("shortNames", []) == short, plural
        assert entry.get("categories", []) == categories, plural
        assert "deletecollection" in entry["verbs"] and "watch" in entry["verbs"], plural
        assert sorted(n.split("/")[1] for n in entries if n.startswith(f"{plural}/")) == (
            subresources
        ), plural


async def test_aggregated_discovery_lists_batch_and_both_autoscaling_versions(api: Api) -> None:
    reply = await api.request("GET", "/apis", headers={"Accept": AGGREGATED})
    groups = {g["metadata"]["name"]: g for g in reply.body["items"]}
    versions = [v["version"] for v in groups["autoscaling"]["versions"]]
    assert versions == ["v2", "v1"]
    batch = {r["resource"]: r for r in groups["batch"]["versions"][0]["resources"]}
    assert batch["cronjobs"]["shortNames"] == ["cj"]
    assert batch["jobs"]["categories"] == ["all"]
    assert [s["subresource"] for s in batch["jobs"]["subresources"]] == ["status"]


def job(name: str, **spec: Any) -> dict[str, Any]:
    template = {"spec": {"containers": CONTAINERS, "restartPolicy": "Never"}}
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name},
        "spec": {"template": template, **spec},
    }


async def test_a_job_gets_the_real_defaults_and_a_generated_selector(
    api: Api, namespace: str
) -> None:
    reply = await api.post(f"/apis/batch/v1/namespaces/{namespace}/jobs", job("pi"))
    assert reply.status == 201, reply.body
    uid, spec = reply.body["metadata"]["uid"], reply.body["spec"]
    assert (spec["backoffLimit"], spec["completions"], spec["parallelism"]) == (6, 1, 1)
    assert spec["completionMode"] == "NonIndexed"
    assert spec["suspend"] is False
    assert spec["podReplacementPolicy"] == "TerminatingOrFailed"
    assert spec["selector"] == {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}}
    labels = {
        "batch.kubernetes.io/controller-uid": uid,
        "batch.kubernetes.io/job-name": "pi",
        "controller-uid": uid,
        "job-name": "pi",
    }
    assert spec["template"]["metadata"]["labels"] == labels
    assert reply.body["metadata"]["labels"] == labels  # a Job takes its template's labels
    pod_spec = spec["template"]["spec"]
    assert (pod_spec["dnsPolicy"], pod_spec["terminationGracePeriodSeconds"]) == (
        "ClusterFirst",
        30,
    )
    assert pod_spec["containers"][0]["imagePullPolicy"] == "IfNotPresent"
    assert reply.body["status"] == {}
    assert reply.body["metadata"]["generation"] == 1


async def test_a_job_with_a_manual_selector_keeps_it_and_gets_no_generated_labels(
    api: Api, namespace: str
) -> None:
    body = job("manual", manualSelector=True, selector={"matchLabels": {"app": "x"}})
    body["spec"]["template"]["metadata"] = {"labels": {"app": "x"}}
    reply = await api.post(f"/apis/batch/v1/namespaces/{namespace}/jobs", body)
    assert reply.status == 201, reply.body
    assert reply.body["spec"]["selector"] == {"matchLabels": {"app": "x"}}
    assert reply.body["spec"]["template"]["metadata"]["labels"] == {"app": "x"}


async def test_a_job_whose_pods_would_restart_always_is_refused_with_the_real_message(
    api: Api, namespace: str
) -> None:
    body = job("bad")
    del body["spec"]["template"]["spec"]["restartPolicy"]  # defaults to Always
    reply = await api.post(f"/apis/batch/v1/namespaces/{namespace}/jobs", body)
    assert reply.status == 422
    assert reply.body["message"] == (
        'Job.batch "bad" is invalid: spec.template.spec.restartPolicy: Required value: '
        'valid values: "OnFailure", "Never"'
    )


async def test_a_cronjob_gets_its_defaults_and_needs_a_schedule(api: Api, namespace: str) -> None:
    path = f"/apis/batch/v1/namespaces/{namespace}/cronjobs"
    template = {
        "spec": {"template": {"spec": {"containers": CONTAINERS, "restartPolicy": "Never"}}}
    }
    body = {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": "nightly"},
        "spec": {"schedule": "0 3 * * *", "jobTemplate": template},
    }
    reply = await api.post(path, body)
    assert reply.status == 201, reply.body
    spec = reply.body["spec"]
    assert spec["concurrencyPolicy"] == "Allow"
    assert spec["suspend"] is False
    assert (spec["successfulJobsHistoryLimit"], spec["failedJobsHistoryLimit"]) == (3, 1)
    pod_spec = spec["jobTemplate"]["spec"]["template"]["spec"]
    assert pod_spec["schedulerName"] == "default-scheduler"
    assert "backoffLimit" not in spec["jobTemplate"]["spec"]  # Job defaults are the Job's own
    del body["spec"]["schedule"]
    body["metadata"]["name"] = "unscheduled"
    refused = await api.post(path, body)
    assert refused.status == 422
    assert refused.body["message"] == (
        'CronJob.batch "unscheduled" is invalid: spec.schedule: Required value'
    )


async def test_claims_volumes_and_storage_classes_get_their_defaults(
    api: Api, namespace: str
) -> None:
    claim = KINDS[1][5]
    reply = await api.post(
        f"/api/v1/namespaces/{namespace}/persistentvolumeclaims",
        {"metadata": {"name": "data"}, **claim},
    )
    assert reply.status == 201, reply.body
    assert reply.body["spec"]["volumeMode"] == "Filesystem"
    assert reply.body["status"] == {"phase": "Pending"}
    volume = await api.post(
        "/api/v1/persistentvolumes", {"metadata": {"name": unique("pv")}, **KINDS[2][5]}
    )
    assert volume.body["spec"]["persistentVolumeReclaimPolicy"] == "Retain"
    # PersistentVolumeLastPhaseTransitionTime is GA in 1.31: a new volume's phase is stamped.
    assert volume.body["status"]["phase"] == "Pending"
    assert volume.body["status"]["lastPhaseTransitionTime"].endswith("Z")
    sc = await api.post(
        "/apis/storage.k8s.io/v1/storageclasses",
        {"metadata": {"name": unique("sc")}, "provisioner": "x.io/p"},
    )
    assert (sc.body["reclaimPolicy"], sc.body["volumeBindingMode"]) == ("Delete", "Immediate")
    missing = await api.post(
        f"/api/v1/namespaces/{namespace}/persistentvolumeclaims", {"metadata": {"name": "empty"}}
    )
    assert missing.status == 422
    assert (
        "spec.accessModes: Required value: at least 1 access mode is required"
        in (missing.body["message"])
    )


async def test_an_hpa_written_as_v1_reads_as_v2_and_back(api: Api, namespace: str) -> None:
    v1 = f"/apis/autoscaling/v1/namespaces/{namespace}/horizontalpodautoscalers"
    v2 = f"/apis/autoscaling/v2/namespaces/{namespace}/horizontalpodautoscalers"
    spec = {"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 4}
    reply = await api.post(
        v1, {"metadata": {"name": "web"}, "spec": {**spec, "targetCPUUtilizationPercentage": 60}}
    )
    assert reply.status == 201, reply.body
    assert reply.body["spec"]["minReplicas"] == 1
    assert reply.body["status"] == {"currentReplicas": 0, "desiredReplicas": 0}
    stored = (await api.get(f"{v2}/web")).body
    assert stored["apiVersion"] == "autoscaling/v2"
    assert stored["spec"]["metrics"] == [
        {
            "type": "Resource",
            "resource": {
                "name": "cpu",
                "target": {"type": "Utilization", "averageUtilization": 60},
            },
        }
    ]
    patched = await api.patch(f"{v1}/web", {"spec": {"maxReplicas": 6}}, MERGE)
    assert patched.status == 200, patched.body
    assert patched.body["spec"]["targetCPUUtilizationPercentage"] == 60
    assert (await api.get(f"{v2}/web")).body["spec"]["maxReplicas"] == 6
    v2_only = await api.post(v2, {"metadata": {"name": "plain"}, "spec": spec})
    assert v2_only.body["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"] == 80
    assert (await api.get(f"{v1}/plain")).body["spec"]["targetCPUUtilizationPercentage"] == 80


async def test_a_job_takes_strategic_merge_and_server_side_apply(api: Api, namespace: str) -> None:
    path = f"/apis/batch/v1/namespaces/{namespace}/jobs"
    created = await api.post(path, job("patched", suspend=True))
    assert created.status == 201, created.body
    # A suspended Job that never started may change only its template's scheduling
    # directives (1.32's validatePodTemplateUpdate): labels and nodeSelector, merged as maps.
    patch = {
        "spec": {
            "parallelism": 2,
            "template": {
                "metadata": {"labels": {"tier": "batch"}},
                "spec": {"nodeSelector": {"disk": "ssd"}},
            },
        }
    }
    reply = await api.patch(f"{path}/patched", patch, STRATEGIC)
    assert reply.status == 200, reply.body
    template = reply.body["spec"]["template"]
    assert template["metadata"]["labels"]["tier"] == "batch"
    assert template["metadata"]["labels"]["job-name"] == "patched"  # merged, not replaced
    assert template["spec"]["nodeSelector"] == {"disk": "ssd"}
    assert template["spec"]["containers"][0]["image"] == "busybox:1.36"
    assert reply.body["metadata"]["generation"] == 2
    env = {"containers": [{"name": "main", "env": [{"name": "A", "value": "1"}]}]}
    refused = await api.patch(f"{path}/patched", {"spec": {"template": {"spec": env}}}, STRATEGIC)
    assert refused.status == 422
    assert refused.body["details"]["causes"][0]["field"] == "spec.template"
    assert refused.body["message"].endswith(": field is immutable")
    manifest = job("applied")
    applied = await api.patch(f"{path}/applied", manifest, APPLY, params={"fieldManager": "ci"})
    assert applied.status == 201, applied.body
    manifest["spec"]["backoffLimit"] = 2
    again = await api.patch(f"{path}/applied", manifest, APPLY, params={"fieldManager": "ci"})
    assert again.status == 200 and again.body["spec"]["backoffLimit"] == 2
    other = {"apiVersion": "batch/v1", "kind": "Job", "spec": {"backoffLimit": 9}}
    conflict = await api.patch(f"{path}/applied", other, APPLY, params={"fieldManager": "other"})
    assert conflict.status == 409
    assert 'conflict with "ci"' in conflict.body["message"]


async def test_job_status_is_written_through_status_and_selected_by_successful(
    api: Api, namespace: str
) -> None:
    path = f"/apis/batch/v1/namespaces/{namespace}/jobs"
    await api.post(path, job("done"))
    await api.post(path, job("running"))
    ignored = await api.patch(f"{path}/done", {"status": {"succeeded": 1}}, MERGE)
    assert ignored.body["status"] == {}
    written = await api.patch(f"{path}/done/status", {"status": {"succeeded": 1}}, MERGE)
    assert written.body["status"] == {"succeeded": 1}
    assert written.body["metadata"]["generation"] == 1
    selected = await api.get(path, fieldSelector="status.successful=1")
    assert [j["metadata"]["name"] for j in selected.body["items"]] == ["done"]
    zero = await api.get(path, fieldSelector="status.successful=0")
    assert [j["metadata"]["name"] for j in zero.body["items"]] == ["running"]


async def test_a_job_table_has_the_real_columns(api: Api, namespace: str) -> None:
    path = f"/apis/batch/v1/namespaces/{namespace}/jobs"
    await api.post(path, job("tabled", parallelism=3))
    reply = await api.request("GET", path, headers={"Accept": TABLE})
    names = [c["name"] for c in reply.body["columnDefinitions"]]
    assert names == [
        "Name",
        "Status",
        "Completions",
        "Duration",
        "Age",
        "Containers",
        "Images",
        "Selector",
    ]
    cells = reply.body["rows"][0]["cells"]
    assert cells[:4] == ["tabled", "Running", "0/1 of 3", ""]
    assert cells[5:7] == ["main", "busybox:1.36"]


async def test_deleting_a_namespace_removes_its_jobs(api: Api) -> None:
    name = await api.create_namespace("jobs")
    path = f"/apis/batch/v1/namespaces/{name}/jobs"
    assert (await api.post(path, job("doomed"))).status == 201
    assert (await api.delete(f"/api/v1/namespaces/{name}")).status == 200
    for _ in range(250):
        if (await api.get(f"{path}/doomed")).status == 404:
            break
        await asyncio.sleep(0.02)
    assert (await api.get(f"{path}/doomed")).status == 404


async def test_an_ingress_path_without_a_path_type_is_refused(api: Api, namespace: str) -> None:
    backend = {"service": {"name": "web", "port": {"number": 80}}}
    body = {
        "metadata": {"name": "site"},
        "spec": {
            "rules": [{"host": "a.example", "http": {"paths": [{"path": "/", "backend": backend}]}}]
        },
    }
    reply = await api.post(f"/apis/networking.k8s.io/v1/namespaces/{namespace}/ingresses", body)
    assert reply.status == 422
    assert reply.body["message"] == (
        'Ingress.networking.k8s.io "site" is invalid: spec.rules[0].http.paths[0].pathType: '
        "Required value: pathType must be specified"
    )


async def test_a_csr_approval_writes_only_its_conditions(api: Api) -> None:
    path = "/apis/certificates.k8s.io/v1/certificatesigningrequests"
    name = "approve-" + uuid.uuid4().hex[:6]
    body = {
        "apiVersion": "certificates.k8s.io/v1",
        "kind": "CertificateSigningRequest",
        "metadata": {"name": name},
        "spec": CSR_SPEC,
    }
    sent = {**body, "spec": {**body["spec"], "username": "someone-else", "groups": ["x"]}}
    created = (await api.post(path, sent)).body
    # The requestor is who made the request, whatever the body claims.
    assert created["spec"]["username"] == "kubernetes-admin"
    assert created["spec"]["groups"] == ["system:masters", "system:authenticated"]
    approval = {
        **created,
        "spec": {**created["spec"], "signerName": "example.com/other"},
        "status": {
            "conditions": [{"type": "Approved", "status": "True", "reason": "Test"}],
            "certificate": "aGk=",
        },
    }
    approved = await api.put(f"{path}/{name}/approval", approval)
    assert approved.status == 200
    assert approved.body["spec"]["signerName"] == "example.com/signer"
    assert approved.body["status"].get("certificate") is None
    assert [c["type"] for c in approved.body["status"]["conditions"]] == ["Approved"]
    # The main resource ignores status, as for every kind with a status subresource.
    again = {**approved.body, "status": {"conditions": []}}
    updated = await api.put(f"{path}/{name}", again)
    assert [c["type"] for c in updated.body["status"]["conditions"]] == ["Approved"]


async def test_a_replication_controller_scale_shows_its_selector(api: Api, namespace: str) -> None:
    path = f"/api/v1/namespaces/{namespace}/replicationcontrollers"
    body = {
        "apiVersion": "v1",
        "kind": "ReplicationController",
        "metadata": {"name": "rc"},
        "spec": {
            "replicas": 2,
            "template": {"metadata": {"labels": {"app": "rc"}}, "spec": {"containers": CONTAINERS}},
        },
    }
    assert (await api.post(path, body)).status == 201
    scale = (await api.get(f"{path}/rc/scale")).body
    assert scale["spec"]["replicas"] == 2
    assert scale["status"]["selector"] == "app=rc"
