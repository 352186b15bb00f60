"""Services as kubernetes 1.32 serves them: ``pkg/registry/core/service`` (the strategy, its
status strategy, the REST storage's allocations) over ``SetDefaults_Service`` and
``ValidateService``/``ValidateServiceUpdate``/``ValidateServiceStatusUpdate``.

A write runs as on the real server: decoding defaults it (``service_defaults``); an update
keeps what the server allocated and forgets what only the old type used; then, after
mutating admission, the REST storage allocates cluster IPs and node ports (``service_alloc``,
whose refusals come alone, before any validation), the spec is validated (``service_spec``,
``service_ips``) and a valid Service earns ``GetWarningsForService``'s warnings.

Entry point: ``ServiceStrategy`` (listed in ``core.kinds``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kubeforge.apiserver.builtin.core.service_alloc import Allocator
from kubeforge.apiserver.builtin.core.service_defaults import (
    default_ingress,
    default_service,
    drop_type_dependent,
    needs_health_check,
    normalize_cluster_ips,
    patch_allocated,
)
from kubeforge.apiserver.builtin.core.service_ips import (
    cidr_warning,
    cluster_ip_updates,
    ip_warning,
)
from kubeforge.apiserver.builtin.core.service_spec import (
    load_balancer_class_update,
    load_balancer_status,
    validate_service,
)
from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.meta.validation import dns1035_label
from kubeforge.apiserver.registry.served import ServedResource
from kubeforge.apiserver.registry.strategy import Strategy

__all__ = ["ServiceStrategy", "service_warnings"]

_HINTS = "service.kubernetes.io/topology-aware-hints"
_MODE = "service.kubernetes.io/topology-mode"


def _spec(obj: dict[str, Any]) -> dict[str, Any]:
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        spec = obj["spec"] = {}
    return spec


def service_warnings(obj: dict[str, Any]) -> list[str]:
    """``GetWarningsForService`` (1.32): deprecated annotations, addresses a stricter parser
    will refuse, fields the Service's type ignores."""
    spec, warnings = _spec(obj), []
    if _HINTS in ((obj.get("metadata") or {}).get("annotations") or {}):
        warnings.append(f"annotation {_HINTS} is deprecated, please use {_MODE} instead")
    if spec.get("clusterIP") not in (None, "", "None"):
        for i, ip in enumerate(spec.get("clusterIPs") or []):
            warnings += ip_warning(str(ip), f"spec.clusterIPs[{i}]")
    for i, ip in enumerate(spec.get("externalIPs") or []):
        warnings += ip_warning(str(ip), f"spec.externalIPs[{i}]")
    if spec.get("loadBalancerIP"):
        warnings += ip_warning(str(spec["loadBalancerIP"]), "spec.loadBalancerIP")
    for i, cidr in enumerate(spec.get("loadBalancerSourceRanges") or []):
        warnings += cidr_warning(str(cidr), f"spec.loadBalancerSourceRanges[{i}]")
    kind = spec.get("type")
    if kind == "ExternalName" and spec.get("externalIPs"):
        warnings.append('spec.externalIPs is ignored when spec.type is "ExternalName"')
    if kind != "ExternalName" and spec.get("externalName"):
        warnings.append('spec.externalName is ignored when spec.type is not "ExternalName"')
    return warnings


def _status_warnings(obj: dict[str, Any]) -> list[str]:
    """The status strategy's ``WarningsOnUpdate``: its ingress IPs."""
    balancer = (obj.get("status") or {}).get("loadBalancer") or {}
    return [
        warning
        for i, point in enumerate(balancer.get("ingress") or [])
        if isinstance(point, dict) and point.get("ip")
        for warning in ip_warning(str(point["ip"]), f"status.loadBalancer.ingress[{i}]")
    ]


def _traffic_update(spec: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """``validateServiceExternalTrafficFieldsUpdate``: the health-check port stays while needed."""
    kept = needs_health_check(old) and needs_health_check(spec)
    if kept and spec.get("healthCheckNodePort") != old.get("healthCheckNodePort"):
        return [FieldError.forbidden("spec.healthCheckNodePort", "field is immutable")]
    return []


class ServiceStrategy(Strategy):
    status_subresource = True
    return_deleted_object = True
    allow_create_on_update = True
    name_validator = staticmethod(dns1035_label)
    top_level_fields = ("spec", "status")
    extra_fields = ("spec.clusterIP", "spec.type")

    def __init__(
        self, served: ServedResource, stored_services: Callable[[], list[dict[str, Any]]]
    ) -> None:
        super().__init__(served)
        self._allocator = Allocator(stored_services)
        # The /status write in progress: its validation and take_warnings run back to back.
        self._warnings: list[str] = []

    @classmethod
    def for_server(
        cls, served: ServedResource, stored_services: Callable[[], list[dict[str, Any]]]
    ) -> Strategy:
        return cls(served, stored_services)

    def on_read(self, obj: dict[str, Any]) -> dict[str, Any]:
        """``defaultOnReadService``: an ExternalName Service shows no internalTrafficPolicy
        (servers once defaulted it there), a Service stored with only ``clusterIP`` shows
        ``clusterIPs`` too."""
        spec = obj.get("spec")
        if not isinstance(spec, dict):
            return obj
        stale_policy = spec.get("type") == "ExternalName" and "internalTrafficPolicy" in spec
        singular = bool(spec.get("clusterIP")) and not spec.get("clusterIPs")
        if not stale_policy and not singular:
            return obj
        spec = dict(spec)
        if stale_policy:
            del spec["internalTrafficPolicy"]
        if singular:
            spec["clusterIPs"] = [spec["clusterIP"]]
        return {**obj, "spec": spec}

    def take_warnings(self) -> list[str]:
        warnings, self._warnings = self._warnings, []
        return warnings

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        spec = _spec(obj)  # a Service sent without one gets the defaults of an empty one
        default_service(obj)
        obj["status"] = {"loadBalancer": {}}
        self._warnings = []
        normalize_cluster_ips(spec, None)

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        spec, before = _spec(new), old.get("spec") or {}
        default_service(new)
        super().prepare_for_update(new, old)
        self._warnings = []
        patch_allocated(spec, before)
        normalize_cluster_ips(spec, before)
        drop_type_dependent(new, old)

    def prepare_for_status_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        self._warnings = []
        default_ingress(new)

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        self._allocator.allocate_create(obj)
        return validate_service(obj)

    def validate_status_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        """``ValidateServiceStatusUpdate``; a valid one earns the status strategy's warnings."""
        errors = load_balancer_status(new)
        self._warnings = [] if errors else _status_warnings(new)
        return errors

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        self._allocator.allocate_update(new, old)
        spec, before = _spec(new), old.get("spec") or {}
        errors = cluster_ip_updates(spec, before) + load_balancer_class_update(spec, before)
        return errors + _traffic_update(spec, before) + validate_service(new)

    def warnings_on_create(self, obj: dict[str, Any]) -> list[str]:
        return service_warnings(obj)

    def warnings_on_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[str]:
        return service_warnings(new)
