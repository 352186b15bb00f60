"""Bodies of built-in kinds are decoded as into their Go structs: a wrongly typed field is a
400 in encoding/json's words, never a stored value.

The expected texts follow k8s.io/apiserver's ``transformDecodeError`` (``<Kind> in version
"<v>" cannot be handled as a <Kind>: <error>``), Go's ``UnmarshalTypeError`` (the innermost
struct, the JSON field path without indices or map keys, the Go type), and the
``UnmarshalJSON`` of resource.Quantity, intstr.IntOrString and metav1.Time.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import kubernetes
import pytest
from kf_http import Api, pod
from kubernetes.dynamic import DynamicClient

from kubeforge.testing import LocalApiServer

POD_PREFIX = 'Pod in version "v1" cannot be handled as a Pod: '


def _pod_with(container: dict[str, Any], name: str = "p") -> dict[str, Any]:
    body = pod(name)
    body["spec"]["containers"] = [{"name": "c", "image": "nginx", **container}]
    return body


@pytest.mark.parametrize(
    ("container", "error"),
    [
        (
            {"env": [{"name": "PORT", "value": 8080}]},
            "json: cannot unmarshal number into Go struct field EnvVar.spec.containers.env.value"
            " of type string",
        ),
        (
            {"ports": [{"containerPort": "80"}]},
            "json: cannot unmarshal string into Go struct field "
            "ContainerPort.spec.containers.ports.containerPort of type int32",
        ),
        (
            {"args": ["a", 1]},
            "json: cannot unmarshal number into Go struct field Container.spec.containers.args"
            " of type string",
        ),
        (
            {"ports": [{"containerPort": 1.5}]},
            "json: cannot unmarshal number 1.5 into Go struct field "
            "ContainerPort.spec.containers.ports.containerPort of type int32",
        ),
        (
            {"resources": {"limits": {"cpu": "lots"}}},
            "quantities must match the regular expression "
            "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
        ),
        (
            {"resources": {"limits": {"cpu": "2ii"}}},
            "unable to parse quantity's suffix",
        ),
        (
            {"livenessProbe": {"httpGet": {"port": True}}},
            "json: cannot unmarshal bool into Go struct field "
            "HTTPGetAction.spec.containers.livenessProbe.httpGet.port of type int32",
        ),
    ],
)
async def test_a_wrongly_typed_container_field_is_refused_in_gos_words(
    api: Api, namespace: str, container: dict[str, Any], error: str
) -> None:
    reply = await api.post(f"/api/v1/namespaces/{namespace}/pods", _pod_with(container))
    assert reply.status == 400, reply.body
    assert reply.reason == "BadRequest"
    assert reply.body["message"] == POD_PREFIX + error
    listed = await api.get(f"/api/v1/namespaces/{namespace}/pods")
    assert listed.body["items"] == []


async def test_values_go_accepts_are_stored_as_sent(api: Api, namespace: str) -> None:
    body = _pod_with(
        {
            "resources": {"limits": {"cpu": 1, "memory": "1Gi"}, "requests": {"cpu": "0.5"}},
            "livenessProbe": {"httpGet": {"port": "http"}},
            "readinessProbe": {"httpGet": {"port": 8080}},
            "env": [{"name": "A", "value": None}],
        }
    )
    body["spec"]["terminationGracePeriodSeconds"] = 9223372036854775807
    reply = await api.post(f"/api/v1/namespaces/{namespace}/pods", body)
    assert reply.status == 201, reply.body
    container = reply.body["spec"]["containers"][0]
    assert container["livenessProbe"]["httpGet"]["port"] == "http"
    assert container["readinessProbe"]["httpGet"]["port"] == 8080


@pytest.mark.parametrize(
    ("path", "body", "error"),
    [
        (
            "/apis/apps/v1/namespaces/{ns}/deployments",
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {"name": "d"},
                "spec": {"replicas": "3"},
            },
            'Deployment in version "v1" cannot be handled as a Deployment: json: cannot '
            "unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32",
        ),
        (
            "/api/v1/namespaces/{ns}/pods",
            {"apiVersion": "v1", "kind": "Pod", "metadata": "p"},
            POD_PREFIX + "json: cannot unmarshal string into Go struct field Pod.metadata of "
            "type v1.ObjectMeta",
        ),
        (
            "/api/v1/namespaces/{ns}/pods",
            {"apiVersion": "v1", "kind": "Pod", "metadata": ["p"]},
            POD_PREFIX + "json: cannot unmarshal array into Go struct field Pod.metadata of "
            "type v1.ObjectMeta",
        ),
        (
            "/api/v1/namespaces/{ns}/configmaps",
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": "c", "labels": {"a": 1}},
            },
            'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal '
            "number into Go struct field ObjectMeta.metadata.labels of type string",
        ),
        (
            "/api/v1/namespaces/{ns}/pods",
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": "p"},
                "spec": {"terminationGracePeriodSeconds": 9223372036854775808},
            },
            POD_PREFIX + "json: cannot unmarshal number 9223372036854775808 into Go struct "
            "field PodSpec.spec.terminationGracePeriodSeconds of type int64",
        ),
        (
            "/api/v1/namespaces/{ns}/secrets",
            {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "data": {"k": "a!"}},
            'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input '
            "byte 1",
        ),
        (
            "/api/v1/namespaces/{ns}/configmaps",
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": "c", "creationTimestamp": "2024-13-01T00:00:00Z"},
            },
            'ConfigMap in version "v1" cannot be handled as a ConfigMap: parsing time '
            '"2024-13-01T00:00:00Z": month out of range',
        ),
        (
            "/api/v1/namespaces/{ns}/configmaps",
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": "c", "creationTimestamp": "today"},
            },
            'ConfigMap in version "v1" cannot be handled as a ConfigMap: parsing time "today" '
            'as "2006-01-02T15:04:05Z07:00": cannot parse "today" as "2006"',
        ),
    ],
)
async def test_each_kind_and_metadata_are_decoded_strictly(
    api: Api, namespace: str, path: str, body: dict[str, Any], error: str
) -> None:
    reply = await api.post(path.format(ns=namespace), body)
    assert (reply.status, reply.body["message"]) == (400, error)


async def test_a_kind_that_is_not_a_string_cannot_be_interpreted(api: Api, namespace: str) -> None:
    body = {"apiVersion": "v1", "kind": [], "metadata": {"name": "c"}}
    reply = await api.post(f"/api/v1/namespaces/{namespace}/configmaps", body)
    assert reply.status == 400
    assert reply.body["message"] == (
        "the object provided is unrecognized (must be of type ConfigMap): couldn't get "
        "version/kind; json parse error: json: cannot unmarshal array into Go struct field "
        '.kind of type string ({"apiVersion": "v1", "kind": [ ...)'
    )


async def test_an_update_is_decoded_as_strictly_as_a_create(api: Api, namespace: str) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    created = await api.post(path, {"metadata": {"name": "c"}, "data": {"a": "b"}})
    assert created.status == 201
    body = {**created.body, "data": {"a": 1}}
    reply = await api.put(f"{path}/c", body)
    assert reply.status == 400
    assert reply.body["message"] == (
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal '
        "number into Go struct field ConfigMap.data of type string"
    )
    assert (await api.get(f"{path}/c")).body["data"] == {"a": "b"}


@pytest.mark.kubectl
def test_kubectl_shows_the_decode_error(kube_apiserver: LocalApiServer, tmp_path: Path) -> None:
    body = _pod_with({"env": [{"name": "PORT", "value": 8080}]})
    result = subprocess.run(
        [
            "kubectl",
            "--kubeconfig",
            str(kube_apiserver.kubeconfig),
            "--cache-dir",
            str(tmp_path),
            "-n",
            "default",
            "create",
            "-f",
            "-",
        ],
        input=json.dumps(body),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1
    assert (
        'Error from server (BadRequest): error when creating "STDIN": '
        + POD_PREFIX
        + "json: cannot unmarshal number into Go struct field EnvVar.spec.containers.env.value"
        " of type string"
    ) in result.stderr


def test_the_official_client_gets_a_400_with_the_message(
    kube_apiserver: LocalApiServer, tmp_path: Path
) -> None:
    config = kubernetes.client.Configuration()
    kubernetes.config.load_kube_config(str(kube_apiserver.kubeconfig), client_configuration=config)
    with kubernetes.client.ApiClient(config) as client:
        dynamic = DynamicClient(client, cache_file=str(tmp_path / "discovery.json"))
        deployments = dynamic.resources.get(api_version="apps/v1", kind="Deployment")
        body = {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "d"},
            "spec": {"replicas": "3", "selector": {"matchLabels": {"a": "b"}}},
        }
        with pytest.raises(kubernetes.client.ApiException) as raised:
            deployments.create(body=body, namespace="default")
    assert raised.value.status == 400
    assert json.loads(raised.value.body)["message"] == (
        'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal '
        "string into Go struct field DeploymentSpec.spec.replicas of type int32"
    )
