"""The container part of a kubernetes 1.32 server's pod warnings (``GetWarningsForPod``,
``pkg/api/pod/warnings.go``): per container, in ``VisitContainersWithPath`` order, its
seccomp and (in a template) AppArmor annotations without the field beside them, memory
and ephemeral-storage quantities that are not whole bytes, and env entries that hide an
earlier one of the same name; then the ports of all containers, set against each other.

Entry points: ``container_warnings(annotations, spec, base)`` and
``port_warnings(spec, base)``; ``base`` is the template's path (``""`` for a pod).

>>> port_warnings({"containers": [{"ports": [{"containerPort": 80}, {"containerPort": 80}]}]}, "")
['spec.containers[0].ports[1]: duplicate port definition with spec.containers[0].ports[0]']
"""

from __future__ import annotations

import math
import re
from typing import Any

from kubeforge.apiserver.builtin.podspec.affinity import dict_items
from kubeforge.apiserver.builtin.podspec.annotations import (
    APPARMOR_PREFIX,
    SECCOMP_CONTAINER_PREFIX,
    visit_containers,
)
from kubeforge.apiserver.builtin.podspec.resources import canonical_quantity, quantity_value
from kubeforge.apiserver.failures import go_quote

__all__ = [
    "SECCOMP_MESSAGE",
    "at",
    "claim_spec_warnings",
    "container_warnings",
    "fractional_bytes",
    "port_warnings",
]

SECCOMP_MESSAGE = 'non-functional in v1.27+; use the "seccompProfile" field instead'
_APPARMOR = 'deprecated since v1.30; use the "appArmorProfile" field instead'
_BYTE_RESOURCES = (("limits", "memory"), ("requests", "memory"))
_STORAGE_RESOURCES = (("limits", "ephemeral-storage"), ("requests", "ephemeral-storage"))
# Whole bytes for sure (most quantities sent): spared the exact arithmetic.
_WHOLE = re.compile(r"[0-9]+(?:[KMGTPE]i|[kMGTPE])?")


def at(base: str, rest: str) -> str:
    """Go's ``fieldPath.Child(...)``: ``rest`` under ``base`` (a pod's base is nil)."""
    return f"{base}.{rest}" if base else rest


def _context_has(holder: Any, field: str) -> bool:
    context = holder.get("securityContext") if isinstance(holder, dict) else None
    return isinstance(context, dict) and context.get(field) is not None


def fractional_bytes(amounts: Any, name: str, path: str) -> list[str]:
    """The warning for ``amounts[name]`` when its ``MilliValue`` is not whole bytes."""
    text = amounts.get(name) if isinstance(amounts, dict) else None
    if text is None or (isinstance(text, str) and _WHOLE.fullmatch(text)):
        return []
    value = quantity_value(text)
    if value is None or math.ceil(value * 1000) % 1000 == 0:
        return []
    shown = go_quote(canonical_quantity(str(text)))
    return [f"{path}[{name}]: fractional byte value {shown} is invalid, must be an integer"]


def claim_spec_warnings(claim_spec: Any, path: str) -> list[str]:
    """``GetWarningsForPersistentVolumeClaimSpec``: storage that is not whole bytes."""
    resources = claim_spec.get("resources") if isinstance(claim_spec, dict) else None
    resources = resources if isinstance(resources, dict) else {}
    return [
        *fractional_bytes(resources.get("requests"), "storage", f"{path}.resources.requests"),
        *fractional_bytes(resources.get("limits"), "storage", f"{path}.resources.limits"),
    ]


def _env_warnings(env: Any, path: str) -> list[str]:
    """An entry re-defining a name warns unless its value refers to the earlier one."""
    warnings: list[str] = []
    seen: set[str] = set()
    items = dict_items(env)
    if len(items) < 2:
        return warnings
    for i, item in items:
        name = str(item.get("name") or "")
        if name not in seen:
            seen.add(name)
            continue
        ref, value = f"$({name})", str(item.get("value") or "")
        if item.get("valueFrom") is not None or value == ref or ref not in value:
            warnings.append(
                f"{path}.env[{i}]: hides previous definition of {go_quote(name)}, "
                "which may be dropped when using apply"
            )
    return warnings


def container_warnings(annotations: dict[str, Any], spec: Any, base: str) -> list[str]:
    """What ``GetWarningsForPod`` says of each container, in Go's order."""
    warnings: list[str] = []
    meta_at = at(base, "metadata.annotations")
    pod_apparmor = _context_has(spec, "appArmorProfile")
    for container, path in visit_containers(spec, at(base, "spec")):
        name = container.get("name")
        key = f"{SECCOMP_CONTAINER_PREFIX}{name}"
        if not _context_has(container, "seccompProfile") and key in annotations:
            warnings.append(f"{meta_at}[{key}]: {SECCOMP_MESSAGE}")
        # A pod is warned of these while they are synced to fields (prepare).
        key = f"{APPARMOR_PREFIX}{name}"
        has_field = pod_apparmor or _context_has(container, "appArmorProfile")
        if base and not has_field and key in annotations:
            warnings.append(f"{meta_at}[{key}]: {_APPARMOR}")
        resources = container.get("resources")
        resources = resources if isinstance(resources, dict) else {}
        for part, resource in (*_BYTE_RESOURCES, *_STORAGE_RESOURCES):
            warnings += fractional_bytes(resources.get(part), resource, f"{path}.resources.{part}")
        warnings += _env_warnings(container.get("env"), path)
    return warnings


def _go_port(port: dict[str, Any]) -> str:
    """The internal ``ContainerPort`` as Go's ``%+v`` prints it."""
    return (
        f"{{Name:{port.get('name') or ''} HostPort:{port.get('hostPort') or 0} "
        f"ContainerPort:{port.get('containerPort') or 0} Protocol:{port.get('protocol') or ''} "
        f"HostIP:{port.get('hostIP') or ''}}}"
    )


def _clash(port: dict[str, Any], other: dict[str, Any]) -> str | None:
    """How two ports of one number and protocol collide (None: they do not)."""
    ip, other_ip = port.get("hostIP") or "", other.get("hostIP") or ""
    host, other_host = port.get("hostPort") or 0, other.get("hostPort") or 0
    if ip == other_ip and host == other_host:
        return "duplicate"
    if host == 0 or other_host == 0:
        return "overlapping"
    if host == other_host and (ip == "") != (other_ip == ""):
        return "dangerously ambiguous"
    return None


def port_warnings(spec: Any, base: str) -> list[str]:
    """Ports with a hostIP but no hostPort, and ports of all containers that collide."""
    warnings: list[str] = []
    seen: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for container, path in visit_containers(spec, at(base, "spec")):
        for i, port in dict_items(container.get("ports")):
            here = f"{path}.ports[{i}]"
            if port.get("hostIP") and not port.get("hostPort"):
                warnings.append(f"{here}: hostIP set without hostPort: {_go_port(port)}")
            key = f"{port.get('containerPort') or 0}/{port.get('protocol') or ''}"
            for other_path, other in seen.get(key, ()):
                clash = _clash(port, other)
                if clash is not None:
                    warnings.append(f"{here}: {clash} port definition with {other_path}")
            seen.setdefault(key, []).append((here, port))
    return warnings
