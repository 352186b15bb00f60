"""A Service's spec as kubernetes 1.32's ``ValidateService`` checks it, rule by rule in its
order and words (``pkg/apis/core/validation/validation.go``): type, ports, selector, session
affinity, addresses (``service_ips``), source ranges, load-balancer fields and traffic policies.
The load balancer's status (``ValidateLoadBalancerStatus``) is here too.

Entry points: ``validate_service(obj)``, ``load_balancer_class_update(new, old)``,
``load_balancer_status(obj)``.

>>> spec = {"type": "ClusterIP", "sessionAffinity": "None", "internalTrafficPolicy": "Cluster",
...         "ports": [{"port": 80, "protocol": "TCP", "targetPort": 80, "nodePort": 30080}]}
>>> [str(e) for e in validate_service({"metadata": {}, "spec": spec})]
["spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"]
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.builtin.core.endpoints import (
    app_protocol_errors,
    dns_label,
    valid_port,
)
from kubeforge.apiserver.builtin.core.service_defaults import (
    externally_accessible,
    needs_health_check,
)
from kubeforge.apiserver.builtin.core.service_ips import (
    cidr_errors,
    cluster_ip_fields,
    is_headless,
    non_special_ip,
)
from kubeforge.apiserver.builtin.podspec.dns import ip_errors, sloppy_ip
from kubeforge.apiserver.builtin.podspec.ports import PORT_RANGE, port_num_or_name, protocol_errors
from kubeforge.apiserver.failures import FieldError, GoValue
from kubeforge.core.names import dns1123_subdomain, label_value, qualified_name

__all__ = ["load_balancer_class_update", "load_balancer_status", "validate_service"]

_AFFINITIES = ("ClientIP", "None")
_TYPES = ("ClusterIP", "ExternalName", "LoadBalancer", "NodePort")
_POLICIES = ("Cluster", "Local")
_MAX_AFFINITY_SECONDS = 86400
_HINTS = "service.kubernetes.io/topology-aware-hints"
_MODE = "service.kubernetes.io/topology-mode"
_SOURCE_RANGES = "service.beta.kubernetes.io/load-balancer-source-ranges"
_ONLY_LB = "may only be used when `type` is 'LoadBalancer'"


def _topology(annotations: dict[str, Any]) -> list[FieldError]:
    if _HINTS in annotations and _MODE in annotations and annotations[_HINTS] != annotations[_MODE]:
        detail = f"must match annotations[{_HINTS}] when both are specified"
        return [FieldError.invalid(f"metadata.annotations[{_MODE}]", annotations[_MODE], detail)]
    return []


def _by_type(spec: dict[str, Any]) -> list[FieldError]:
    kind = spec.get("type")
    if kind in ("LoadBalancer", "NodePort"):
        if is_headless(spec):
            detail = f"may not be set to 'None' for {kind} services"
            return [FieldError.invalid("spec.clusterIPs[0]", "None", detail)]
        return []
    if kind != "ExternalName":
        return []
    errors = [
        FieldError.forbidden(f"spec.{key}", "may not be set for ExternalName services")
        for key in ("clusterIPs", "ipFamilies", "ipFamilyPolicy")
        if spec.get(key) or (key == "ipFamilyPolicy" and spec.get(key) is not None)
    ]
    cname = str(spec.get("externalName") or "").removesuffix(".")  # a trailing dot: an FQDN
    if not cname:
        return [*errors, FieldError.required("spec.externalName")]
    return errors + [
        FieldError.invalid("spec.externalName", cname, msg) for msg in dns1123_subdomain(cname)
    ]


def _port(port: dict[str, Any], named: bool, names: set[str], at: str) -> list[FieldError]:
    """``validateServicePort``."""
    errors: list[FieldError] = []
    name = str(port.get("name") or "")
    if named and not name:
        errors.append(FieldError.required(f"{at}.name"))
    elif name:
        errors += dns_label(name, f"{at}.name")
        if name in names:
            errors.append(FieldError.duplicate(f"{at}.name", name))
        names.add(name)
    number = port.get("port", 0)
    if not valid_port(number):
        errors.append(FieldError.invalid(f"{at}.port", number, PORT_RANGE))
    errors += protocol_errors(port.get("protocol"), f"{at}.protocol")
    errors += port_num_or_name(port.get("targetPort", 0), f"{at}.targetPort")
    return errors + app_protocol_errors(port.get("appProtocol"), f"{at}.appProtocol")


def _ports(spec: dict[str, Any]) -> list[FieldError]:
    ports = [p for p in spec.get("ports") or [] if isinstance(p, dict)]
    names: set[str] = set()
    errors: list[FieldError] = []
    for i, port in enumerate(ports):
        errors += _port(port, len(ports) > 1, names, f"spec.ports[{i}]")
    return errors


def _selector(spec: dict[str, Any]) -> list[FieldError]:
    """``ValidateLabels`` at ``spec.selector``: every problem names the whole selector's path."""
    selector = spec.get("selector")
    errors: list[FieldError] = []
    for key, value in selector.items() if isinstance(selector, dict) else ():
        errors += [FieldError.invalid("spec.selector", key, msg) for msg in qualified_name(key)]
        errors += [
            FieldError.invalid("spec.selector", value, msg) for msg in label_value(str(value))
        ]
    return errors


