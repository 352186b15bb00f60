"""Realistic objects of many kinds decode into the generated models and encode back unchanged."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from kubeforge.core.meta import ObjectMeta, decode, encode
from kubeforge.core.resource import Resource
from kubeforge.models import resource_class
from kubeforge.models.apiextensions_v1 import CustomResourceDefinition, JSONSchemaProps
from kubeforge.models.apps_v1 import Deployment
from kubeforge.models.core_v1 import (
    Container,
    ContainerPort,
    Node,
    Pod,
    PodList,
    PodSpec,
    ResourceRequirements,
    Service,
)
from kubeforge.models.networking_v1 import Ingress

SAMPLES = Path(__file__).parent / "samples"


def _sample(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((SAMPLES / name).read_text())
    return data


def _decode(raw: dict[str, Any]) -> Resource:
    cls = resource_class(raw["apiVersion"], raw["kind"])
    assert cls is not None, f"no model for {raw['apiVersion']} {raw['kind']}"
    return msgspec.json.decode(json.dumps(raw).encode(), type=cls)


def _is_zero(value: Any) -> bool:
    return value in (None, 0, "", False, [], {})


def _lost(original: Any, encoded: Any, path: str = "") -> list[str]:
    """Paths present in ``original`` but changed or missing in ``encoded`` (zero values aside).

    Required fields default to their zero value and defaults are omitted when encoding,
    so e.g. ``lastProbeTime: null`` or a required ``0`` may be left out; anything else
    missing or different is a loss.
    """
    if isinstance(original, dict) and isinstance(encoded, dict):
        lost = []
        for key, value in original.items():
            if key not in encoded:
                if not _is_zero(value):
                    lost.append(f"{path}.{key}")
            else:
                lost += _lost(value, encoded[key], f"{path}.{key}")
        lost += [f"{path}.{key} (added)" for key in encoded if key not in original]
        return lost
    if isinstance(original, list) and isinstance(encoded, list) and len(original) == len(encoded):
        return [
            x
            for i, (a, b) in enumerate(zip(original, encoded, strict=True))
            for x in _lost(a, b, f"{path}[{i}]")
        ]
    return [] if original == encoded else [f"{path}: {original!r} != {encoded!r}"]


ALL_SAMPLES = sorted(p.name for p in SAMPLES.glob("*.json"))


@pytest.mark.parametrize("name", ALL_SAMPLES)
def test_a_server_object_decodes_and_encodes_back_without_losing_anything(name: str) -> None:
    raw = _sample(name)
    obj = _decode(raw)
    encoded = json.loads(msgspec.json.encode(obj))
    assert _lost(raw, encoded) == []
    assert msgspec.json.decode(msgspec.json.encode(obj), type=type(obj)) == obj


@pytest.mark.parametrize(
    "name", ["configmap.json", "secret.json", "namespace.json", "lease.json", "role.json"]
)
def test_objects_without_zero_valued_fields_round_trip_byte_for_byte_as_json(name: str) -> None:
    raw = _sample(name)
    assert json.loads(msgspec.json.encode(_decode(raw))) == raw


def test_wire_names_that_camel_case_would_break_are_kept() -> None:
    pod = _decode(_sample("pod.json"))
    assert isinstance(pod, Pod) and pod.status is not None
    assert pod.status.pod_ip == "10.244.0.12"
    assert [ip.ip for ip in pod.status.host_ips or []] == ["172.18.0.2"]
    assert pod.metadata.managed_fields and pod.metadata.managed_fields[0].fields_v1
    encoded = json.loads(msgspec.json.encode(pod))
    assert {"podIP", "podIPs", "hostIP", "hostIPs", "qosClass"} <= set(encoded["status"])
    assert "fieldsV1" in encoded["metadata"]["managedFields"][0]

    service = _decode(_sample("service.json"))
    assert isinstance(service, Service) and service.spec is not None
    assert service.spec.cluster_ips == ["10.96.112.7"]
    assert "clusterIPs" in json.loads(msgspec.json.encode(service))["spec"]

    node = _decode(_sample("node.json"))
    assert isinstance(node, Node) and node.spec is not None and node.status is not None
    assert node.spec.pod_cidrs == ["10.244.0.0/24"]
    endpoints = node.status.daemon_endpoints
    assert endpoints is not None and endpoints.kubelet_endpoint is not None
    assert endpoints.kubelet_endpoint.port == 10250  # wire name "Port", capitalised


def test_json_schema_keywords_keep_their_dollar_and_dash_names() -> None:
    schema = msgspec.json.decode(
        b'{"$ref": "#/x", "x-kubernetes-int-or-string": true, "not": {"type": "string"},'
        b' "x-kubernetes-list-map-keys": ["name"]}',
        type=JSONSchemaProps,
    )
    assert schema.ref == "#/x" and schema.x_kubernetes_int_or_string is True
    assert schema.not_ == JSONSchemaProps(type="string")
    assert json.loads(msgspec.json.encode(schema)) == {
        "$ref": "#/x",
        "not": {"type": "string"},
        "x-kubernetes-int-or-string": True,
        "x-kubernetes-list-map-keys": ["name"],
    }


def test_crd_schema_unions_decode_by_json_type() -> None:
    crd = _decode(_sample("crd.json"))
    assert isinstance(crd, CustomResourceDefinition)
    root = crd.spec.versions[0].schema
    assert root is not None and root.open_apiv3_schema is not None
    props = root.open_apiv3_schema.properties or {}
    spec_props = props["spec"].properties or {}
    assert spec_props["tags"].items == JSONSchemaProps(type="string")
    assert spec_props["labels"].additional_properties == JSONSchemaProps(type="string")
    assert spec_props["extra"].x_kubernetes_preserve_unknown_fields is True
    as_bool = msgspec.json.decode(b'{"additionalProperties": false}', type=JSONSchemaProps)
    assert as_bool.additional_properties is False
    as_list = msgspec.json.decode(b'{"items": [{"type": "string"}]}', type=JSONSchemaProps)
    assert as_list.items == [JSONSchemaProps(type="string")]


def test_int_or_string_and_quantities_keep_their_json_type() -> None:
    deployment = _decode(_sample("deployment.json"))
    assert isinstance(deployment, Deployment) and deployment.spec is not None
    strategy = deployment.spec.strategy
    assert strategy is not None and strategy.rolling_update is not None
    assert strategy.rolling_update.max_surge == "25%"
    assert strategy.rolling_update.max_unavailable == 1
    limits = deployment.spec.template.spec and deployment.spec.template.spec.containers[0]
    assert limits and limits.resources and limits.resources.limits == {"cpu": 1, "memory": "128Mi"}
    encoded = json.loads(msgspec.json.encode(deployment))
    assert encoded["spec"]["strategy"]["rollingUpdate"] == {"maxSurge": "25%", "maxUnavailable": 1}


def test_unset_fields_are_left_out_when_encoding() -> None:
    pod = Pod(
        metadata=ObjectMeta(name="web", namespace="default"),
        spec=PodSpec(
            containers=[
                Container(name="web", image="nginx", ports=[ContainerPort(container_port=80)])
            ]
        ),
    )
    assert json.loads(encode(pod)) == {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "containers": [{"image": "nginx", "name": "web", "ports": [{"containerPort": 80}]}]
        },
    }


def test_optional_fields_set_to_zero_values_are_still_sent() -> None:
    requirements = ResourceRequirements(limits={"cpu": 0})
    container = Container(name="c", tty=False, resources=requirements)
    assert json.loads(msgspec.json.encode(container)) == {
        "name": "c",
        "resources": {"limits": {"cpu": 0}},
        "tty": False,
    }


def test_a_bookmark_with_only_a_resource_version_decodes() -> None:
    bookmark = b'{"kind": "CustomResourceDefinition", "apiVersion": "apiextensions.k8s.io/v1",'
    bookmark += b' "metadata": {"resourceVersion": "12345"}}'
    crd = decode(bookmark, CustomResourceDefinition)
    assert crd.metadata.resource_version == "12345"
    assert crd.spec.names.plural == ""  # a required nested model: an empty one, as in Go
    pod = decode(b'{"metadata": {"resourceVersion": "7"}}', Pod)
    assert pod.spec is None and pod.kind == "Pod" and pod.api_version == "v1"
    # A Go server's bookmark of a pod: its empty spec, with the nil slice as null.
    pod = decode(b'{"metadata": {"resourceVersion": "8"}, "spec": {"containers": null}}', Pod)
    assert pod.spec is not None and pod.spec.containers == []


def test_required_fields_missing_from_a_lax_server_get_zero_values() -> None:
    container = decode(b'{"image": "nginx"}', Container)
    assert container.name == "" and container.image == "nginx"
    ingress = decode(b'{"spec": {"rules": [{"http": {}}]}}', Ingress)
    assert ingress.spec and ingress.spec.rules and ingress.spec.rules[0].http
    assert ingress.spec.rules[0].http.paths == []


def test_list_items_without_kind_get_it_from_the_model() -> None:
    body = json.dumps(
        {
            "apiVersion": "v1",
            "kind": "PodList",
            "metadata": {"resourceVersion": "48213"},
            "items": [{"metadata": {"name": "a"}}, {"metadata": {"name": "b"}}],
        }
    ).encode()
    pods = msgspec.json.decode(body, type=PodList)
    assert pods.metadata and pods.metadata.resource_version == "48213"
    assert [(p.kind, p.api_version, p.metadata.name) for p in pods.items] == [
        ("Pod", "v1", "a"),
        ("Pod", "v1", "b"),
    ]


def test_a_wrong_json_type_is_a_clear_validation_error() -> None:
    with pytest.raises(msgspec.ValidationError, match=r"\$\.spec\.containers\[0\]\.ports"):
        msgspec.json.decode(b'{"spec": {"containers": [{"name": "a", "ports": "80"}]}}', type=Pod)
