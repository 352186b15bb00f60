"""``/scale``: a custom resource's or an apps workload's replicas as an ``autoscaling/v1``
Scale, read, replaced or patched.

The kind's strategy says where its replicas, status replicas and selector live
(``registry.scale.ScalePaths``; no paths, no ``/scale``: 404). A PUT sends a Scale; a
PATCH patches the current Scale (JSON or merge patch, and strategic merge for a
built-in, whose Scale is a built-in type); either is written to the object as an update,
with the Scale's resourceVersion as its precondition. A PATCH whose result keeps the
current resourceVersion is applied again when another write got there first, as the
real server's update loop retries: only a PUT or a patch naming a stale
resourceVersion gets a 409.

Entry point: ``scale(engine, request, target)``, called by the handlers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aiohttp import web

from kubeforge.apiserver import failures
from kubeforge.apiserver.endpoints.bodies import (
    body_content_type,
    decode_body,
    dry_run_requested,
    read_body,
)
from kubeforge.apiserver.endpoints.converted import at_request_version, get_object
from kubeforge.apiserver.endpoints.request import Target
from kubeforge.apiserver.endpoints.responses import json_response, request_warnings
from kubeforge.apiserver.patch.formats import (
    JSON_PATCH,
    MERGE_PATCH,
    STRATEGIC_MERGE_PATCH,
    PatchApplyError,
    PatchDecodeError,
    apply_patch,
)
from kubeforge.apiserver.registry import conversions
from kubeforge.apiserver.registry.engine import Engine
from kubeforge.apiserver.registry.options import WriteOptions
from kubeforge.apiserver.registry.scale import ScalePaths, apply_scale, to_scale
from kubeforge.apiserver.storage.sqlite import clone
from kubeforge.core.status import failure

__all__ = ["scale"]

_NOT_ALLOWED = "the server does not allow this method on the requested resource"
# A PATCH is applied again to the object each time a concurrent write got there first.
_PATCH_ATTEMPTS = 16
_KEPT_CHANGING = "the object kept changing while the patch was being applied"


async def scale(engine: Engine, request: web.Request, target: Target) -> web.Response:
    """GET, PUT or PATCH of ``target``'s ``/scale``."""
    paths = getattr(engine.strategy(target.served), "scale_paths", None)
    if not isinstance(paths, ScalePaths):
        raise failures.resource_not_found()
    if request.method == "GET":
        return json_response(to_scale(await get_object(engine, target), paths))
    if request.method not in ("PUT", "PATCH"):
        raise failures.method_not_allowed(target.served.info, _NOT_ALLOWED)
    change = await _requested_change(request, target)
    # The write goes through the workload's own strategy, whose WarningsOnUpdate the real
    # scale subresource also reaches (its store's update), so its warnings are answered.
    options = WriteOptions(dry_run=dry_run_requested(request), warnings=request_warnings(request))
    for _ in range(_PATCH_ATTEMPTS):
        current = await get_object(engine, target)
        wanted = change(to_scale(current, paths))
        try:
            obj = await _write_scale(engine, target, current, wanted, paths, options)
        except failures.StatusError as error:
            if error.code == 409 and _rebased_on(current, wanted, request):
                continue
            raise
        return json_response(to_scale(await at_request_version(engine, target, obj), paths))
    raise failures.StatusError(failure(409, "Conflict", _KEPT_CHANGING))


def _rebased_on(current: dict[str, Any], wanted: dict[str, Any], request: web.Request) -> bool:
    """Whether a conflict only means the object changed since ``current`` was read: a
    PATCH that did not name a resourceVersion of its own is applied again to the new
    object, as the real server's update loop does; a PUT's precondition stands."""
    current_rv = current["metadata"].get("resourceVersion")
    wanted_rv = (wanted.get("metadata") or {}).get("resourceVersion")
    return request.method == "PATCH" and wanted_rv == current_rv


async def _write_scale(
    engine: Engine,
    target: Target,
    current: dict[str, Any],
    wanted: dict[str, Any],
    paths: ScalePaths,
    options: WriteOptions,
) -> dict[str, Any]:
    """``current`` with ``wanted``'s replicas written as an update, preconditioned on the
    Scale's resourceVersion when it has one."""
    body = clone(current)
    given_rv = (wanted.get("metadata") or {}).get("resourceVersion")
    if given_rv:
        body["metadata"]["resourceVersion"] = given_rv
    apply_scale(body, wanted, paths)
    namespace = target.namespace or ""
    obj, _ = await conversions.run_converting(
        lambda: engine.update(target.served, namespace, target.name, body, options)
    )
    return obj


async def _requested_change(
    request: web.Request, target: Target
) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """What the request makes of the current Scale: a PUT's Scale whatever it is, a PATCH
    applied to it."""
    if request.method == "PUT":
        sent = _scale_object(decode_body(await read_body(request), body_content_type(request)))
        return lambda _current: sent
    content_type = request.content_type
    # A Scale is a built-in type: SMP works on a built-in's /scale (the official client
    # sends it for dict bodies), not on a custom resource's.
    allowed: tuple[str, ...] = (JSON_PATCH, MERGE_PATCH)
    if target.served.builtin:
        allowed = (JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH)
    if content_type not in allowed:
        raise failures.unsupported_media_type(content_type, allowed)
    patch = decode_body(await read_body(request), content_type)

    def patched(current: dict[str, Any]) -> dict[str, Any]:
        try:
            return _scale_object(apply_patch(content_type, current, patch))
        except (PatchApplyError, PatchDecodeError) as error:
            raise failures.bad_request(str(error)) from None

    return patched


def _scale_object(wanted: Any) -> dict[str, Any]:
    if not isinstance(wanted, dict):
        raise failures.bad_request("the body must be a Scale object")
    return wanted
