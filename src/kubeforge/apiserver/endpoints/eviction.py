"""``POST /api/v1/namespaces/{ns}/pods/{name}/eviction``: a policy/v1 Eviction, as
kubernetes 1.32's ``pkg/registry/core/pod/storage/eviction.go`` answers it.

A pod that is pending, finished or already terminating goes at once; otherwise its
PodDisruptionBudget (at most one may select it, else 500 as there) must allow a
disruption: the budget's status is checked (429 ``TooManyRequests`` "Cannot evict pod
as it would violate the pod's disruption budget." with a ``DisruptionBudget`` cause),
then ``disruptionsAllowed`` is decremented and the pod recorded in ``disruptedPods``
before the pod gets its ``DisruptionTarget`` condition and is deleted with the
eviction's ``deleteOptions``. Unhealthy (not Ready) pods follow the budget's
``unhealthyPodEvictionPolicy``. The answer is 201 with a Success ``Status``.

Admission sees the Eviction as a real server shows it: a CREATE of ``pods`` subresource
``eviction`` whose object is a ``policy/v1`` Eviction; mutating webhooks may change it
(its ``deleteOptions`` are then the ones used), validating webhooks and policies may
refuse it, before any budget is looked at.

Entry point: ``evict(engine, request, target, admission)``, called by the handlers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson
from aiohttp import web

from kubeforge.apiserver import failures
from kubeforge.apiserver.admission.chain import Admission
from kubeforge.apiserver.endpoints.access import request_user
from kubeforge.apiserver.endpoints.bodies import (
    body_content_type,
    decode_body,
    dry_run_requested,
    read_body,
)
from kubeforge.apiserver.endpoints.protobody import PROTOBUF, decode_protobuf
from kubeforge.apiserver.endpoints.request import Target
from kubeforge.apiserver.endpoints.responses import json_response
from kubeforge.apiserver.meta.labelselector import selector_matches
from kubeforge.apiserver.protobuf.wire import UnsupportedKind
from kubeforge.apiserver.registry import deletion
from kubeforge.apiserver.registry.engine import Engine
from kubeforge.apiserver.registry.options import TRUSTED
from kubeforge.apiserver.registry.write_request import WriteRequest
from kubeforge.core.status import failure

__all__ = ["evict"]

_BUDGETS = ("policy", "poddisruptionbudgets")
_VERSIONS = ("policy/v1", "policy/v1beta1")
_VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget."
_SUCCESS = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success"}


async def _eviction_body(request: web.Request) -> dict[str, Any]:
    raw = await read_body(request)
    content_type = body_content_type(request)
    body: Any
    if content_type == PROTOBUF:
        try:
            body = decode_protobuf(raw, "policy/v1", "Eviction")
        except UnsupportedKind as error:
            raise failures.bad_request(str(error)) from None
    else:
        body = decode_body(raw, content_type)
    if not isinstance(body, dict) or body.get("kind") not in (None, "", "Eviction"):
        raise failures.bad_request("the body must be an Eviction object")
    if body.get("apiVersion") not in (None, "", *_VERSIONS):
        raise failures.bad_request(
            f'no kind "Eviction" is registered for version "{body.get("apiVersion")}"'
        )
    return body


def _delete_options(body: dict[str, Any], dry_run: bool) -> deletion.DeleteOptions:
    given = body.get("deleteOptions") or {}
    preconditions = given.get("preconditions") or {}
    return deletion.DeleteOptions(
        grace_period_seconds=given.get("gracePeriodSeconds"),
        propagation_policy=given.get("propagationPolicy"),
        precondition_uid=preconditions.get("uid"),
        precondition_rv=preconditions.get("resourceVersion"),
        dry_run=dry_run or bool(given.get("dryRun")),
    )


def _too_many(cause: str, retry_after: int) -> web.Response:
    details: dict[str, Any] = {"causes": [{"reason": "DisruptionBudget", "message": cause}]}
    if retry_after:
        details["retryAfterSeconds"] = retry_after
    body = failure(429, "TooManyRequests", _VIOLATION, details)
    headers = {"Retry-After": str(retry_after)} if retry_after else None
    return web.Response(
        body=orjson.dumps(body), status=429, content_type="application/json", headers=headers
    )


def _is_ready(pod: dict[str, Any]) -> bool:
    conditions = (pod.get("status") or {}).get("conditions") or []
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


def _budgets_of(engine: Engine, pod: dict[str, Any]) -> list[dict[str, Any]]:
    labels = pod["metadata"].get("labels")
    namespace = pod["metadata"]["namespace"]
    return [
        budget
        for budget in engine.storage.objects(_BUDGETS, namespace)
        if (budget.get("spec") or {}).get("selector") is not None
        and selector_matches(budget["spec"]["selector"], labels)
    ]


def _may_skip_budget(pod: dict[str, Any], budget: dict[str, Any]) -> bool:
    """An unhealthy pod, under the budget's ``unhealthyPodEvictionPolicy``."""
    if _is_ready(pod):
        return False
    status = budget.get("status") or {}
    if (budget.get("spec") or {}).get("unhealthyPodEvictionPolicy") == "AlwaysAllow":
        return True
    desired = int(status.get("desiredHealthy") or 0)
    return desired > 0 and int(status.get("currentHealthy") or 0) >= desired


