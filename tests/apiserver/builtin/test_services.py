"""Creating Services over HTTP, against what a 1.32 server answers: ``SetDefaults_Service``, the
REST storage's allocations (``pkg/registry/core/service/storage/alloc.go``), ``ValidateService``
and ``GetWarningsForService`` (pkg/api/service/warnings.go), words and field paths included."""

from __future__ import annotations

from typing import Any

from kf_http import Api, Reply
from test_pod_warnings import texts


def svc(name: str, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name}, "spec": spec}


def path(namespace: str, name: str = "") -> str:
    base = f"/api/v1/namespaces/{namespace}/services"
    return f"{base}/{name}" if name else base


def causes(reply: Reply) -> list[tuple[str, str, str]]:
    assert reply.status == 422, reply.body
    return [(c["reason"], c["field"], c["message"]) for c in reply.body["details"]["causes"]]


async def test_a_plain_service_gets_the_v1_defaults_and_an_ip_from_the_upper_band(
    api: Api, namespace: str
) -> None:
    reply = await api.post(path(namespace), svc("web", ports=[{"port": 80}], selector={"a": "b"}))
    assert reply.status == 201, reply.body
    spec = reply.body["spec"]
    ip = spec["clusterIP"]
    assert spec == {
        "ports": [{"port": 80, "protocol": "TCP", "targetPort": 80}],
        "selector": {"a": "b"},
        "clusterIP": ip,
        "clusterIPs": [ip],
        "type": "ClusterIP",
        "sessionAffinity": "None",
        "ipFamilies": ["IPv4"],
        "ipFamilyPolicy": "SingleStack",
        "internalTrafficPolicy": "Cluster",
    }
    # 10.96.0.0/12, above its lowest 256 addresses, which are kept for hand-picked IPs.
    octets = [int(part) for part in ip.split(".")]
    assert octets[0] == 10 and 96 <= octets[1] <= 111 and (octets[1], octets[2]) != (96, 0)
    assert reply.body["status"] == {"loadBalancer": {}}


async def test_node_port_and_load_balancer_defaults_and_allocations(
    api: Api, namespace: str
) -> None:
    ports = [{"name": "http", "port": 80}, {"name": "dns", "port": 53, "protocol": "UDP"}]
    node = (await api.post(path(namespace), svc("np", type="NodePort", ports=ports))).body
    assert node["spec"]["externalTrafficPolicy"] == "Cluster"
    assert "allocateLoadBalancerNodePorts" not in node["spec"]
    node_ports = [p["nodePort"] for p in node["spec"]["ports"]]
    assert all(30000 <= port <= 32767 for port in node_ports)
    assert len(set(node_ports)) == 2
    local = svc("lb", type="LoadBalancer", externalTrafficPolicy="Local", ports=[{"port": 443}])
    balancer = (await api.post(path(namespace), local)).body["spec"]
    assert balancer["allocateLoadBalancerNodePorts"] is True
    assert 30000 <= balancer["healthCheckNodePort"] <= 32767
    assert balancer["healthCheckNodePort"] not in {*node_ports, balancer["ports"][0]["nodePort"]}
    quiet = svc("quiet", type="LoadBalancer", allocateLoadBalancerNodePorts=False, ports=ports)
    unallocated = (await api.post(path(namespace), quiet)).body["spec"]
    assert [p.get("nodePort") for p in unallocated["ports"]] == [None, None]


async def test_client_ip_affinity_gets_its_three_hour_default_and_a_bounded_timeout(
    api: Api, namespace: str
) -> None:
    sticky = svc("sticky", sessionAffinity="ClientIP", ports=[{"port": 80}])
    spec = (await api.post(path(namespace), sticky)).body["spec"]
    assert spec["sessionAffinityConfig"] == {"clientIP": {"timeoutSeconds": 10800}}
    config = {"clientIP": {"timeoutSeconds": 86401}}
    too_long = svc("long", sessionAffinity="ClientIP", sessionAffinityConfig=config, ports=[])
    assert causes(await api.post(path(namespace), too_long)) == [
        ("FieldValueRequired", "spec.ports", "Required value"),
        (
            "FieldValueInvalid",
            "spec.sessionAffinityConfig.clientIP.timeoutSeconds",
            "Invalid value: 86401: must be greater than 0 and less than 86400",
        ),
    ]


