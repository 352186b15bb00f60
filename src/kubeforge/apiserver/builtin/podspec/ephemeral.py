"""Ephemeral containers (``kubectl debug``): the rules of kubernetes 1.32's
``validateEphemeralContainers`` and ``ValidatePodEphemeralContainersUpdate``.

Each is a container (the common container rules apply) whose name is unique in the
pod, whose ``targetContainerName`` names one of the pod's containers, and which sets
none of the fields kept for regular containers (ports, resources, probes, lifecycle,
restart policy, mount subpaths and subpath expressions). Once added, one may be
neither changed nor removed (the real messages are followed by a Go diff, left out
here); a pod is never created with any.

Entry points: ``ephemeral_containers(spec, volumes)``, ``ephemeral_update(new, old)``,
``ephemeral_on_create(spec)``.
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.builtin.podspec.containers import container_common
from kubeforge.apiserver.failures import FieldError

__all__ = ["ephemeral_containers", "ephemeral_on_create", "ephemeral_update"]

_PATH = "spec.ephemeralContainers"
_NOT_ALLOWED = ("ports", "resources", "livenessProbe", "readinessProbe", "startupProbe",
                "lifecycle", "resizePolicy", "restartPolicy")  # fmt: skip
_FORBIDDEN = "cannot be set for an Ephemeral Container"


def _set(value: Any) -> bool:
    return value not in (None, {}, [], "")


def ephemeral_containers(spec: dict[str, Any], volumes: set[str]) -> list[FieldError]:
    """Every ephemeral container of ``spec`` (a Pod's)."""
    others = {
        str(c.get("name"))
        for key in ("containers", "initContainers")
        for c in spec.get(key) or []
        if isinstance(c, dict)
    }
    names = set(others)
    errors: list[FieldError] = []
    for i, container in enumerate(spec.get("ephemeralContainers") or []):
        if not isinstance(container, dict):
            continue
        at = f"{_PATH}[{i}]"
        errors += container_common(container, volumes, at)
        name = container.get("name") or ""
        if name in names:
            errors.append(FieldError.duplicate(f"{at}.name", name))
        names.add(name)
        target = container.get("targetContainerName")
        if target and target not in others:
            errors.append(FieldError.not_found(f"{at}.targetContainerName", target))
        errors += [
            FieldError.forbidden(f"{at}.{key}", _FORBIDDEN)
            for key in _NOT_ALLOWED
            if _set(container.get(key))
        ]
        for j, mount in enumerate(container.get("volumeMounts") or []):
            for key in ("subPath", "subPathExpr"):
                if isinstance(mount, dict) and mount.get(key):
                    at_key = f"{at}.volumeMounts[{j}].{key}"
                    errors.append(FieldError.forbidden(at_key, _FORBIDDEN))
    return errors


def ephemeral_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """Existing ephemeral containers stay as they are."""
    current = {
        c.get("name"): c for c in (new.get("ephemeralContainers") or []) if isinstance(c, dict)
    }
    errors = []
    for before in old.get("ephemeralContainers") or []:
        name = before.get("name")
        after = current.get(name)
        if after is None:
            detail = f'existing ephemeral containers "{name}" may not be removed\n'
            errors.append(FieldError.forbidden(_PATH, detail))
        elif after != before:
            detail = f'existing ephemeral containers "{name}" may not be changed\n'
            errors.append(FieldError.forbidden(_PATH, detail))
    return errors


def ephemeral_on_create(spec: dict[str, Any]) -> list[FieldError]:
    """``ValidatePodCreate``: ephemeral containers come only through the subresource."""
    if spec.get("ephemeralContainers"):
        return [FieldError.forbidden(_PATH, "cannot be set on create")]
    return []
