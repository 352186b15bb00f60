"""core/v1 Endpoints as kubernetes 1.32 serves them: ``SetDefaults_Endpoints`` (a port's
protocol is TCP) and ``ValidateEndpoints`` (``validateEndpointSubsets``,
``validateEndpointAddress``, ``validateEndpointPort``), in its order and words. 1.32's
endpoints strategy warns of nothing, changes nothing else, and lets a PUT create. The port
and address rules Services and EndpointSlices share with it are here too.

Entry points: ``EndpointsStrategy`` (listed in ``core.kinds``), and ``dns_label``,
``app_protocol_errors``, ``node_name_errors``, ``valid_port``.

>>> [str(e) for e in dns_label("Web", "ports[0].name")][0][:52]
'ports[0].name: Invalid value: "Web": a lowercase RFC'

"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.builtin.core.service_ips import non_special_ip
from kubeforge.apiserver.builtin.podspec.dns import ip_errors
from kubeforge.apiserver.builtin.podspec.ports import PORT_RANGE, protocol_errors
from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.registry.strategy import Strategy
from kubeforge.core.names import dns1123_label, dns1123_subdomain, qualified_name

__all__ = [
    "EndpointsStrategy",
    "app_protocol_errors",
    "dns_label",
    "node_name_errors",
    "valid_port",
]


def valid_port(value: Any) -> bool:
    """``IsValidPortNum``."""
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 65535


def dns_label(value: str, path: str) -> list[FieldError]:
    """``ValidateDNS1123Label``: a port's name, an address's hostname."""
    return [FieldError.invalid(path, value, message) for message in dns1123_label(value)]


def node_name_errors(value: str, path: str) -> list[FieldError]:
    """``ValidateNodeName``: a DNS subdomain."""
    return [FieldError.invalid(path, value, message) for message in dns1123_subdomain(value)]


def app_protocol_errors(value: Any, path: str) -> list[FieldError]:
    """``ValidateQualifiedName`` of an ``appProtocol``, when there is one."""
    if value is None:
        return []
    return [FieldError.invalid(path, value, message) for message in qualified_name(str(value))]


def _address(address: dict[str, Any], path: str) -> list[FieldError]:
    ip = str(address.get("ip") or "")
    errors = ip_errors(ip, f"{path}.ip")
    if address.get("hostname"):
        errors += dns_label(str(address["hostname"]), f"{path}.hostname")
    if address.get("nodeName") is not None:
        errors += node_name_errors(str(address["nodeName"]), f"{path}.nodeName")
    return errors + non_special_ip(ip, f"{path}.ip")


def _port(port: dict[str, Any], named: bool, path: str) -> list[FieldError]:
    name, errors = str(port.get("name") or ""), []
    if named and not name:
        errors.append(FieldError.required(f"{path}.name"))
    elif name:
        errors += dns_label(name, f"{path}.name")
    number = port.get("port", 0)
    if not valid_port(number):
        errors.append(FieldError.invalid(f"{path}.port", number, PORT_RANGE))
    errors += protocol_errors(port.get("protocol"), f"{path}.protocol")
    return errors + app_protocol_errors(port.get("appProtocol"), f"{path}.appProtocol")


def _subset(subset: dict[str, Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    if not subset.get("addresses") and not subset.get("notReadyAddresses"):
        detail = "must specify `addresses` or `notReadyAddresses`"
        errors.append(FieldError.required(path, detail))
    for key in ("addresses", "notReadyAddresses"):
        for j, address in enumerate(subset.get(key) or []):
            if isinstance(address, dict):
                errors += _address(address, f"{path}.{key}[{j}]")
    ports = [p for p in subset.get("ports") or [] if isinstance(p, dict)]
    for j, port in enumerate(ports):
        errors += _port(port, len(ports) > 1, f"{path}.ports[{j}]")
    return errors


def validate_endpoints(obj: dict[str, Any]) -> list[FieldError]:
    """``ValidateEndpoints`` but its metadata (the engine's)."""
    errors: list[FieldError] = []
    for i, subset in enumerate(obj.get("subsets") or []):
        if isinstance(subset, dict):
            errors += _subset(subset, f"subsets[{i}]")
    return errors


def _default(obj: dict[str, Any]) -> None:
    """``SetDefaults_Endpoints``."""
    for subset in obj.get("subsets") or []:
        for port in (subset.get("ports") or []) if isinstance(subset, dict) else []:
            if isinstance(port, dict) and not port.get("protocol"):
                port["protocol"] = "TCP"


class EndpointsStrategy(Strategy):
    allow_create_on_update = True
    top_level_fields: tuple[str, ...] | None = ("subsets",)

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        _default(obj)

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        _default(new)

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return validate_endpoints(obj)
