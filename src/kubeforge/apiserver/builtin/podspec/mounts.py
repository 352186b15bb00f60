"""A container's ``volumeMounts`` (``ValidateVolumeMounts`` of kubernetes 1.32): a valid
volume by name, a unique mount path, relative ``subPath`` / ``subPathExpr`` without
``..`` (mutually exclusive), ``mountPropagation`` (Bidirectional only for privileged
containers) and ``recursiveReadOnly`` (only read-only, without propagation).

Go reports the subpath, propagation and recursive read-only errors under the list's
path, without the mount's index (``volumeMounts.subPath``); so does this.

Entry point: ``volume_mounts(container, volumes, path)``.

>>> container = {"volumeMounts": [{"name": "d", "mountPath": "/d", "subPath": "../x"}]}
>>> [str(e) for e in volume_mounts(container, {"d"}, "spec.containers[0].volumeMounts")]
['spec.containers[0].volumeMounts.subPath: Invalid value: "../x": must not contain \\'..\\'']
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.builtin.podspec.profiles import local_descending_path
from kubeforge.apiserver.failures import FieldError

__all__ = ["volume_mounts"]

_PROPAGATIONS = ("Bidirectional", "HostToContainer", "None")
_RECURSIVE = ("Disabled", "Enabled", "IfPossible")


def _propagation(mount: dict[str, Any], container: dict[str, Any], path: str) -> list[FieldError]:
    mode = mount.get("mountPropagation")
    if mode is None:
        return []
    errors = []
    if mode not in _PROPAGATIONS:
        errors.append(FieldError.not_supported(path, mode, _PROPAGATIONS))
    context = container.get("securityContext")
    privileged = isinstance(context, dict) and context.get("privileged") is True
    if mode == "Bidirectional" and not privileged:
        detail = "Bidirectional mount propagation is available only to privileged containers"
        errors.append(FieldError.forbidden(path, detail))
    return errors


def _recursive_read_only(mount: dict[str, Any], path: str) -> list[FieldError]:
    mode = mount.get("recursiveReadOnly")
    if mode is None or mode == "Disabled":
        return []
    if mode not in _RECURSIVE:
        return [FieldError.not_supported(path, mode, _RECURSIVE)]
    errors = []
    if mount.get("readOnly") is not True:
        errors.append(FieldError.forbidden(path, "may only be specified when readOnly is true"))
    if mount.get("mountPropagation") not in (None, "None"):
        detail = "may only be specified when mountPropagation is None or not specified"
        errors.append(FieldError.forbidden(path, detail))
    return errors


def _sub_paths(mount: dict[str, Any], at: str, path: str) -> list[FieldError]:
    sub, expression = mount.get("subPath") or "", mount.get("subPathExpr") or ""
    errors = local_descending_path(sub, f"{path}.subPath") if sub else []
    if expression:
        if sub:
            detail = "subPathExpr and subPath are mutually exclusive"
            errors.append(FieldError.invalid(f"{at}.subPathExpr", expression, detail))
        errors += local_descending_path(expression, f"{path}.subPathExpr")
    return errors


def volume_mounts(container: dict[str, Any], volumes: set[str], path: str) -> list[FieldError]:
    """Every mount of ``container``; ``volumes`` names the pod's valid volumes."""
    mounts = container.get("volumeMounts")
    errors: list[FieldError] = []
    points: set[str] = set()
    for i, mount in enumerate(mounts if isinstance(mounts, list) else ()):
        if not isinstance(mount, dict):
            continue
        at = f"{path}[{i}]"
        name = mount.get("name") or ""
        if not name:
            errors.append(FieldError.required(f"{at}.name"))
        if name not in volumes:
            errors.append(FieldError.not_found(f"{at}.name", name))
        point = mount.get("mountPath") or ""
        if not point:
            errors.append(FieldError.required(f"{at}.mountPath"))
        if point in points:
            errors.append(FieldError.invalid(f"{at}.mountPath", point, "must be unique"))
        points.add(point)
        errors += _sub_paths(mount, at, path)
        errors += _propagation(mount, container, f"{path}.mountPropagation")
        errors += _recursive_read_only(mount, f"{path}.recursiveReadOnly")
    return errors
