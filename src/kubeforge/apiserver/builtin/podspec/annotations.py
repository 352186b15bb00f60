"""The annotations a kubernetes 1.32 server reads on a pod or pod template, validated as
``ValidatePodSpecificAnnotations`` and ``ValidatePodSpecificAnnotationUpdates`` do, and
the checks that annotations and the fields they stand for agree
(``validateSeccompAnnotationsAndFields``, ``validateAppArmorAnnotationsAndFieldsMatchOnCreate``):

* ``kubernetes.io/config.mirror`` (a mirror pod) needs ``spec.nodeName``, and may be
  neither added, changed nor removed by an update;
* ``scheduler.alpha.kubernetes.io/tolerations`` must decode as tolerations and each be
  valid;
* ``controller.kubernetes.io/pod-deletion-cost`` must be a 32-bit integer (an update may
  keep a value that was already invalid);
* the seccomp annotations must name a profile (``runtime/default``, ``docker/default``,
  ``unconfined``, ``localhost/<relative path>``); the AppArmor ones must name an existing
  container and a profile (``runtime/default``, ``unconfined``, ``localhost/<name>``), and
  may not be added, changed or removed by an update.

``path`` is where the annotations are: ``metadata.annotations`` for a pod, and (as Go
has it) ``<template>.annotations`` for a template. Go walks maps in random order; this
walks the annotations in the order they were sent.

Entry points: ``pod_annotations(annotations, spec, path)``,
``annotation_updates(new, old, spec, path)``, ``fields_match(annotations, spec, spec_path)``.

>>> [str(e) for e in pod_annotations({"kubernetes.io/config.mirror": "x"}, {}, "metadata.annotations")]
['metadata.annotations[kubernetes.io/config.mirror]: Invalid value: "x": must set spec.nodeName if mirror pod annotation is set']
"""  # noqa: E501

from __future__ import annotations

import re
from typing import Any

from kubeforge.apiserver.builtin.podspec.affinity import dict_items
from kubeforge.apiserver.builtin.podspec.profiles import local_descending_path
from kubeforge.apiserver.builtin.podspec.scheduling import toleration_list
from kubeforge.apiserver.builtin.podspec.tolerations_json import decode_tolerations
from kubeforge.apiserver.failures import FieldError, go_quote

__all__ = [
    "APPARMOR_PREFIX",
    "DELETION_COST",
    "LOCALHOST",
    "SECCOMP_CONTAINER_PREFIX",
    "SECCOMP_POD",
    "annotation_updates",
    "deletion_cost_valid",
    "fields_match",
    "pod_annotations",
    "visit_containers",
]

MIRROR = "kubernetes.io/config.mirror"
TOLERATIONS = "scheduler.alpha.kubernetes.io/tolerations"
DELETION_COST = "controller.kubernetes.io/pod-deletion-cost"
SECCOMP_POD = "seccomp.security.alpha.kubernetes.io/pod"
SECCOMP_CONTAINER_PREFIX = "container.seccomp.security.alpha.kubernetes.io/"
APPARMOR_PREFIX = "container.apparmor.security.beta.kubernetes.io/"
LOCALHOST = "localhost/"
_CONTAINER_KEYS = ("initContainers", "containers", "ephemeralContainers")
_INT32 = (-(2**31), 2**31 - 1)
# What strconv.ParseInt takes in base 10 (ASCII digits only, no "+", no "_").
_DECIMAL = re.compile(r"-?[0-9]+")


def visit_containers(spec: Any, spec_path: str) -> list[tuple[dict[str, Any], str]]:
    """``VisitContainersWithPath``: init, regular then ephemeral containers, with paths."""
    if not isinstance(spec, dict):
        return []
    return [
        (container, f"{spec_path}.{key}[{i}]")
        for key in _CONTAINER_KEYS
        for i, container in dict_items(spec.get(key))
    ]


def deletion_cost_valid(annotations: dict[str, Any]) -> bool:
    """``GetDeletionCostFromPodAnnotations`` succeeds: absent, or a 32-bit integer with no
    ``+`` and no leading zero (``"-"`` then digits is allowed, as there)."""
    if DELETION_COST not in annotations:
        return True
    value = str(annotations[DELETION_COST])
    if not value or not (value[0] == "-" or value == "0" or "1" <= value[0] <= "9"):
        return False
    if not _DECIMAL.fullmatch(value):
        return False
    return _INT32[0] <= int(value) <= _INT32[1]


def _tolerations(annotations: dict[str, Any], path: str) -> list[FieldError]:
    """``ValidateTolerationsInPodAnnotations``."""
    tolerations, problem = decode_tolerations(str(annotations[TOLERATIONS]))
    if problem is not None:
        return [FieldError.invalid(path, TOLERATIONS, problem)]
    return toleration_list(tolerations, f"{path}.{TOLERATIONS}")


def _seccomp_profile(value: str, path: str) -> list[FieldError]:
    """``ValidateSeccompProfile`` of an annotation's value."""
    if value in ("runtime/default", "docker/default", "unconfined"):
        return []
    if value.startswith(LOCALHOST):
        return local_descending_path(value.removeprefix(LOCALHOST), path)
    return [FieldError.invalid(path, value, "must be a valid seccomp profile")]


