"""Node and pod (anti-)affinity (``validateAffinity`` and the functions it calls in
kubernetes 1.32), and what a 1.32 server does to a new pod's affinity terms first: each
``matchLabelKeys`` / ``mismatchLabelKeys`` key the pod has a label for becomes an ``In``
/ ``NotIn`` requirement of the term's ``labelSelector`` (``mutatePodAffinity`` of the pod
strategy, MatchLabelKeysInPodAffinity being on), which is why naming a key in both
``matchLabelKeys`` and ``labelSelector`` is refused for pods.

1.32 checks node selector requirement keys but not their values (that came in 1.33);
pod affinity selectors' values are checked (as for any new pod). Two of Go's paths are
kept as they are although odd: an invalid namespace is reported at ``.namespace``, and a
``matchLabelKeys`` key also in the selector at the term's path indexed once more.

Entry points: ``pod_affinity(spec, path)``, ``merge_label_keys(pod)``.

>>> affinity = {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
...     {"weight": 0, "podAffinityTerm": {"topologyKey": "zone"}}]}}
>>> [str(e) for e in pod_affinity({"affinity": affinity}, "spec")][0]
'spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 0: must be in the range 1-100'
"""  # noqa: E501

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.meta.labelselector import validate_selector
from kubeforge.core.names import dns1123_label, dns1123_subdomain, qualified_name

__all__ = ["dict_items", "label_name", "merge_label_keys", "node_selector", "pod_affinity"]

_REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
_PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"
_WEIGHT = "must be in the range 1-100"
_NO_SELECTOR = "must not be specified when labelSelector is not set"


def dict_items(value: Any) -> list[tuple[int, dict[str, Any]]]:
    """The indexed objects of a list (anything else in it, or a non-list, is skipped)."""
    items = value if isinstance(value, list) else ()
    return [(i, v) for i, v in enumerate(items) if isinstance(v, dict)]


def label_name(value: Any, path: str) -> list[FieldError]:
    """``ValidateLabelName``: a qualified name, each problem an Invalid error."""
    text = str(value if value is not None else "")
    return [FieldError.invalid(path, text, m) for m in qualified_name(text)]


def _requirement(requirement: dict[str, Any], path: str) -> list[FieldError]:
    operator, values = requirement.get("operator"), requirement.get("values") or []
    errors: list[FieldError] = []
    if operator in ("In", "NotIn") and not values:
        detail = "must be specified when `operator` is 'In' or 'NotIn'"
        errors.append(FieldError.required(f"{path}.values", detail))
    elif operator in ("Exists", "DoesNotExist") and values:
        detail = "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
        errors.append(FieldError.forbidden(f"{path}.values", detail))
    elif operator in ("Gt", "Lt") and len(values) != 1:
        detail = "must be specified single value when `operator` is 'Lt' or 'Gt'"
        errors.append(FieldError.required(f"{path}.values", detail))
    elif operator not in ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"):
        operator_text = operator if operator is not None else ""
        detail = "not a valid selector operator"
        errors.append(FieldError.invalid(f"{path}.operator", operator_text, detail))
    return errors + label_name(requirement.get("key"), f"{path}.key")


def _field_requirement(requirement: dict[str, Any], path: str) -> list[FieldError]:
    operator, values = requirement.get("operator"), requirement.get("values") or []
    errors: list[FieldError] = []
    if operator in ("In", "NotIn"):
        if len(values) != 1:
            detail = (
                "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"
            )
            errors.append(FieldError.required(f"{path}.values", detail))
    else:
        detail = "not a valid selector operator"
        errors.append(FieldError.invalid(f"{path}.operator", operator or "", detail))
    key = requirement.get("key") or ""
    if key != "metadata.name":
        errors.append(FieldError.invalid(f"{path}.key", key, "not a valid field selector key"))
        return errors
    for i, value in enumerate(values):
        errors += [
            FieldError.invalid(f"{path}.values[{i}]", value, m)
            for m in dns1123_subdomain(str(value))
        ]
    return errors


def _term(term: Any, path: str) -> list[FieldError]:
    """``ValidateNodeSelectorTerm``."""
    if not isinstance(term, dict):
        return []
    errors: list[FieldError] = []
    for j, requirement in dict_items(term.get("matchExpressions")):
        errors += _requirement(requirement, f"{path}.matchExpressions[{j}]")
    for j, requirement in dict_items(term.get("matchFields")):
        errors += _field_requirement(requirement, f"{path}.matchFields[{j}]")
    return errors


def node_selector(selector: dict[str, Any], path: str) -> list[FieldError]:
    """``ValidateNodeSelector``: at least one term, each a valid ``NodeSelectorTerm``
    (a PersistentVolume's ``nodeAffinity.required`` is one)."""
    terms = selector.get("nodeSelectorTerms")
    if not terms:
        return [
            FieldError.required(
                f"{path}.nodeSelectorTerms", "must have at least one node selector term"
            )
        ]
    errors: list[FieldError] = []
    for i, term in enumerate(terms if isinstance(terms, list) else ()):
        errors += _term(term, f"{path}.nodeSelectorTerms[{i}]")
    return errors


