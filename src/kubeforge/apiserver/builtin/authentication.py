"""authentication.k8s.io: reviews of who a token or a caller is (answered, never stored).

Entry point: ``KINDS``; ``endpoints.reviews`` answers them.
"""

from __future__ import annotations

from kubeforge.apiserver.builtin.kind import Kind
from kubeforge.apiserver.registry.strategy import Strategy

__all__ = ["KINDS"]


# Reviews are answered, never stored: POST is all they take.
_CREATE_ONLY = ("create",)

KINDS = (
    Kind(
        "authentication.k8s.io",
        "v1",
        "TokenReview",
        "tokenreviews",
        namespaced=False,
        verbs=_CREATE_ONLY,
        storage=False,
        strategy=Strategy,
    ),
    Kind(
        "authentication.k8s.io",
        "v1",
        "SelfSubjectReview",
        "selfsubjectreviews",
        namespaced=False,
        verbs=_CREATE_ONLY,
        storage=False,
        strategy=Strategy,
    ),
)
