"""Nodes, Namespaces and ServiceAccounts as 1.32 validates, prepares and warns of them:
``ValidateNode``/``ValidateNodeUpdate`` (taints, resources, podCIDRs, the fields set once),
``ValidateNamespace`` and its status and finalizer rules, and the ServiceAccount
strategy's warning about ``kubernetes.io/enforce-mountable-secrets`` and its secret
references cut down to names.

Two of Go's paths are kept as they are although odd: a node's taints are reported under
``metadata.taints`` and a namespace's phase under ``status.Phase``.

Entry points: ``node_errors``, ``node_update_errors``, ``node_warnings``,
``namespace_finalizer_errors``, ``namespace_status_errors``, ``service_account_warnings``,
``clean_secret_references``.
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.builtin.netparse import sloppy_network
from kubeforge.apiserver.builtin.podspec.affinity import label_name
from kubeforge.apiserver.builtin.podspec.resources import quantity_errors
from kubeforge.apiserver.failures import FieldError, GoValue
from kubeforge.core.names import label_value, qualified_name

__all__ = [
    "clean_secret_references",
    "namespace_finalizer_errors",
    "namespace_status_errors",
    "node_errors",
    "node_update_errors",
    "node_warnings",
    "service_account_warnings",
]

_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")  # Go's order
_STANDARD_FINALIZERS = ("kubernetes", "orphan", "foregroundDeletion")
_SET_ONCE = 'node updates may not change {} except from "" to valid'
_MOUNTABLE = "kubernetes.io/enforce-mountable-secrets"


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _go_strings(values: list[Any]) -> GoValue:
    return GoValue("[]string{" + ", ".join(GoValue.quote(str(v)) for v in values) + "}")


def _taint_errors(taints: list[Any]) -> list[FieldError]:
    """``validateNodeTaints``: key, value, effect, and unique by key and effect."""
    errors: list[FieldError] = []
    seen: set[tuple[str, str]] = set()
    for i, taint in enumerate(taints):
        taint = _dict(taint)
        at = f"metadata.taints[{i}]"
        key, value = str(taint.get("key") or ""), str(taint.get("value") or "")
        effect = str(taint.get("effect") or "")
        errors += label_name(key, f"{at}.key")
        problems = label_value(value)
        if problems:
            errors.append(FieldError.invalid(f"{at}.value", value, ";".join(problems)))
        if not effect:
            errors.append(FieldError.required(f"{at}.effect"))
        elif effect not in _EFFECTS:
            errors.append(FieldError.not_supported(f"{at}.effect", effect, _EFFECTS))
        if (key, effect) in seen:
            added = taint.get("timeAdded")
            when = "(*v1.Time)(nil)" if added is None else "(*v1.Time)(0xc000010000)"
            shown = GoValue(
                f"core.Taint{{Key:{GoValue.quote(key)}, Value:{GoValue.quote(value)}, "
                f"Effect:{GoValue.quote(effect)}, TimeAdded:{when}}}"
            )
            detail = "taints must be unique by key and effect pair"
            errors.append(FieldError("Duplicate", at, detail, shown))
            continue
        seen.add((key, effect))
    return errors


def _resource_errors(node: dict[str, Any]) -> list[FieldError]:
    """``ValidateNodeResources`` (Go names the resource as a path step, not a key)."""
    status = _dict(node.get("status"))
    errors: list[FieldError] = []
    for part in ("capacity", "allocatable"):
        for name, amount in _dict(status.get(part)).items():
            errors += quantity_errors(name, amount, f"status.{part}.{name}")
    return errors


def _pod_cidr_errors(cidrs: list[Any]) -> list[FieldError]:
    errors: list[FieldError] = []
    at = "spec.podCIDRs"
    networks = [sloppy_network(str(value)) for value in cidrs]
    for i, network in enumerate(networks):
        if network is None:
            errors.append(
                FieldError.invalid(f"{at}[{i}]", _go_strings(cidrs), "must be valid CIDR")
            )
    if len(cidrs) > 1 and None not in networks:
        families = {n.version for n in networks if n is not None}
        if len(families) != 2 or len(cidrs) > 2:
            detail = "may specify no more than one CIDR for each IP family"
            errors.append(FieldError.invalid(at, _go_strings(cidrs), detail))
    if len(cidrs) > 1:
        seen: set[str] = set()
        for i, value in enumerate(cidrs):
            if value in seen:
                errors.append(FieldError.duplicate(f"{at}[{i}]", value))
            seen.add(value)
    return errors


def node_errors(node: dict[str, Any]) -> list[FieldError]:
    """``ValidateNode`` past the metadata."""
    spec = _dict(node.get("spec"))
    errors = _taint_errors(_list(spec.get("taints")))
    errors += _resource_errors(node)
    if _list(spec.get("podCIDRs")):
        errors += _pod_cidr_errors(_list(spec.get("podCIDRs")))
    return errors


def node_update_errors(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """``ValidateNodeUpdate`` past the metadata (the main resource adds ``node_errors``)."""
    spec, before = _dict(new.get("spec")), _dict(old.get("spec"))
    errors = _resource_errors(new)
    seen: list[dict[str, Any]] = []
    for i, address in enumerate(_list(_dict(new.get("status")).get("addresses"))):
        if address in seen:
            shown = GoValue(
                f"core.NodeAddress{{Type:{GoValue.quote(str(_dict(address).get('type') or ''))}, "
                f"Address:{GoValue.quote(str(_dict(address).get('address') or ''))}}}"
            )
            errors.append(FieldError.duplicate(f"status.addresses[{i}]", shown))
        seen.append(address)
    old_cidrs, new_cidrs = _list(before.get("podCIDRs")), _list(spec.get("podCIDRs"))
    if old_cidrs:
        changed = len(old_cidrs) != len(new_cidrs)
        count = 1 if changed else sum(a != b for a, b in zip(old_cidrs, new_cidrs, strict=True))
        detail = _SET_ONCE.format("podCIDR")
        errors += [FieldError.forbidden("spec.podCIDRs", detail)] * count
    if before.get("providerID") and before.get("providerID") != spec.get("providerID"):
        errors.append(FieldError.forbidden("spec.providerID", _SET_ONCE.format("providerID")))
    errors += _taint_errors(_list(spec.get("taints")))
    if spec.get("externalID") != before.get("externalID"):
        errors.append(FieldError.forbidden("spec.externalID", "may not be updated"))
    return errors


def node_warnings(node: dict[str, Any]) -> list[str]:
    """The node strategy's warning for its long-unused field."""
    if _dict(node.get("spec")).get("externalID"):
        return ["spec.externalID: this field is deprecated, and is unused by Kubernetes"]
    return []