def _affinity(spec: dict[str, Any]) -> list[FieldError]:
    affinity, path = spec.get("sessionAffinity"), "spec.sessionAffinityConfig"
    if not affinity:
        return [FieldError.required("spec.sessionAffinity")]
    if affinity not in _AFFINITIES:
        return [FieldError.not_supported("spec.sessionAffinity", affinity, _AFFINITIES)]
    config = spec.get("sessionAffinityConfig")
    if affinity == "None":
        return (
            [FieldError.forbidden(path, "must not be set when session affinity is None")]
            if config is not None
            else []
        )
    detail = "when session affinity type is ClientIP"
    client = config.get("clientIP") if isinstance(config, dict) else None
    if not isinstance(config, dict):
        return [FieldError.required(path, detail)]
    if not isinstance(client, dict):
        return [FieldError.required(f"{path}.clientIP", detail)]
    timeout = client.get("timeoutSeconds")
    if timeout is None:
        return [FieldError.required(f"{path}.clientIP.timeoutSeconds", detail)]
    if not 0 < timeout <= _MAX_AFFINITY_SECONDS:
        detail = f"must be greater than 0 and less than {_MAX_AFFINITY_SECONDS}"
        return [FieldError.invalid(f"{path}.clientIP.timeoutSeconds", timeout, detail)]
    return []


def _external_ips(spec: dict[str, Any]) -> list[FieldError]:
    errors: list[FieldError] = []
    for i, ip in enumerate(spec.get("externalIPs") or []):
        at = f"spec.externalIPs[{i}]"
        errors += ip_errors(ip, at) or non_special_ip(ip, at)
    return errors


def _type_and_node_ports(spec: dict[str, Any]) -> list[FieldError]:
    kind, errors = spec.get("type"), []
    if not kind:
        errors.append(FieldError.required("spec.type"))
    elif kind not in _TYPES:
        errors.append(FieldError.not_supported("spec.type", kind, _TYPES))
    ports = [p if isinstance(p, dict) else {} for p in spec.get("ports") or []]
    if kind == "ClusterIP":
        detail = "may not be used when `type` is 'ClusterIP'"
        errors += [
            FieldError.forbidden(f"spec.ports[{i}].nodePort", detail)
            for i, port in enumerate(ports)
            if port.get("nodePort")
        ]
    node_ports: set[tuple[Any, Any]] = set()
    for i, port in enumerate(ports):
        if port.get("nodePort"):
            key = (port.get("protocol"), port["nodePort"])
            if key in node_ports:
                errors.append(FieldError.duplicate(f"spec.ports[{i}].nodePort", port["nodePort"]))
            node_ports.add(key)
    seen: set[tuple[Any, Any]] = set()
    for i, port in enumerate(ports):
        key = (port.get("protocol"), port.get("port", 0))
        if key in seen:
            errors.append(FieldError.duplicate(f"spec.ports[{i}]", _go_port_key(*key)))
        seen.add(key)
    return errors


