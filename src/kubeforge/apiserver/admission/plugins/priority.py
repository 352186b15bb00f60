"""``Priority`` (plugin/pkg/admission/priority, 1.32): a created pod's priority comes from
its ``priorityClassName``, or from the ``globalDefault`` class (0 and
``PreemptLowerPriority`` without one); a priority or preemption policy the pod states
that differs from its class's is refused, as is an unknown class; an update keeps the
stored values. At most one PriorityClass may be the global default.

Entry point: ``PriorityPlugin``. The system classes it resolves are created at start
(``builtin.scheduling.SYSTEM_PRIORITY_CLASSES``), as kube-apiserver's bootstrap hook does.
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.admission.plugins.base import Plugin, forbid, is_create_of
from kubeforge.apiserver.builtin.scheduling import SYSTEM_PRIORITY_CLASSES
from kubeforge.apiserver.registry.admit import Attempt

__all__ = ["SYSTEM_PRIORITY_CLASSES", "PriorityPlugin"]

_CLASSES = ("scheduling.k8s.io", "priorityclasses")


class PriorityPlugin(Plugin):
    name = "Priority"
    resources = frozenset({("", "pods"), _CLASSES})

    def _default_class(self) -> dict[str, Any] | None:
        defaults = [pc for pc in self.storage.objects(_CLASSES) if pc.get("globalDefault")]
        return min(defaults, key=lambda pc: int(pc.get("value") or 0), default=None)

    def _resolve(self, attempt: Attempt, spec: dict[str, Any]) -> tuple[int, str | None]:
        name = spec.get("priorityClassName")
        if not name:
            found = self._default_class()
            if found is None:
                return 0, "PreemptLowerPriority"
            spec["priorityClassName"] = found["metadata"]["name"]
            return int(found.get("value") or 0), found.get("preemptionPolicy")
        found = self.storage.get(_CLASSES, "", str(name))
        if found is None:
            raise forbid(attempt, f"no PriorityClass with name {name} was found")
        return int(found.get("value") or 0), found.get("preemptionPolicy")

    def mutate(self, attempt: Attempt) -> None:
        info = attempt.served.info
        spec = attempt.obj.get("spec")
        if info.group or info.plural != "pods" or not isinstance(spec, dict):
            return
        if attempt.operation == "UPDATE" and attempt.old is not None:
            old_spec = attempt.old.get("spec") or {}
            for key in ("priority", "preemptionPolicy"):
                if spec.get(key) is None and old_spec.get(key) is not None:
                    spec[key] = old_spec[key]
            return
        if not is_create_of(attempt, "", "pods"):
            return
        priority, policy = self._resolve(attempt, spec)
        stated = spec.get("priority")
        if stated is not None and stated != priority:
            raise forbid(
                attempt,
                f"the integer value of priority ({stated}) must not be provided in pod spec; "
                f"priority admission controller computed {priority} from the given "
                "PriorityClass name",
            )
        spec["priority"] = priority
        stated_policy = spec.get("preemptionPolicy")
        if stated_policy is not None and policy is not None and stated_policy != policy:
            raise forbid(
                attempt,
                f"the string value of PreemptionPolicy ({stated_policy}) must not be provided "
                f"in pod spec; priority admission controller computed {policy} from the given "
                "PriorityClass name",
            )
        if policy is not None:
            spec["preemptionPolicy"] = policy

    def validate(self, attempt: Attempt) -> None:
        info = attempt.served.info
        if info.group != _CLASSES[0] or info.plural != _CLASSES[1] or attempt.subresource:
            return
        if not attempt.obj.get("globalDefault"):
            return
        name = (attempt.obj.get("metadata") or {}).get("name")
        for other in self.storage.objects(_CLASSES):
            other_name = other["metadata"]["name"]
            if other.get("globalDefault") and other_name != name:
                raise forbid(
                    attempt,
                    f"PriorityClass {other_name} is already marked as default. "
                    "Only one default can exist",
                )
