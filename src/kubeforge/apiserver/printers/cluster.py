"""Server-side columns of the cluster-level GA built-ins: Ingresses and IngressClasses,
NetworkPolicies, HPAs, PDBs, PriorityClasses, RuntimeClasses, StorageClasses,
EndpointSlices and CertificateSigningRequests, as ``kubectl get`` shows them from a
Kubernetes 1.32 cluster (``pkg/printers/internalversion``).

Entry point: ``PRINTERS`` (``(group, kind)`` -> ``Printer``), consulted by
``apps_rbac.printer_for_builtin``; the shared cell helpers are ``jobs_volumes``'.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kubeforge.apiserver.meta.labelselector import format_selector
from kubeforge.apiserver.printers.core import AGE_COLUMN, Printer, column, human_duration
from kubeforge.apiserver.printers.jobs_volumes import (
    NONE,
    UNSET,
    created,
    dict_at,
    integer,
    name_of,
    simple_columns,
)

__all__ = ["PRINTERS"]

_MAX_HOSTS = 3

# --- networking, autoscaling, policy -------------------------------------------------------


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


def _hpa_targets(obj: dict[str, Any]) -> str:
    spec = dict_at(obj, "spec")
    if "targetCPUUtilizationPercentage" in spec or "metrics" not in spec:  # autoscaling/v1
        current = dict_at(obj, "status").get("currentCPUUtilizationPercentage")
        shown = f"{current}%" if isinstance(current, int) else "<unknown>"
        target = spec.get("targetCPUUtilizationPercentage")
        return f"cpu: {shown}/{target}%" if isinstance(target, int) else "<none>"
    metrics = [m for m in spec.get("metrics") or [] if isinstance(m, dict)]
    statuses = dict_at(obj, "status").get("currentMetrics") or []
    cells = []
    for i, metric in enumerate(metrics):
        kind = str(metric.get("type") or "")
        source = dict_at(metric, kind[:1].lower() + kind[1:])
        target = dict_at(source, "target")
        current = dict_at(statuses[i] if i < len(statuses) else {}, kind[:1].lower() + kind[1:])
        now_value = dict_at(current, "current")
        if target.get("averageUtilization") is not None:
            have = now_value.get("averageUtilization")
            shown = f"{have}%" if have is not None else "<unknown>"
            cell = f"{shown}/{target['averageUtilization']}%"
        else:
            want = target.get("averageValue") or target.get("value") or "<auto>"
            have = now_value.get("averageValue") or now_value.get("value") or "<unknown>"
            cell = f"{have}/{want}"
        name = source.get("name") if kind in ("Resource", "ContainerResource") else None
        cells.append(f"{name}: {cell}" if name else cell)
    return ", ".join(cells) or NONE


def _hpa_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    spec, status = dict_at(obj, "spec"), dict_at(obj, "status")
    ref = dict_at(spec, "scaleTargetRef")
    low = spec.get("minReplicas")
    return [
        name_of(obj),
        f"{ref.get('kind', '')}/{ref.get('name', '')}",
        _hpa_targets(obj),
        str(low) if isinstance(low, int) else UNSET,
        str(integer(spec.get("maxReplicas"))),
        str(integer(status.get("currentReplicas"))),
        created(obj, now),
    ]


def _pdb_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    spec = dict_at(obj, "spec")
    low, high = spec.get("minAvailable"), spec.get("maxUnavailable")
    return [
        name_of(obj),
        "N/A" if low is None else str(low),
        "N/A" if high is None else str(high),
        integer(dict_at(obj, "status").get("disruptionsAllowed")),
        created(obj, now),
    ]


def _storage_class_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    name = name_of(obj)
    annotations = dict_at(obj, "metadata", "annotations")
    default_keys = (
        "storageclass.kubernetes.io/is-default-class",
        "storageclass.beta.kubernetes.io/is-default-class",
    )
    if any(annotations.get(k) == "true" for k in default_keys):
        name += " (default)"
    expansion = obj.get("allowVolumeExpansion")
    return [
        name,
        str(obj.get("provisioner") or ""),
        str(obj.get("reclaimPolicy") or "Delete"),
        str(obj.get("volumeBindingMode") or "Immediate"),
        "true" if expansion is True else "false",
        created(obj, now),
    ]


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


def _csr_condition(obj: dict[str, Any]) -> str:
    """Approved/Denied/Failed as the conditions say (``Pending`` when none), ``Issued``
    added once a certificate is there."""
    status = dict_at(obj, "status")
    found = {
        str(c.get("type"))
        for c in status.get("conditions") or []
        if isinstance(c, dict) and c.get("status", "True") == "True"
    }
    states: list[str] = [state for state in ("Approved", "Denied", "Failed") if state in found]
    if status.get("certificate"):
        states.append("Issued")
    return ",".join(states) or "Pending"


def _csr_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    spec = dict_at(obj, "spec")
    seconds = spec.get("expirationSeconds")
    return [
        name_of(obj),
        created(obj, now),
        str(spec.get("signerName") or NONE),
        str(spec.get("username") or ""),
        human_duration(seconds) if isinstance(seconds, int) else NONE,
        _csr_condition(obj),
    ]


PRINTERS: dict[tuple[str, str], Printer] = {
    ("certificates.k8s.io", "CertificateSigningRequest"): Printer(
        (
            *simple_columns(),
            AGE_COLUMN,
            column("SignerName", "string", "The signer asked to issue the certificate."),
            column("Requestor", "string", "Who asked for the certificate."),
            column("RequestedDuration", "string", "The validity asked for."),
            column("Condition", "string", "Approved, Denied, Failed, Issued or Pending."),
        ),
        _csr_row,
    ),
    ("networking.k8s.io", "Ingress"): Printer(
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
    ),
    ("networking.k8s.io", "IngressClass"): Printer(
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
    ),
    ("networking.k8s.io", "NetworkPolicy"): Printer(
        (*simple_columns(("Pod-Selector", "string", "Pods the policy applies to.")), AGE_COLUMN),
        lambda obj, now: [
            name_of(obj),
            format_selector(dict_at(obj, "spec", "podSelector")),
            created(obj, now),
        ],
    ),
    ("autoscaling", "HorizontalPodAutoscaler"): Printer(
        (
            *simple_columns(
                ("Reference", "string", "The scaled workload."),
                ("Targets", "string", "Current and target value of each metric."),
                ("MinPods", "string", "Lower replica limit."),
                ("MaxPods", "string", "Upper replica limit."),
                ("Replicas", "string", "Current replicas."),
            ),
            AGE_COLUMN,
        ),
        _hpa_row,
    ),
    ("policy", "PodDisruptionBudget"): Printer(
        (
            *simple_columns(
                ("Min Available", "string", "Pods that must stay available."),
                ("Max Unavailable", "string", "Pods that may be unavailable."),
                ("Allowed Disruptions", "integer", "Evictions allowed now."),
            ),
            AGE_COLUMN,
        ),
        _pdb_row,
    ),
    ("scheduling.k8s.io", "PriorityClass"): Printer(
        (
            *simple_columns(
                ("Value", "integer", "The priority of pods using the class."),
                ("Global-Default", "boolean", "Whether pods without a class get this one."),
            ),
            AGE_COLUMN,
            column("PreemptionPolicy", "string", "Whether pods of the class preempt others."),
        ),
        lambda obj, now: [
            name_of(obj),
            integer(obj.get("value")),
            obj.get("globalDefault") is True,
            created(obj, now),
            str(obj.get("preemptionPolicy") or ""),
        ],
    ),
    ("node.k8s.io", "RuntimeClass"): Printer(
        (*simple_columns(("Handler", "string", "The CRI handler the class selects.")), AGE_COLUMN),
        lambda obj, now: [name_of(obj), str(obj.get("handler") or ""), created(obj, now)],
    ),
    ("storage.k8s.io", "StorageClass"): Printer(
        (
            *simple_columns(
                ("Provisioner", "string", "The volume plugin provisioning volumes."),
                ("ReclaimPolicy", "string", "What happens to released volumes."),
                ("VolumeBindingMode", "string", "When volumes are bound."),
                ("AllowVolumeExpansion", "string", "Whether volumes may grow."),
            ),
            AGE_COLUMN,
        ),
        _storage_class_row,
    ),
    ("discovery.k8s.io", "EndpointSlice"): Printer(
        (
            *simple_columns(
                ("AddressType", "string", "IPv4, IPv6 or FQDN."),
                ("Ports", "string", "Ports of the endpoints."),
                ("Endpoints", "string", "Addresses of the endpoints."),
            ),
            AGE_COLUMN,
        ),
        _endpoint_slice_row,
    ),
}


def _parameters(ref: dict[str, Any]) -> str:
    if not ref:
        return NONE
    group = ref.get("apiGroup")
    kind = f"{ref.get('kind', '')}.{group}" if group else str(ref.get("kind", ""))
    return f"{kind}/{ref.get('name', '')}"
