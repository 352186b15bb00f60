"""discovery.k8s.io: EndpointSlices.

Entry point: ``KINDS``; the rules are ``EndpointSliceStrategy``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kubeforge.apiserver.builtin.generic import CatalogStrategy
from kubeforge.apiserver.builtin.kind import Kind
from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.printers.cells import created, name_of
from kubeforge.apiserver.printers.columns import AGE_COLUMN, Printer, simple_columns

__all__ = ["KINDS"]

_ADDRESS_TYPES = ("IPv4", "IPv6", "FQDN")


class EndpointSliceStrategy(CatalogStrategy):
    def default(self, obj: dict[str, Any]) -> None:
        for port in obj.get("ports") or []:
            if isinstance(port, dict):
                port.setdefault("name", "")
                port.setdefault("protocol", "TCP")

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        kind = obj.get("addressType")
        if not kind:
            return [FieldError("Required", "addressType")]
        if kind not in _ADDRESS_TYPES:
            return [FieldError.not_supported("addressType", kind, ("FQDN", "IPv4", "IPv6"))]
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
