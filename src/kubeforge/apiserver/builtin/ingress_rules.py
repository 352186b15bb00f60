"""Ingresses and IngressClasses as 1.32 validates them (pkg/apis/networking/validation:
``ValidateIngressCreate``/``Update``/``StatusUpdate``, ``ValidateIngressClass``/``Update``)
and warns of them (the deprecated ``kubernetes.io/ingress.class`` annotation).

Entry points: ``ingress_errors``, ``ingress_status_errors``, ``ingress_warnings``,
``ingress_class_errors``, ``ingress_class_update_errors``.

>>> [str(e) for e in ingress_errors({"spec": {}}, None)]
['spec: Invalid value: []networking.IngressRule(nil): either `defaultBackend` or `rules` must be specified']
"""  # noqa: E501

from __future__ import annotations

import re
from typing import Any

from kubeforge.apiserver.builtin.netparse import sloppy_ip
from kubeforge.apiserver.builtin.podspec.affinity import dict_items
from kubeforge.apiserver.builtin.podspec.ports import PORT_RANGE, port_name_errors
from kubeforge.apiserver.failures import FieldError, GoValue
from kubeforge.apiserver.meta.validation import path_segment_name
from kubeforge.core.names import (
    dns1035_label,
    dns1123_label,
    dns1123_subdomain,
    regex_error,
    wildcard_dns1123_subdomain,
)

__all__ = [
    "ingress_class_errors",
    "ingress_class_update_errors",
    "ingress_errors",
    "ingress_status_errors",
    "ingress_warnings",
]

_CLASS_ANNOTATION = "kubernetes.io/ingress.class"
_PATH_TYPES = ("Exact", "ImplementationSpecific", "Prefix")
_BAD_SEQUENCES = ("//", "/./", "/../", "%2f", "%2F")
_BAD_SUFFIXES = ("/..", "/.")
_SCOPES = ("Cluster", "Namespace")
_MAX_CONTROLLER = 250
_HTTP_PATH_FMT = r"[A-Za-z0-9/\-._~%!$&'()*+,;=:]+"
_HTTP_PATH = re.compile(_HTTP_PATH_FMT)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _host_errors(host: str, path: str) -> list[FieldError]:
    check = wildcard_dns1123_subdomain if "*" in host else dns1123_subdomain
    return [FieldError.invalid(path, host, message) for message in check(host)]


def _reference(ref: dict[str, Any], path: str) -> list[FieldError]:
    """A backend resource or class parameters: apiGroup, kind and name."""
    errors: list[FieldError] = []
    if ref.get("apiGroup") is not None:
        group = str(ref["apiGroup"])
        errors += [
            FieldError.invalid(f"{path}.apiGroup", group, m) for m in dns1123_subdomain(group)
        ]
    for key in ("kind", "name"):
        value = str(ref.get(key) or "")
        if not value:
            errors.append(FieldError.required(f"{path}.{key}"))
        errors += [FieldError.invalid(f"{path}.{key}", value, m) for m in path_segment_name(value)]
    return errors


def _service_errors(service: dict[str, Any], path: str) -> list[FieldError]:
    name = str(service.get("name") or "")
    errors: list[FieldError] = []
    if not name:
        errors.append(FieldError.required(f"{path}.service.name"))
    else:
        at = f"{path}.service.name"
        errors += [FieldError.invalid(at, name, m) for m in dns1035_label(name)]
    port = _dict(service.get("port"))
    port_name, number = str(port.get("name") or ""), port.get("number") or 0
    if port_name and number:
        errors.append(FieldError.invalid(path, "", "cannot set both port name & port number"))
    elif port_name:
        at = f"{path}.service.port.name"
        errors += [FieldError.invalid(at, port_name, m) for m in port_name_errors(port_name)]
    elif number:
        if not isinstance(number, int) or not 1 <= number <= 65535:
            errors.append(FieldError.invalid(f"{path}.service.port.number", number, PORT_RANGE))
    else:
        errors.append(FieldError.required(path, "port name or number is required"))
    return errors


def _backend(backend: dict[str, Any], path: str) -> list[FieldError]:
    resource, service = backend.get("resource"), backend.get("service")
    if resource is not None and service is not None:
        return [FieldError.invalid(path, "", "cannot set both resource and service backends")]
    if resource is not None:
        return _reference(_dict(resource), f"{path}.resource")
    if service is not None:
        return _service_errors(_dict(service), path)
    return [FieldError.invalid(path, "", "resource or service backend is required")]


