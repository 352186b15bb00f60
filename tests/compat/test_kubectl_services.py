"""Services through the real kubectl and the official Python client: node ports allocated
and refused in a 1.32 server's words, a re-apply keeping what the server allocated, a type
change releasing the node port."""

from __future__ import annotations

from typing import Any

import pytest
from kubernetes import client as k8s

from .kf_kubectl import Kubectl

pytestmark = pytest.mark.kubectl

SERVICE = """
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  type: NodePort
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: 8080}]
"""


def test_create_service_nodeport_allocates_and_refuses_a_taken_port(kubectl: Kubectl) -> None:
    created = kubectl.run(
        "create", "service", "nodeport", "web", "--tcp=80:8080", "--node-port=30999"
    )
    assert created.strip() == "service/web created"
    row = kubectl.run("get", "service", "web", "--no-headers").split()
    assert row[:2] == ["web", "NodePort"] and row[3:5] == ["<none>", "80:30999/TCP"]
    refused = kubectl.fails(
        "create", "service", "nodeport", "db", "--tcp=81:8081", "--node-port=30999"
    )
    assert refused.strip().endswith(
        'Service "db" is invalid: spec.ports[0].nodePort: Invalid value: 30999: provided port '
        "is already allocated"
    )


def test_re_applying_keeps_the_allocations_and_a_type_change_releases_them(
    kubectl: Kubectl,
) -> None:
    assert kubectl.run("apply", "-f", "-", stdin=SERVICE).strip() == "service/web created"
    first = kubectl.json("service", "web")
    assert kubectl.run("apply", "-f", "-", stdin=SERVICE).strip() == "service/web unchanged"
    node_port = first["spec"]["ports"][0]["nodePort"]
    plain = SERVICE.replace("type: NodePort", "type: ClusterIP")
    assert kubectl.run("apply", "-f", "-", stdin=plain).strip() == "service/web configured"
    after = kubectl.json("service", "web")
    assert after["spec"]["clusterIP"] == first["spec"]["clusterIP"]
    assert "nodePort" not in after["spec"]["ports"][0]
    assert "externalTrafficPolicy" not in after["spec"]
    taken = SERVICE.replace("name: web}", "name: other}").replace(
        "targetPort: 8080}", f"targetPort: 8080, nodePort: {node_port}}}"
    )
    assert kubectl.run("apply", "-f", "-", stdin=taken).strip() == "service/other created"


def test_the_official_client_gets_a_422_with_the_causes(api_client: Any, namespace: str) -> None:
    core = k8s.CoreV1Api(api_client)
    body = k8s.V1Service(
        metadata=k8s.V1ObjectMeta(name="lb"),
        spec=k8s.V1ServiceSpec(
            type="LoadBalancer",
            external_traffic_policy="Local",
            ports=[k8s.V1ServicePort(port=443, name="https")],
        ),
    )
    created = core.create_namespaced_service(namespace, body)
    assert created.spec.allocate_load_balancer_node_ports is True
    assert 30000 <= created.spec.health_check_node_port <= 32767
    assert created.spec.ip_families == ["IPv4"]
    bad = k8s.V1Service(
        metadata=k8s.V1ObjectMeta(name="bad"),
        spec=k8s.V1ServiceSpec(ports=[k8s.V1ServicePort(port=80)], session_affinity="Sticky"),
    )
    with pytest.raises(k8s.ApiException) as raised:
        core.create_namespaced_service(namespace, bad)
    assert raised.value.status == 422
    assert '"reason":"FieldValueNotSupported"' in raised.value.body.replace(" ", "")
