"""networking.k8s.io: Ingresses, IngressClasses and NetworkPolicies.

Entry point: ``KINDS``; the strategies' rules are in ``ingress_rules`` and
``network_policy_rules``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar

from kubeforge.apiserver.builtin.generic import CatalogStrategy, spec_of
from kubeforge.apiserver.builtin.ingress_rules import (
    ingress_class_errors,
    ingress_class_update_errors,
    ingress_errors,
    ingress_status_errors,
    ingress_warnings,
)
from kubeforge.apiserver.builtin.kind import STATUS, Kind
from kubeforge.apiserver.builtin.network_policy_rules import (
    default_network_policy,
    network_policy_errors,
)
from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.meta.labelselector import format_selector
from kubeforge.apiserver.printers.cells import NONE, created, dict_at, name_of
from kubeforge.apiserver.printers.columns import AGE_COLUMN, Printer, simple_columns

__all__ = ["KINDS"]


class IngressStrategy(CatalogStrategy):
    empty_status: ClassVar[dict[str, Any]] = {"loadBalancer": {}}

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return ingress_errors(obj, None)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return ingress_errors(new, old)

    def validate_status_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return ingress_status_errors(new)

    def warnings_on_create(self, obj: dict[str, Any]) -> list[str]:
        return ingress_warnings(obj)


class IngressClassStrategy(CatalogStrategy):
    def default(self, obj: dict[str, Any]) -> None:
        # SetDefaults_IngressClass: parameters without a scope are cluster-scoped.
        parameters = (spec_of(obj) or {}).get("parameters")
        if isinstance(parameters, dict):
            parameters.setdefault("scope", "Cluster")

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return ingress_class_errors(obj)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return ingress_class_update_errors(new, old)


class NetworkPolicyStrategy(CatalogStrategy):
    def default(self, obj: dict[str, Any]) -> None:
        spec = spec_of(obj)
        if spec is not None:
            default_network_policy(spec)

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return network_policy_errors(obj, None)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return network_policy_errors(new, old)


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
        strategy=IngressClassStrategy,
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