async def test_port_rules_in_go_s_order(api: Api, namespace: str) -> None:
    ports = [
        {"port": 80},
        {"name": "Web", "port": 0, "protocol": "HTTP", "targetPort": "8080"},
        {"name": "web2", "port": 80, "appProtocol": "-bad"},
    ]
    reply = await api.post(path(namespace), svc("ports", ports=ports, selector={"a b": "c"}))
    name_rule = (
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
        "and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', "
        "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
    )
    qualified = (
        "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and "
        "end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
        "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
    )
    duplicate = (
        'core.ServicePort{Name:"", Protocol:"TCP", AppProtocol:(*string)(nil), Port:80, '
        'TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}'
    )
    assert causes(reply) == [
        ("FieldValueRequired", "spec.ports[0].name", "Required value"),
        ("FieldValueInvalid", "spec.ports[1].name", f'Invalid value: "Web": {name_rule}'),
        (
            "FieldValueInvalid",
            "spec.ports[1].port",
            "Invalid value: 0: must be between 1 and 65535, inclusive",
        ),
        (
            "FieldValueNotSupported",
            "spec.ports[1].protocol",
            'Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"',
        ),
        (
            "FieldValueInvalid",
            "spec.ports[1].targetPort",
            'Invalid value: "8080": must contain at least one letter (a-z)',
        ),
        ("FieldValueInvalid", "spec.ports[2].appProtocol", f'Invalid value: "-bad": {qualified}'),
        ("FieldValueInvalid", "spec.selector", f'Invalid value: "a b": {qualified}'),
        ("FieldValueDuplicate", "spec.ports[2]", f"Duplicate value: {duplicate}"),
    ]


async def test_type_rules_node_ports_and_external_ips(api: Api, namespace: str) -> None:
    bogus = svc("bogus", type="Bogus", sessionAffinity="Sticky", ports=[{"port": 80}])
    assert causes(await api.post(path(namespace), bogus)) == [
        (
            "FieldValueNotSupported",
            "spec.sessionAffinity",
            'Unsupported value: "Sticky": supported values: "ClientIP", "None"',
        ),
        (
            "FieldValueNotSupported",
            "spec.type",
            'Unsupported value: "Bogus": supported values: "ClusterIP", "ExternalName", '
            '"LoadBalancer", "NodePort"',
        ),
    ]
    external = ["127.0.0.1", "0.0.0.0", "nope"]
    cluster = svc("cip", ports=[{"port": 80, "nodePort": 30080}], externalIPs=external)
    assert causes(await api.post(path(namespace), cluster)) == [
        (
            "FieldValueInvalid",
            "spec.externalIPs[0]",
            'Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
        ),
        (
            "FieldValueInvalid",
            "spec.externalIPs[1]",
            'Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0)',
        ),
        (
            "FieldValueInvalid",
            "spec.externalIPs[2]",
            'Invalid value: "nope": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
        ),
        (
            "FieldValueForbidden",
            "spec.ports[0].nodePort",
            "Forbidden: may not be used when `type` is 'ClusterIP'",
        ),
    ]


async def test_node_ports_are_allocated_once_and_checked_against_the_range(
    api: Api, namespace: str
) -> None:
    wanted = svc("first", type="NodePort", ports=[{"port": 80, "nodePort": 31080}])
    assert (await api.post(path(namespace), wanted)).status == 201
    again = svc("second", type="NodePort", ports=[{"port": 80, "nodePort": 31080}])
    outside = svc("third", type="NodePort", ports=[{"port": 80, "nodePort": 8080}])
    taken = await api.post(path(namespace), again)
    assert taken.body["message"] == (
        'Service "second" is invalid: spec.ports[0].nodePort: Invalid value: 31080: '
        "provided port is already allocated"
    )
    assert causes(await api.post(path(namespace), outside)) == [
        (
            "FieldValueInvalid",
            "spec.ports[0].nodePort",
            "Invalid value: 8080: provided port is not in the valid range. The range of valid "
            "ports is 30000-32767",
        )
    ]
    # TCP and UDP on one port number share a node port.
    both = [{"name": "t", "port": 53}, {"name": "u", "port": 53, "protocol": "UDP"}]
    shared = (await api.post(path(namespace), svc("dns", type="NodePort", ports=both))).body
    assert shared["spec"]["ports"][0]["nodePort"] == shared["spec"]["ports"][1]["nodePort"]