def _take_disruption(
    engine: Engine, budget: dict[str, Any], pod_name: str, dry_run: bool
) -> web.Response | None:
    """``checkAndDecrement``: None when the disruption is granted (and recorded)."""
    name = budget["metadata"]["name"]
    status = dict(budget.get("status") or {})
    if int(status.get("observedGeneration") or 0) < int(budget["metadata"].get("generation") or 1):
        return _too_many(
            f"The disruption budget {name} is still being processed by the server.", 10
        )
    allowed = int(status.get("disruptionsAllowed") or 0)
    if allowed < 0:
        raise failures.forbidden(_budget_info(engine), name, "pdb disruptions allowed is negative")
    if allowed == 0:
        cause = (
            f"The disruption budget {name} needs {int(status.get('desiredHealthy') or 0)} healthy "
            f"pods and has {int(status.get('currentHealthy') or 0)} currently"
        )
        return _too_many(cause, 0)
    if dry_run:
        return None
    status["disruptionsAllowed"] = allowed - 1
    if allowed == 1:
        status["conditions"] = [
            c for c in status.get("conditions") or [] if c.get("type") != "DisruptionAllowed"
        ] + [
            {
                "type": "DisruptionAllowed",
                "status": "False",
                "observedGeneration": status.get("observedGeneration"),
                "lastTransitionTime": engine.now(),
                "reason": "InsufficientPods",
                "message": "",
            }
        ]
    status["disruptedPods"] = {**(status.get("disruptedPods") or {}), pod_name: engine.now()}
    served = engine.registry.lookup("policy", "v1", "poddisruptionbudgets")
    assert served is not None  # built-in
    namespace = budget["metadata"]["namespace"]
    engine.update(
        served, namespace, name, {**budget, "status": status}, TRUSTED, subresource="status"
    )
    return None


def _budget_info(engine: Engine) -> Any:
    served = engine.registry.lookup("policy", "v1", "poddisruptionbudgets")
    assert served is not None  # built-in
    return served.info


def _mark_and_delete(
    engine: Engine, target: Target, pod: dict[str, Any], options: deletion.DeleteOptions
) -> web.Response:
    """``addConditionAndDeletePod``: the DisruptionTarget condition, then the delete."""
    namespace = target.namespace or ""
    conditions = (pod.get("status") or {}).get("conditions") or []
    if not options.dry_run and not any(c.get("type") == "DisruptionTarget" for c in conditions):
        condition = {
            "type": "DisruptionTarget",
            "status": "True",
            "lastProbeTime": None,
            "lastTransitionTime": engine.now(),
            "reason": "EvictionByEvictionAPI",
            "message": "Eviction API: evicting",
        }
        status = {**(pod.get("status") or {}), "conditions": [*conditions, condition]}
        engine.update(
            target.served,
            namespace,
            target.name,
            {**pod, "status": status},
            TRUSTED,
            subresource="status",
        )
    deletion.delete(engine, target.served, namespace, target.name, options)
    return json_response(_SUCCESS, 201)


def _same_name(name: str) -> Callable[[dict[str, Any]], None]:
    def check(body: dict[str, Any]) -> None:
        if (body.get("metadata") or {}).get("name", name) != name:
            raise failures.bad_request("name in URL does not match name in Eviction object")

    return check


async def _admitted(
    request: web.Request, target: Target, admission: Admission | None, body: dict[str, Any]
) -> dict[str, Any]:
    """The Eviction after admission (the name check runs between mutation and validation,
    as in the real handler)."""
    check = _same_name(target.name)
    if admission is None:
        check(body)
        return body
    version = "v1beta1" if body.get("apiVersion") == "policy/v1beta1" else "v1"
    body = {**body, "apiVersion": f"policy/{version}", "kind": "Eviction"}
    write = WriteRequest(
        request_user(request),
        target.served,
        "CREATE",
        target.namespace or "",
        target.name,
        "eviction",
        dry_run=dry_run_requested(request),
    )
    kind = ("policy", version, "Eviction")
    return await admission.admit_object(write, body, kind, check)


async def evict(
    engine: Engine, request: web.Request, target: Target, admission: Admission | None
) -> web.Response:
    """The eviction of ``target`` (a pod), by its budget's rules."""
    if request.method != "POST":
        raise failures.method_not_allowed(
            target.served.info, "the server does not allow this method on the requested resource"
        )
    body = await _admitted(request, target, admission, await _eviction_body(request))
    options = _delete_options(body, dry_run_requested(request))
    pod = engine.get(target.served, target.namespace or "", target.name)
    phase = (pod.get("status") or {}).get("phase")
    if phase in ("Pending", "Succeeded", "Failed") or pod["metadata"].get("deletionTimestamp"):
        return _mark_and_delete(engine, target, pod, options)
    budgets = _budgets_of(engine, pod)
    if len(budgets) > 1:
        raise failures.internal_error(
            "This pod has more than one PodDisruptionBudget, which the eviction subresource "
            "does not support."
        )
    if budgets and not _may_skip_budget(pod, budgets[0]):
        refused = _take_disruption(engine, budgets[0], target.name, options.dry_run)
        if refused is not None:
            return refused
    return _mark_and_delete(engine, target, pod, options)
