"""discovery.k8s.io: EndpointSlices, as kubernetes 1.32 serves them.

``SetDefaults_EndpointPort`` (name "", protocol TCP), ``ValidateEndpointSlice`` and its update
rule (``pkg/apis/discovery/validation``: address type, at most 1000 endpoints of 1 to 100
addresses each, checked by the address type, node names, hostnames, zone hints, at most 20000
uniquely named ports; an immutable address type) and the strategy's own rules
(``pkg/registry/discovery/endpointslice/strategy.go``: the generation also moves with the
labels, v1 writes drop ``deprecatedTopology``, FQDN slices are warned of, a PUT never creates).

Entry point: ``KINDS``; the rules are ``EndpointSliceStrategy``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kubeforge.apiserver.builtin.core.endpoints import (
    app_protocol_errors,
    dns_label,
    node_name_errors,
)
from kubeforge.apiserver.builtin.core.service_ips import non_special_ip
from kubeforge.apiserver.builtin.generic import CatalogStrategy
from kubeforge.apiserver.builtin.kind import Kind
from kubeforge.apiserver.builtin.podspec.dns import sloppy_ip
from kubeforge.apiserver.builtin.podspec.ports import protocol_errors
from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.printers.cells import created, name_of
from kubeforge.apiserver.printers.columns import AGE_COLUMN, Printer, simple_columns
from kubeforge.core.names import dns1123_label, dns1123_subdomain, label_value, qualified_name

__all__ = ["KINDS"]

_ADDRESS_TYPES = ("FQDN", "IPv4", "IPv6")
_MAX_ENDPOINTS, _MAX_ADDRESSES, _MAX_PORTS, _MAX_TOPOLOGY, _MAX_ZONES = 1000, 100, 20000, 16, 8


def _too_many(path: str, count: int, limit: int) -> FieldError:
    return FieldError("TooMany", path, f"must have at most {limit} items", count)


def _fqdn(value: str, path: str) -> list[FieldError]:
    """``IsFullyQualifiedDomainName``: a subdomain of two labels or more, maybe dot-ended."""
    if not value:
        return [FieldError.required(path)]
    name = value.removesuffix(".")
    problems = dns1123_subdomain(name)
    if problems:
        return [FieldError.invalid(path, name, ",".join(problems))]
    if len(name.split(".")) < 2:
        detail = "should be a domain with at least two segments separated by dots"
        return [FieldError.invalid(path, name, detail)]
    for label in name.split("."):
        if dns1123_label(label):
            return [FieldError.invalid(path, label, ",".join(dns1123_label(label)))]
    return []


def _address(kind: Any, address: str, path: str) -> list[FieldError]:
    """An address checked as its slice's type says (``IsValidIPv4Address`` and the like)."""
    if kind == "FQDN":
        return _fqdn(address, path)
    if kind not in ("IPv4", "IPv6"):
        return []
    ip = sloppy_ip(address)
    four = ip is not None and (ip.version == 4 or getattr(ip, "ipv4_mapped", None) is not None)
    if ip is None or four != (kind == "IPv4"):
        errors = [FieldError.invalid(path, address, f"must be a valid {kind} address")]
    else:
        errors = []
    return errors + non_special_ip(address, path)


def _labels(labels: Any, path: str) -> list[FieldError]:
    """``ValidateLabels`` at ``path``."""
    errors: list[FieldError] = []
    for key, value in labels.items() if isinstance(labels, dict) else ():
        errors += [FieldError.invalid(path, key, message) for message in qualified_name(key)]
        errors += [FieldError.invalid(path, value, msg) for msg in label_value(str(value))]
    return errors


def _hints(hints: dict[str, Any], path: str) -> list[FieldError]:
    zones = [z if isinstance(z, dict) else {} for z in hints.get("forZones") or []]
    if len(zones) > _MAX_ZONES:
        return [_too_many(f"{path}.forZones", len(zones), _MAX_ZONES)]
    errors, seen = [], set()
    for i, zone in enumerate(zones):
        at, name = f"{path}.forZones[{i}].name", str(zone.get("name") or "")
        if name in seen:
            errors.append(FieldError.duplicate(at, name))
        seen.add(name)
        errors += [FieldError.invalid(at, name, message) for message in label_value(name)]
    return errors


def _endpoint(endpoint: dict[str, Any], kind: Any, path: str) -> list[FieldError]:
    addresses, at = endpoint.get("addresses") or [], f"{path}.addresses"
    errors: list[FieldError] = []
    if not addresses:
        errors.append(FieldError.required(at, "must contain at least 1 address"))
    elif len(addresses) > _MAX_ADDRESSES:
        errors.append(_too_many(at, len(addresses), _MAX_ADDRESSES))
    for i, address in enumerate(addresses):
        errors += _address(kind, str(address), f"{at}[{i}]")
    if endpoint.get("nodeName") is not None:
        errors += node_name_errors(str(endpoint["nodeName"]), f"{path}.nodeName")
    topology = endpoint.get("deprecatedTopology") or {}
    if len(topology) > _MAX_TOPOLOGY:
        errors.append(_too_many(f"{path}.deprecatedTopology", len(topology), _MAX_TOPOLOGY))
    errors += _labels(topology, f"{path}.deprecatedTopology")
    if endpoint.get("hostname") is not None:
        errors += dns_label(str(endpoint["hostname"]), f"{path}.hostname")
    if isinstance(endpoint.get("hints"), dict):
        errors += _hints(endpoint["hints"], f"{path}.hints")
    return errors