async def test_cluster_ips_are_checked_and_allocated_before_validation(
    api: Api, namespace: str
) -> None:
    chosen = svc("chosen", clusterIP="10.96.0.10", ports=[{"port": 53}])
    assert (await api.post(path(namespace), chosen)).body["spec"]["clusterIPs"] == ["10.96.0.10"]
    # The allocation refuses alone: the invalid port is not reported with it.
    again = svc("again", clusterIP="10.96.0.10", ports=[{"port": 0}])
    outside = svc("outside", clusterIP="1.1.1.1", ports=[{"port": 80}])
    assert causes(await api.post(path(namespace), again)) == [
        (
            "FieldValueInvalid",
            "spec.clusterIPs",
            'Invalid value: []string{"10.96.0.10"}: failed to allocate IP 10.96.0.10: provided '
            "IP is already allocated",
        )
    ]
    assert causes(await api.post(path(namespace), outside)) == [
        (
            "FieldValueInvalid",
            "spec.clusterIPs",
            'Invalid value: []string{"1.1.1.1"}: failed to allocate IP 1.1.1.1: the provided IP '
            "(1.1.1.1) is not in the valid range. The range of valid IPs is 10.96.0.0/12",
        )
    ]
    mismatch = svc("mismatch", clusterIP="10.96.0.11", clusterIPs=["10.96.0.12"], ports=[])
    assert causes(await api.post(path(namespace), mismatch)) == [
        (
            "FieldValueInvalid",
            "spec.clusterIPs",
            'Invalid value: []string{"10.96.0.12"}: first value must match `clusterIP`',
        )
    ]


async def test_a_single_stack_cluster_refuses_ipv6_and_dual_stack(api: Api, namespace: str) -> None:
    six = svc("six", ipFamilies=["IPv6"], ports=[{"port": 80}])
    dual = svc("dual", ipFamilyPolicy="RequireDualStack", ports=[{"port": 80}])
    assert causes(await api.post(path(namespace), six)) == [
        (
            "FieldValueInvalid",
            "spec.ipFamilies[0]",
            'Invalid value: "IPv6": not configured on this cluster',
        )
    ]
    assert causes(await api.post(path(namespace), dual)) == [
        (
            "FieldValueInvalid",
            "spec.ipFamilyPolicy",
            'Invalid value: "RequireDualStack": this cluster is not configured for dual-stack '
            "services",
        )
    ]
    prefer = svc("prefer", ipFamilyPolicy="PreferDualStack", ports=[{"port": 80}])
    spec = (await api.post(path(namespace), prefer)).body["spec"]
    assert (spec["ipFamilyPolicy"], spec["ipFamilies"]) == ("PreferDualStack", ["IPv4"])


async def test_headless_and_external_name_services(api: Api, namespace: str) -> None:
    selectorless = (await api.post(path(namespace), svc("bare", clusterIP="None"))).body["spec"]
    assert selectorless["clusterIPs"] == ["None"]
    assert (selectorless["ipFamilyPolicy"], selectorless["ipFamilies"]) == (
        "RequireDualStack",
        ["IPv4", "IPv6"],
    )
    headless = svc("db", clusterIP="None", selector={"app": "db"}, ports=[{"port": 5432}])
    spec = (await api.post(path(namespace), headless)).body["spec"]
    assert (spec["ipFamilyPolicy"], spec["ipFamilies"]) == ("SingleStack", ["IPv4"])
    node = svc("np", type="NodePort", clusterIP="None", ports=[{"port": 80}])
    assert (
        "FieldValueInvalid",
        "spec.clusterIPs[0]",
        "Invalid value: \"None\": may not be set to 'None' for NodePort services",
    ) in causes(await api.post(path(namespace), node))
    alias = svc("alias", type="ExternalName", externalName="db.example.com.")
    spec = (await api.post(path(namespace), alias)).body["spec"]
    assert spec == {
        "type": "ExternalName",
        "externalName": "db.example.com.",
        "sessionAffinity": "None",
    }
    nameless = svc("nameless", type="ExternalName", ipFamilyPolicy="SingleStack")
    assert causes(await api.post(path(namespace), nameless)) == [
        (
            "FieldValueForbidden",
            "spec.ipFamilyPolicy",
            "Forbidden: may not be set for ExternalName services",
        ),
        ("FieldValueRequired", "spec.externalName", "Required value"),
    ]


