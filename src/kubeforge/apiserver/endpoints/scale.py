"""``/scale``: a custom resource's or an apps workload's replicas as an ``autoscaling/v1``
Scale, read, replaced or patched.

The kind's strategy says where its replicas, status replicas and selector live
(``registry.scale.ScalePaths``; no paths, no ``/scale``: 404). A PUT sends a Scale; a
PATCH patches the current Scale (JSON or merge patch, and strategic merge for a
built-in, whose Scale is a built-in type); either is written to the object as an update,
with the Scale's resourceVersion as its precondition.

Entry point: ``scale(engine, request, target)``, called by the handlers.
"""

from __future__ import annotations

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
from kubeforge.apiserver.endpoints.responses import json_response
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

__all__ = ["scale"]

_NOT_ALLOWED = "the server does not allow this method on the requested resource"


async def scale(engine: Engine, request: web.Request, target: Target) -> web.Response:
    """GET, PUT or PATCH of ``target``'s ``/scale``."""
    paths = getattr(engine.strategy(target.served), "scale_paths", None)
    if not isinstance(paths, ScalePaths):
        raise failures.resource_not_found()
    current = await get_object(engine, target)
    if request.method == "GET":
        return json_response(to_scale(current, paths))
    if request.method not in ("PUT", "PATCH"):
        raise failures.method_not_allowed(target.served.info, _NOT_ALLOWED)
    wanted = await _requested_scale(request, target, to_scale(current, paths))
    body = clone(current)
    given_rv = (wanted.get("metadata") or {}).get("resourceVersion")
    if given_rv:
        body["metadata"]["resourceVersion"] = given_rv
    apply_scale(body, wanted, paths)
    options = WriteOptions(dry_run=dry_run_requested(request))
    namespace = target.namespace or ""
    obj, _ = await conversions.run_converting(
        lambda: engine.update(target.served, namespace, target.name, body, options)
    )
    return json_response(to_scale(await at_request_version(engine, target, obj), paths))


async def _requested_scale(
    request: web.Request, target: Target, current: dict[str, Any]
) -> dict[str, Any]:
    """The Scale a PUT sends, or the ``current`` one with a PATCH applied."""
    if request.method == "PUT":
        wanted = decode_body(await read_body(request), body_content_type(request))
    else:
        content_type = request.content_type
        # A Scale is a built-in type: SMP works on a built-in's /scale (the official
        # client sends it for dict bodies), not on a custom resource's.
        allowed: tuple[str, ...] = (JSON_PATCH, MERGE_PATCH)
        if target.served.builtin:
            allowed = (JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH)
        if content_type not in allowed:
            raise failures.unsupported_media_type(content_type, allowed)
        patch = decode_body(await read_body(request), content_type)
        try:
            wanted = apply_patch(content_type, current, patch)
        except (PatchApplyError, PatchDecodeError) as error:
            raise failures.bad_request(str(error)) from None
    if not isinstance(wanted, dict):
        raise failures.bad_request("the body must be a Scale object")
    return wanted
