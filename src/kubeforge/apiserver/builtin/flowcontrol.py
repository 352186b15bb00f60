"""flowcontrol.apiserver.k8s.io: API priority and fairness objects (stored, not enforced).

Entry point: ``KINDS``.
"""

from __future__ import annotations

from kubeforge.apiserver.builtin.kind import STATUS, Kind

__all__ = ["KINDS"]


_GROUP = "flowcontrol.apiserver.k8s.io"

KINDS = (
    Kind(_GROUP, "v1", "FlowSchema", "flowschemas", namespaced=False, subresources=STATUS),
    Kind(
        _GROUP,
        "v1",
        "PriorityLevelConfiguration",
        "prioritylevelconfigurations",
        namespaced=False,
        subresources=STATUS,
    ),
)
