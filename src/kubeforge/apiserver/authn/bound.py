"""What a service-account token is bound to: a pod (and the node it runs on), a secret or
a node, as ``kubernetes/pkg/serviceaccount/claims.go`` writes and checks them.

Entry points: ``BoundObjects`` (built by the TokenRequest endpoint from objects it
looked up; ``claims()`` goes into the token's ``kubernetes.io`` claim, ``from_claims``
reads it back) and ``BoundObjects.check(namespace, lookup, now)``, the validator's check that each
bound object still exists with the same uid, in the real validator's words.

A token bound to a pod names the pod and, when the pod is scheduled, its node; the
user it authenticates as then carries the pod's and node's names and uids in its
``extra`` (``authentication.kubernetes.io/pod-name`` ...), as on a real server. The
node of a pod-bound token is information only; a token bound to the node itself dies
with the node.

>>> bound = BoundObjects(pod=ObjectRef("web-0", "u1"), node=ObjectRef("node-0", "u2"))
>>> BoundObjects.from_claims({"kubernetes.io": bound.claims()}) == bound
True
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from kubeforge.apiserver.authn.signing import TokenError

__all__ = [
    "EXTRA_PREFIX",
    "INVALIDATED",
    "LEEWAY",
    "BoundObjects",
    "ObjectLookup",
    "ObjectRef",
    "deleted_before",
]

ObjectLookup = Callable[[str, str, str], "dict[str, Any] | None"]
"""``(resource, namespace, name) -> stored object or None``, for pods, secrets and nodes."""

EXTRA_PREFIX = "authentication.kubernetes.io/"
LEEWAY = 60.0
"""go-jose's default leeway: on the token's times, and on how long ago a bound object may
have been marked for deletion before its tokens die."""
INVALIDATED = "service account token has been invalidated"


@dataclass(frozen=True)
class ObjectRef:
    """A bound object's name and uid, as the token records them."""

    name: str
    uid: str

    def claim(self) -> dict[str, str]:
        return {"name": self.name, "uid": self.uid}

    @classmethod
    def from_claim(cls, claim: Any) -> ObjectRef | None:
        if not isinstance(claim, dict):
            return None
        return cls(str(claim.get("name") or ""), str(claim.get("uid") or ""))


@dataclass(frozen=True)
class BoundObjects:
    """The objects a token is bound to (all ``None``: bound to its account only)."""

    pod: ObjectRef | None = None
    secret: ObjectRef | None = None
    node: ObjectRef | None = None

    def claims(self) -> dict[str, Any]:
        """The entries of the ``kubernetes.io`` claim beside namespace and account."""
        out: dict[str, Any] = {}
        for key, ref in (("pod", self.pod), ("secret", self.secret), ("node", self.node)):
            if ref is not None:
                out[key] = ref.claim()
        return out

    @classmethod
    def from_claims(cls, claims: dict[str, Any]) -> BoundObjects:
        private = claims.get("kubernetes.io") or {}
        return cls(
            pod=ObjectRef.from_claim(private.get("pod")),
            secret=ObjectRef.from_claim(private.get("secret")),
            node=ObjectRef.from_claim(private.get("node")),
        )

    def check(self, namespace: str, lookup: ObjectLookup, now: float) -> None:
        """Raise ``TokenError`` (the validator's words) unless every object the token
        depends on still exists as it was bound."""
        checks = [
            ("secret", "secrets", namespace, self.secret),
            ("pod", "pods", namespace, self.pod),
        ]
        if self.pod is None:  # a pod-bound token's node is information, not a binding
            checks.append(("node", "nodes", "", self.node))
        for label, resource, where, ref in checks:
            if ref is not None:
                _check(label, lookup(resource, where, ref.name), ref.uid, now)

    def extra(self) -> dict[str, tuple[str, ...]]:
        """What the authenticated user's ``extra`` says about the bound pod and node."""
        out: dict[str, tuple[str, ...]] = {}
        if self.pod is not None and self.pod.name and self.pod.uid:
            out[EXTRA_PREFIX + "pod-name"] = (self.pod.name,)
            out[EXTRA_PREFIX + "pod-uid"] = (self.pod.uid,)
        if self.node is not None and self.node.name:
            out[EXTRA_PREFIX + "node-name"] = (self.node.name,)
            if self.node.uid:
                out[EXTRA_PREFIX + "node-uid"] = (self.node.uid,)
        return out


def _check(label: str, stored: dict[str, Any] | None, uid: str, now: float) -> None:
    if stored is None:
        raise TokenError(INVALIDATED)
    meta = stored.get("metadata") or {}
    if meta.get("uid") != uid:
        raise TokenError(
            f"{label} UID ({meta.get('uid') or ''}) does not match service account {label} ref "
            f"claim ({uid})"
        )
    if deleted_before(meta, now - LEEWAY):
        raise TokenError(INVALIDATED)


def deleted_before(meta: dict[str, Any], when: float) -> bool:
    """Whether the object was marked for deletion before ``when`` (unix seconds)."""
    deleted = meta.get("deletionTimestamp")
    if not isinstance(deleted, str):
        return False
    try:
        stamp = datetime.strptime(deleted, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    except ValueError:
        return True
    return stamp.timestamp() < when