def _path_errors(entry: dict[str, Any], at: str) -> list[FieldError]:
    kind, value = entry.get("pathType"), str(entry.get("path") or "")
    if kind is None:
        return [FieldError.required(f"{at}.pathType", "pathType must be specified")]
    errors: list[FieldError] = []
    if kind in ("Exact", "Prefix"):
        if not value.startswith("/"):
            errors.append(FieldError.invalid(f"{at}.path", value, "must be an absolute path"))
        for sequence in _BAD_SEQUENCES if value else ():
            if sequence in value:
                errors.append(
                    FieldError.invalid(f"{at}.path", value, f"must not contain '{sequence}'")
                )
        for suffix in _BAD_SUFFIXES if value else ():
            if value.endswith(suffix):
                errors.append(
                    FieldError.invalid(f"{at}.path", value, f"cannot end with '{suffix}'")
                )
    elif kind == "ImplementationSpecific":
        if value and not value.startswith("/"):
            errors.append(FieldError.invalid(f"{at}.path", value, "must be an absolute path"))
    else:
        errors.append(FieldError.not_supported(f"{at}.pathType", kind, _PATH_TYPES))
    return errors + _backend(_dict(entry.get("backend")), f"{at}.backend")


def _rule_value_errors(rule: dict[str, Any], at: str) -> list[FieldError]:
    """``validateIngressRuleValue``: an HTTP rule's paths."""
    http = rule.get("http")
    if not isinstance(http, dict):
        return []
    paths = http.get("paths")
    errors = [] if paths else [FieldError.required(f"{at}.http.paths")]
    for j, entry in dict_items(paths):
        errors += _path_errors(entry, f"{at}.http.paths[{j}]")
    return errors


def _rule_errors(rule: dict[str, Any], at: str, *, lenient_wildcards: bool) -> list[FieldError]:
    host = str(rule.get("host") or "")
    errors: list[FieldError] = []
    if host and sloppy_ip(host):
        errors.append(
            FieldError.invalid(f"{at}.host", host, "must be a DNS name, not an IP address")
        )
    if host:
        errors += _host_errors(host, f"{at}.host")
    if "*" not in host or not lenient_wildcards:
        errors += _rule_value_errors(rule, at)
    return errors


def _tls_errors(tls: list[tuple[int, dict[str, Any]]], *, check_secrets: bool) -> list[FieldError]:
    errors: list[FieldError] = []
    for i, entry in tls:
        hosts = entry.get("hosts")
        for j, host in enumerate(hosts if isinstance(hosts, list) else ()):
            errors += _host_errors(str(host), f"spec.tls[{i}].hosts[{j}]")
        secret = str(entry.get("secretName") or "") if check_secrets else ""
        for message in dns1123_subdomain(secret) if secret else ():
            errors.append(FieldError.invalid(f"spec.tls[{i}].secretName", secret, message))
    return errors


def _leniencies(old: dict[str, Any] | None) -> tuple[bool, bool]:
    """What an update may keep that a create may not: TLS secret names that are no DNS
    subdomains, and broken rules under wildcard hosts, when the stored ingress has them."""
    spec = _dict((old or {}).get("spec"))
    secrets = any(
        dns1123_subdomain(str(entry.get("secretName")))
        for _, entry in dict_items(spec.get("tls"))
        if entry.get("secretName")
    )
    wildcards = any(
        "*" in str(rule.get("host") or "") and _rule_value_errors(rule, "")
        for _, rule in dict_items(spec.get("rules"))
    )
    return secrets, wildcards


def ingress_errors(ingress: dict[str, Any], old: dict[str, Any] | None) -> list[FieldError]:
    """``ValidateIngressSpec`` in its order; on create (``old`` None) also the class
    annotation that disagrees with ``ingressClassName``."""
    spec = _dict(ingress.get("spec"))
    rules, errors = spec.get("rules"), []
    if not rules and spec.get("defaultBackend") is None:
        shown = GoValue(
            "[]networking.IngressRule{}" if rules == [] else "[]networking.IngressRule(nil)"
        )
        errors.append(
            FieldError.invalid(
                "spec", shown, "either `defaultBackend` or `rules` must be specified"
            )
        )
    if spec.get("defaultBackend") is not None:
        errors += _backend(_dict(spec["defaultBackend"]), "spec.defaultBackend")
    lenient_secrets, lenient_wildcards = _leniencies(old)
    for i, rule in dict_items(rules):
        errors += _rule_errors(rule, f"spec.rules[{i}]", lenient_wildcards=lenient_wildcards)
    errors += _tls_errors(dict_items(spec.get("tls")), check_secrets=not lenient_secrets)
    class_name = spec.get("ingressClassName")
    if class_name is not None:
        at = "spec.ingressClassName"
        errors += [
            FieldError.invalid(at, class_name, m) for m in dns1123_subdomain(str(class_name))
        ]
    annotations = _dict(_dict(ingress.get("metadata")).get("annotations"))
    given = annotations.get(_CLASS_ANNOTATION)
    if old is None and given is not None and class_name is not None and given != class_name:
        detail = "must match `ingressClassName` when both are specified"
        at = f"annotations.{_CLASS_ANNOTATION}"  # sic: no "metadata.", a child not a key
        errors.append(FieldError.invalid(at, given, detail))
    return errors


