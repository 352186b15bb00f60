"""The ``boundObjectRef`` of a TokenRequest, checked as ``TokenREST.Create`` checks it
(``kubernetes/pkg/registry/core/serviceaccount/storage/token.go``, 1.32).

Entry point: ``resolve_bound_objects(engine, namespace, account, ref)``. A token may be
bound to a Pod, a Secret or a Node of the core group only ("cannot bind token to
object of type ..."); the object must exist (its own 404); a pod must run as the
account the token is for; a ``uid`` in the reference must be the object's (409). A
pod's node goes into the token too when the pod is scheduled (its name alone when
the Node object is missing), as the ``ServiceAccountTokenPodNodeInfo`` feature, on by
default in 1.32, does.

Before this, the reference's kind became the name of a claim, so a reference to
``kind: ServiceAccount`` overwrote the account the authenticator trusts.
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver import failures
from kubeforge.apiserver.authn.bound import BoundObjects, ObjectRef
from kubeforge.apiserver.registry.engine import Engine
from kubeforge.core.status import failure

__all__ = ["resolve_bound_objects"]

_KINDS = {"Pod": "pods", "Secret": "secrets", "Node": "nodes"}


def resolve_bound_objects(
    engine: Engine, namespace: str, account: str, ref: Any
) -> BoundObjects | None:
    """What a token for ``account`` with ``boundObjectRef`` ``ref`` is bound to."""
    if not isinstance(ref, dict):
        return None
    api_version = str(ref.get("apiVersion") or "")
    kind, name = str(ref.get("kind") or ""), str(ref.get("name") or "")
    group, _, version = api_version.rpartition("/")
    if "/" in group:  # not a group/version at all: Go's parser leaves only the kind
        group = version = ""
    plural = _KINDS.get(kind) if group == "" else None
    if plural is None:
        raise failures.bad_request(
            f"cannot bind token to object of type {group}/{version}, Kind={kind}"
        )
    served = engine.registry.lookup("", "v1", plural)
    assert served is not None  # built-in
    obj = engine.get(served, namespace if plural != "nodes" else "", name)  # its own 404
    uid = str(obj["metadata"].get("uid") or "")
    if ref.get("uid") and ref["uid"] != uid:
        detail = (
            f"the UID in the bound object reference ({ref['uid']}) does not match the UID in "
            "record. The object might have been deleted and then recreated"
        )
        message = f'Operation cannot be fulfilled on {kind} "{name}": {detail}'
        raise failures.StatusError(failure(409, "Conflict", message, {"name": name, "kind": kind}))
    if plural == "secrets":
        return BoundObjects(secret=ObjectRef(name, uid))
    if plural == "nodes":
        return BoundObjects(node=ObjectRef(name, uid))
    return _pod_binding(engine, account, obj, ObjectRef(name, uid))


def _pod_binding(engine: Engine, account: str, pod: dict[str, Any], ref: ObjectRef) -> BoundObjects:
    spec = pod.get("spec") or {}
    if spec.get("serviceAccountName") != account:
        raise failures.bad_request(
            f'cannot bind token for serviceaccount "{account}" to pod running with '
            "different serviceaccount name."
        )
    node_name = str(spec.get("nodeName") or "")
    if not node_name:
        return BoundObjects(pod=ref)
    node = engine.storage.get(("", "nodes"), "", node_name)
    node_uid = str((node or {}).get("metadata", {}).get("uid") or "")
    return BoundObjects(pod=ref, node=ObjectRef(node_name, node_uid))
