"""networking.k8s.io: Ingresses, IngressClasses and NetworkPolicies.

Entry point: ``KINDS``; the rules are ``IngressStrategy`` and ``NetworkPolicyStrategy``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar

from kubeforge.apiserver.builtin.generic import CatalogStrategy, spec_of
from kubeforge.apiserver.builtin.kind import STATUS, Kind
from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.meta.labelselector import format_selector
from kubeforge.apiserver.printers.cells import NONE, created, dict_at, name_of
from kubeforge.apiserver.printers.columns import AGE_COLUMN, Printer, simple_columns

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


_MAX_HOSTS = 3


def _ingress_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    spec = dict_at(obj, "spec")
    hosts = [
        str(r.get("host")) for r in spec.get("rules") or [] if isinstance(r, dict) and r.get("host")
    ]
    shown = ",".join(hosts[:_MAX_HOSTS]) or "*"
    if len(hosts) > _MAX_HOSTS:
        shown += f" + {len(hosts) - _MAX_HOSTS} more..."
    addresses = [
        str(i.get("ip") or i.get("hostname") or "")
        for i in dict_at(obj, "status", "loadBalancer").get("ingress") or []
        if isinstance(i, dict)
    ]
    return [
        name_of(obj),
        str(spec.get("ingressClassName") or NONE),
        shown,
        ",".join(a for a in addresses if a),
        "80, 443" if spec.get("tls") else "80",
        created(obj, now),
    ]


def _parameters(ref: dict[str, Any]) -> str:
    if not ref:
        return NONE
    group = ref.get("apiGroup")
    kind = f"{ref.get('kind', '')}.{group}" if group else str(ref.get("kind", ""))
    return f"{kind}/{ref.get('name', '')}"


_INGRESS_PRINTER = Printer(
    (
        *simple_columns(
            ("Class", "string", "The IngressClass the ingress asks for."),
            ("Hosts", "string", "Hosts the rules match."),
            ("Address", "string", "Where the load balancer listens."),
            ("Ports", "string", "Ports opened (443 too with TLS)."),
        ),
        AGE_COLUMN,
    ),
    _ingress_row,
)
_INGRESS_CLASS_PRINTER = Printer(
    (
        *simple_columns(
            ("Controller", "string", "The controller handling the class."),
            ("Parameters", "string", "A reference to further parameters."),
        ),
        AGE_COLUMN,
    ),
    lambda obj, now: [
        name_of(obj),
        str(dict_at(obj, "spec").get("controller") or ""),
        _parameters(dict_at(obj, "spec", "parameters")),
        created(obj, now),
    ],
)
_NETWORK_POLICY_PRINTER = Printer(
    (*simple_columns(("Pod-Selector", "string", "Pods the policy applies to.")), AGE_COLUMN),
    lambda obj, now: [
        name_of(obj),
        format_selector(dict_at(obj, "spec", "podSelector")),
        created(obj, now),
    ],
)

KINDS = (
    Kind(
        "networking.k8s.io",
        "v1",
        "IngressClass",
        "ingressclasses",
        namespaced=False,
        printer=_INGRESS_CLASS_PRINTER,
    ),
    Kind(
        "networking.k8s.io",
        "v1",
        "Ingress",
        "ingresses",
        short=("ing",),
        subresources=STATUS,
        strategy=IngressStrategy,
        printer=_INGRESS_PRINTER,
    ),
    Kind(
        "networking.k8s.io",
        "v1",
        "NetworkPolicy",
        "networkpolicies",
        short=("netpol",),
        strategy=NetworkPolicyStrategy,
        printer=_NETWORK_POLICY_PRINTER,
    ),
)
