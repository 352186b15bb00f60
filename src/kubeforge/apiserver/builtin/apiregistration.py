"""apiregistration.k8s.io: APIService (served with the generic rules; nothing is aggregated).

Entry point: ``KINDS``.
"""

from __future__ import annotations

from kubeforge.apiserver.builtin.kind import STATUS, Kind

__all__ = ["KINDS"]


KINDS = (
    Kind(
        "apiregistration.k8s.io",
        "v1",
        "APIService",
        "apiservices",
        namespaced=False,
        subresources=STATUS,
        categories=("api-extensions",),
    ),
)
