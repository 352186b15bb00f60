"""authorization.k8s.io: access reviews, may a user do a thing (answered, never stored).

Entry point: ``KINDS``; ``endpoints.reviews`` answers them.
"""

from __future__ import annotations

from kubeforge.apiserver.builtin.kind import Kind
from kubeforge.apiserver.registry.strategy import Strategy

__all__ = ["KINDS"]


_GROUP = "authorization.k8s.io"
# Reviews are answered, never stored: POST is all they take.
_CREATE_ONLY = ("create",)

KINDS = (
    Kind(
        _GROUP,
        "v1",
        "LocalSubjectAccessReview",
        "localsubjectaccessreviews",
        verbs=_CREATE_ONLY,
        storage=False,
        strategy=Strategy,
    ),
    Kind(
        _GROUP,
        "v1",
        "SelfSubjectAccessReview",
        "selfsubjectaccessreviews",
        namespaced=False,
        verbs=_CREATE_ONLY,
        storage=False,
        strategy=Strategy,
    ),
    Kind(
        _GROUP,
        "v1",
        "SelfSubjectRulesReview",
        "selfsubjectrulesreviews",
        namespaced=False,
        verbs=_CREATE_ONLY,
        storage=False,
        strategy=Strategy,
    ),
    Kind(
        _GROUP,
        "v1",
        "SubjectAccessReview",
        "subjectaccessreviews",
        namespaced=False,
        verbs=_CREATE_ONLY,
        storage=False,
        strategy=Strategy,
    ),
)
