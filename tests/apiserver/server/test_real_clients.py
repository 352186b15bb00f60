"""The judges: kubectl and the official ``kubernetes`` Python package, unchanged."""

from __future__ import annotations

import json
import subprocess
import uuid
from pathlib import Path
from typing import Any

import pytest

from kubeforge.testing import LocalApiServer

CRD = """
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: {plural}.example.com
spec:
  group: example.com
  names: {{kind: {kind}, plural: {plural}, shortNames: [{short}]}}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {{status: {{}}}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {{type: object, properties: {{podName: {{type: string}}}}}}
          status: {{type: object, properties: {{created: {{type: boolean}}}}}}
"""


def kubectl(server: LocalApiServer, cache: Path, *args: str, stdin: str | None = None) -> str:
    command = ["kubectl", "--kubeconfig", str(server.kubeconfig), "--cache-dir", str(cache), *args]
    result = subprocess.run(
        command, input=stdin, capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, f"{' '.join(args)}\n{result.stdout}\n{result.stderr}"
    return result.stdout


@pytest.mark.kubectl
def test_kubectl_typed_creates_run_wait_and_namespace_deletion(
    kube_apiserver: LocalApiServer, tmp_path: Path
) -> None:
    ns = f"kc-{uuid.uuid4().hex[:8]}"
    kubectl(kube_apiserver, tmp_path, "create", "namespace", ns)  # protobuf body
    kubectl(kube_apiserver, tmp_path, "-n", ns, "create", "configmap", "c", "--from-literal=a=b")
    kubectl(
        kube_apiserver, tmp_path, "-n", ns, "create", "secret", "generic", "s", "--from-literal=k=v"
    )
    secret = json.loads(
        kubectl(kube_apiserver, tmp_path, "-n", ns, "get", "secret", "s", "-o", "json")
    )
    assert secret["data"] == {"k": "dg=="}
    assert secret["type"] == "Opaque"
    kubectl(kube_apiserver, tmp_path, "-n", ns, "run", "web", "--image=nginx")
    kubectl(
        kube_apiserver,
        tmp_path,
        "-n",
        ns,
        "wait",
        "--for=condition=Ready",
        "pod/web",
        "--timeout=30s",
    )
    pod = json.loads(kubectl(kube_apiserver, tmp_path, "-n", ns, "get", "pod", "web", "-o", "json"))
    assert pod["status"]["podIP"].startswith("10.244.")
    kubectl(kube_apiserver, tmp_path, "-n", ns, "label", "configmap", "c", "tier=web")
    listed = kubectl(
        kube_apiserver, tmp_path, "-n", ns, "get", "cm", "-l", "tier=web", "-o", "name"
    )
    assert listed.split() == ["configmap/c"]
    kubectl(kube_apiserver, tmp_path, "delete", "namespace", ns, "--timeout=30s")  # waits for it


@pytest.mark.kubectl
def test_kubectl_applies_a_crd_and_its_custom_resources(
    kube_apiserver: LocalApiServer, tmp_path: Path
) -> None:
    suffix = uuid.uuid4().hex[:6]
    plural, kind = f"probes{suffix}", f"Probe{suffix}"
    kubectl(
        kube_apiserver,
        tmp_path,
        "apply",
        "-f",
        "-",
        stdin=CRD.format(plural=plural, kind=kind, short=f"pr{suffix}"),
    )
    kubectl(
        kube_apiserver,
        tmp_path,
        "wait",
        "--for=condition=Established",
        f"crd/{plural}.example.com",
        "--timeout=30s",
    )
    manifest = {
        "apiVersion": "example.com/v1",
        "kind": kind,
        "metadata": {"name": "one", "namespace": "default"},
        "spec": {"podName": "a"},
    }
    kubectl(kube_apiserver, tmp_path, "apply", "-f", "-", stdin=json.dumps(manifest))
    manifest["spec"]["podName"] = "b"
    kubectl(kube_apiserver, tmp_path, "apply", "-f", "-", stdin=json.dumps(manifest))
    kubectl(
        kube_apiserver,
        tmp_path,
        "patch",
        plural,
        "one",
        "--subresource=status",
        "--type=merge",
        "-p",
        '{"status":{"created":true}}',
    )
    got: dict[str, Any] = json.loads(
        kubectl(kube_apiserver, tmp_path, "get", f"pr{suffix}", "one", "-o", "json")
    )
    assert got["spec"] == {"podName": "b"}
    assert got["status"] == {"created": True}
    assert got["metadata"]["generation"] == 2
    kubectl(kube_apiserver, tmp_path, "delete", f"crd/{plural}.example.com", "--timeout=30s")


def test_the_official_python_client_works_unchanged(kube_apiserver: LocalApiServer) -> None:
    from kubernetes import client, config, watch

    api_client = config.new_client_from_config(config_file=str(kube_apiserver.kubeconfig))
    v1 = client.CoreV1Api(api_client)
    name = f"py-{uuid.uuid4().hex[:8]}"
    v1.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=name)))
    body = client.V1ConfigMap(metadata=client.V1ObjectMeta(name="c"), data={"a": "b"})
    created = v1.create_namespaced_config_map(name, body)
    with pytest.raises(client.ApiException) as conflict:
        v1.create_namespaced_config_map(name, body)
    assert conflict.value.status == 409
    patched = v1.patch_namespaced_config_map("c", name, {"data": {"x": "y"}})
    assert patched.data == {"a": "b", "x": "y"}
    assert patched.metadata.resource_version != created.metadata.resource_version
    pod = client.V1Pod(
        metadata=client.V1ObjectMeta(name="p"),
        spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="nginx")]),
    )
    v1.create_namespaced_pod(name, pod)
    stream = watch.Watch()
    phase = None
    for event in stream.stream(v1.list_namespaced_pod, name, timeout_seconds=20):
        phase = event["object"].status.phase
        if phase == "Running":
            stream.stop()
    assert phase == "Running"
    api_client.close()