def _go_port_key(protocol: Any, port: Any) -> GoValue:
    """``%#v`` of the ``core.ServicePort`` Go builds to compare ports by protocol and number."""
    return GoValue(
        f'core.ServicePort{{Name:"", Protocol:{GoValue.quote(str(protocol or ""))}, '
        f"AppProtocol:(*string)(nil), Port:{port}, "
        'TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}'
    )


def _source_ranges(spec: dict[str, Any], annotations: dict[str, Any]) -> list[FieldError]:
    ranges, balancer = (
        spec.get("loadBalancerSourceRanges") or [],
        spec.get("type") == "LoadBalancer",
    )
    if ranges:
        path = "spec.LoadBalancerSourceRanges"  # sic: Go names the field with a capital L
        errors = [] if balancer else [FieldError.forbidden(path, _ONLY_LB)]
        for i, value in enumerate(ranges):
            errors += cidr_errors(str(value).strip(), f"{path}[{i}]")
        return errors
    if _SOURCE_RANGES not in annotations:
        return []
    path = f"metadata.annotations[{_SOURCE_RANGES}]"
    errors = [] if balancer else [FieldError.forbidden(path, _ONLY_LB)]
    value = str(annotations[_SOURCE_RANGES]).strip()
    for cidr in value.split(",") if value else ():
        errors += cidr_errors(cidr.strip(), path)
    return errors


def _load_balancer_fields(spec: dict[str, Any]) -> list[FieldError]:
    balancer, errors = spec.get("type") == "LoadBalancer", []
    allocate = spec.get("allocateLoadBalancerNodePorts")
    if allocate is not None and not balancer:
        errors.append(FieldError.forbidden("spec.allocateLoadBalancerNodePorts", _ONLY_LB))
    if balancer and allocate is None:
        errors.append(FieldError.required("allocateLoadBalancerNodePorts"))  # sic: no "spec."
    return errors + load_balancer_class_update(spec, None)


def load_balancer_class_update(
    spec: dict[str, Any], old: dict[str, Any] | None
) -> list[FieldError]:
    """``validateLoadBalancerClassField``: a LoadBalancer's class is a qualified name, fixed
    once the Service is one; other types have none."""
    path, cls = "spec.loadBalancerClass", spec.get("loadBalancerClass")
    errors: list[FieldError] = []
    balancer = spec.get("type") == "LoadBalancer"
    stays = old is not None and balancer and old.get("type") == "LoadBalancer"
    if stays and old is not None and old.get("loadBalancerClass") != cls:
        errors.append(FieldError.invalid(path, cls, "may not change once set"))
    if not balancer:
        return errors + ([FieldError.forbidden(path, _ONLY_LB)] if cls is not None else [])
    if cls is not None:
        errors += [FieldError.invalid(path, cls, msg) for msg in qualified_name(str(cls))]
    return errors


