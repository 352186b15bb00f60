"""REST handlers: URL -> resource, query and body parsing, and the answer for every verb.

Entry point: ``ResourceHandlers.handle``, mounted by ``server.app`` on ``/api/...`` and
``/apis/...`` after discovery's routes. URL layout and verb mapping follow the
real server's request-info rules (``/namespaces/{ns}/{resource}/{name}/{sub}``;
``namespaces/{name}/status|finalize`` are subresources of the namespace itself).
List pagination, resourceVersion semantics and selectors live in ``listing``; the
object a write sends is read by ``objectbody``; ``/scale`` is ``scale``'s, eviction
``eviction``'s, DELETE ``deletes``'.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aiohttp import web

from kubeforge.apiserver import failures
from kubeforge.apiserver.admission.chain import Admission
from kubeforge.apiserver.endpoints import deletes, partial, protobody, tables
from kubeforge.apiserver.endpoints.access import request_user
from kubeforge.apiserver.endpoints.bodies import (
    APPLY_PATCH,
    decode_body,
    dry_run_requested,
    field_validation,
    read_body,
)
from kubeforge.apiserver.endpoints.converted import at_request_version, get_object
from kubeforge.apiserver.endpoints.eviction import evict
from kubeforge.apiserver.endpoints.listing import Lister
from kubeforge.apiserver.endpoints.objectbody import read_object
from kubeforge.apiserver.endpoints.request import Target, resolve
from kubeforge.apiserver.endpoints.responses import json_response, request_warnings, table_response
from kubeforge.apiserver.endpoints.scale import scale
from kubeforge.apiserver.fieldmanager.apply import (
    field_manager,
    server_side_apply,
    tracker,
)
from kubeforge.apiserver.meta.queryparams import query_bool
from kubeforge.apiserver.patch.formats import (
    JSON_PATCH,
    MERGE_PATCH,
    STRATEGIC_MERGE_PATCH,
)
from kubeforge.apiserver.registry import conversions, deletion
from kubeforge.apiserver.registry.engine import Engine
from kubeforge.apiserver.registry.options import WriteOptions
from kubeforge.apiserver.registry.served import Registry
from kubeforge.apiserver.registry.write_request import WriteRequest

__all__ = ["ResourceHandlers"]

# In the real server's order (its 415 message lists them so).
_PATCH_TYPES = (JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, APPLY_PATCH)
_CR_PATCH_TYPES = (JSON_PATCH, MERGE_PATCH, APPLY_PATCH)
# Accept headers that can only mean a plain JSON object (most clients send one of these).
_PLAIN_JSON = frozenset({None, "application/json", "*/*"})


class ResourceHandlers:
    """Serves every resource URL; one instance per server."""

    def __init__(self, engine: Engine, registry: Registry, lister: Lister) -> None:
        self.engine = engine
        self.registry = registry
        self.lister = lister
        self.admission: Admission | None = None
        """Webhooks and RBAC escalation checks around writes (set by the app)."""

    async def _admitted(
        self,
        request: web.Request,
        target: Target,
        operation: str,
        name: str,
        attempt: Callable[[bool], dict[str, Any]],
        warnings: list[str],
    ) -> dict[str, Any]:
        """``attempt(dry_run)`` with admission around it (see ``kubeforge.apiserver.admission``),
        run again after each conversion webhook it needed was awaited (its warnings once)."""
        start = len(warnings)

        async def once() -> dict[str, Any]:
            del warnings[start:]
            return await self._admitted_once(request, target, operation, name, attempt, warnings)

        obj = await conversions.run_converting_async(once)
        return await at_request_version(self.engine, target, obj)

    async def _admitted_once(
        self,
        request: web.Request,
        target: Target,
        operation: str,
        name: str,
        attempt: Callable[[bool], dict[str, Any]],
        warnings: list[str],
    ) -> dict[str, Any]:
        if self.admission is None:
            return attempt(dry_run_requested(request))
        query = request.query
        write = WriteRequest(
            request_user(request),
            target.served,
            operation,
            target.namespace or "",
            name,
            target.subresource,
            attempt,
            dry_run_requested(request),
            warnings,
            sent_options=_sent_options(query) if query else None,
        )
        return await self.admission.write(write)

    async def handle(self, request: web.Request) -> web.StreamResponse:
        target = resolve(self.registry, request.path)
        request["served"] = target.served  # read by the app's response hooks (Warning headers)
        method = request.method
        if target.legacy_watch and method != "GET":
            raise failures.method_not_allowed(target.served.info, _NOT_ALLOWED)
        if target.subresource:
            return await self._subresource(request, target)
        if not target.name:
            if method == "GET":
                return await self.lister.list_or_watch(request, target, tables)
            if method == "POST":
                return await self._create(request, target)
            if method == "DELETE":
                return await self._delete_collection(request, target)
        else:
            if method == "GET":
                if target.legacy_watch or query_bool(request.query, "watch"):
                    return await self.lister.list_or_watch(request, target, tables)
                self._verb(target, "get")
                obj = await get_object(self.engine, target)
                return self._object_response(request, target, obj)
            if method == "PUT":
                return await self._update(request, target)
            if method == "PATCH":
                return await self._patch(request, target)
            if method == "DELETE":
                return await self._delete(request, target)
        raise failures.method_not_allowed(target.served.info, _NOT_ALLOWED)

    def _write_options(
        self,
        request: web.Request,
        target: Target,
        operation: str,
        dry_run: bool,
        validation: str,
        warnings: list[str],
    ) -> WriteOptions:
        """The options of a create, update or non-apply patch: its manager (named after the
        ``operation`` when the request names none) records the managedFields."""
        manager = field_manager(request, operation)
        return WriteOptions(
            dry_run=dry_run,
            field_manager=manager,
            field_validation=validation,
            fields=tracker(self.engine, target.served, manager),
            warnings=warnings,
        )

    @staticmethod
    def _verb(target: Target, verb: str) -> None:
        if verb not in target.served.verbs:
            raise failures.method_not_allowed(target.served.info, _NOT_ALLOWED)

    def _object_response(
        self, request: web.Request, target: Target, obj: dict[str, Any], status: int = 200
    ) -> web.Response:
        if request.headers.get("Accept") in _PLAIN_JSON:
            return json_response(obj, status)  # what the checks below answer for these
        conversion = partial.negotiate(request)  # metadata only, when asked for first
        if conversion is not None:
            return partial.object_response(conversion, target.served, obj, status)
        if tables.wants_table(request):
            include = request.query.get("includeObject", "Metadata")
            body = tables.to_table(target.served, [obj], {"resourceVersion": ""}, include)
            return table_response(tables, body, status)
        return protobody.object_response(request, obj, status)

    async def _create(self, request: web.Request, target: Target) -> web.Response:
        self._verb(target, "create")
        if target.served.info.namespaced and target.namespace is None:
            raise failures.method_not_allowed(target.served.info, _NOT_ALLOWED)
        warnings = request_warnings(request)
        body = await read_object(request, target.served, warnings)
        validation = field_validation(request)

        self.engine.strategy(target.served).record_requester(body, request_user(request))

        def attempt(dry_run: bool) -> dict[str, Any]:
            options = self._write_options(request, target, "Create", dry_run, validation, warnings)
            return self.engine.create(target.served, target.namespace or "", body, options)

        name = str((body.get("metadata") or {}).get("name") or "")
        obj = await self._admitted(request, target, "CREATE", name, attempt, warnings)
        return self._object_response(request, target, obj, 201)

    async def _update(self, request: web.Request, target: Target) -> web.Response:
        self._verb(target, "update")
        warnings = request_warnings(request)
        body = await read_object(request, target.served, warnings)
        validation = field_validation(request)
        created = False

        def attempt(dry_run: bool) -> dict[str, Any]:
            nonlocal created
            options = self._write_options(request, target, "Update", dry_run, validation, warnings)
            obj, created = self.engine.update(
                target.served,
                target.namespace or "",
                target.name,
                body,
                options,
                subresource=target.subresource,
            )
            return obj

        obj = await self._admitted(request, target, "UPDATE", target.name, attempt, warnings)
        return self._object_response(request, target, obj, 201 if created else 200)

    async def _patch(self, request: web.Request, target: Target) -> web.Response:
        self._verb(target, "patch")
        content_type = request.content_type
        allowed = _PATCH_TYPES if target.served.builtin else _CR_PATCH_TYPES
        if content_type not in allowed:
            raise failures.unsupported_media_type(content_type, allowed)
        dry_run_requested(request)  # an invalid dryRun is a 400 before anything else
        if content_type == APPLY_PATCH:
            return await self._apply(request, target)
        if "force" in request.query:
            raise _patch_options_invalid(
                "force", "Forbidden", "may not be specified for non-apply patch"
            )
        patch = decode_body(await read_body(request), content_type)
        warnings = request_warnings(request)
        validation = field_validation(request)

        def attempt(dry_run: bool) -> dict[str, Any]:
            options = self._write_options(request, target, "Patch", dry_run, validation, warnings)
            return self.engine.patch(
                target.served,
                target.namespace or "",
                target.name,
                content_type,
                patch,
                options,
                subresource=target.subresource,
            )

        obj = await self._admitted(request, target, "UPDATE", target.name, attempt, warnings)
        return self._object_response(request, target, obj)

    async def _apply(self, request: web.Request, target: Target) -> web.Response:
        """Server-side apply (``application/apply-patch+yaml``); 201 when it creates."""
        if not request.query.get("fieldManager"):
            raise _patch_options_invalid("fieldManager", "Required", "is required for apply patch")
        manager = field_manager(request, "Patch")
        force = query_bool(request.query, "force")
        raw = await read_body(request)
        validation = field_validation(request)
        warnings = request_warnings(request)
        created = False

        def attempt(dry_run: bool) -> dict[str, Any]:
            nonlocal created
            options = WriteOptions(
                dry_run=dry_run,
                field_manager=manager,
                field_validation=validation,
                force=force,
                warnings=warnings,
            )
            namespace = target.namespace or ""
            obj, created = server_side_apply(
                self.engine, target.served, namespace, target.name, raw, options, target.subresource
            )
            return obj

        exists = self.engine.storage.get(
            target.served.storage_key, target.namespace or "", target.name
        )
        operation = "UPDATE" if exists is not None else "CREATE"
        obj = await self._admitted(request, target, operation, target.name, attempt, warnings)
        return self._object_response(request, target, obj, 201 if created else 200)

    async def _subresource(self, request: web.Request, target: Target) -> web.Response:
        if target.subresource == "finalize":
            if request.method != "PUT":
                raise failures.method_not_allowed(target.served.info, _NOT_ALLOWED)
            body = await read_object(request, target.served)

            def finalize(dry_run: bool) -> dict[str, Any]:
                return deletion.finalize_namespace(self.engine, target.name, body, dry_run=dry_run)

            return json_response(
                await self._admitted_once(request, target, "UPDATE", target.name, finalize, [])
            )
        if target.subresource == "scale":
            return await scale(self.engine, request, target)
        if target.subresource == "eviction":
            return await evict(self.engine, request, target, self.admission)
        # approval: CSRs only; ephemeralcontainers: pods only (each only where served)
        if target.subresource not in ("status", "approval", "ephemeralcontainers"):
            raise failures.resource_not_found()
        if request.method == "GET":
            obj = await get_object(self.engine, target)
            return self._object_response(request, target, obj)
        if request.method == "PUT":
            return await self._update(request, target)
        if request.method == "PATCH":
            return await self._patch(request, target)
        raise failures.method_not_allowed(target.served.info, _NOT_ALLOWED)

    async def _delete(self, request: web.Request, target: Target) -> web.StreamResponse:
        self._verb(target, "delete")
        return await deletes.delete(self.engine, self.admission, request, target)

    async def _delete_collection(self, request: web.Request, target: Target) -> web.Response:
        self._verb(target, "deletecollection")
        if target.served.info.namespaced and target.namespace is None:
            raise failures.method_not_allowed(target.served.info, _NOT_ALLOWED)
        return await deletes.delete_collection(
            self.engine, self.admission, self.lister.select, request, target
        )


_NOT_ALLOWED = "the server does not allow this method on the requested resource"


def _sent_options(query: Any) -> dict[str, Any] | None:
    """The ``CreateOptions``/``UpdateOptions`` fields a write's query sets, as its review's
    ``options`` shows them (a patch's are made ``UpdateOptions``, or ``CreateOptions``
    when an apply creates: ``force`` is not among their fields)."""
    fields: dict[str, Any] = {}
    dry_run = query.getall("dryRun", [])
    if dry_run:
        fields["dryRun"] = list(dry_run)
    for key in ("fieldManager", "fieldValidation"):
        value = query.get(key)
        if value:
            fields[key] = value
    return fields or None


def _patch_options_invalid(field: str, kind: str, detail: str) -> failures.StatusError:
    return failures.invalid(
        "PatchOptions", "meta.k8s.io", "", [failures.FieldError(kind, field, detail)]
    )