def _apparmor(annotations: dict[str, Any], spec: Any, path: str) -> list[FieldError]:
    """``ValidateAppArmorPodAnnotations``."""
    names = {c.get("name") for c, _ in visit_containers(spec, "spec")}
    errors = []
    for key, value in annotations.items():
        if not key.startswith(APPARMOR_PREFIX):
            continue
        name = key.removeprefix(APPARMOR_PREFIX)
        if name not in names:
            errors.append(FieldError.invalid(f"{path}[{key}]", name, "container not found"))
        profile = str(value)
        if profile not in ("", "runtime/default", "unconfined") and not profile.startswith(
            LOCALHOST
        ):
            detail = f"invalid AppArmor profile name: {go_quote(profile)}"
            errors.append(FieldError.invalid(f"{path}[{key}]", profile, detail))
    return errors


def pod_annotations(
    annotations: dict[str, Any], spec: Any, path: str, *, allow_invalid_cost: bool = False
) -> list[FieldError]:
    """``ValidatePodSpecificAnnotations``; ``allow_invalid_cost`` on an update whose stored
    object already had an invalid deletion cost."""
    errors = []
    if MIRROR in annotations and not (spec or {}).get("nodeName"):
        detail = "must set spec.nodeName if mirror pod annotation is set"
        errors.append(FieldError.invalid(f"{path}[{MIRROR}]", annotations[MIRROR], detail))
    if annotations.get(TOLERATIONS):
        errors += _tolerations(annotations, path)
    if not allow_invalid_cost and not deletion_cost_valid(annotations):
        cost, detail = annotations[DELETION_COST], "must be a 32bit integer"
        errors.append(FieldError.invalid(f"{path}[{DELETION_COST}]", cost, detail))
    if SECCOMP_POD in annotations:
        errors += _seccomp_profile(str(annotations[SECCOMP_POD]), f"{path}.{SECCOMP_POD}")
    for key, value in annotations.items():
        if key.startswith(SECCOMP_CONTAINER_PREFIX):
            errors += _seccomp_profile(str(value), f"{path}.{key}")
    return errors + _apparmor(annotations, spec, path)


def _fixed_at_creation(key: str) -> str | None:
    """How Go's update messages name the annotation ``key``, if an update may not touch it."""
    if key.startswith(APPARMOR_PREFIX):
        return "AppArmor annotations"
    return "mirror pod annotation" if key == MIRROR else None


def annotation_updates(
    new: dict[str, Any], old: dict[str, Any], spec: Any, path: str
) -> list[FieldError]:
    """``ValidatePodSpecificAnnotationUpdates``: the mirror and AppArmor annotations are
    fixed at creation; then the new annotations are validated again, as Go does (its
    ``Status`` lists those errors twice; its message once)."""
    changed = [key for key, before in old.items() if key not in new or new[key] != before]
    added = [key for key in new if key not in old]
    errors = []
    for keys, verb in ((changed, "may not remove or update"), (added, "may not add")):
        for key in keys:
            name = _fixed_at_creation(key)
            if name is not None:
                errors.append(FieldError.forbidden(f"{path}[{key}]", f"{verb} {name}"))
    allow = not deletion_cost_valid(old)
    return errors + pod_annotations(new, spec, path, allow_invalid_cost=allow)


def _mismatch(what: str, annotation: str, profile: Any, path: str) -> list[FieldError]:
    """``validateSeccompAnnotationsAndFieldsMatch`` (``what`` "seccomp") and the
    per-container check of ``validateAppArmorAnnotationsAndFieldsMatchOnCreate``
    ("apparmor"): the annotation must say what the field says."""
    kind = profile.get("type") if isinstance(profile, dict) else None
    runtime_default = (
        ("runtime/default", "docker/default") if what == "seccomp" else ("runtime/default",)
    )
    type_error = [
        FieldError.forbidden(f"{path}.type", f"{what} type in annotation and field must match")
    ]
    if kind == "Unconfined":
        return [] if annotation == "unconfined" else type_error
    if kind == "RuntimeDefault":
        return [] if annotation in runtime_default else type_error
    if kind == "Localhost":
        if not annotation.startswith(LOCALHOST):
            return type_error
        if annotation.removeprefix(LOCALHOST) != profile.get("localhostProfile"):
            detail = f"{what} profile in annotation and field must match"
            return [FieldError.forbidden(f"{path}.localhostProfile", detail)]
    return []


def _context(holder: Any) -> dict[str, Any]:
    context = holder.get("securityContext") if isinstance(holder, dict) else None
    return context if isinstance(context, dict) else {}


def fields_match(annotations: dict[str, Any], spec: Any, spec_path: str) -> list[FieldError]:
    """Seccomp and AppArmor annotations that disagree with the fields set beside them."""
    errors: list[FieldError] = []
    pod_seccomp = _context(spec).get("seccompProfile")
    if isinstance(pod_seccomp, dict) and SECCOMP_POD in annotations:
        at = f"{spec_path}.securityContext.seccompProfile"
        errors += _mismatch("seccomp", str(annotations[SECCOMP_POD]), pod_seccomp, at)
    containers = visit_containers(spec, spec_path)
    for container, path in containers:
        seccomp = _context(container).get("seccompProfile")
        key = f"{SECCOMP_CONTAINER_PREFIX}{container.get('name')}"
        if isinstance(seccomp, dict) and key in annotations:
            at = f"{path}.securityContext.seccompProfile"
            errors += _mismatch("seccomp", str(annotations[key]), seccomp, at)
    if ((spec or {}).get("os") or {}).get("name") == "windows":
        return errors
    pod_apparmor = _context(spec).get("appArmorProfile")
    for container, path in containers:
        profile = _context(container).get("appArmorProfile") or pod_apparmor
        key = f"{APPARMOR_PREFIX}{container.get('name')}"
        if isinstance(profile, dict) and key in annotations:
            at = f"{path}.securityContext.appArmorProfile"
            errors += _mismatch("apparmor", str(annotations[key]), profile, at)
    return errors
