"""What a 1.32 server does to a pod spec before validating it, beyond plain defaults.

* Fields behind feature gates that are off by default in 1.32 are dropped, unless the
  stored object already used them (``dropDisabledFields`` for pods, and
  ``DropDisabledTemplateFields`` for templates): ``hostUsers`` (UserNamespacesSupport),
  ``securityContext.supplementalGroupsPolicy`` (SupplementalGroupsPolicy),
  ``securityContext.seLinuxChangePolicy`` (SELinuxChangePolicy), the pod-level
  ``resources`` (PodLevelResources), the containers' ``resizePolicy``
  (InPlacePodVerticalScaling), ``resourceClaims`` and the containers' resource
  ``claims`` (DynamicResourceAllocation, beta but off); a container's ``procMount``
  becomes ``Default`` (ProcMountType: the field was once always set, so it is reset
  rather than dropped).
* A pod on the host network gets each unset host port set to its container port
  (``SetDefaults_Pod``; templates have kept theirs unset since 1.28).
* A new pod's ``matchLabelKeys`` / ``mismatchLabelKeys`` are merged into its affinity
  terms' selectors (see ``affinity.merge_label_keys``).
* A new pod's AppArmor fields and its deprecated AppArmor annotations are made to agree
  (``applyAppArmorVersionSkew``, so kubelets older than the fields enforce them too): a
  container with a profile (its own, else the pod's) and no annotation gets one; a
  container with an annotation and no field gets the field, unless the annotation names
  no valid profile or the same profile as the pod's; either way but the last, the
  annotation's deprecation is warned of. Windows pods are left alone.

Entry points: ``drop_disabled(spec, old_spec)``, ``default_host_ports(spec)``,
``merge_label_keys(pod)``, ``apparmor_version_skew(pod)`` (the warnings).

>>> spec = {"hostUsers": False, "containers": [{"securityContext": {"procMount": "Unmasked"}}]}
>>> drop_disabled(spec, None); spec
{'containers': [{'securityContext': {'procMount': 'Default'}}]}
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.builtin.podspec.affinity import merge_label_keys
from kubeforge.apiserver.builtin.podspec.annotations import (
    APPARMOR_PREFIX,
    LOCALHOST,
    visit_containers,
)
from kubeforge.apiserver.builtin.podspec.profiles import apparmor_profile

__all__ = ["apparmor_version_skew", "default_host_ports", "drop_disabled", "merge_label_keys"]

_CONTAINER_KEYS = ("initContainers", "containers", "ephemeralContainers")
_CONTEXT_GATED = ("supplementalGroupsPolicy", "seLinuxChangePolicy")
_APPARMOR_VALUES = {"Unconfined": "unconfined", "RuntimeDefault": "runtime/default"}
_APPARMOR_TYPES = {value: kind for kind, value in _APPARMOR_VALUES.items()}
_APPARMOR_DEPRECATED = 'deprecated since v1.30; use the "appArmorProfile" field instead'


def _containers(spec: dict[str, Any], keys: tuple[str, ...]) -> list[dict[str, Any]]:
    return [c for key in keys for c in spec.get(key) or [] if isinstance(c, dict)]


def _proc_mounts(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """The security contexts of ``spec``'s containers that set ``procMount``."""
    contexts = [c.get("securityContext") for c in _containers(spec, _CONTAINER_KEYS)]
    return [c for c in contexts if isinstance(c, dict) and c.get("procMount") is not None]


