"""Ingresses, IngressClasses and NetworkPolicies are validated, defaulted and warned of as
1.32's networking validation and strategies do, over HTTP."""

from __future__ import annotations

import uuid
from typing import Any

from kf_http import Api
from kf_podspec import causes

from kubeforge.apiserver.builtin.ingress_rules import ingress_errors

MERGE = "application/merge-patch+json"
GROUP = "/apis/networking.k8s.io/v1"


def service(name: str = "web", **port: Any) -> dict[str, Any]:
    """A service backend; ``port`` holds its port's ``number`` and/or ``name``."""
    return {"service": {"name": name, "port": port or {"number": 80}}}


def ingress(name: str, *paths: dict[str, Any], **spec: Any) -> dict[str, Any]:
    rule = {"host": "shop.example.com", "http": {"paths": list(paths)}}
    return {"metadata": {"name": name}, "spec": {"rules": [rule], **spec}}


def path(kind: str, value: str = "/", backend: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"path": value, "pathType": kind, "backend": service() if backend is None else backend}


async def test_ingress_paths_are_checked_by_their_type(api: Api, namespace: str) -> None:
    body = ingress(
        "paths",
        path("Prefix", "api//v1/.."),
        path("Exact", "relative"),
        path("ImplementationSpecific", ""),
        path("Regex", "/x"),
    )
    found = causes(await api.post(f"{GROUP}/namespaces/{namespace}/ingresses", body))
    at = "spec.rules[0].http.paths"
    assert found == [
        (f"{at}[0].path", 'Invalid value: "api//v1/..": must be an absolute path'),
        (f"{at}[0].path", "Invalid value: \"api//v1/..\": must not contain '//'"),
        (f"{at}[0].path", "Invalid value: \"api//v1/..\": cannot end with '/..'"),
        (f"{at}[1].path", 'Invalid value: "relative": must be an absolute path'),
        (
            f"{at}[3].pathType",
            'Unsupported value: "Regex": supported values: "Exact", "ImplementationSpecific", '
            '"Prefix"',
        ),
    ]


async def test_ingress_backends_name_a_service_xor_a_resource_and_one_port(
    api: Api, namespace: str
) -> None:
    resource = {"resource": {"kind": "Bucket", "name": "b"}}
    body = ingress(
        "backends",
        path("Prefix", "/a", {**service(), **resource}),
        path("Prefix", "/b", {"service": {"name": "web", "port": {"number": 80, "name": "http"}}}),
        path("Prefix", "/c", service("9web", number=70000)),
        path("Prefix", "/d", {"service": {"name": "web", "port": {}}}),
        path("Prefix", "/e", {}),
    )
    found = causes(await api.post(f"{GROUP}/namespaces/{namespace}/ingresses", body))
    at = "spec.rules[0].http.paths"
    assert found[0] == (
        f"{at}[0].backend",
        'Invalid value: "": cannot set both resource and service backends',
    )
    assert found[1] == (
        f"{at}[1].backend",
        'Invalid value: "": cannot set both port name & port number',
    )
    assert found[2][0] == f"{at}[2].backend.service.name"
    assert found[2][1].startswith('Invalid value: "9web": a DNS-1035 label must consist')
    assert found[3:] == [
        (
            f"{at}[2].backend.service.port.number",
            "Invalid value: 70000: must be between 1 and 65535, inclusive",
        ),
        (f"{at}[3].backend", "Required value: port name or number is required"),
        (f"{at}[4].backend", 'Invalid value: "": resource or service backend is required'),
    ]


async def test_ingress_hosts_may_be_wildcards_but_not_addresses(api: Api, namespace: str) -> None:
    body = ingress("hosts", path("Prefix"), tls=[{"hosts": ["*.shop.example.com", "a.*.b"]}])
    body["spec"]["rules"].append({"host": "10.0.0.1"})
    found = causes(await api.post(f"{GROUP}/namespaces/{namespace}/ingresses", body))
    assert found[0] == (
        "spec.rules[1].host",
        'Invalid value: "10.0.0.1": must be a DNS name, not an IP address',
    )
    assert found[1][0] == "spec.tls[0].hosts[1]"
    assert found[1][1].startswith('Invalid value: "a.*.b": a wildcard DNS-1123 subdomain must')
    empty = {"metadata": {"name": "empty"}, "spec": {}}
    assert causes(await api.post(f"{GROUP}/namespaces/{namespace}/ingresses", empty)) == [
        (
            "spec",
            "Invalid value: []networking.IngressRule(nil): either `defaultBackend` or `rules` "
            "must be specified",
        )
    ]


