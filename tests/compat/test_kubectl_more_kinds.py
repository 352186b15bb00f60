"""The real kubectl and the official client on the remaining GA kinds: the typed ``kubectl
create job|cronjob|quota|ingress|pdb|priorityclass`` and ``kubectl autoscale`` commands
(protobuf bodies), the server's columns for ``kubectl get``, and ``BatchV1Api``."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from kubernetes import client as k8s_client

from .kf_kubectl import Kubectl

pytestmark = pytest.mark.kubectl


def _rows(output: str) -> list[list[str]]:
    return [line.split() for line in output.strip().splitlines()]


def _json(kubectl: Kubectl, *args: str, namespaced: bool = True) -> Any:
    return json.loads(kubectl.run("get", *args, "-o", "json", namespaced=namespaced))


def test_create_job_and_get_jobs_prints_the_server_columns(kubectl: Kubectl) -> None:
    created = kubectl.run("create", "job", "pi", "--image=busybox:1.36", "--", "echo", "hi")
    assert created.strip() == "job.batch/pi created"
    job = _json(kubectl, "job", "pi")
    uid = job["metadata"]["uid"]
    assert job["spec"]["backoffLimit"] == 6
    assert job["spec"]["selector"]["matchLabels"] == {"batch.kubernetes.io/controller-uid": uid}
    pod_spec = job["spec"]["template"]["spec"]
    assert pod_spec["restartPolicy"] == "Never"
    assert pod_spec["containers"][0]["command"] == ["echo", "hi"]
    kubectl.run("wait", "--for=condition=complete", "job/pi", "--timeout=60s")  # it ran
    rows = _rows(kubectl.run("get", "jobs"))
    assert rows[0] == ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"]
    assert rows[1][:3] == ["pi", "Complete", "1/1"]


def test_create_cronjob_and_get_cronjobs(kubectl: Kubectl) -> None:
    kubectl.run("create", "cronjob", "tick", "--image=busybox:1.36", "--schedule=*/5 * * * *")
    cronjob = _json(kubectl, "cj", "tick")
    assert cronjob["spec"]["concurrencyPolicy"] == "Allow"
    assert cronjob["spec"]["successfulJobsHistoryLimit"] == 3
    template = cronjob["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    assert template["restartPolicy"] == "OnFailure"
    header, row = kubectl.run("get", "cronjobs").strip().splitlines()
    assert header.split() == [
        "NAME",
        "SCHEDULE",
        "TIMEZONE",
        "SUSPEND",
        "ACTIVE",
        "LAST",
        "SCHEDULE",
        "AGE",
    ]
    assert row.split()[:1] + row.split()[6:9] == ["tick", "<none>", "False", "0"]


def test_create_quota_pdb_and_priorityclass(kubectl: Kubectl) -> None:
    # A BestEffort quota may limit the pod count only (1.32's ValidateResourceQuotaSpec).
    kubectl.run("create", "quota", "small", "--hard=pods=4", "--scopes=BestEffort")
    quota = _json(kubectl, "quota", "small")
    assert quota["spec"] == {"hard": {"pods": "4"}, "scopes": ["BestEffort"]}
    kubectl.run("create", "pdb", "web", "--min-available=1", "--selector=app=web")
    pdb = _json(kubectl, "pdb", "web")
    assert pdb["spec"] == {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}
    assert _rows(kubectl.run("get", "pdb"))[1][:4] == ["web", "1", "N/A", "0"]
    name = f"pc-{uuid.uuid4().hex[:8]}"
    kubectl.run(
        "create", "priorityclass", name, "--value=100", "--description=batch work",
        "--preemption-policy=Never", namespaced=False,
    )  # fmt: skip
    priority = _json(kubectl, "priorityclass", name, namespaced=False)
    assert (priority["value"], priority["preemptionPolicy"]) == (100, "Never")
    assert priority["description"] == "batch work"


def test_create_ingress_and_get_ingress(kubectl: Kubectl) -> None:
    kubectl.run(
        "create", "ingress", "site", "--class=nginx",
        "--rule=example.com/api*=api:8080,tls=site-tls",
    )  # fmt: skip
    ingress = _json(kubectl, "ingress", "site")
    assert ingress["spec"]["ingressClassName"] == "nginx"
    assert ingress["spec"]["rules"] == [
        {
            "host": "example.com",
            "http": {
                "paths": [
                    {
                        "path": "/api",
                        "pathType": "Prefix",
                        "backend": {"service": {"name": "api", "port": {"number": 8080}}},
                    }
                ]
            },
        }
    ]
    assert ingress["spec"]["tls"] == [{"hosts": ["example.com"], "secretName": "site-tls"}]
    rows = _rows(kubectl.run("get", "ing"))
    assert rows[0] == ["NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"]
    assert rows[1][:5] == ["site", "nginx", "example.com", "80,", "443"]


def test_autoscale_creates_an_autoscaling_v1_hpa_readable_as_v2(kubectl: Kubectl) -> None:
    kubectl.run("create", "deployment", "web", "--image=nginx:1.27")
    done = kubectl.run("autoscale", "deployment", "web", "--min=2", "--max=5", "--cpu-percent=70")
    assert done.strip() == "horizontalpodautoscaler.autoscaling/web autoscaled"
    hpa = _json(kubectl, "horizontalpodautoscalers.v1.autoscaling", "web")
    assert hpa["spec"]["targetCPUUtilizationPercentage"] == 70
    v2 = _json(kubectl, "horizontalpodautoscalers.v2.autoscaling", "web")
    assert v2["spec"]["minReplicas"] == 2
    assert v2["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"] == 70
    rows = _rows(kubectl.run("get", "hpa"))
    assert rows[1][:7] == ["web", "Deployment/web", "cpu:", "<unknown>/70%", "2", "5", "0"]


def test_get_pvc_prints_the_server_columns(kubectl: Kubectl) -> None:
    claim = (
        "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: data\nspec:\n"
        "  accessModes: [ReadWriteOnce]\n  storageClassName: fast\n"
        "  resources:\n    requests:\n      storage: 1Gi\n"
    )
    kubectl.run("create", "-f", "-", stdin=claim)
    rows = _rows(kubectl.run("get", "pvc", "-o", "wide"))
    assert rows[0] == [
        "NAME", "STATUS", "VOLUME", "CAPACITY", "ACCESS", "MODES", "STORAGECLASS",
        "VOLUMEATTRIBUTESCLASS", "AGE", "VOLUMEMODE",
    ]  # fmt: skip
    assert rows[1][:3] == ["data", "Pending", "fast"]
    assert rows[1][-1] == "Filesystem"


def test_a_job_without_a_restart_policy_is_refused_with_the_real_message(
    kubectl: Kubectl,
) -> None:
    manifest = (
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: bad\nspec:\n  template:\n"
        "    spec:\n      containers:\n      - name: main\n        image: busybox:1.36\n"
    )
    error = kubectl.fails("create", "-f", "-", stdin=manifest)
    assert (
        'The Job "bad" is invalid: spec.template.spec.restartPolicy: Required value: '
        'valid values: "OnFailure", "Never"'
    ) in error


def test_the_official_client_creates_and_lists_jobs(api_client: Any, namespace: str) -> None:
    batch = k8s_client.BatchV1Api(api_client)
    body = k8s_client.V1Job(
        metadata=k8s_client.V1ObjectMeta(name="report"),
        spec=k8s_client.V1JobSpec(
            template=k8s_client.V1PodTemplateSpec(
                spec=k8s_client.V1PodSpec(
                    restart_policy="OnFailure",
                    containers=[k8s_client.V1Container(name="main", image="busybox:1.36")],
                )
            )
        ),
    )
    created = batch.create_namespaced_job(namespace, body)
    assert created.spec.backoff_limit == 6
    assert created.spec.template.metadata.labels["job-name"] == "report"
    listed = batch.list_namespaced_job(namespace)
    assert [j.metadata.name for j in listed.items] == ["report"]


def _certificate_request(common_name: str) -> str:
    """A PEM certificate signing request, base64 encoded as the API carries it."""
    import base64

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    request = x509.CertificateSigningRequestBuilder().subject_name(subject)
    signed = request.sign(ec.generate_private_key(ec.SECP256R1()), hashes.SHA256())
    return base64.b64encode(signed.public_bytes(serialization.Encoding.PEM)).decode()


def test_kubectl_certificate_approve_records_the_approval(kubectl: Kubectl) -> None:
    name = "csr-" + uuid.uuid4().hex[:8]
    manifest = {
        "apiVersion": "certificates.k8s.io/v1",
        "kind": "CertificateSigningRequest",
        "metadata": {"name": name},
        "spec": {
            "request": _certificate_request("jane"),
            "signerName": "kubernetes.io/kube-apiserver-client",
            "usages": ["client auth"],
        },
    }
    kubectl.run("create", "-f", "-", stdin=json.dumps(manifest), namespaced=False)
    pending = _rows(kubectl.run("get", "csr", name, namespaced=False))
    assert pending[0] == [
        "NAME",
        "AGE",
        "SIGNERNAME",
        "REQUESTOR",
        "REQUESTEDDURATION",
        "CONDITION",
    ]
    assert pending[1][-1] == "Pending"
    assert pending[1][3] == "kubernetes-admin"  # the requestor, from the credentials used
    # The typed command PUTs a protobuf body to the /approval subresource.
    approved = kubectl.run("certificate", "approve", name, namespaced=False)
    assert approved.strip() == f"certificatesigningrequest.certificates.k8s.io/{name} approved"
    csr = _json(kubectl, "csr", name, namespaced=False)
    (condition,) = csr["status"]["conditions"]
    assert (condition["type"], condition["status"], condition["reason"]) == (
        "Approved",
        "True",
        "KubectlApprove",
    )
    assert csr["spec"]["request"] == manifest["spec"]["request"]  # only conditions change
    # The CSR strategy's populateConditionTimestamps stamps what kubectl left unset.
    assert condition["lastUpdateTime"] and condition["lastTransitionTime"]
    assert condition["lastTransitionTime"] >= csr["metadata"]["creationTimestamp"]
    assert _rows(kubectl.run("get", "csr", name, namespaced=False))[1][-1] == "Approved"