def _node_affinity(affinity: dict[str, Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    required = affinity.get(_REQUIRED)
    if isinstance(required, dict):
        terms = required.get("nodeSelectorTerms")
        at = f"{path}.{_REQUIRED}.nodeSelectorTerms"
        if not terms:
            detail = "must have at least one node selector term"
            errors.append(FieldError.required(at, detail))
        for i, term in enumerate(terms if isinstance(terms, list) else ()):
            errors += _term(term, f"{at}[{i}]")
    return errors + _weighted(affinity, path, "preference", _term)


def _weighted(
    affinity: dict[str, Any],
    path: str,
    key: str,
    check: Callable[[Any, str], list[FieldError]],
) -> list[FieldError]:
    """The preferred terms: each weight 1-100, then its term (under ``key``)."""
    errors: list[FieldError] = []
    for i, weighted in dict_items(affinity.get(_PREFERRED)):
        at = f"{path}.{_PREFERRED}[{i}]"
        weight = weighted.get("weight") or 0
        if not 1 <= weight <= 100:
            errors.append(FieldError.invalid(f"{at}.weight", weight, _WEIGHT))
        errors += check(weighted.get(key), f"{at}.{key}")
    return errors


def _label_keys(keys: Any, selector: Any, path: str) -> list[FieldError]:
    if not keys:
        return []
    if selector is None:
        return [FieldError.forbidden(path, _NO_SELECTOR)]
    return [e for i, key in enumerate(keys) for e in label_name(key, f"{path}[{i}]")]


def _match_label_keys(term: dict[str, Any], path: str) -> list[FieldError]:
    """``validateMatchLabelKeysAndMismatchLabelKeys``."""
    match, mismatch = term.get("matchLabelKeys") or [], term.get("mismatchLabelKeys") or []
    selector = term.get("labelSelector")
    errors = _label_keys(match, selector, f"{path}.matchLabelKeys")
    errors += _label_keys(mismatch, selector, f"{path}.mismatchLabelKeys")
    if isinstance(selector, dict):
        index = {key: i for i, key in enumerate(match)}
        seen = set(selector.get("matchLabels") or {})
        for _, expression in dict_items(selector.get("matchExpressions")):
            key = expression.get("key")
            if key in index and key in seen:
                detail = "exists in both matchLabelKeys and labelSelector"
                errors.append(FieldError.invalid(f"{path}[{index[key]}]", key, detail))
            seen.add(key)
    for i, key in enumerate(match):
        if key in mismatch:
            detail = "exists in both matchLabelKeys and mismatchLabelKeys"
            errors.append(FieldError.invalid(f"{path}.matchLabelKeys[{i}]", key, detail))
    return errors


def _pod_term(term: Any, path: str) -> list[FieldError]:
    """``validatePodAffinityTerm``."""
    if not isinstance(term, dict):
        return []
    errors = validate_selector(
        term.get("labelSelector"), f"{path}.labelSelector", check_values=True
    )
    errors += validate_selector(
        term.get("namespaceSelector"), f"{path}.namespaceSelector", check_values=True
    )
    for name in term.get("namespaces") or []:
        errors += [
            FieldError.invalid(f"{path}.namespace", name, m) for m in dns1123_label(str(name))
        ]
    errors += _match_label_keys(term, path)
    topology = term.get("topologyKey") or ""
    if not topology:
        errors.append(FieldError.required(f"{path}.topologyKey", "can not be empty"))
    return errors + label_name(topology, f"{path}.topologyKey")


def _pod_affinity(affinity: dict[str, Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for i, term in enumerate(affinity.get(_REQUIRED) or []):
        errors += _pod_term(term, f"{path}.{_REQUIRED}[{i}]")
    return errors + _weighted(affinity, path, "podAffinityTerm", _pod_term)


def pod_affinity(spec: dict[str, Any], path: str) -> list[FieldError]:
    """``{path}.affinity``: node affinity, pod affinity, pod anti-affinity."""
    affinity = spec.get("affinity")
    if not isinstance(affinity, dict):
        return []
    at = f"{path}.affinity"
    errors: list[FieldError] = []
    if isinstance(affinity.get("nodeAffinity"), dict):
        errors += _node_affinity(affinity["nodeAffinity"], f"{at}.nodeAffinity")
    for key in ("podAffinity", "podAntiAffinity"):
        if isinstance(affinity.get(key), dict):
            errors += _pod_affinity(affinity[key], f"{at}.{key}")
    return errors


def _merge_term(term: Any, labels: dict[str, Any]) -> None:
    if not isinstance(term, dict) or not isinstance(term.get("labelSelector"), dict):
        return  # a nil selector matches nothing: nothing to narrow
    selector = term["labelSelector"]
    for field, operator in (("matchLabelKeys", "In"), ("mismatchLabelKeys", "NotIn")):
        for key in term.get(field) or []:
            if key in labels:
                requirement = {"key": key, "operator": operator, "values": [labels[key]]}
                selector["matchExpressions"] = [
                    *(selector.get("matchExpressions") or []),
                    requirement,
                ]


def merge_label_keys(pod: dict[str, Any]) -> None:
    """A new pod's label keys merged into its pod (anti-)affinity terms' selectors."""
    spec = pod.get("spec")
    affinity = spec.get("affinity") if isinstance(spec, dict) else None
    if not isinstance(affinity, dict):
        return
    labels = (pod.get("metadata") or {}).get("labels") or {}
    for key in ("podAffinity", "podAntiAffinity"):
        group = affinity.get(key)
        if not isinstance(group, dict):
            continue
        for term in group.get(_REQUIRED) or []:
            _merge_term(term, labels)
        for weighted in group.get(_PREFERRED) or []:
            if isinstance(weighted, dict):
                _merge_term(weighted.get("podAffinityTerm"), labels)