def _traffic(spec: dict[str, Any]) -> list[FieldError]:
    """``validateServiceExternalTrafficPolicy``, the internal policy and trafficDistribution."""
    errors: list[FieldError] = []
    external, health = spec.get("externalTrafficPolicy") or "", spec.get("healthCheckNodePort") or 0
    if not externally_accessible(spec):
        if external:
            detail = "may only be set for externally-accessible services"
            errors.append(FieldError.invalid("spec.externalTrafficPolicy", external, detail))
    elif not external:
        errors.append(FieldError.required("spec.externalTrafficPolicy"))
    elif external not in _POLICIES:
        errors.append(FieldError.not_supported("spec.externalTrafficPolicy", external, _POLICIES))
    if not needs_health_check(spec):
        if health:
            detail = (
                "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` "
                "is 'Local'"
            )
            errors.append(FieldError.invalid("spec.healthCheckNodePort", health, detail))
    elif not health:
        errors.append(FieldError.required("spec.healthCheckNodePort"))
    elif not valid_port(health):
        errors.append(FieldError.invalid("spec.healthCheckNodePort", health, PORT_RANGE))
    internal = spec.get("internalTrafficPolicy")
    if internal is None and spec.get("type") in ("NodePort", "LoadBalancer", "ClusterIP"):
        errors.append(FieldError.required("spec.internalTrafficPolicy"))
    if internal is not None and internal not in _POLICIES:
        errors.append(FieldError.not_supported("spec.internalTrafficPolicy", internal, _POLICIES))
    distribution = spec.get("trafficDistribution")
    if distribution is not None and distribution != "PreferClose":
        path = "spec.trafficDistribution"
        errors.append(FieldError.not_supported(path, distribution, ("PreferClose",)))
    return errors


def validate_service(obj: dict[str, Any]) -> list[FieldError]:
    """``ValidateService`` but its metadata (the engine checks that first)."""
    spec = obj.get("spec")
    spec = spec if isinstance(spec, dict) else {}
    annotations = (obj.get("metadata") or {}).get("annotations") or {}
    errors = _topology(annotations)
    if not spec.get("ports") and not is_headless(spec) and spec.get("type") != "ExternalName":
        errors.append(FieldError.required("spec.ports"))
    errors += _by_type(spec) + _ports(spec) + _selector(spec) + _affinity(spec)
    errors += cluster_ip_fields(spec) + _external_ips(spec) + _type_and_node_ports(spec)
    errors += _source_ranges(spec, annotations) + _load_balancer_fields(spec)
    return errors + _traffic(spec)


def _ingress(ingress: dict[str, Any], at: str) -> list[FieldError]:
    ip, mode, host = ingress.get("ip") or "", ingress.get("ipMode"), ingress.get("hostname") or ""
    errors = ip_errors(ip, f"{at}.ip") if ip else []
    if mode is None and ip:
        errors.append(FieldError.required(f"{at}.ipMode", "must be specified when `ip` is set"))
    elif mode is not None and not ip:
        errors.append(
            FieldError.forbidden(f"{at}.ipMode", "may not be specified when `ip` is not set")
        )
    elif mode is not None and mode not in ("Proxy", "VIP"):
        errors.append(FieldError.not_supported(f"{at}.ipMode", mode, ("Proxy", "VIP")))
    if host:
        errors += [FieldError.invalid(f"{at}.hostname", host, m) for m in dns1123_subdomain(host)]
        if sloppy_ip(host) is not None:
            detail = "must be a DNS name, not an IP address"
            errors.append(FieldError.invalid(f"{at}.hostname", host, detail))
    return errors


def load_balancer_status(obj: dict[str, Any]) -> list[FieldError]:
    """``ValidateLoadBalancerStatus`` (AllowServiceLBStatusOnNonLB is off in 1.32)."""
    status, spec = obj.get("status") or {}, obj.get("spec") or {}
    balancer = status.get("loadBalancer") if isinstance(status, dict) else None
    ingress = (balancer.get("ingress") if isinstance(balancer, dict) else None) or []
    path = "status.loadBalancer.ingress"
    if spec.get("type") != "LoadBalancer" and ingress:
        return [FieldError.forbidden(path, "may only be used when `spec.type` is 'LoadBalancer'")]
    errors: list[FieldError] = []
    for i, point in enumerate(ingress):
        if isinstance(point, dict):
            errors += _ingress(point, f"{path}[{i}]")
    return errors