def drop_disabled(spec: Any, old_spec: Any) -> None:
    """Drop from ``spec`` what 1.32's default feature gates disable; ``old_spec`` (the
    stored spec on an update, else None) keeps a field that was already in use."""
    if not isinstance(spec, dict):
        return
    old = old_spec if isinstance(old_spec, dict) else {}
    if old.get("hostUsers") is None:
        spec.pop("hostUsers", None)
    if old.get("resources") is None:
        spec.pop("resources", None)
    context, old_context = spec.get("securityContext"), old.get("securityContext") or {}
    if isinstance(context, dict):
        for key in _CONTEXT_GATED:
            if old_context.get(key) is None:
                context.pop(key, None)
    if not old.get("resourceClaims") and not any(
        (c.get("resources") or {}).get("claims") for c in _containers(old, _CONTAINER_KEYS)
    ):
        spec.pop("resourceClaims", None)
        for container in _containers(spec, _CONTAINER_KEYS):
            if isinstance(container.get("resources"), dict):
                container["resources"].pop("claims", None)
    if not any(c.get("resizePolicy") for c in _containers(old, _CONTAINER_KEYS)):
        for container in _containers(spec, _CONTAINER_KEYS):
            container.pop("resizePolicy", None)
    if not any(c.get("procMount") not in (None, "Default") for c in _proc_mounts(old)):
        for container_context in _proc_mounts(spec):
            container_context["procMount"] = "Default"


def default_host_ports(spec: Any) -> None:
    """A host-network pod's unset host ports, set to the container ports."""
    if not isinstance(spec, dict) or spec.get("hostNetwork") is not True:
        return
    for container in _containers(spec, ("containers", "initContainers")):
        for port in container.get("ports") or []:
            if isinstance(port, dict) and not port.get("hostPort"):
                port["hostPort"] = port.get("containerPort", 0)


def _annotation_for(profile: dict[str, Any]) -> str:
    """``appArmorAnnotationForField`` ("" for a profile no annotation can stand for)."""
    kind = profile.get("type")
    if kind == "Localhost" and profile.get("localhostProfile") is not None:
        return f"{LOCALHOST}{profile['localhostProfile']}"
    return _APPARMOR_VALUES.get(str(kind), "")


def _field_for(annotation: str) -> dict[str, Any] | None:
    """``apparmorFieldForAnnotation``, None unless it gives a valid profile."""
    if annotation in _APPARMOR_TYPES:
        return {"type": _APPARMOR_TYPES[annotation]}
    name = annotation.removeprefix(LOCALHOST)
    if not annotation.startswith(LOCALHOST) or not name:
        return None
    profile = {"type": "Localhost", "localhostProfile": name}
    return None if apparmor_profile(profile, "") else profile


def _same_profile(field: dict[str, Any], other: Any) -> bool:
    if not isinstance(other, dict):
        return False
    return (field.get("type") or "", field.get("localhostProfile")) == (
        other.get("type") or "",
        other.get("localhostProfile"),
    )


def _profile(holder: dict[str, Any]) -> Any:
    context = holder.get("securityContext")
    return context.get("appArmorProfile") if isinstance(context, dict) else None


def apparmor_version_skew(pod: dict[str, Any]) -> list[str]:
    """Sync a new pod's AppArmor annotations and fields; the deprecation warnings."""
    spec, meta = pod.get("spec"), pod.setdefault("metadata", {})
    if not isinstance(spec, dict) or (spec.get("os") or {}).get("name") == "windows":
        return []
    pod_profile = _profile(spec)
    warnings = []
    for container, _ in visit_containers(spec, "spec"):
        key = f"{APPARMOR_PREFIX}{container.get('name')}"
        annotations = meta.get("annotations") or {}
        own = _profile(container)
        if key not in annotations:
            profile = own if isinstance(own, dict) else pod_profile
            value = _annotation_for(profile) if isinstance(profile, dict) else ""
            if value:
                if not isinstance(meta.get("annotations"), dict):
                    meta["annotations"] = {}
                meta["annotations"][key] = value
            continue
        if own is not None:
            continue
        field = _field_for(str(annotations[key]))
        if field is not None and not _same_profile(field, pod_profile):
            context = container.get("securityContext")
            if not isinstance(context, dict):
                context = container["securityContext"] = {}
            context["appArmorProfile"] = field
        if field is None or not _same_profile(field, pod_profile):
            warnings.append(f"metadata.annotations[{key}]: {_APPARMOR_DEPRECATED}")
    return warnings
