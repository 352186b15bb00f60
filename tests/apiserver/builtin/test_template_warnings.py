"""The ``Warning`` headers a 1.32 server answers a workload write with: on create, its
name's (where its pods are named after it) and its pod template's
(``GetWarningsForPodTemplate``, pkg/api/pod/warnings.go); on update, the template's again
only when the generation moved (the workload strategies' ``WarningsOnUpdate``)."""

from __future__ import annotations

from typing import Any

from kf_http import Api
from kf_podspec import deployment, pod
from test_pod_warnings import GRACE, texts

NAME_WARNING = (
    "metadata.name: this is used in Pod names and hostnames, which can result in surprising "
    "behavior; a DNS label is recommended: [a lowercase RFC 1123 label must consist of lower "
    "case alphanumeric characters or '-', and must start and end with an alphanumeric "
    "character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')]"
)
SECCOMP = 'non-functional in v1.27+; use the "seccompProfile" field instead'


def template(name: str, **spec: Any) -> dict[str, Any]:
    body = pod(name, **spec)
    del body["apiVersion"], body["kind"]
    return body


async def test_a_deployment_s_name_and_template_are_warned_of_on_create(
    api: Api, namespace: str
) -> None:
    body = deployment("web.v1", terminationGracePeriodSeconds=-3)
    annotations = {"seccomp.security.alpha.kubernetes.io/pod": "unconfined"}
    body["spec"]["template"]["metadata"]["annotations"] = annotations
    reply = await api.post(f"/apis/apps/v1/namespaces/{namespace}/deployments", body)
    assert reply.status == 201, reply.body
    assert texts(reply) == [
        NAME_WARNING,
        "spec.template.metadata.annotations[seccomp.security.alpha.kubernetes.io/pod]: " + SECCOMP,
        f"spec.template.spec.terminationGracePeriodSeconds: {GRACE}",
    ]


async def test_an_update_warns_only_when_the_generation_moves(api: Api, namespace: str) -> None:
    path = f"/apis/apps/v1/namespaces/{namespace}/deployments"
    body = deployment("web", {"env": [{"name": "A", "value": "1"}, {"name": "A", "value": "2"}]})
    created = await api.post(path, body)
    hidden = (
        'spec.template.spec.containers[0].env[1]: hides previous definition of "A", '
        "which may be dropped when using apply"
    )
    assert texts(created) == [hidden]

    merge = "application/merge-patch+json"
    relabel = {"metadata": {"labels": {"touched": "yes"}}}  # metadata only: same generation
    relabelled = await api.patch(f"{path}/web", relabel, merge)
    assert relabelled.status == 200, relabelled.body
    assert texts(relabelled) == []

    scale = {"spec": {"replicas": 3}}  # any spec change moves the generation on
    scaled = await api.patch(f"{path}/web", scale, merge)
    assert scaled.status == 200 and scaled.body["metadata"]["generation"] == 2
    assert texts(scaled) == [hidden]


async def test_a_cronjob_s_template_is_warned_of_under_its_job_template(
    api: Api, namespace: str
) -> None:
    pod_template = template("tick", restartPolicy="OnFailure", terminationGracePeriodSeconds=-1)
    body = {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": "tick"},
        "spec": {"schedule": "* * * * *", "jobTemplate": {"spec": {"template": pod_template}}},
    }
    reply = await api.post(f"/apis/batch/v1/namespaces/{namespace}/cronjobs", body)
    assert reply.status == 201, reply.body
    assert texts(reply) == [
        f"spec.jobTemplate.spec.template.spec.terminationGracePeriodSeconds: {GRACE}"
    ]


