"""Updating Services over HTTP as a 1.32 server does: allocated values survive a re-apply
(``patchAllocatedValues``), a type change forgets and releases what only the old type used
(``dropTypeDependentFields``, ``allocateUpdate``), a delete releases everything,
``ValidateServiceUpdate``'s immutable fields, ``/status`` (``ValidateServiceStatusUpdate``
and the status strategy's warnings), and the annotations ``ValidateService`` reads."""

from __future__ import annotations

from typing import Any

from kf_http import Api
from test_pod_warnings import texts
from test_services import causes, path, svc

MERGE = "application/merge-patch+json"


async def test_re_applying_the_created_yaml_keeps_what_was_allocated(
    api: Api, namespace: str
) -> None:
    body = svc("web", type="NodePort", ports=[{"name": "http", "port": 80}])
    created = (await api.post(path(namespace), body)).body
    again = await api.put(path(namespace, "web"), body)
    assert again.status == 200, again.body
    for key in ("clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"):
        assert again.body["spec"][key] == created["spec"][key]
    assert again.body["spec"]["ports"] == created["spec"]["ports"]
    assert again.body["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]


async def test_the_cluster_ip_and_families_may_not_change(api: Api, namespace: str) -> None:
    created = (await api.post(path(namespace), svc("web", ports=[{"port": 80}]))).body
    moved = {**created, "spec": {**created["spec"], "clusterIP": "10.96.0.99"}}
    assert causes(await api.put(path(namespace, "web"), moved)) == [
        (
            "FieldValueInvalid",
            "spec.clusterIPs[0]",
            'Invalid value: []string{"10.96.0.99"}: may not change once set',
        )
    ]
    policy = await api.patch(path(namespace, "web"), {"spec": {"ipFamilyPolicy": "Bogus"}}, MERGE)
    assert causes(policy) == [
        (
            "FieldValueNotSupported",
            "spec.ipFamilyPolicy",
            'Unsupported value: "Bogus": supported values: "PreferDualStack", '
            '"RequireDualStack", "SingleStack"',
        )
    ]


async def test_leaving_node_port_releases_the_ports_and_external_name_the_ip(
    api: Api, namespace: str
) -> None:
    ports = [{"port": 80, "nodePort": 31234}]
    node = (await api.post(path(namespace), svc("a", type="NodePort", ports=ports))).body
    taken = await api.post(path(namespace), svc("b", type="NodePort", ports=ports))
    assert taken.status == 422
    # kubectl edit sends the node port back: it is dropped with the type, not refused.
    plain = {**node, "spec": {**node["spec"], "type": "ClusterIP"}}
    plain["spec"].pop("externalTrafficPolicy")
    changed = await api.put(path(namespace, "a"), plain)
    assert changed.status == 200, changed.body
    assert "nodePort" not in changed.body["spec"]["ports"][0]
    assert (await api.post(path(namespace), svc("b", type="NodePort", ports=ports))).status == 201
    ip = changed.body["spec"]["clusterIP"]
    alias = {**changed.body, "spec": {**changed.body["spec"], "type": "ExternalName"}}
    alias["spec"]["externalName"] = "a.example.com"
    alias["spec"].pop("internalTrafficPolicy")
    renamed = await api.put(path(namespace, "a"), alias)
    assert renamed.status == 200, renamed.body
    for key in ("clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"):
        assert key not in renamed.body["spec"]
    reuse = await api.post(path(namespace), svc("c", clusterIP=ip, ports=[{"port": 80}]))
    assert reuse.status == 201, reuse.body
    back = await api.patch(path(namespace, "a"), {"spec": {"type": "ClusterIP"}}, MERGE)
    assert back.status == 200, back.body
    assert back.body["spec"]["clusterIP"] not in ("", ip)


async def test_a_delete_releases_the_ip_and_node_ports_and_a_dry_run_takes_nothing(
    api: Api, namespace: str
) -> None:
    body = svc(
        "a", type="NodePort", clusterIP="10.96.0.77", ports=[{"port": 80, "nodePort": 30777}]
    )
    dry = await api.post(path(namespace), body, params={"dryRun": "All"})
    assert dry.status == 201, dry.body
    assert (await api.post(path(namespace), body)).status == 201
    assert (await api.post(path(namespace), {**body, "metadata": {"name": "b"}})).status == 422
    assert (await api.delete(path(namespace, "a"))).status == 200
    assert (await api.post(path(namespace), {**body, "metadata": {"name": "b"}})).status == 201


async def test_health_check_port_and_load_balancer_class_are_fixed(
    api: Api, namespace: str
) -> None:
    local = svc(
        "lb",
        type="LoadBalancer",
        externalTrafficPolicy="Local",
        loadBalancerClass="example.com/a",
        ports=[{"port": 80}],
    )
    created = (await api.post(path(namespace), local)).body
    port = created["spec"]["healthCheckNodePort"]
    moved = {"spec": {"healthCheckNodePort": port + 1, "loadBalancerClass": "example.com/b"}}
    assert causes(await api.patch(path(namespace, "lb"), moved, MERGE)) == [
        (
            "FieldValueInvalid",
            "spec.loadBalancerClass",
            'Invalid value: "example.com/b": may not change once set',
        ),
        ("FieldValueForbidden", "spec.healthCheckNodePort", "Forbidden: field is immutable"),
    ]
    cluster = {"spec": {"externalTrafficPolicy": "Cluster"}}
    released = await api.patch(path(namespace, "lb"), cluster, MERGE)
    assert released.status == 200, released.body
    assert "healthCheckNodePort" not in released.body["spec"]


async def test_status_takes_load_balancer_ingress_only_on_a_load_balancer(
    api: Api, namespace: str
) -> None:
    plain = (await api.post(path(namespace), svc("plain", ports=[{"port": 80}]))).body
    ingress = {"loadBalancer": {"ingress": [{"ip": "192.0.2.010"}]}}
    refused = await api.put(path(namespace, "plain") + "/status", {**plain, "status": ingress})
    assert causes(refused) == [
        (
            "FieldValueForbidden",
            "status.loadBalancer.ingress",
            "Forbidden: may only be used when `spec.type` is 'LoadBalancer'",
        )
    ]
    body = svc("lb", type="LoadBalancer", ports=[{"port": 80}])
    balancer = (await api.post(path(namespace), body)).body
    reply = await api.put(path(namespace, "lb") + "/status", {**balancer, "status": ingress})
    assert reply.status == 200, reply.body
    assert reply.body["status"]["loadBalancer"]["ingress"] == [
        {"ip": "192.0.2.010", "ipMode": "VIP"}
    ]
    assert texts(reply) == [
        "status.loadBalancer.ingress[0]: IP address was accepted, but will be invalid in a "
        'future Kubernetes release: ParseAddr("192.0.2.010"): IPv4 field has octet with '
        "leading zero"
    ]
    bad: dict[str, Any] = {"ingress": [{"ipMode": "Proxy", "hostname": "1.2.3.4"}]}
    wrong = await api.patch(
        path(namespace, "lb") + "/status", {"status": {"loadBalancer": bad}}, MERGE
    )
    assert causes(wrong) == [
        (
            "FieldValueForbidden",
            "status.loadBalancer.ingress[0].ipMode",
            "Forbidden: may not be specified when `ip` is not set",
        ),
        (
            "FieldValueInvalid",
            "status.loadBalancer.ingress[0].hostname",
            'Invalid value: "1.2.3.4": must be a DNS name, not an IP address',
        ),
    ]


async def test_a_put_creates_a_missing_service_and_field_selectors_know_its_type(
    api: Api, namespace: str
) -> None:
    created = await api.put(
        path(namespace, "new"), svc("new", type="NodePort", ports=[{"port": 80}])
    )
    assert created.status == 201, created.body
    assert created.body["spec"]["ports"][0]["nodePort"]
    await api.post(path(namespace), svc("other", ports=[{"port": 80}]))
    listed = await api.get(path(namespace), fieldSelector="spec.type=NodePort")
    assert [item["metadata"]["name"] for item in listed.body["items"]] == ["new"]


async def test_annotations_a_service_s_rules_read(api: Api, namespace: str) -> None:
    body = svc("annotated", ports=[{"port": 80}])
    body["metadata"]["annotations"] = {
        "service.kubernetes.io/topology-aware-hints": "Auto",
        "service.kubernetes.io/topology-mode": "Disabled",
        "service.beta.kubernetes.io/load-balancer-source-ranges": "10.0.0.0/8, 1.2.3.4/40",
    }
    ranges = "metadata.annotations[service.beta.kubernetes.io/load-balancer-source-ranges]"
    assert causes(await api.post(path(namespace), body)) == [
        (
            "FieldValueInvalid",
            "metadata.annotations[service.kubernetes.io/topology-mode]",
            'Invalid value: "Disabled": must match '
            "annotations[service.kubernetes.io/topology-aware-hints] when both are specified",
        ),
        (
            "FieldValueForbidden",
            ranges,
            "Forbidden: may only be used when `type` is 'LoadBalancer'",
        ),
        (
            "FieldValueInvalid",
            ranges,
            'Invalid value: "1.2.3.4/40": must be a valid CIDR value, (e.g. 10.9.8.0/24 or '
            "2001:db8::/64)",
        ),
    ]


async def test_get_shows_the_balancer_s_addresses_before_the_external_ips(
    api: Api, namespace: str
) -> None:
    body = svc("lb", type="LoadBalancer", externalIPs=["192.0.2.7"], ports=[{"port": 80}])
    created = (await api.post(path(namespace), body)).body
    table = "application/json;as=Table;v=v1;g=meta.k8s.io"
    pending = await api.request("GET", path(namespace, "lb"), headers={"Accept": table})
    assert pending.body["rows"][0]["cells"][3] == "192.0.2.7"
    ingress = {"loadBalancer": {"ingress": [{"ip": "203.0.113.9"}, {"hostname": "lb.example"}]}}
    await api.put(path(namespace, "lb") + "/status", {**created, "status": ingress})
    ready = await api.request("GET", path(namespace, "lb"), headers={"Accept": table})
    node_port = created["spec"]["ports"][0]["nodePort"]
    assert ready.body["rows"][0]["cells"][2:5] == [
        created["spec"]["clusterIP"],
        "203.0.113.9,lb.example,192.0.2.7",
        f"80:{node_port}/TCP",
    ]


async def test_an_external_name_service_reads_without_an_internal_traffic_policy(
    api: Api, namespace: str
) -> None:
    body = svc("alias", type="ExternalName", externalName="a.example.com")
    body["spec"]["internalTrafficPolicy"] = "Local"  # accepted, and stored, but never shown
    created = await api.post(path(namespace), body)
    assert created.status == 201, created.body
    assert "internalTrafficPolicy" not in created.body["spec"]
    read = await api.get(path(namespace, "alias"))
    assert "internalTrafficPolicy" not in read.body["spec"]
