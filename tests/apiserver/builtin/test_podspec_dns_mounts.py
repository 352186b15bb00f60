"""DNS config, host aliases, volume mount subpaths, sidecar init containers and host
network ports of a pod spec, as kubernetes 1.32's ``validatePodDNSConfig``,
``ValidateHostAliases``, ``ValidateVolumeMounts``, ``validateInitContainers`` and
``validatePodHostNetworkDeps`` answer them."""

from __future__ import annotations

from kf_http import Api
from kf_podspec import causes, created, deployment, pod, refused

NOT_AN_IP = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"


async def test_dns_policy_none_needs_a_config_with_a_nameserver(api: Api, namespace: str) -> None:
    found = await refused(api, namespace, pod("dns-none", dnsPolicy="None"))
    assert found == [
        ("spec.dnsConfig", "Required value: must provide `dnsConfig` when `dnsPolicy` is None")
    ]
    config = {"searches": ["example.com"]}
    found = await refused(api, namespace, pod("dns-empty", dnsPolicy="None", dnsConfig=config))
    assert found == [
        (
            "spec.dnsConfig.nameservers",
            "Required value: must provide at least one DNS nameserver when `dnsPolicy` is None",
        )
    ]


async def test_dns_config_nameservers_searches_and_options(api: Api, namespace: str) -> None:
    config = {
        "nameservers": ["1.1.1.1", "8.8.8.8", "9.9.9.9", "dns.example.com"],
        "searches": ["Example.COM", "ok.example.com."],
        "options": [{"name": "ndots", "value": "2"}, {"value": "1"}],
    }
    found = await refused(api, namespace, pod("dns", dnsConfig=config))
    assert found[0] == (
        "spec.dnsConfig.nameservers",
        'Invalid value: []string{"1.1.1.1", "8.8.8.8", "9.9.9.9", "dns.example.com"}: '
        "must not have more than 3 nameservers",
    )
    assert found[1] == (
        "spec.dnsConfig.nameservers[3]",
        f'Invalid value: "dns.example.com": {NOT_AN_IP}',
    )
    assert found[2][0] == "spec.dnsConfig.searches[0]"
    assert found[2][1].startswith('Invalid value: "Example.COM": a lowercase RFC 1123 subdomain')
    assert found[3] == ("spec.dnsConfig.options[1]", "Required value: must not be empty")
    assert len(found) == 4


async def test_host_aliases_need_an_ip_and_dns_names(api: Api, namespace: str) -> None:
    aliases = [
        {"ip": "010.0.0.1", "hostnames": ["db.local"]},
        {"ip": "fe80::1%eth0", "hostnames": ["Bad_Name"]},
    ]
    found = await refused(api, namespace, pod("aliases", hostAliases=aliases))
    assert found[0] == ("spec.hostAliases[1].ip", f'Invalid value: "fe80::1%eth0": {NOT_AN_IP}')
    assert found[1][0] == "spec.hostAliases[1].hostnames[0]"
    assert len(found) == 2


async def test_sub_paths_propagation_and_recursive_read_only(api: Api, namespace: str) -> None:
    mounts = [
        {"name": "data", "mountPath": "/a", "subPath": "/etc", "subPathExpr": "$(POD)/.."},
        {"name": "data", "mountPath": "/b", "subPath": "x/../../y"},
        {"name": "data", "mountPath": "/c", "mountPropagation": "Bidirectional"},
        {"name": "data", "mountPath": "/d", "recursiveReadOnly": "Enabled"},
        {"name": "data", "mountPath": "/e", "mountPropagation": "Sideways"},
    ]
    volumes = [{"name": "data", "emptyDir": {}}]
    body = pod("mounts", {"volumeMounts": mounts}, volumes=volumes)
    found = await refused(api, namespace, body)
    at = "spec.containers[0].volumeMounts"
    assert found == [
        (f"{at}.subPath", 'Invalid value: "/etc": must be a relative path'),
        (f"{at}[0].subPathExpr", 'Invalid value: "$(POD)/..": subPathExpr and subPath are mutually exclusive'),  # noqa: E501
        (f"{at}.subPathExpr", "Invalid value: \"$(POD)/..\": must not contain '..'"),
        (f"{at}.subPath", "Invalid value: \"x/../../y\": must not contain '..'"),
        (f"{at}.mountPropagation", "Forbidden: Bidirectional mount propagation is available only to privileged containers"),  # noqa: E501
        (f"{at}.recursiveReadOnly", "Forbidden: may only be specified when readOnly is true"),
        (f"{at}.mountPropagation", 'Unsupported value: "Sideways": supported values: "Bidirectional", "HostToContainer", "None"'),  # noqa: E501
    ]  # fmt: skip


