"""DELETE of one object and of a collection, with admission before each deletion.

The deletion rules (preconditions, finalizers, grace periods, propagation) are
``registry.deletion``'s; this is the HTTP around them. A finished deletion answers with
the last state of the object, or a Success ``Status`` for kinds whose real strategy
does not return the deleted object; a deletion still waiting on finalizers or a grace
period answers with the marked object. A collection delete lists what it deleted, and
skips objects that went meanwhile, as the real server does.

Entry points: ``delete(engine, admission, request, target)`` and
``delete_collection(engine, admission, selected, request, target)``, called by the
handlers once the verb is known to be allowed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aiohttp import web

from kubeforge.apiserver import failures
from kubeforge.apiserver.admission.chain import Admission
from kubeforge.apiserver.endpoints import protobody
from kubeforge.apiserver.endpoints.access import request_user
from kubeforge.apiserver.endpoints.bodies import dry_run_requested
from kubeforge.apiserver.endpoints.converted import at_request_version
from kubeforge.apiserver.endpoints.deleteoptions import parse_options
from kubeforge.apiserver.endpoints.request import Target
from kubeforge.apiserver.endpoints.responses import json_response
from kubeforge.apiserver.registry import conversions, deletion
from kubeforge.apiserver.registry.engine import Engine
from kubeforge.apiserver.registry.write_request import WriteRequest
from kubeforge.core.status import success

__all__ = ["delete", "delete_collection"]


async def delete(
    engine: Engine, admission: Admission | None, request: web.Request, target: Target
) -> web.StreamResponse:
    """``DELETE`` of the object the URL names."""
    options = await parse_options(request)
    if admission is not None:
        where = (target.namespace or "", target.name)
        await _admit_delete(admission, request, target, where, options)
    obj, gone = await conversions.run_converting(
        lambda: deletion.delete(engine, target.served, target.namespace or "", target.name, options)
    )
    strategy = engine.strategy(target.served)
    if gone and not strategy.return_deleted_object:
        info = target.served.info
        details: dict[str, Any] = {"name": target.name}
        if info.group:
            details["group"] = info.group
        details["kind"] = info.plural
        details["uid"] = obj["metadata"].get("uid")
        return json_response(success(details))
    return protobody.object_response(request, await at_request_version(engine, target, obj))


async def delete_collection(
    engine: Engine,
    admission: Admission | None,
    select: Callable[[web.Request, Target], list[dict[str, Any]]],
    request: web.Request,
    target: Target,
) -> web.Response:
    """``DELETE`` of every object ``select(request, target)`` picks (the list's selectors)."""
    options = await parse_options(request)
    selected = select(request, target)
    deleted: list[dict[str, Any]] = []
    for obj in selected:
        meta = obj["metadata"]
        namespace, name = meta.get("namespace") or "", meta["name"]
        if admission is not None:
            await _admit_delete(admission, request, target, (namespace, name), options)
        try:
            last, _ = await conversions.run_converting(
                lambda n=namespace, m=name: deletion.delete(  # type: ignore[misc]
                    engine, target.served, n, m, options
                )
            )
        except failures.StatusError as error:
            if error.code == 404:
                continue  # deleted meanwhile: not an error for a collection delete
            raise
        deleted.append(await at_request_version(engine, target, last))
    info = target.served.info
    return json_response(
        {
            "kind": info.list_kind,
            "apiVersion": info.api_version,
            "metadata": {"resourceVersion": str(engine.storage.revision)},
            "items": deleted,
        }
    )


async def _admit_delete(
    admission: Admission,
    request: web.Request,
    target: Target,
    where: tuple[str, str],
    options: deletion.DeleteOptions,
) -> None:
    """Admission of one DELETE of ``where`` (namespace, name); the webhooks' ``oldObject``
    may need converting first."""
    namespace, name = where
    write = WriteRequest(
        request_user(request),
        target.served,
        "DELETE",
        namespace,
        name,
        dry_run=dry_run_requested(request),
        sent_options=options.sent(),
    )
    await conversions.run_converting_async(lambda: admission.delete(write))
