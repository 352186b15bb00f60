"""discovery.k8s.io: EndpointSlices.

Entry point: ``KINDS``; the rules are ``EndpointSliceStrategy``.
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.builtin.generic import CatalogStrategy
from kubeforge.apiserver.builtin.kind import Kind
from kubeforge.apiserver.failures import FieldError

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


KINDS = (
    Kind(
        "discovery.k8s.io", "v1", "EndpointSlice", "endpointslices", strategy=EndpointSliceStrategy
    ),
)