async def test_the_class_annotation_warns_and_must_agree_with_the_class_name(
    api: Api, namespace: str
) -> None:
    plural = f"{GROUP}/namespaces/{namespace}/ingresses"
    annotated = ingress("annotated", path("Prefix"))
    annotated["metadata"]["annotations"] = {"kubernetes.io/ingress.class": "nginx"}
    reply = await api.post(plural, annotated)
    assert reply.status == 201, reply.body
    assert reply.headers["Warning"] == (
        '299 - "annotation \\"kubernetes.io/ingress.class\\" is deprecated, please use '
        "'spec.ingressClassName' instead\""
    )
    clash = ingress("clash", path("Prefix"), ingressClassName="traefik")
    clash["metadata"]["annotations"] = {"kubernetes.io/ingress.class": "nginx"}
    assert causes(await api.post(plural, clash)) == [
        (
            "annotations.kubernetes.io/ingress.class",
            'Invalid value: "nginx": must match `ingressClassName` when both are specified',
        )
    ]
    status = {"status": {"loadBalancer": {"ingress": [{"ip": "not-an-ip"}]}}}
    written = await api.patch(f"{plural}/annotated/status", status, MERGE)
    assert causes(written) == [
        (
            "status.loadBalancer.ingress[0].ip",
            'Invalid value: "not-an-ip": must be a valid IP address',
        )
    ]


async def test_an_ingress_class_names_a_controller_that_never_changes(api: Api) -> None:
    plural = f"{GROUP}/ingressclasses"
    name = "ic-" + uuid.uuid4().hex[:6]
    bad = {
        "metadata": {"name": name},
        "spec": {
            "controller": "nginx",
            "parameters": {"kind": "Config", "name": "c", "scope": "Cluster", "namespace": "x"},
        },
    }
    assert causes(await api.post(plural, bad)) == [
        (
            "spec.controller",
            'Invalid value: "nginx": must be a domain-prefixed path (such as "acme.io/foo")',
        ),
        ("spec.parameters.namespace", "Forbidden: `parameters.scope` is set to 'Cluster'"),
    ]
    parameters = {"apiGroup": "example.com", "kind": "Config", "name": "c"}
    good = {
        "metadata": {"name": name},
        "spec": {"controller": "example.com/ingress", "parameters": parameters},
    }
    created = await api.post(plural, good)
    assert created.status == 201, created.body
    assert created.body["spec"]["parameters"]["scope"] == "Cluster"  # defaulted
    moved = await api.patch(
        f"{plural}/{name}", {"spec": {"controller": "example.com/other"}}, MERGE
    )
    assert causes(moved) == [
        ("spec.controller", 'Invalid value: "example.com/other": field is immutable')
    ]


async def test_network_policies_default_their_types_and_check_ports_and_peers(
    api: Api, namespace: str
) -> None:
    plural = f"{GROUP}/namespaces/{namespace}/networkpolicies"
    good = {
        "metadata": {"name": "egress"},
        "spec": {"podSelector": {}, "egress": [{"ports": [{"port": 53}]}]},
    }
    created = await api.post(plural, good)
    assert created.status == 201, created.body
    assert created.body["spec"]["policyTypes"] == ["Ingress", "Egress"]
    assert created.body["spec"]["egress"][0]["ports"][0]["protocol"] == "TCP"
    bad = {
        "metadata": {"name": "bad"},
        "spec": {
            "podSelector": {},
            "ingress": [
                {
                    "ports": [{"port": 8080, "endPort": 80}, {"port": "dns", "endPort": 60}],
                    "from": [
                        {"ipBlock": {"cidr": "10.0.0.0/8", "except": ["192.168.0.0/16"]}},
                        {"ipBlock": {"cidr": "10.0.0/8"}, "podSelector": {}},
                    ],
                }
            ],
            "policyTypes": ["Ingress", "Sideways"],
        },
    }
    assert causes(await api.post(plural, bad)) == [
        (
            "spec.ingress[0].ports[0].endPort",
            "Invalid value: 80: must be greater than or equal to `port`",
        ),
        (
            "spec.ingress[0].ports[1].endPort",
            "Invalid value: 60: may not be specified when `port` is non-numeric",
        ),
        (
            "spec.ingress[0].from[0].ipBlock.except[0]",
            'Invalid value: "192.168.0.0/16": must be a strict subset of `cidr`',
        ),
        ("spec.ingress[0].from[1].ipBlock.cidr", 'Invalid value: "10.0.0/8": not a valid CIDR'),
        ("spec.ingress[0].from[1]", "Forbidden: may not specify both ipBlock and another peer"),
        (
            "spec.policyTypes[1]",
            'Unsupported value: "Sideways": supported values: "Ingress", "Egress"',
        ),
    ]


def test_an_update_may_keep_what_a_stored_ingress_already_broke() -> None:
    """``ValidateIngressUpdate``'s allowances, for ingresses stored by older servers: TLS
    secret names that are no DNS subdomains, and broken rules under wildcard hosts."""
    spec = {
        "tls": [{"secretName": "Old_Secret"}],
        "rules": [{"host": "*.shop.example.com", "http": {"paths": []}}],
    }
    stored = {"spec": spec}
    assert [e.field for e in ingress_errors(stored, None)] == [
        "spec.rules[0].http.paths",
        "spec.tls[0].secretName",
    ]
    assert ingress_errors(stored, stored) == []