async def test_init_containers_are_sidecars_only_with_restart_policy_always(
    api: Api, namespace: str
) -> None:
    probe = {"exec": {"command": ["true"]}}
    init = [
        {"name": "setup", "image": "busybox", "readinessProbe": probe, "restartPolicy": "Never"},
        {"name": "proxy", "image": "envoy", "readinessProbe": probe, "restartPolicy": "Always"},
    ]
    found = await refused(api, namespace, pod("sidecars", initContainers=init))
    assert found == [
        ("spec.initContainers[0].restartPolicy", 'Unsupported value: "Never": supported values: "Always"'),  # noqa: E501
        ("spec.initContainers[0].readinessProbe", "Forbidden: may not be set for init containers without restartPolicy=Always"),  # noqa: E501
    ]  # fmt: skip
    stored = await created(api, namespace, pod("sidecar", initContainers=init[1:]))
    assert stored["spec"]["initContainers"][0]["restartPolicy"] == "Always"


async def test_host_network_ports_default_to_the_container_port_and_must_match(
    api: Api, namespace: str
) -> None:
    ports = [{"containerPort": 8080}]
    stored = await created(api, namespace, pod("host-net", {"ports": ports}, hostNetwork=True))
    assert stored["spec"]["containers"][0]["ports"][0]["hostPort"] == 8080
    ports = [{"containerPort": 8080, "hostPort": 9090}]
    found = await refused(api, namespace, pod("host-net-2", {"ports": ports}, hostNetwork=True))
    assert found == [
        (
            "spec.containers[0].ports[0].hostPort",
            "Invalid value: 9090: must match `containerPort` when `hostNetwork` is true",
        )
    ]


async def test_host_ports_are_unique_per_protocol_and_address(api: Api, namespace: str) -> None:
    first = {"name": "a", "image": "nginx", "ports": [{"containerPort": 80, "hostPort": 8080}]}
    second = {"name": "b", "image": "nginx", "ports": [{"containerPort": 81, "hostPort": 8080}]}
    body = pod("ports")
    body["spec"]["containers"] = [first, second]
    found = await refused(api, namespace, body)
    assert found == [("spec.containers[1].ports[0].hostPort", 'Duplicate value: "TCP//8080"')]


async def test_an_ephemeral_container_may_not_use_sub_paths(api: Api, namespace: str) -> None:
    volumes = [{"name": "data", "emptyDir": {}}]
    stored = await created(api, namespace, pod("debugged", volumes=volumes))
    mounts = [{"name": "data", "mountPath": "/d", "subPathExpr": "$(POD)"}]
    debugger = {"name": "debugger", "image": "busybox", "volumeMounts": mounts}
    stored["spec"]["ephemeralContainers"] = [debugger]
    path = f"/api/v1/namespaces/{namespace}/pods/debugged/ephemeralcontainers"
    stored["metadata"].pop("resourceVersion")  # the kubelet's status writes move it meanwhile
    found = causes(await api.put(path, stored))
    assert found == [
        (
            "spec.ephemeralContainers[0].volumeMounts[0].subPathExpr",
            "Forbidden: cannot be set for an Ephemeral Container",
        )
    ]


async def test_pod_only_rules_refuse_a_pod_whose_template_twin_is_accepted(
    api: Api, namespace: str
) -> None:
    body = pod("spaced", {"image": " nginx"}, nodeName="n1", schedulingGates=[{"name": "g"}])
    found = await refused(api, namespace, body)
    assert found == [
        (
            "spec.containers[0].image",
            'Invalid value: " nginx": must not have leading or trailing whitespace',
        ),
        (
            "spec.nodeName",
            "Forbidden: cannot be set until all schedulingGates have been cleared",
        ),
    ]
    template = deployment("spaced", {"image": " nginx"})
    reply = await api.post(f"/apis/apps/v1/namespaces/{namespace}/deployments", template)
    assert reply.status == 201, reply.body
    template = deployment("debugging", ephemeralContainers=[{"name": "d", "image": "busybox"}])
    found = await refused(api, namespace, template)
    assert found == [
        (
            "spec.template.spec.ephemeralContainers",
            "Forbidden: ephemeral containers not allowed in pod template",
        )
    ]
