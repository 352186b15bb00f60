"""networking.k8s.io: Ingresses, IngressClasses and NetworkPolicies.

Entry point: ``KINDS``; the rules are ``IngressStrategy`` and ``NetworkPolicyStrategy``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from kubeforge.apiserver.builtin.generic import CatalogStrategy, spec_of
from kubeforge.apiserver.builtin.kind import STATUS, Kind
from kubeforge.apiserver.failures import FieldError

__all__ = ["KINDS"]

_PATH_TYPES = ("Exact", "ImplementationSpecific", "Prefix")


class IngressStrategy(CatalogStrategy):
    empty_status: ClassVar[dict[str, Any]] = {"loadBalancer": {}}

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        spec = spec_of(obj) or {}
        errors: list[FieldError] = []
        if not spec.get("rules") and not spec.get("defaultBackend"):
            errors.append(
                FieldError(
                    "Invalid", "spec", "either `defaultBackend` or `rules` must be specified", spec
                )
            )
        for i, rule in enumerate(spec.get("rules") or []):
            paths = ((rule.get("http") or {}).get("paths") or []) if isinstance(rule, dict) else []
            for j, path in enumerate(paths):
                where = f"spec.rules[{i}].http.paths[{j}].pathType"
                kind = path.get("pathType") if isinstance(path, dict) else None
                if kind is None:
                    errors.append(FieldError("Required", where, "pathType must be specified"))
                elif kind not in _PATH_TYPES:
                    errors.append(FieldError.not_supported(where, kind, _PATH_TYPES))
        return errors


class NetworkPolicyStrategy(CatalogStrategy):
    def default(self, obj: dict[str, Any]) -> None:
        spec = spec_of(obj)
        if spec is None:
            return
        if not spec.get("policyTypes"):
            spec["policyTypes"] = ["Ingress", "Egress"] if spec.get("egress") else ["Ingress"]
        for direction in ("ingress", "egress"):
            for rule in spec.get(direction) or []:
                for port in (rule.get("ports") or []) if isinstance(rule, dict) else []:
                    if isinstance(port, dict):
                        port.setdefault("protocol", "TCP")


KINDS = (
    Kind("networking.k8s.io", "v1", "IngressClass", "ingressclasses", namespaced=False),
    Kind(
        "networking.k8s.io",
        "v1",
        "Ingress",
        "ingresses",
        short=("ing",),
        subresources=STATUS,
        strategy=IngressStrategy,
    ),
    Kind(
        "networking.k8s.io",
        "v1",
        "NetworkPolicy",
        "networkpolicies",
        short=("netpol",),
        strategy=NetworkPolicyStrategy,
    ),
)
