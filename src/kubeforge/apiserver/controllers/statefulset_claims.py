"""A StatefulSet pod's claims: created before it, owned as the retention policy says.

``create_pod`` does what ``StatefulPodControl.CreateStatefulPod`` does in 1.32: the
missing claims first (``SuccessfulCreate`` / ``create Claim <c> Pod <p> in StatefulSet
<s> success``, or ``FailedCreate`` / ``create Claim <c> for Pod <p> in StatefulSet <s>
failed error: <why>``), then the pod (``create Pod <p> in StatefulSet <s> successful`` or
``... failed error: <why>``, also when a claim could not be made or is being deleted),
then the claims' owner references, each write a request admission sees (``requests``).
``sync_claim_owners``
keeps those references true to ``persistentVolumeClaimRetentionPolicy`` on every sync
(``isClaimOwnerUpToDate`` / ``updateClaimOwnerRefForSetAndPod``): the set as the claims'
controller when ``whenDeleted: Delete`` (and, with ``whenScaled: Delete``, while the pod
is in range), the pod as their controller once it is scaled away under ``whenScaled:
Delete``, nothing under Retain. A claim another controller owns, or whose reference names
an older set or pod of the same name, is left alone.

Entry points: ``create_pod(api, set, pod, ordinal)``, ``sync_claim_owners``.
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.controllers.cluster import Cluster, copy, owner_reference
from kubeforge.apiserver.controllers.requests import ControllerRequests
from kubeforge.apiserver.controllers.statefulset_pods import claims_for, retention
from kubeforge.apiserver.failures import StatusError

__all__ = ["create_pod", "sync_claim_owners"]

_PODS = ("", "pods")
_CLAIMS = ("", "persistentvolumeclaims")
_COMPONENT = "statefulset-controller"


def _record(cluster: Cluster, owner: dict[str, Any], reason: str, message: str) -> None:
    kind = "Warning" if reason.startswith("Failed") else "Normal"
    cluster.record(owner, kind, reason, message, component=_COMPONENT)


async def create_pod(
    api: ControllerRequests, stateful_set: dict[str, Any], pod: dict[str, Any], ordinal: int
) -> None:
    """Claims, then the pod, then the claims' owners; a refusal is re-raised."""
    cluster = api.cluster
    namespace = stateful_set["metadata"].get("namespace") or ""
    set_name, pod_name = stateful_set["metadata"]["name"], pod["metadata"]["name"]
    problems = []
    for body in claims_for(stateful_set, ordinal):
        claim_name = body["metadata"]["name"]
        existing = cluster.get(_CLAIMS, namespace, claim_name)
        if existing is not None:
            if existing["metadata"].get("deletionTimestamp"):
                problems.append(f"pvc {claim_name} is being deleted")
            continue
        try:
            await api.create(_CLAIMS, namespace, body)
        except StatusError as error:
            problems.append(f"failed to create PVC {claim_name}: {error}")
            message = (
                f"create Claim {claim_name} for Pod {pod_name} in StatefulSet {set_name} "
                f"failed error: {error}"
            )
            _record(cluster, stateful_set, "FailedCreate", message)
            continue
        message = f"create Claim {claim_name} Pod {pod_name} in StatefulSet {set_name} success"
        _record(cluster, stateful_set, "SuccessfulCreate", message)
    try:
        if problems:  # errors.NewAggregate: one error as itself, more in brackets
            text = problems[0] if len(problems) == 1 else f"[{', '.join(problems)}]"
            raise StatusError({"code": 409, "reason": "Conflict", "message": text})
        created = await api.create(_PODS, namespace, pod)
    except StatusError as error:
        message = f"create Pod {pod_name} in StatefulSet {set_name} failed error: {error}"
        _record(cluster, stateful_set, "FailedCreate", message)
        raise
    await sync_claim_owners(api, stateful_set, created, ordinal, in_range=True)
    message = f"create Pod {pod_name} in StatefulSet {set_name} successful"
    _record(cluster, stateful_set, "SuccessfulCreate", message)


def _controller_elsewhere(claim: dict[str, Any], uids: set[str]) -> bool:
    """``hasUnexpectedController``: a controller reference to neither the set nor the pod."""
    return any(
        ref.get("controller") and ref.get("uid") not in uids
        for ref in claim["metadata"].get("ownerReferences") or []
    )


def _stale(claim: dict[str, Any], owners: list[dict[str, Any]]) -> bool:
    """``hasStaleOwnerRef``: a reference to an owner's kind and name with another uid."""
    for ref in claim["metadata"].get("ownerReferences") or []:
        for owner in owners:
            same = (ref.get("kind"), ref.get("name")) == (owner["kind"], owner["metadata"]["name"])
            if same and ref.get("uid") != owner["metadata"]["uid"]:
                return True
    return False


def _wanted_owners(
    stateful_set: dict[str, Any], pod: dict[str, Any], in_range: bool
) -> list[dict[str, Any]]:
    when_deleted, when_scaled = retention(stateful_set)
    if when_scaled == "Delete" and not in_range:
        return [pod]
    if when_deleted == "Delete":
        return [stateful_set]
    return []


def owners_after(
    claim: dict[str, Any], stateful_set: dict[str, Any], pod: dict[str, Any], in_range: bool
) -> list[dict[str, Any]] | None:
    """The claim's owner references as the policy wants them, or None to leave them."""
    owners = [stateful_set, pod]
    if _stale(claim, owners):
        return None
    ours = {o["metadata"]["uid"] for o in owners}
    refs = [
        dict(r) for r in claim["metadata"].get("ownerReferences") or [] if r.get("uid") not in ours
    ]
    if not _controller_elsewhere(claim, ours):
        refs += [owner_reference(o) for o in _wanted_owners(stateful_set, pod, in_range)]
    return refs


async def sync_claim_owners(
    api: ControllerRequests,
    stateful_set: dict[str, Any],
    pod: dict[str, Any],
    ordinal: int,
    *,
    in_range: bool,
) -> None:
    """Bring the owner references of the pod's existing claims in line with the policy."""
    namespace = stateful_set["metadata"].get("namespace") or ""
    for body in claims_for(stateful_set, ordinal):
        claim = api.cluster.get(_CLAIMS, namespace, body["metadata"]["name"])
        if claim is None or claim["metadata"].get("deletionTimestamp"):
            continue
        refs = owners_after(claim, stateful_set, pod, in_range)
        if refs is None or refs == (claim["metadata"].get("ownerReferences") or []):
            continue
        updated = copy(claim)
        if refs:
            updated["metadata"]["ownerReferences"] = refs
        else:
            updated["metadata"].pop("ownerReferences", None)
        await api.update(_CLAIMS, updated)
