"""The spec rules of a pod update (``ValidatePodUpdate`` of kubernetes 1.32): the same
containers (count), images set, ``activeDeadlineSeconds`` only lowered, tolerations only
added (their ``tolerationSeconds`` may change), scheduling gates only removed, a gated
pod's node selector and required node affinity only added to (``gated``), and nothing
else changed.

The last refusal's first line is Go's, word for word; Go follows it with
``cmp.Diff`` of its internal ``core.PodSpec``. That diff cannot be reproduced exactly
(it prints Go values of internal types and elides by cmp's own heuristics), so this
writes one in its shape: the changed top-level fields under their Go names, the old
value on ``-`` lines and the new on ``+`` lines, as JSON.

Entry point: ``pod_spec_update(new, old)`` (the two specs), a list of ``FieldError``.

>>> old = {"containers": [{"name": "a", "image": "x"}], "nodeName": "n1"}
>>> new = {"containers": [{"name": "a", "image": "y"}], "nodeName": "n2"}
>>> pod_spec_update(new, old)[0].detail.splitlines()[1:]
['  core.PodSpec{', '  \\t... // 1 identical field', '- \\tNodeName: "n1",', '+ \\tNodeName: "n2",', '  }']
"""  # noqa: E501

from __future__ import annotations

import json
from typing import Any

from kubeforge.apiserver.builtin.podspec.gated import gated_changes
from kubeforge.apiserver.builtin.podspec.scheduling import tolerations
from kubeforge.apiserver.failures import FieldError

__all__ = ["UPDATABLE", "pod_spec_update"]

UPDATABLE = (
    "pod updates may not change fields other than `spec.containers[*].image`,"
    "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,"
    "`spec.tolerations` (only additions to existing tolerations),"
    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was "
    "previously negative)"
)
_INT32_MAX = 2147483647
# The v1 fields in the order of the internal core.PodSpec, as cmp.Diff walks them.
_ORDER = ("volumes", "initContainers", "containers", "ephemeralContainers", "restartPolicy",
          "terminationGracePeriodSeconds", "activeDeadlineSeconds", "dnsPolicy",
          "nodeSelector", "serviceAccountName", "automountServiceAccountToken", "nodeName",
          "hostNetwork", "hostPID", "hostIPC", "shareProcessNamespace", "hostUsers",
          "securityContext", "imagePullSecrets", "hostname", "subdomain",
          "setHostnameAsFQDN", "affinity", "schedulerName", "tolerations", "hostAliases",
          "priorityClassName", "priority", "preemptionPolicy", "dnsConfig",
          "readinessGates", "runtimeClassName", "overhead", "enableServiceLinks",
          "topologySpreadConstraints", "os", "schedulingGates", "resourceClaims",
          "resources")  # fmt: skip
_GO_NAMES = {"dnsPolicy": "DNSPolicy", "hostPID": "HostPID", "hostIPC": "HostIPC",
             "setHostnameAsFQDN": "SetHostnameAsFQDN", "dnsConfig": "DNSConfig",
             "os": "OS"}  # fmt: skip


def _containers(new: list[Any], old: list[Any], path: str) -> tuple[list[FieldError], bool]:
    """``ValidateContainerUpdates``: the errors, and whether to stop here."""
    if len(new) != len(old):
        return [FieldError.forbidden(path, "pod updates may not add or remove containers")], True
    errors = []
    for i, container in enumerate(new):
        image = str((container or {}).get("image") or "")
        if not image:
            errors.append(FieldError.required(f"{path}[{i}].image"))
        if image.strip() != image:
            detail = "must not have leading or trailing whitespace"
            errors.append(FieldError.invalid(f"{path}[{i}].image", image, detail))
    return errors, False


def _deadline(new: dict[str, Any], old: dict[str, Any]) -> tuple[list[FieldError], bool]:
    value, before = new.get("activeDeadlineSeconds"), old.get("activeDeadlineSeconds")
    path = "spec.activeDeadlineSeconds"
    if value is not None:
        if not 0 <= value <= _INT32_MAX:
            detail = f"must be between 0 and {_INT32_MAX}, inclusive"
            return [FieldError.invalid(path, value, detail)], True
        if before is not None and before < value:
            detail = "must be less than or equal to previous value"
            return [FieldError.invalid(path, value, detail)], True
    elif before is not None:
        detail = "must not update from a positive integer to nil value"
        return [FieldError.invalid(path, None, detail)], False
    return [], False


