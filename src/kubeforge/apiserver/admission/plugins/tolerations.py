"""``DefaultTolerationSeconds`` (plugin/pkg/admission/defaulttolerationseconds, 1.32): a
created pod that does not already tolerate them gets tolerations of the
``node.kubernetes.io/not-ready`` and ``node.kubernetes.io/unreachable`` NoExecute taints
for 300 seconds (kube-apiserver's ``--default-not-ready-toleration-seconds`` and
``--default-unreachable-toleration-seconds``).

Entry point: ``DefaultTolerationSecondsPlugin``.
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.admission.plugins.base import Plugin, is_create_of
from kubeforge.apiserver.registry.admit import Attempt

__all__ = ["DefaultTolerationSecondsPlugin"]

_TAINTS = ("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable")
_SECONDS = 300


def _tolerates(tolerations: list[Any], key: str) -> bool:
    return any(
        isinstance(t, dict)
        and t.get("key", "") in ("", key)
        and t.get("effect", "") in ("", "NoExecute")
        for t in tolerations
    )


class DefaultTolerationSecondsPlugin(Plugin):
    name = "DefaultTolerationSeconds"
    resources = frozenset({("", "pods")})

    def mutate(self, attempt: Attempt) -> None:
        spec = attempt.obj.get("spec")
        if not is_create_of(attempt, "", "pods") or not isinstance(spec, dict):
            return
        found = spec.get("tolerations")
        tolerations: list[Any] = found if isinstance(found, list) else []
        added = [
            {"key": key, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": _SECONDS}
            for key in _TAINTS
            if not _tolerates(tolerations, key)
        ]
        if added:
            spec["tolerations"] = [*tolerations, *added]
