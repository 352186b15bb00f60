"""What a Service gets without asking: kubernetes 1.32's ``SetDefaults_Service``
(``pkg/apis/core/v1/defaults.go``), and the service REST storage's fix-ups of an update
(``pkg/registry/core/service/storage``: ``patchAllocatedValues``, ``normalizeClusterIPs``) and
strategy's ``dropTypeDependentFields`` (``pkg/registry/core/service/strategy.go``).

Entry points: ``default_service(obj)``, ``default_ingress(obj)``,
``normalize_cluster_ips(new, old)``, ``patch_allocated(new, old)``,
``drop_type_dependent(new, old)``, and the predicates
``externally_accessible``, ``needs_health_check``, ``needs_node_ports``.

>>> svc = {"spec": {"type": "NodePort", "ports": [{"port": 80}]}}
>>> default_service(svc)
>>> svc["spec"]["externalTrafficPolicy"], svc["spec"]["ports"][0]["targetPort"]
('Cluster', 80)
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "default_ingress",
    "default_service",
    "drop_type_dependent",
    "externally_accessible",
    "needs_health_check",
    "needs_node_ports",
    "normalize_cluster_ips",
    "patch_allocated",
]

DEFAULT_AFFINITY_SECONDS = 10800  # v1.DefaultClientIPServiceAffinitySeconds: three hours


def _spec(obj: dict[str, Any]) -> dict[str, Any] | None:
    spec = obj.get("spec")
    return spec if isinstance(spec, dict) else None


def externally_accessible(spec: dict[str, Any]) -> bool:
    """``ExternallyAccessible``: reachable from outside the cluster (so traffic policy applies)."""
    kind = spec.get("type")
    return kind in ("LoadBalancer", "NodePort") or (
        kind == "ClusterIP" and bool(spec.get("externalIPs"))
    )


def needs_health_check(spec: dict[str, Any]) -> bool:
    """``NeedsHealthCheck``: a LoadBalancer that keeps traffic on the node it arrives at."""
    return spec.get("type") == "LoadBalancer" and spec.get("externalTrafficPolicy") == "Local"


def needs_node_ports(spec: dict[str, Any]) -> bool:
    return spec.get("type") in ("NodePort", "LoadBalancer")


def _default_affinity(spec: dict[str, Any]) -> None:
    if not spec.get("sessionAffinity"):
        spec["sessionAffinity"] = "None"
    if spec["sessionAffinity"] == "None":
        spec.pop("sessionAffinityConfig", None)
    elif spec["sessionAffinity"] == "ClientIP":
        config = spec.get("sessionAffinityConfig")
        client = config.get("clientIP") if isinstance(config, dict) else None
        if not isinstance(client, dict) or client.get("timeoutSeconds") is None:
            spec["sessionAffinityConfig"] = {
                "clientIP": {"timeoutSeconds": DEFAULT_AFFINITY_SECONDS}
            }


def _default_ports(spec: dict[str, Any]) -> None:
    for port in spec.get("ports") or []:
        if not isinstance(port, dict):
            continue
        if not port.get("protocol"):
            port["protocol"] = "TCP"
        if port.get("targetPort") in (None, 0, ""):
            port["targetPort"] = port.get("port", 0)


def default_ingress(obj: dict[str, Any]) -> None:
    """LoadBalancerIPMode (GA in 1.32): an ingress point with an IP is a VIP unless told."""
    spec, status = _spec(obj) or {}, obj.get("status")
    balancer = status.get("loadBalancer") if isinstance(status, dict) else None
    if spec.get("type") != "LoadBalancer" or not isinstance(balancer, dict):
        return
    for ingress in balancer.get("ingress") or []:
        if isinstance(ingress, dict) and ingress.get("ip") and ingress.get("ipMode") is None:
            ingress["ipMode"] = "VIP"


def default_service(obj: dict[str, Any]) -> None:
    """``SetDefaults_Service``, as every decode of a v1 Service applies it."""
    spec = _spec(obj)
    if spec is None:
        return
    _default_affinity(spec)
    if not spec.get("type"):
        spec["type"] = "ClusterIP"
    _default_ports(spec)
    if externally_accessible(spec) and not spec.get("externalTrafficPolicy"):
        spec["externalTrafficPolicy"] = "Cluster"
    kind = spec["type"]
    if spec.get("internalTrafficPolicy") is None and kind in (
        "NodePort",
        "LoadBalancer",
        "ClusterIP",
    ):
        spec["internalTrafficPolicy"] = "Cluster"
    if spec["type"] == "LoadBalancer" and spec.get("allocateLoadBalancerNodePorts") is None:
        spec["allocateLoadBalancerNodePorts"] = True
    default_ingress(obj)


def normalize_cluster_ips(spec: dict[str, Any], old: dict[str, Any] | None) -> None:
    """``normalizeClusterIPs``: keep ``clusterIPs`` in step with ``clusterIP`` for a client
    that only knows the singular field."""
    ip, ips = spec.get("clusterIP") or "", spec.get("clusterIPs") or []
    if old is None:
        if ip and not ips:
            spec["clusterIPs"] = [ip]
        return
    old_ip, old_ips = old.get("clusterIP") or "", old.get("clusterIPs") or []
    if old_ips and not ips and old_ip == ip:
        spec["clusterIPs"] = ips = list(old_ips)
    if old_ip == ip:
        return
    same = old_ips == ips
    if old_ip and not ip:
        if same:
            spec.pop("clusterIPs", None)
    elif same:
        spec["clusterIPs"] = [ip]


def _node_ports(spec: dict[str, Any]) -> set[int]:
    return {
        p["nodePort"] for p in spec.get("ports") or [] if isinstance(p, dict) and p.get("nodePort")
    }


def patch_allocated(spec: dict[str, Any], old: dict[str, Any]) -> None:
    """``patchAllocatedValues``: what the server allocated survives an update that leaves it
    out (re-applying the YAML a Service was created from)."""
    if spec.get("type") != "ExternalName" and old.get("type") != "ExternalName":
        if not spec.get("clusterIP") and old.get("clusterIP"):
            spec["clusterIP"] = old["clusterIP"]
        if not spec.get("clusterIPs") and old.get("clusterIPs"):
            spec["clusterIPs"] = list(old["clusterIPs"])
    if needs_node_ports(old) and needs_node_ports(spec):
        used = _node_ports(old) & _node_ports(spec)
        by_name = {
            str(p.get("name") or ""): p.get("nodePort") or 0
            for p in old.get("ports") or []
            if isinstance(p, dict)
        }
        for port in spec.get("ports") or []:
            if isinstance(port, dict) and not port.get("nodePort"):
                earlier = by_name.get(str(port.get("name") or ""), 0)
                if earlier and earlier not in used:
                    port["nodePort"] = earlier
    both_check = needs_health_check(old) and needs_health_check(spec)
    if both_check and not spec.get("healthCheckNodePort"):
        spec["healthCheckNodePort"] = old.get("healthCheckNodePort") or 0


def _drop_if_same(spec: dict[str, Any], old: dict[str, Any], *keys: str) -> None:
    if all(spec.get(key) == old.get(key) for key in keys):
        for key in keys:
            spec.pop(key, None)


def drop_type_dependent(obj: dict[str, Any], old_obj: dict[str, Any]) -> None:
    """``dropTypeDependentFields``: a type change forgets what only the old type used, unless
    the client changed it too (then validation says why it may not stay)."""
    spec, old = _spec(obj), _spec(old_obj) or {}
    if spec is None:
        return
    if old.get("type") != "ExternalName" and spec.get("type") == "ExternalName":
        _drop_if_same(spec, old, "clusterIP", "clusterIPs")
        _drop_if_same(spec, old, "ipFamilies")
        _drop_if_same(spec, old, "ipFamilyPolicy")
    leaves_ports = needs_node_ports(old) and not needs_node_ports(spec)
    if leaves_ports and _node_ports(old) >= _node_ports(spec):  # no node port was added
        for port in spec.get("ports") or []:
            if isinstance(port, dict):
                port.pop("nodePort", None)
    if needs_health_check(old) and not needs_health_check(spec):
        _drop_if_same(spec, old, "healthCheckNodePort")
    if old.get("type") == "LoadBalancer" and spec.get("type") != "LoadBalancer":
        allocate = spec.get("allocateLoadBalancerNodePorts")
        if allocate is not None and allocate == old.get("allocateLoadBalancerNodePorts"):
            spec.pop("allocateLoadBalancerNodePorts")
        _drop_if_same(spec, old, "loadBalancerClass")
    if externally_accessible(old) and not externally_accessible(spec):
        _drop_if_same(spec, old, "externalTrafficPolicy")
    if spec.get("type") != "LoadBalancer":
        status = obj.get("status")
        if isinstance(status, dict):
            status["loadBalancer"] = {}