def _only_added_tolerations(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    def without_seconds(toleration: Any) -> Any:
        if not isinstance(toleration, dict):
            return toleration
        return {k: v for k, v in toleration.items() if k != "tolerationSeconds"}

    kept = [without_seconds(t) for t in new.get("tolerations") or []]
    for before in old.get("tolerations") or []:
        if without_seconds(before) not in kept:
            detail = "existing toleration can not be modified except its tolerationSeconds"
            return [FieldError.forbidden("spec.tolerations", detail)]
    return tolerations(new, "spec")


def _only_removed_gates(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    before = {g.get("name") for g in old.get("schedulingGates") or [] if isinstance(g, dict)}
    errors = []
    for i, gate in enumerate(new.get("schedulingGates") or []):
        name = gate.get("name") if isinstance(gate, dict) else None
        if name not in before:
            detail = f"only deletion is allowed, but found new scheduling gate '{name}'"
            errors.append(FieldError.forbidden(f"spec.schedulingGates[{i}].name", detail))
    return errors


def _munged(new: dict[str, Any], old: dict[str, Any]) -> dict[str, Any]:
    """``new`` with what an update may change put back as it was in ``old``."""
    munged = dict(new)
    for key in ("containers", "initContainers"):
        olds = old.get(key) or []
        if new.get(key):
            munged[key] = [
                {**c, "image": o.get("image")} for c, o in zip(new[key], olds, strict=False)
            ]
    for key in ("activeDeadlineSeconds", "schedulingGates", "tolerations"):
        munged.pop(key, None)
        if key in old:
            munged[key] = old[key]
    grace, old_grace = (
        munged.get("terminationGracePeriodSeconds"),
        old.get("terminationGracePeriodSeconds"),
    )
    if isinstance(old_grace, int) and old_grace < 0 and grace == 1:
        munged["terminationGracePeriodSeconds"] = old_grace
    return munged


def _go_name(key: str) -> str:
    return _GO_NAMES.get(key, key[:1].upper() + key[1:])


def _identical(count: int) -> str:
    return f"  \t... // {count} identical field{'' if count == 1 else 's'}"


def _diff(old: dict[str, Any], new: dict[str, Any]) -> str:
    """A ``cmp.Diff``-shaped account of the top-level fields that differ."""
    keys = [*_ORDER, *sorted((set(old) | set(new)) - set(_ORDER))]
    lines, same = ["  core.PodSpec{"], 0
    for key in keys:
        if old.get(key) == new.get(key):
            same += 1 if (key in old or key in new) else 0
            continue
        if same:
            lines.append(_identical(same))
            same = 0
        for sign, value in (("-", old.get(key)), ("+", new.get(key))):
            if value is not None:
                lines.append(f"{sign} \t{_go_name(key)}: {json.dumps(value, sort_keys=True)},")
    if same:
        lines.append(_identical(same))
    return "\n".join([*lines, "  }"])


def pod_spec_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """What ``ValidatePodUpdate`` adds to the validation of the new spec."""
    errors: list[FieldError] = []
    for key in ("containers", "initContainers"):
        found, stop = _containers(new.get(key) or [], old.get(key) or [], f"spec.{key}")
        errors += found
        if stop:
            return errors
    found, stop = _deadline(new, old)
    errors += found
    if stop:
        return errors
    errors += _only_added_tolerations(new, old)
    errors += _only_removed_gates(new, old)
    munged = _munged(new, old)
    errors += gated_changes(munged, old)
    comparable_old = {k: v for k, v in old.items() if k != "ephemeralContainers"}
    munged.pop("ephemeralContainers", None)
    if munged != comparable_old:
        detail = f"{UPDATABLE}\n{_diff(comparable_old, munged)}"
        errors.append(FieldError.forbidden("spec", detail))
    return errors