def namespace_finalizer_errors(finalizers: Any, path: str, *, indexed: bool) -> list[FieldError]:
    """``validateFinalizerName`` of each finalizer; ``ValidateNamespace`` reports them all
    at ``spec.finalizers``, the finalize subresource at their index."""
    errors: list[FieldError] = []
    for i, name in enumerate(_list(finalizers)):
        at = f"{path}[{i}]" if indexed else path
        text = str(name)
        errors += [FieldError.invalid(at, text, m) for m in qualified_name(text)]
        if "/" not in text and text not in _STANDARD_FINALIZERS:
            detail = "name is neither a standard finalizer name nor is it fully qualified"
            errors.append(FieldError.invalid(at, text, detail))
    return errors


def namespace_status_errors(namespace: dict[str, Any]) -> list[FieldError]:
    """``ValidateNamespaceStatusUpdate``: Active until deleted, Terminating after."""
    phase = str(_dict(namespace.get("status")).get("phase") or "")
    if not _dict(namespace.get("metadata")).get("deletionTimestamp"):
        if phase != "Active":
            detail = "may only be 'Active' if `deletionTimestamp` is empty"
            return [FieldError.invalid("status.Phase", phase, detail)]
    elif phase != "Terminating":
        detail = "may only be 'Terminating' if `deletionTimestamp` is not empty"
        return [FieldError.invalid("status.Phase", phase, detail)]
    return []


def service_account_warnings(account: dict[str, Any], old: dict[str, Any] | None) -> list[str]:
    """The ServiceAccount strategy's warning: the mountable-secrets annotation is
    deprecated (said when it is set, not again on later updates)."""

    def noted(obj: dict[str, Any] | None) -> bool:
        return _MOUNTABLE in _dict(_dict((obj or {}).get("metadata")).get("annotations"))

    if noted(account) and not noted(old):
        detail = (
            "deprecated in v1.32+; prefer separate namespaces to isolate access to mounted secrets"
        )
        return [f"metadata.annotations[{_MOUNTABLE}]: {detail}"]
    return []


def clean_secret_references(account: dict[str, Any]) -> None:
    """``cleanSecretReferences``: a ServiceAccount's ``secrets`` keep only their names."""
    secrets = account.get("secrets")
    if isinstance(secrets, list):
        account["secrets"] = [
            {"name": ref["name"]} if isinstance(ref, dict) and ref.get("name") else {}
            for ref in secrets
        ]
