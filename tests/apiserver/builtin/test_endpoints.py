"""core/v1 Endpoints and discovery.k8s.io/v1 EndpointSlices over HTTP, against 1.32's
``ValidateEndpoints`` and ``ValidateEndpointSlice``/``Update`` and the EndpointSlice
strategy (generation, deprecatedTopology, the FQDN warning), in their words and order."""

from __future__ import annotations

from typing import Any

from kf_http import Api
from test_pod_warnings import texts
from test_services import causes

MERGE = "application/merge-patch+json"
LABEL_RULE = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', "
    "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
SUBDOMAIN_RULE = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)


def endpoints_path(namespace: str, name: str = "") -> str:
    base = f"/api/v1/namespaces/{namespace}/endpoints"
    return f"{base}/{name}" if name else base


def slices_path(namespace: str, name: str = "") -> str:
    base = f"/apis/discovery.k8s.io/v1/namespaces/{namespace}/endpointslices"
    return f"{base}/{name}" if name else base


def endpoint_slice(name: str, address_type: str, **fields: Any) -> dict[str, Any]:
    return {
        "apiVersion": "discovery.k8s.io/v1",
        "kind": "EndpointSlice",
        "metadata": {"name": name},
        "addressType": address_type,
        **fields,
    }


async def test_endpoints_addresses_and_ports_in_go_s_order(api: Api, namespace: str) -> None:
    subsets = [
        {
            "addresses": [
                {"ip": "10.1.2.3", "hostname": "Web_1", "nodeName": "Node_1"},
                {"ip": "169.254.1.1"},
                {"ip": "nope"},
            ],
            "ports": [
                {"port": 80},
                {"name": "x", "port": 70000, "protocol": "HTTP", "appProtocol": "a/b/c"},
            ],
        },
        {"ports": [{"port": 80}]},
    ]
    body = {"metadata": {"name": "web"}, "subsets": subsets}
    reply = await api.post(endpoints_path(namespace), body)
    at = "subsets[0].addresses"
    assert causes(reply) == [
        ("FieldValueInvalid", f"{at}[0].hostname", f'Invalid value: "Web_1": {LABEL_RULE}'),
        ("FieldValueInvalid", f"{at}[0].nodeName", f'Invalid value: "Node_1": {SUBDOMAIN_RULE}'),
        (
            "FieldValueInvalid",
            f"{at}[1].ip",
            'Invalid value: "169.254.1.1": may not be in the link-local range (169.254.0.0/16, '
            "fe80::/10)",
        ),
        (
            "FieldValueInvalid",
            f"{at}[2].ip",
            'Invalid value: "nope": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
        ),
        ("FieldValueInvalid", f"{at}[2].ip", 'Invalid value: "nope": must be a valid IP address'),
        ("FieldValueRequired", "subsets[0].ports[0].name", "Required value"),
        (
            "FieldValueInvalid",
            "subsets[0].ports[1].port",
            "Invalid value: 70000: must be between 1 and 65535, inclusive",
        ),
        (
            "FieldValueNotSupported",
            "subsets[0].ports[1].protocol",
            'Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"',
        ),
        (
            "FieldValueInvalid",
            "subsets[0].ports[1].appProtocol",
            'Invalid value: "a/b/c": a qualified name must consist of alphanumeric characters, '
            "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. "
            "'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
            "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix "
            "and '/' (e.g. 'example.com/MyName')",
        ),
        (
            "FieldValueRequired",
            "subsets[1]",
            "Required value: must specify `addresses` or `notReadyAddresses`",
        ),
    ]


async def test_valid_endpoints_are_stored_with_tcp_defaults_and_no_warnings(
    api: Api, namespace: str
) -> None:
    subsets = [{"notReadyAddresses": [{"ip": "10.1.2.03"}], "ports": [{"port": 80}]}]
    reply = await api.post(
        endpoints_path(namespace), {"metadata": {"name": "web"}, "subsets": subsets}
    )
    assert reply.status == 201, reply.body
    assert reply.body["subsets"][0]["ports"] == [{"port": 80, "protocol": "TCP"}]
    assert texts(reply) == []  # 1.32's endpoints strategy warns of nothing