def _ports(ports: list[Any]) -> list[FieldError]:
    if len(ports) > _MAX_PORTS:
        return [_too_many("ports", len(ports), _MAX_PORTS)]
    errors: list[FieldError] = []
    names: set[str] = set()
    for i, port in enumerate(p if isinstance(p, dict) else {} for p in ports):
        name = str(port.get("name") or "")
        if name:
            errors += dns_label(name, f"ports[{i}].name")
        if name in names:
            errors.append(FieldError.duplicate(f"ports[{i}].name", name))
        names.add(name)
        errors += protocol_errors(port.get("protocol"), f"ports[{i}].protocol")
        errors += app_protocol_errors(port.get("appProtocol"), f"ports[{i}].appProtocol")
    return errors


def validate_endpoint_slice(obj: dict[str, Any]) -> list[FieldError]:
    """``ValidateEndpointSlice`` but its metadata (the engine's)."""
    kind = obj.get("addressType")
    if not kind:
        errors = [FieldError.required("addressType")]
    elif kind not in _ADDRESS_TYPES:
        errors = [FieldError.not_supported("addressType", kind, _ADDRESS_TYPES)]
    else:
        errors = []
    endpoints = obj.get("endpoints") or []
    if len(endpoints) > _MAX_ENDPOINTS:
        errors.append(_too_many("endpoints", len(endpoints), _MAX_ENDPOINTS))
    else:
        for i, endpoint in enumerate(endpoints):
            if isinstance(endpoint, dict):
                errors += _endpoint(endpoint, kind, f"endpoints[{i}]")
    return errors + _ports(obj.get("ports") or [])


def _drop_topology(new: dict[str, Any], old: dict[str, Any] | None) -> None:
    """``dropTopologyOnV1``: v1 writes that change the endpoints drop ``deprecatedTopology``,
    keeping a node name it held before as ``nodeName``."""
    endpoints = [e for e in new.get("endpoints") or [] if isinstance(e, dict)]
    if old is not None and old.get("endpoints") == new.get("endpoints"):
        return
    hostname = "kubernetes.io/hostname"
    known = {
        (e.get("deprecatedTopology") or {}).get(hostname)
        for e in (old or {}).get("endpoints") or []
        if isinstance(e, dict)
    } - {None, ""}
    for endpoint in endpoints:
        node = (endpoint.pop("deprecatedTopology", None) or {}).get(hostname)
        copied = isinstance(node, str) and node in known and not dns1123_subdomain(node)
        if copied and endpoint.get("nodeName") is None:
            endpoint["nodeName"] = node


class EndpointSliceStrategy(CatalogStrategy):
    def default(self, obj: dict[str, Any]) -> None:
        for port in obj.get("ports") or []:
            if isinstance(port, dict):
                port.setdefault("name", "")
                port.setdefault("protocol", "TCP")

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        super().prepare_for_create(obj)
        _drop_topology(obj, None)

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        super().prepare_for_update(new, old)
        meta, before = new["metadata"], old["metadata"]
        if meta.get("labels") != before.get("labels"):  # labels move the generation too
            meta["generation"] = int(before.get("generation") or 0) + 1
        _drop_topology(new, old)

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return validate_endpoint_slice(obj)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        errors = validate_endpoint_slice(new)
        if new.get("addressType") != old.get("addressType"):
            errors.append(
                FieldError.invalid("addressType", new.get("addressType"), "field is immutable")
            )
        return errors

    def warnings_on_create(self, obj: dict[str, Any]) -> list[str]:
        if obj.get("addressType") == "FQDN":
            return ["spec.addressType: FQDN endpoints are deprecated"]
        return []


def _endpoint_slice_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    ports = [
        str(p.get("port")) for p in obj.get("ports") or [] if isinstance(p, dict) and "port" in p
    ]
    addresses = [
        str(a)
        for e in obj.get("endpoints") or []
        if isinstance(e, dict)
        for a in e.get("addresses") or []
    ]
    shown = ",".join(addresses[:3]) or "<unset>"
    if len(addresses) > 3:
        shown += f" + {len(addresses) - 3} more..."
    return [
        name_of(obj),
        str(obj.get("addressType") or ""),
        ",".join(ports) or "<unset>",
        shown,
        created(obj, now),
    ]


_ENDPOINT_SLICE_PRINTER = Printer(
    (
        *simple_columns(
            ("AddressType", "string", "IPv4, IPv6 or FQDN."),
            ("Ports", "string", "Ports of the endpoints."),
            ("Endpoints", "string", "Addresses of the endpoints."),
        ),
        AGE_COLUMN,
    ),
    _endpoint_slice_row,
)

KINDS = (
    Kind(
        "discovery.k8s.io",
        "v1",
        "EndpointSlice",
        "endpointslices",
        strategy=EndpointSliceStrategy,
        printer=_ENDPOINT_SLICE_PRINTER,
    ),
)
