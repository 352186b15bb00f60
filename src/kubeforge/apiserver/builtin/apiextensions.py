"""apiextensions.k8s.io: the CustomResourceDefinition resource itself.

Entry point: ``KINDS``. Its rules (validation, names, the lifecycle) are the
``kubeforge.apiserver.apiextensions`` package's: its controller sets the strategy.
"""

from __future__ import annotations

from kubeforge.apiserver.builtin.kind import STATUS, Kind
from kubeforge.apiserver.registry.strategy import Strategy

__all__ = ["KINDS"]


KINDS = (
    Kind(
        "apiextensions.k8s.io",
        "v1",
        "CustomResourceDefinition",
        "customresourcedefinitions",
        namespaced=False,
        short=("crd", "crds"),
        subresources=STATUS,
        categories=("api-extensions",),
        strategy=Strategy,
    ),
)