async def test_an_endpoint_slice_s_addresses_follow_its_type(api: Api, namespace: str) -> None:
    endpoints = [
        {"addresses": ["10.1.2.3", "fd00::1", "127.0.0.1"], "nodeName": "a_b", "hostname": "X"},
        {"addresses": [], "hints": {"forZones": [{"name": "a"}, {"name": "a"}, {"name": "-"}]}},
    ]
    ports = [{"port": 80}, {"port": 81, "protocol": "HTTP"}]
    body = endpoint_slice("web", "IPv4", endpoints=endpoints, ports=ports)
    at = "endpoints[0].addresses"
    label_value = (
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
        "or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
        "'my_value',  or '12345', regex used for validation is "
        "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
    )
    assert causes(await api.post(slices_path(namespace), body)) == [
        ("FieldValueInvalid", f"{at}[1]", 'Invalid value: "fd00::1": must be a valid IPv4 address'),
        (
            "FieldValueInvalid",
            f"{at}[2]",
            'Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
        ),
        ("FieldValueInvalid", "endpoints[0].nodeName", f'Invalid value: "a_b": {SUBDOMAIN_RULE}'),
        ("FieldValueInvalid", "endpoints[0].hostname", f'Invalid value: "X": {LABEL_RULE}'),
        (
            "FieldValueRequired",
            "endpoints[1].addresses",
            "Required value: must contain at least 1 address",
        ),
        ("FieldValueDuplicate", "endpoints[1].hints.forZones[1].name", 'Duplicate value: "a"'),
        (
            "FieldValueInvalid",
            "endpoints[1].hints.forZones[2].name",
            f'Invalid value: "-": {label_value}',
        ),
        ("FieldValueDuplicate", "ports[1].name", 'Duplicate value: ""'),
        (
            "FieldValueNotSupported",
            "ports[1].protocol",
            'Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"',
        ),
    ]


async def test_endpoint_slice_limits_and_types(api: Api, namespace: str) -> None:
    many = [{"addresses": ["10.0.0.1"]}] * 1001
    crowded = endpoint_slice("crowded", "IPv4", endpoints=many)
    assert causes(await api.post(slices_path(namespace), crowded)) == [
        ("FieldValueTooMany", "endpoints", "Too many: 1001: must have at most 1000 items")
    ]
    unknown = endpoint_slice("unknown", "IP")
    assert causes(await api.post(slices_path(namespace), unknown)) == [
        (
            "FieldValueNotSupported",
            "addressType",
            'Unsupported value: "IP": supported values: "FQDN", "IPv4", "IPv6"',
        )
    ]
    names = endpoint_slice("names", "FQDN", endpoints=[{"addresses": ["web", "a.b_c.example"]}])
    assert causes(await api.post(slices_path(namespace), names)) == [
        (
            "FieldValueInvalid",
            "endpoints[0].addresses[0]",
            'Invalid value: "web": should be a domain with at least two segments separated by dots',
        ),
        (
            "FieldValueInvalid",
            "endpoints[0].addresses[1]",
            f'Invalid value: "a.b_c.example": {SUBDOMAIN_RULE}',
        ),
    ]


async def test_endpoint_slice_defaults_generation_topology_and_fqdn_warning(
    api: Api, namespace: str
) -> None:
    endpoints = [
        {"addresses": ["db.example.com."], "deprecatedTopology": {"kubernetes.io/hostname": "n1"}}
    ]
    body = endpoint_slice("db", "FQDN", endpoints=endpoints, ports=[{"port": 5432}])
    created = await api.post(slices_path(namespace), body)
    assert created.status == 201, created.body
    assert texts(created) == ["spec.addressType: FQDN endpoints are deprecated"]
    assert created.body["metadata"]["generation"] == 1
    assert created.body["ports"] == [{"name": "", "port": 5432, "protocol": "TCP"}]
    assert "deprecatedTopology" not in created.body["endpoints"][0]  # v1 writes drop it
    labelled = await api.patch(
        slices_path(namespace, "db"), {"metadata": {"labels": {"a": "b"}}}, MERGE
    )
    assert labelled.body["metadata"]["generation"] == 2  # labels move it too
    assert texts(labelled) == []
    retyped = await api.patch(slices_path(namespace, "db"), {"addressType": "IPv4"}, MERGE)
    assert (
        "FieldValueInvalid",
        "addressType",
        'Invalid value: "IPv4": field is immutable',
    ) in causes(retyped)
    missing = await api.put(slices_path(namespace, "nope"), endpoint_slice("nope", "IPv4"))
    assert missing.status == 404  # AllowCreateOnUpdate is false for EndpointSlices