def ingress_status_errors(ingress: dict[str, Any]) -> list[FieldError]:
    """``ValidateIngressLoadBalancerStatus``: each address an IP or a DNS name."""
    balancer = _dict(_dict(ingress.get("status")).get("loadBalancer"))
    errors: list[FieldError] = []
    for i, entry in dict_items(balancer.get("ingress")):
        at = f"status.loadBalancer.ingress[{i}]"
        ip, hostname = str(entry.get("ip") or ""), str(entry.get("hostname") or "")
        if ip and not sloppy_ip(ip):
            errors.append(FieldError.invalid(f"{at}.ip", ip, "must be a valid IP address"))
        if hostname:
            errors += [
                FieldError.invalid(f"{at}.hostname", hostname, m)
                for m in dns1123_subdomain(hostname)
            ]
            if sloppy_ip(hostname):
                detail = "must be a DNS name, not an IP address"
                errors.append(FieldError.invalid(f"{at}.hostname", hostname, detail))
    return errors


def ingress_warnings(ingress: dict[str, Any]) -> list[str]:
    """The ingress strategy's ``WarningsOnCreate``."""
    annotations = _dict(_dict(ingress.get("metadata")).get("annotations"))
    class_name = _dict(ingress.get("spec")).get("ingressClassName")
    if _CLASS_ANNOTATION not in annotations or class_name is not None:
        return []
    instead = "please use 'spec.ingressClassName' instead"
    return [f'annotation "{_CLASS_ANNOTATION}" is deprecated, {instead}']


def _controller_errors(controller: str) -> list[FieldError]:
    at = "spec.controller"
    if not controller:
        return [FieldError.required(at)]
    errors = (
        [FieldError.too_long(at, "", _MAX_CONTROLLER)] if len(controller) > _MAX_CONTROLLER else []
    )
    host, _, rest = controller.partition("/")
    if not host or not rest:
        detail = 'must be a domain-prefixed path (such as "acme.io/foo")'
        return [*errors, FieldError.invalid(at, controller, detail)]
    errors += [FieldError.invalid(at, host, m) for m in dns1123_subdomain(host)]
    if not _HTTP_PATH.fullmatch(rest):
        errors.append(FieldError.invalid(at, rest, regex_error("Invalid path", _HTTP_PATH_FMT)))
    return errors


def _parameters_errors(params: dict[str, Any]) -> list[FieldError]:
    at = "spec.parameters"
    errors = _reference(params, at)
    if params.get("scope") is None:
        return [*errors, FieldError.required(f"{at}.scope")]
    scope, namespace = params["scope"], params.get("namespace")
    if scope not in _SCOPES:
        errors.append(FieldError.not_supported(f"{at}.scope", scope, _SCOPES))
    elif scope == "Namespace" and namespace is None:
        detail = "`parameters.scope` is set to 'Namespace'"
        errors.append(FieldError.required(f"{at}.namespace", detail))
    elif scope == "Namespace":
        errors += [
            FieldError.invalid(f"{at}.namespace", namespace, m)
            for m in dns1123_label(str(namespace))
        ]
    elif namespace is not None:
        errors.append(
            FieldError.forbidden(f"{at}.namespace", "`parameters.scope` is set to 'Cluster'")
        )
    return errors


def ingress_class_errors(ingress_class: dict[str, Any]) -> list[FieldError]:
    """``validateIngressClassSpec``: a domain-prefixed controller, valid parameters."""
    spec = _dict(ingress_class.get("spec"))
    errors = _controller_errors(str(spec.get("controller") or ""))
    if spec.get("parameters") is not None:
        errors += _parameters_errors(_dict(spec["parameters"]))
    return errors


def ingress_class_update_errors(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """The controller never changes; then every create rule."""
    controller = _dict(new.get("spec")).get("controller") or ""
    errors: list[FieldError] = []
    if controller != (_dict(old.get("spec")).get("controller") or ""):
        errors.append(FieldError.invalid("spec.controller", controller, "field is immutable"))
    return errors + ingress_class_errors(new)
