"""Whether one write fits the namespace's quotas, and what each quota's ``used`` becomes
if it is admitted (``CheckRequest`` of ``k8s.io/apiserver``'s resourcequota admission,
1.32, without the plugin configuration's ``limitedResources``, which is empty by default).

A quota concerns the object when its ``status.hard`` names something the object's
evaluator charges and the object falls under all its scopes. The object is then charged
its usage (on an update, only what grew since the stored object, for a quota that
matched that one too); a quota whose ``used`` would pass ``hard`` refuses it.

Entry point: ``check_request(quotas, evaluator, operation, obj, old, now)`` returns the
new ``used`` of each quota the write changes, or raises ``QuotaDenied`` with Go's message.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kubeforge.apiserver.quota.evaluators import Evaluator, matches, quota_selectors
from kubeforge.apiserver.quota.quantity import (
    ResourceList,
    add,
    equals,
    exceeded,
    is_negative,
    mask,
    parse_list,
    pretty,
    remove_zeros,
    subtract_non_negative,
)

__all__ = ["Charge", "QuotaDenied", "check_request"]


class QuotaDenied(Exception):
    """The write does not fit; ``str()`` is the reason the 403 gives."""


@dataclass(frozen=True)
class Charge:
    """One quota whose ``status.used`` becomes ``used`` if the write is admitted."""

    quota: dict[str, Any]
    used: ResourceList


def _status(quota: dict[str, Any]) -> tuple[ResourceList, ResourceList]:
    status = quota.get("status") or {}
    return parse_list(status.get("hard")), parse_list(status.get("used"))


def _name(quota: dict[str, Any]) -> str:
    return str((quota.get("metadata") or {}).get("name") or "")


def _concerned(
    quotas: list[dict[str, Any]], evaluator: Evaluator, obj: dict[str, Any]
) -> list[dict[str, Any]]:
    """The quotas that apply to ``obj``; refuses it when a quota's constraints fail or
    the quota has no usage recorded yet for what it limits."""
    concerned = []
    for quota in quotas:
        hard, used = _status(quota)
        if not matches(evaluator, hard, quota_selectors(quota), obj):
            continue
        restricted = evaluator.matching_resources(hard)
        problem = evaluator.constraints(restricted, obj)
        if problem is not None:
            raise QuotaDenied(f"failed quota: {_name(quota)}: {problem}")
        if any(name not in used for name in restricted):
            names = ",".join(sorted(restricted))
            raise QuotaDenied(f"status unknown for quota: {_name(quota)}, resources: {names}")
        concerned.append(quota)
    return concerned


def _deltas(
    concerned: list[dict[str, Any]],
    evaluator: Evaluator,
    obj: dict[str, Any],
    old: dict[str, Any] | None,
    now: float,
) -> list[tuple[dict[str, Any], ResourceList]]:
    usage = evaluator.usage(obj, now)
    negative = is_negative(usage)
    if negative:
        raise QuotaDenied(f"quota usage is negative for resource(s): {','.join(negative)}")
    deltas = [(quota, usage) for quota in concerned]
    if old is not None and (old.get("metadata") or {}).get("resourceVersion"):
        grown = subtract_non_negative(usage, evaluator.usage(old, now))
        deltas = [
            (
                quota,
                grown
                if matches(evaluator, _status(quota)[0], quota_selectors(quota), old)
                else usage,
            )
            for quota in concerned
        ]
    return [(quota, remove_zeros(delta)) for quota, delta in deltas if remove_zeros(delta)]


def check_request(
    quotas: list[dict[str, Any]],
    evaluator: Evaluator,
    operation: str,
    obj: dict[str, Any],
    old: dict[str, Any] | None,
    now: float,
) -> list[Charge]:
    """The charges of admitting ``obj`` (``old``: the stored object on an UPDATE)."""
    if not evaluator.handles(operation):
        return []
    concerned = _concerned(quotas, evaluator, obj)
    charges = []
    for quota, delta in _deltas(
        concerned, evaluator, obj, old if operation == "UPDATE" else None, now
    ):
        hard, used = _status(quota)
        requested = mask(delta, hard)
        new_used = add(used, requested)
        over = exceeded(mask(new_used, requested), hard)
        if over:
            raise QuotaDenied(
                f"exceeded quota: {_name(quota)}, requested: {pretty(mask(requested, over))}, "
                f"used: {pretty(mask(used, over))}, limited: {pretty(mask(hard, over))}"
            )
        if not equals(new_used, used):  # a quota nothing was charged to is not rewritten
            charges.append(Charge(quota, new_used))
    return charges
