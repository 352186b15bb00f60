"""What an update may change in a pod that still has scheduling gates (the gated-pod
part of kubernetes 1.32's ``ValidatePodUpdate``): ``nodeSelector`` entries may be added
(``validateNodeSelectorMutation``), and required node affinity terms may only gain
requirements (``validateNodeAffinityMutation``), so that a queueing controller can steer a
pod before it lets it be scheduled. Go prints the offending values with ``%#v``; the
renderings here follow it (the map's keys sorted, as fmt sorts them).

Entry point: ``gated_changes(munged, old)``: the errors, with ``munged`` (the new spec
being compared with the old one) given the old selector and node affinity back.

>>> munged = {"nodeSelector": {"zone": "b"}}
>>> [str(e) for e in gated_changes(munged, {"schedulingGates": [{"name": "g"}], "nodeSelector": {"zone": "a"}})]
['spec.nodeSelector: Invalid value: map[string]string{"zone":"b"}: only additions to spec.nodeSelector are allowed (no mutations or deletions)']
"""  # noqa: E501

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.failures import FieldError, GoValue

__all__ = ["gated_changes"]

_REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
_TERMS = f"spec.affinity.nodeAffinity.{_REQUIRED}.nodeSelectorTerms"


def _go_map(value: Any) -> GoValue:
    pairs = sorted((value or {}).items())
    body = ", ".join(f"{GoValue.quote(str(k))}:{GoValue.quote(str(v))}" for k, v in pairs)
    return GoValue(f"map[string]string{{{body}}}")


def _go_requirements(requirements: Any) -> str:
    if not requirements:
        return "[]core.NodeSelectorRequirement(nil)"
    rendered = [
        f"core.NodeSelectorRequirement{{Key:{GoValue.quote(str(r.get('key') or ''))}, "
        f"Operator:{GoValue.quote(str(r.get('operator') or ''))}, "
        "Values:[]string{" + ", ".join(GoValue.quote(str(v)) for v in r.get("values") or []) + "}}"
        for r in requirements
    ]
    return "[]core.NodeSelectorRequirement{" + ", ".join(rendered) + "}"


def _go_term(term: dict[str, Any]) -> str:
    expressions = _go_requirements(term.get("matchExpressions"))
    fields = _go_requirements(term.get("matchFields"))
    return f"core.NodeSelectorTerm{{MatchExpressions:{expressions}, MatchFields:{fields}}}"


def _terms(affinity: Any) -> list[dict[str, Any]]:
    node = affinity.get("nodeAffinity") if isinstance(affinity, dict) else None
    required = node.get(_REQUIRED) if isinstance(node, dict) else None
    terms = required.get("nodeSelectorTerms") if isinstance(required, dict) else None
    return [t if isinstance(t, dict) else {} for t in terms or []]


def _only_added(new: dict[str, Any], old: dict[str, Any]) -> bool:
    """``validateNodeSelectorTermHasOnlyAdditions``: the old requirements stay first."""
    for key in ("matchExpressions", "matchFields"):
        before, after = old.get(key) or [], new.get(key) or []
        if len(before) > len(after) or after[: len(before)] != before:
            return False
    return True


def _node_affinity(new_affinity: Any, old_affinity: Any) -> list[FieldError]:
    old_terms = _terms(old_affinity)
    if not old_terms:
        return []  # no required terms before: anything may be set
    new_terms = _terms(new_affinity)
    if len(new_terms) != len(old_terms):
        shown = GoValue("[]core.NodeSelectorTerm{" + ", ".join(map(_go_term, new_terms)) + "}")
        detail = "no additions/deletions to non-empty NodeSelectorTerms list are allowed"
        return [FieldError.invalid(_TERMS, shown, detail)]
    return [
        FieldError.invalid(
            f"{_TERMS}[{i}]",
            GoValue(_go_term(new)),
            "only additions are allowed (no mutations or deletions)",
        )
        for i, (new, old) in enumerate(zip(new_terms, old_terms, strict=True))
        if not _only_added(new, old)
    ]


def _restore_node_affinity(munged: dict[str, Any], old: dict[str, Any]) -> None:
    """Put the old node affinity back into ``munged``, as Go's four cases do."""
    old_affinity = old.get("affinity") if isinstance(old.get("affinity"), dict) else None
    old_node = old_affinity.get("nodeAffinity") if old_affinity else None
    affinity = munged.get("affinity")
    if not isinstance(affinity, dict):
        if old_node is not None:
            munged["affinity"] = {"nodeAffinity": old_node}
        return
    others = any(affinity.get(k) is not None for k in ("podAffinity", "podAntiAffinity"))
    if old_affinity is None and not others:
        munged.pop("affinity", None)
        return
    restored = {k: v for k, v in affinity.items() if k != "nodeAffinity"}
    if old_node is not None:
        restored["nodeAffinity"] = old_node
    munged["affinity"] = restored


def gated_changes(munged: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    if not old.get("schedulingGates"):
        return []
    errors: list[FieldError] = []
    selector, old_selector = munged.get("nodeSelector"), old.get("nodeSelector")
    if (selector or {}) != (old_selector or {}):
        new_map = selector if isinstance(selector, dict) else {}
        if any(new_map.get(k) != v for k, v in (old_selector or {}).items()):
            detail = "only additions to spec.nodeSelector are allowed (no mutations or deletions)"
            errors.append(FieldError.invalid("spec.nodeSelector", _go_map(new_map), detail))
        munged.pop("nodeSelector", None)
        if old_selector is not None:
            munged["nodeSelector"] = old_selector
    old_node = (old.get("affinity") or {}).get("nodeAffinity")
    new_node = (munged.get("affinity") or {}).get("nodeAffinity")
    if old_node != new_node:
        errors += _node_affinity(munged.get("affinity"), old.get("affinity"))
        _restore_node_affinity(munged, old)
    return errors