async def test_load_balancer_fields_and_traffic_policies(api: Api, namespace: str) -> None:
    ranges = ["10.0.0.0/8", " 192.168.0.0/16 ", "10.0.0.0/33"]
    balancer = svc("lb", type="LoadBalancer", loadBalancerSourceRanges=ranges, ports=[{"port": 80}])
    assert causes(await api.post(path(namespace), balancer)) == [
        (
            "FieldValueInvalid",
            "spec.LoadBalancerSourceRanges[2]",
            'Invalid value: "10.0.0.0/33": must be a valid CIDR value, (e.g. 10.9.8.0/24 or '
            "2001:db8::/64)",
        )
    ]
    plain = svc(
        "plain",
        ports=[{"port": 80}],
        externalTrafficPolicy="Local",
        healthCheckNodePort=30000,
        loadBalancerClass="example.com/lb",
        trafficDistribution="Anywhere",
        allocateLoadBalancerNodePorts=True,
    )
    only_lb = "Forbidden: may only be used when `type` is 'LoadBalancer'"
    assert causes(await api.post(path(namespace), plain)) == [
        ("FieldValueForbidden", "spec.allocateLoadBalancerNodePorts", only_lb),
        ("FieldValueForbidden", "spec.loadBalancerClass", only_lb),
        (
            "FieldValueInvalid",
            "spec.externalTrafficPolicy",
            'Invalid value: "Local": may only be set for externally-accessible services',
        ),
        (
            "FieldValueInvalid",
            "spec.healthCheckNodePort",
            "Invalid value: 30000: may only be set when `type` is 'LoadBalancer' and "
            "`externalTrafficPolicy` is 'Local'",
        ),
        (
            "FieldValueNotSupported",
            "spec.trafficDistribution",
            'Unsupported value: "Anywhere": supported values: "PreferClose"',
        ),
    ]


async def test_warnings_for_addresses_and_ignored_fields(api: Api, namespace: str) -> None:
    odd = svc(
        "odd",
        clusterIP="10.96.0.020",
        loadBalancerIP="1.2.3.04",
        externalName="ignored.example.com",
        ports=[{"port": 80}],
    )
    odd["metadata"]["annotations"] = {"service.kubernetes.io/topology-aware-hints": "Auto"}
    reply = await api.post(path(namespace), odd)
    assert reply.status == 201, reply.body
    leading = "IP address was accepted, but will be invalid in a future Kubernetes release"
    assert texts(reply) == [
        "annotation service.kubernetes.io/topology-aware-hints is deprecated, please use "
        "service.kubernetes.io/topology-mode instead",
        f'spec.clusterIPs[0]: {leading}: ParseAddr("10.96.0.020"): IPv4 field has octet with '
        "leading zero",
        f'spec.loadBalancerIP: {leading}: ParseAddr("1.2.3.04"): IPv4 field has octet with '
        "leading zero",
        'spec.externalName is ignored when spec.type is not "ExternalName"',
    ]
    six = svc("six", type="LoadBalancer", loadBalancerSourceRanges=["2001:DB8::/32"], ports=[])
    six["spec"]["ports"] = [{"port": 80}]
    assert texts(await api.post(path(namespace), six)) == [
        'spec.loadBalancerSourceRanges[0]: IPv6 prefix "2001:DB8::/32" is not in RFC 5952 '
        'canonical format ("2001:db8::/32"), which may cause controller apply-loops'
    ]
    invalid = svc("invalid", clusterIP="10.96.0.030", ports=[{"port": 0}])
    assert texts(await api.post(path(namespace), invalid)) == []  # warnings only once valid