async def test_a_daemon_set_and_a_pod_template_warn_of_their_template_only(
    api: Api, namespace: str
) -> None:
    selector = {"matchLabels": {"app": "agent.v1"}}
    spec = {"selector": selector, "template": template("agent.v1", nodeName="", hostNetwork=False)}
    spec["template"]["spec"]["nodeSelector"] = {"beta.kubernetes.io/os": "linux"}
    body = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent.v1"}}
    reply = await api.post(
        f"/apis/apps/v1/namespaces/{namespace}/daemonsets", {**body, "spec": spec}
    )
    assert reply.status == 201, reply.body
    os_label = 'deprecated since v1.14; use "kubernetes.io/os" instead'
    assert texts(reply) == [f"spec.template.spec.nodeSelector[beta.kubernetes.io/os]: {os_label}"]

    body = {"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "tmpl.v1"}}
    body["template"] = template("tmpl", imagePullSecrets=[{"name": ""}])
    reply = await api.post(f"/api/v1/namespaces/{namespace}/podtemplates", body)
    assert reply.status == 201, reply.body
    assert texts(reply) == ['template.spec.imagePullSecrets[0].name: invalid empty name ""']


async def test_a_big_indexed_job_is_warned_of_before_its_template(api: Api, namespace: str) -> None:
    pod_template = template("batch.v1", restartPolicy="Never", terminationGracePeriodSeconds=-1)
    spec = {"completionMode": "Indexed", "completions": 100_001, "parallelism": 10_001}
    spec["suspend"] = True  # the job controller would otherwise start 10,001 pods
    body = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "batch.v1"}}
    body["spec"] = {**spec, "template": pod_template}
    # Indexed pods are named <job>-<index>: 1.32 refuses a Job whose last one is no DNS label.
    refused = await api.post(f"/apis/batch/v1/namespaces/{namespace}/jobs", body)
    assert refused.status == 422
    assert refused.body["message"].endswith(
        "will not able to create pod with invalid DNS label: batch.v1-100000"
    )
    body["metadata"]["name"] = "batch-v1"
    reply = await api.post(f"/apis/batch/v1/namespaces/{namespace}/jobs", body)
    assert reply.status == 201, reply.body
    assert texts(reply) == [
        "spec: In Indexed Jobs with a number of completions higher than 10^5 and a parallelism "
        "higher than 10^4, Kubernetes might not be able to track completedIndexes when a big "
        "number of indexes fail",
        f"spec.template.spec.terminationGracePeriodSeconds: {GRACE}",
    ]


async def test_scaling_moves_the_generation_so_the_template_is_warned_of_again(
    api: Api, namespace: str
) -> None:
    # /scale writes through the Deployment's own strategy, WarningsOnUpdate included.
    path = f"/apis/apps/v1/namespaces/{namespace}/deployments/lasting"
    body = deployment("lasting", terminationGracePeriodSeconds=-1)
    assert (await api.post(path.rsplit("/", 1)[0], body)).status == 201
    scale = {"spec": {"replicas": 2}}
    reply = await api.patch(f"{path}/scale", scale, "application/merge-patch+json")
    assert reply.status == 200, reply.body
    assert texts(reply) == [f"spec.template.spec.terminationGracePeriodSeconds: {GRACE}"]


async def test_claim_storage_that_is_not_whole_bytes_is_warned_of(api: Api, namespace: str) -> None:
    claim = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "2.5"}}}
    scratch = {"name": "scratch", "ephemeral": {"volumeClaimTemplate": {"spec": claim}}}
    body = pod("scratchy", volumes=[scratch])
    reply = await api.post(f"/api/v1/namespaces/{namespace}/pods", body)
    assert reply.status == 201, reply.body
    assert texts(reply) == [
        "spec.volumes[0].ephemeral.volumeClaimTemplate.spec.resources.requests[storage]: "
        'fractional byte value "2500m" is invalid, must be an integer'
    ]

    path = f"/apis/apps/v1/namespaces/{namespace}/statefulsets"
    selector = {"matchLabels": {"app": "db"}}
    spec = {"selector": selector, "serviceName": "db", "template": template("db")}
    spec["volumeClaimTemplates"] = [{"metadata": {"name": "data"}, "spec": claim}]
    body = {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db"}}
    created = await api.post(path, {**body, "spec": spec})
    assert created.status == 201, created.body
    fractional = 'fractional byte value "2500m" is invalid, must be an integer'
    assert texts(created) == [
        f"spec.volumeClaimTemplates[0].resources.requests[storage]: {fractional}"
    ]
    merge = "application/merge-patch+json"
    relabelled = await api.patch(f"{path}/db", {"metadata": {"labels": {"a": "b"}}}, merge)
    assert relabelled.status == 200, relabelled.body
    # WarningsOnUpdate names the claim's spec "Spec", and says it on every update.
    assert texts(relabelled) == [
        f"spec.volumeClaimTemplates[0].Spec.resources.requests[storage]: {fractional}"
    ]
