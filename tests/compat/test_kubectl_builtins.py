"""The real kubectl on the second set of built-ins: deployments (create, scale, get), events
of both APIs, RBAC objects, service-account tokens and the auth subcommands."""

from __future__ import annotations

import json

import pytest

from .kf_kubectl import Kubectl

pytestmark = pytest.mark.kubectl


def _rows(output: str) -> list[list[str]]:
    return [line.split() for line in output.strip().splitlines()]


def test_create_deployment_stores_the_real_defaults(kubectl: Kubectl) -> None:
    created = kubectl.run("create", "deployment", "web", "--image=nginx:1.27", "--replicas=2")
    assert created.strip() == "deployment.apps/web created"
    deployment = json.loads(kubectl.run("get", "deployment", "web", "-o", "json"))
    assert deployment["spec"]["replicas"] == 2
    assert deployment["spec"]["strategy"] == {
        "type": "RollingUpdate",
        "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"},
    }
    assert deployment["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.27"
    assert deployment["metadata"]["generation"] == 1


def test_get_deploy_prints_the_server_columns(kubectl: Kubectl) -> None:
    kubectl.run("create", "deployment", "web", "--image=nginx:1.27", "--replicas=3")
    kubectl.run("rollout", "status", "deployment/web", "--timeout=60s")  # the controllers ran
    rows = _rows(kubectl.run("get", "deploy"))
    assert rows[0] == ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"]
    assert rows[1][:4] == ["web", "3/3", "3", "3"]
    wide = _rows(kubectl.run("get", "deploy", "-o", "wide"))
    assert wide[0][5:] == ["CONTAINERS", "IMAGES", "SELECTOR"]
    assert wide[1][5:] == ["nginx", "nginx:1.27", "app=web"]


def test_scale_goes_through_the_scale_subresource(kubectl: Kubectl) -> None:
    kubectl.run("create", "deployment", "web", "--image=nginx:1.27")
    scaled = kubectl.run("scale", "deployment", "web", "--replicas=5")
    assert scaled.strip() == "deployment.apps/web scaled"
    assert kubectl.run("get", "deploy", "web", "-o", "jsonpath={.spec.replicas}") == "5"
    # --current-replicas is a precondition: a mismatch changes nothing.
    refused = kubectl.fails("scale", "deployment", "web", "--current-replicas=2", "--replicas=1")
    assert "Expected replicas to be 2, was 5" in refused
    assert kubectl.run("get", "deploy", "web", "-o", "jsonpath={.spec.replicas}") == "5"


def test_apply_of_a_statefulset_and_a_daemonset(kubectl: Kubectl) -> None:
    manifest = """
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  serviceName: db
  replicas: 1
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, image: "postgres:16"}]}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: agent, image: "busybox:1.36"}]}
"""
    applied = _rows(kubectl.run("apply", "-f", "-", stdin=manifest))
    assert applied == [["statefulset.apps/db", "created"], ["daemonset.apps/agent", "created"]]
    changed = kubectl.run("apply", "-f", "-", stdin=manifest.replace("replicas: 1", "replicas: 2"))
    assert "statefulset.apps/db configured" in changed
    assert kubectl.run("get", "sts", "db", "-o", "jsonpath={.spec.replicas}") == "2"
    assert _rows(kubectl.run("get", "ds"))[0][:7] == [
        "NAME",
        "DESIRED",
        "CURRENT",
        "READY",
        "UP-TO-DATE",
        "AVAILABLE",
        "NODE",
    ]
    everything = kubectl.run("get", "all")
    assert "statefulset.apps/db" in everything
    assert "daemonset.apps/agent" in everything


def test_get_events_reads_core_events_and_events_v1_reads_them_too(kubectl: Kubectl) -> None:
    event = f"""
apiVersion: v1
kind: Event
metadata: {{name: web.1}}
involvedObject: {{apiVersion: v1, kind: Pod, name: web, namespace: {kubectl.namespace}}}
reason: Pulled
message: pulled the image
type: Normal
"""
    kubectl.run("create", "-f", "-", stdin=event)
    rows = _rows(kubectl.run("get", "events"))
    assert rows[0] == ["LAST", "SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
    assert rows[1][-6:] == ["Normal", "Pulled", "pod/web", "pulled", "the", "image"]
    listed = json.loads(kubectl.run("get", "events.v1.events.k8s.io", "-o", "json"))
    assert [e["note"] for e in listed["items"]] == ["pulled the image"]
    assert listed["items"][0]["regarding"]["name"] == "web"
    # kubectl events selects on involvedObject.kind, .apiVersion and .name.
    described = kubectl.run("events", "--for", "pod/web")
    assert "pulled the image" in described


def test_rbac_objects_from_kubectl_create(kubectl: Kubectl) -> None:
    kubectl.run("create", "role", "reader", "--verb=get,list", "--resource=pods")
    kubectl.run("create", "rolebinding", "reader", "--role=reader", "--user=jane")
    rows = _rows(kubectl.run("get", "rolebindings", "-o", "wide"))
    assert rows[0][:4] == ["NAME", "ROLE", "AGE", "USERS"]
    assert rows[1][:2] == ["reader", "Role/reader"]
    assert rows[1][3] == "jane"
    role = json.loads(kubectl.run("get", "role", "reader", "-o", "json"))
    assert role["rules"] == [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]}]
    names = kubectl.run("get", "clusterroles", "-o", "name", namespaced=False).split()
    assert "clusterrole.rbac.authorization.k8s.io/cluster-admin" in names


def test_auth_can_i_and_whoami_answer_for_the_admin(kubectl: Kubectl) -> None:
    assert kubectl.run("auth", "can-i", "create", "deployments").strip() == "yes"
    whoami = _rows(kubectl.run("auth", "whoami"))
    assert whoami[1] == ["Username", "kubernetes-admin"]
    assert whoami[2] == ["Groups", "[system:masters", "system:authenticated]"]


def test_create_token_gives_a_token_that_authenticates_as_the_account(
    kubectl: Kubectl,
) -> None:
    kubectl.run("create", "serviceaccount", "bot")
    token = kubectl.run("create", "token", "bot", "--duration=20m").strip()
    assert token.count(".") == 2  # a JWT
    whoami = _rows(kubectl.run("auth", "whoami", f"--token={token}"))
    assert whoami[1] == ["Username", f"system:serviceaccount:{kubectl.namespace}:bot"]
    refused = kubectl.fails("create", "token", "ghost")
    assert 'serviceaccounts "ghost" not found' in refused


def test_create_service_sends_protobuf_the_server_reads(kubectl: Kubectl) -> None:
    kubectl.run("create", "service", "clusterip", "web", "--tcp=80:8080", "--tcp=443:8443")
    service = json.loads(kubectl.run("get", "service", "web", "-o", "json"))
    ports = [(p["name"], p["port"], p["targetPort"]) for p in service["spec"]["ports"]]
    assert ports == [("80-8080", 80, 8080), ("443-8443", 443, 8443)]
    assert service["spec"]["selector"] == {"app": "web"}
    kubectl.run("create", "service", "externalname", "ext", "--external-name=example.com")
    assert kubectl.run("get", "svc", "ext", "-o", "jsonpath={.spec.externalName}") == (
        "example.com"
    )
