"""The service REST storage's allocations, for a single-stack IPv4 cluster whose service CIDR
is kubeadm's ``10.96.0.0/12`` and node ports ``30000-32767``: kubernetes 1.32
``pkg/registry/core/service/storage/alloc.go`` (``initIPFamilyFields``, ``allocClusterIPs``,
``initNodePorts``, ``updateNodePorts``, the health-check node port) with the allocators' words
(``ipallocator``, ``portallocator``).

Nothing is kept aside: what is taken is what the stored Services hold, so a value is released
exactly when the Service that held it is deleted or changed to a type without it, and a dry
run takes nothing. Fresh values come from the upper part of each range first, as the real
allocators' static sub-ranges do, so values users pick by hand (``10.96.0.10``) stay free.

Entry points: ``Allocator(stored_services)``, then ``allocate_create(obj)`` or
``allocate_update(obj, old)``; both raise the ``StatusError`` the real server answers.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterator
from typing import Any

from kubeforge.apiserver import failures
from kubeforge.apiserver.builtin.core.service_defaults import needs_health_check, needs_node_ports
from kubeforge.apiserver.builtin.core.service_ips import cluster_ip_fields, go_strings
from kubeforge.apiserver.builtin.podspec.dns import sloppy_ip
from kubeforge.apiserver.failures import FieldError, StatusError

__all__ = ["SERVICE_CIDR", "Allocator"]

SERVICE_CIDR = ipaddress.IPv4Network("10.96.0.0/12")
_IP_STATIC_BAND = 256  # min(max(16, size/16), 256) addresses at the bottom, for hand-picked IPs
_PORTS = range(30000, 32768)
_PORT_STATIC_BAND = 86  # min(max(16, size/32), 128) ports at the bottom
_PORT_RANGE = f"{_PORTS.start}-{_PORTS.stop - 1}"
_IPS = "spec.clusterIPs"
_POLICY = "spec.ipFamilyPolicy"


def _invalid(obj: dict[str, Any], errors: list[FieldError]) -> StatusError:
    return failures.invalid("Service", "", str(obj["metadata"].get("name") or ""), errors)


def _ports(spec: dict[str, Any]) -> list[dict[str, Any]]:
    return [p for p in spec.get("ports") or [] if isinstance(p, dict)]


def _should_allocate_ports(spec: dict[str, Any]) -> bool:
    if spec.get("type") == "NodePort":
        return True
    return spec.get("type") == "LoadBalancer" and spec.get("allocateLoadBalancerNodePorts") is True


def _family(ip: Any) -> str:
    return "IPv6" if getattr(sloppy_ip(str(ip)), "version", 4) == 6 else "IPv4"


class Allocator:
    """Cluster IPs and node ports of one write, checked against the stored Services."""

    def __init__(self, stored_services: Callable[[], list[dict[str, Any]]]) -> None:
        self._stored = stored_services
        self._ips: set[ipaddress.IPv4Address] = set()
        self._node_ports: set[int] = set()

    def _load(self) -> None:
        self._ips, self._node_ports = set(), set()
        for service in self._stored():
            spec = service.get("spec") or {}
            for ip in spec.get("clusterIPs") or [spec.get("clusterIP")]:
                parsed = sloppy_ip(str(ip or ""))
                if isinstance(parsed, ipaddress.IPv4Address):
                    self._ips.add(parsed)
            self._node_ports |= {p["nodePort"] for p in _ports(spec) if p.get("nodePort")}
            if spec.get("healthCheckNodePort"):
                self._node_ports.add(spec["healthCheckNodePort"])

    # --- IP families ------------------------------------------------------------------------

    @staticmethod
    def _keeps_prefer_dual(spec: dict[str, Any], old: dict[str, Any] | None) -> bool:
        """``isMatchingPreferDualStackClusterIPFields``: nothing to redo for an unchanged
        PreferDualStack Service."""
        if old is None or "ExternalName" in (spec.get("type"), old.get("type")):
            return False
        if old.get("ipFamilyPolicy") != "PreferDualStack":
            return False
        if spec.get("ipFamilyPolicy") not in (None, "PreferDualStack"):
            return False
        return all(spec.get(k) == old.get(k) for k in ("clusterIP", "clusterIPs", "ipFamilies"))

    def init_families(self, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        """``initIPFamilyFields``: settle ``ipFamilyPolicy`` and ``ipFamilies`` (IPv4 only here)."""
        spec = obj["spec"]
        if spec.get("type") == "ExternalName" or self._keeps_prefer_dual(spec, old):
            return
        if spec.get("ipFamilyPolicy") is None:
            if old is not None and old.get("ipFamilyPolicy") is not None:
                spec["ipFamilyPolicy"] = old["ipFamilyPolicy"]
            elif spec.get("clusterIP") == "None" and not spec.get("selector"):
                spec["ipFamilyPolicy"] = "RequireDualStack"  # headless and selectorless
            else:
                spec["ipFamilyPolicy"] = "SingleStack"
        loose = cluster_ip_fields(spec)
        if loose:
            raise _invalid(obj, loose)
        errors = self._policy_errors(spec, old) + self._infer_families(spec)
        if errors:
            raise _invalid(obj, errors)
        if spec.get("clusterIP") == "None" and not spec.get("selector"):
            # Headless and selectorless: any families go, the endpoints are the user's.
            families = list(spec.get("ipFamilies") or ["IPv4"])
            if len(families) < 2 and spec["ipFamilyPolicy"] != "SingleStack":
                families.append("IPv6" if families[0] == "IPv4" else "IPv4")
            spec["ipFamilies"] = families
            return
        errors = self._cluster_errors(spec)
        if errors:
            raise _invalid(obj, errors)
        if not spec.get("ipFamilies"):
            spec["ipFamilies"] = ["IPv4"]

    @staticmethod
    def _policy_errors(spec: dict[str, Any], old: dict[str, Any] | None) -> list[FieldError]:
        policy, errors = spec["ipFamilyPolicy"], []
        ips, families = spec.get("clusterIPs") or [], spec.get("ipFamilies") or []
        if old is not None:
            old_ips, old_families = old.get("clusterIPs") or [], old.get("ipFamilies") or []
            if policy == "SingleStack":
                same_ips = spec.get("clusterIP") == old.get("clusterIP") and ips == old_ips
                if same_ips and len(ips) > 1:
                    spec["clusterIPs"] = ips = ips[:1]
                if families == old_families and len(families) > 1:
                    spec["ipFamilies"] = families = families[:1]
            else:
                if ips and len(ips) < len(old_ips):
                    detail = "must be 'SingleStack' to release the secondary cluster IP"
                    errors.append(FieldError.invalid(_POLICY, policy, detail))
                if families and len(families) < len(old_families):
                    detail = "must be 'SingleStack' to release the secondary IP family"
                    errors.append(FieldError.invalid(_POLICY, policy, detail))
        if policy == "SingleStack":
            for values, what in ((ips, "cluster IPs"), (families, "IP families")):
                if len(values) == 2:
                    detail = (
                        "must be 'RequireDualStack' or 'PreferDualStack' when multiple "
                        f"{what} are specified"
                    )
                    errors.append(FieldError.invalid(_POLICY, policy, detail))
        return errors

    @staticmethod
    def _infer_families(spec: dict[str, Any]) -> list[FieldError]:
        """``ipFamilies`` follow the cluster IPs given; an IPv6 one has no range here."""
        ips, errors = spec.get("clusterIPs") or [], []
        for i, ip in enumerate(ips):
            if ip == "None":
                break
            if i >= len(spec.get("ipFamilies") or []):
                family = _family(ip)
                if family == "IPv6":
                    detail = "IPv6 is not configured on this cluster"
                    errors.append(FieldError.invalid(f"{_IPS}[{i}]", go_strings(ips), detail))
                else:
                    spec.setdefault("ipFamilies", []).append(family)
        return errors

    @staticmethod
    def _cluster_errors(spec: dict[str, Any]) -> list[FieldError]:
        errors = []
        if spec["ipFamilyPolicy"] == "RequireDualStack":
            detail = "this cluster is not configured for dual-stack services"
            errors.append(FieldError.invalid(_POLICY, "RequireDualStack", detail))
        for i, family in enumerate(spec.get("ipFamilies") or []):
            if family != "IPv4":
                detail = "not configured on this cluster"
                errors.append(FieldError.invalid(f"spec.ipFamilies[{i}]", family, detail))
        return errors

    # --- cluster IPs ------------------------------------------------------------------------

    def _next_ip(self) -> ipaddress.IPv4Address:
        first = SERVICE_CIDR.network_address + 1
        last = SERVICE_CIDR.broadcast_address - 1
        static_end = first + _IP_STATIC_BAND
        for low, high in ((static_end, last), (first, static_end - 1)):
            candidate = low
            while candidate <= high:
                if candidate not in self._ips:
                    return candidate
                candidate += 1
        raise failures.internal_error("failed to allocate a serviceIP: range is full")

    def _ip_problem(self, ip: str) -> str:
        parsed = sloppy_ip(ip)
        if (
            not isinstance(parsed, ipaddress.IPv4Address)
            or parsed not in SERVICE_CIDR
            or parsed
            in (
                SERVICE_CIDR.network_address,
                SERVICE_CIDR.broadcast_address,
            )
        ):
            return (
                f"the provided IP ({parsed}) is not in the valid range. "
                f"The range of valid IPs is {SERVICE_CIDR}"
            )
        if parsed in self._ips:
            return "provided IP is already allocated"
        self._ips.add(parsed)
        return ""

    def _claim_ip(self, obj: dict[str, Any], ip: str) -> None:
        problem = self._ip_problem(ip)
        if problem:
            shown = go_strings(obj["spec"].get("clusterIPs"))
            detail = f"failed to allocate IP {ip}: {problem}"
            raise _invalid(obj, [FieldError.invalid(_IPS, shown, detail)])

    def _alloc_cluster_ips(self, obj: dict[str, Any]) -> None:
        spec = obj["spec"]
        ips = spec.get("clusterIPs") or []
        if spec.get("type") == "ExternalName" or (ips and ips[0] == "None"):
            return
        ips = list(ips) + [""] * (len(spec.get("ipFamilies") or []) - len(ips))
        spec["clusterIPs"] = ips
        for i in range(len(spec.get("ipFamilies") or [])):
            if ips[i]:
                self._claim_ip(obj, ips[i])  # kept as the client spelled it
            else:
                chosen = self._next_ip()
                self._ips.add(chosen)
                ips[i] = str(chosen)
        if ips:
            spec["clusterIP"] = ips[0]

    # --- node ports -------------------------------------------------------------------------

    def _free_ports(self) -> Iterator[int]:
        upper = range(_PORTS.start + _PORT_STATIC_BAND, _PORTS.stop)
        lower = range(_PORTS.start, _PORTS.start + _PORT_STATIC_BAND)
        return (port for band in (upper, lower) for port in band if port not in self._node_ports)

    def _next_port(self) -> int:
        port = next(self._free_ports(), None)
        if port is None:
            raise failures.internal_error("failed to allocate a nodePort: range is full")
        self._node_ports.add(port)
        return port

    def _port_problem(self, port: int) -> str:
        if port not in _PORTS:
            return (
                "provided port is not in the valid range. The range of valid ports is "
                + _PORT_RANGE
            )
        if port in self._node_ports:
            return "provided port is already allocated"
        self._node_ports.add(port)
        return ""

    def _claim_port(self, obj: dict[str, Any], port: int, at: int) -> None:
        problem = self._port_problem(port)
        if problem:
            path = f"spec.ports[{at}].nodePort"
            raise _invalid(obj, [FieldError.invalid(path, port, problem)])

    def _init_node_ports(self, obj: dict[str, Any]) -> None:
        """``initNodePorts``: ports with the same number share a node port."""
        spec = obj["spec"]
        ports, by_port = _ports(spec), dict[Any, int]()
        for i, port in enumerate(ports):
            if not port.get("nodePort") and not _should_allocate_ports(spec):
                continue
            shared = by_port.get(port.get("port"), 0)
            if not shared:
                wanted = next(
                    (
                        p["nodePort"]
                        for p in ports[i:]
                        if p.get("port") == port.get("port") and p.get("nodePort")
                    ),
                    0,
                )
                if wanted:
                    self._claim_port(obj, wanted, i)
                port["nodePort"] = wanted or self._next_port()
                by_port[port.get("port")] = port["nodePort"]
            elif not port.get("nodePort"):
                port["nodePort"] = shared
            elif port["nodePort"] != shared:
                self._claim_port(obj, port["nodePort"], i)

    def _update_node_ports(self, obj: dict[str, Any], old: dict[str, Any]) -> None:
        """``updateNodePorts``: a port keeps its node port, new ones get one."""
        spec, claimed = obj["spec"], set()
        before = {p["nodePort"] for p in _ports(old) if p.get("nodePort")}
        for i, port in enumerate(_ports(spec)):
            number = port.get("nodePort") or 0
            if not number and not _should_allocate_ports(spec):
                continue
            if not number:
                port["nodePort"] = self._next_port()
            elif number not in before and number not in claimed:
                self._claim_port(obj, number, i)
                claimed.add(number)

    def _health_check_port(self, obj: dict[str, Any]) -> None:
        """``allocHealthCheckNodePort`` (its failures are 500s on a real server too)."""
        spec = obj["spec"]
        wanted = spec.get("healthCheckNodePort") or 0
        if not wanted:
            spec["healthCheckNodePort"] = self._next_port()
            return
        problem = self._port_problem(wanted)
        if problem:
            raise failures.internal_error(
                f"failed to allocate requested HealthCheck NodePort {wanted}: {problem}"
            )

    # --- the two writes ---------------------------------------------------------------------

    def allocate_create(self, obj: dict[str, Any]) -> None:
        """``allocateCreate``: families, cluster IPs, node ports, health-check node port."""
        self._load()
        self.init_families(obj, None)
        self._alloc_cluster_ips(obj)
        if needs_node_ports(obj["spec"]):
            self._init_node_ports(obj)
        if needs_health_check(obj["spec"]):
            self._health_check_port(obj)

    def allocate_update(self, obj: dict[str, Any], old: dict[str, Any]) -> None:
        """``allocateUpdate``: what the type change or the new ports need, nothing else."""
        self._load()
        spec, before = obj["spec"], old.get("spec") or {}
        self.init_families(obj, before)
        if before.get("type") == "ExternalName" and spec.get("type") != "ExternalName":
            self._alloc_cluster_ips(obj)
        if needs_node_ports(spec):
            self._update_node_ports(obj, before)
        if needs_health_check(spec) and not needs_health_check(before):
            self._health_check_port(obj)
