"""REST handlers: URL -> resource, query and body parsing, and the answer for every verb.

Entry point: ``ResourceHandlers.handle``, mounted by ``server.app`` on ``/api/...`` and
``/apis/...`` after discovery's routes. URL layout and verb mapping follow the
real server's request-info rules (``/namespaces/{ns}/{resource}/{name}/{sub}``;
``namespaces/{name}/status|finalize`` are subresources of the namespace itself).
List pagination, resourceVersion semantics and selectors live in ``listing``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson
from aiohttp import web

from kubeforge.apiserver import failures
from kubeforge.apiserver.admission.chain import Admission
from kubeforge.apiserver.endpoints import partial, protobody, tables
from kubeforge.apiserver.endpoints.access import request_user
from kubeforge.apiserver.endpoints.bodies import (
    APPLY_PATCH,
    body_content_type,
    decode_body,
    dry_run_requested,
    field_validation,
    read_body,
)
from kubeforge.apiserver.endpoints.deleteoptions import parse_options
from kubeforge.apiserver.endpoints.eviction import evict
from kubeforge.apiserver.endpoints.listing import Lister
from kubeforge.apiserver.endpoints.request import Target, resolve
from kubeforge.apiserver.endpoints.responses import add_warnings, json_response, table_response
from kubeforge.apiserver.endpoints.typecheck import check_decodable
from kubeforge.apiserver.fieldmanager.apply import (
    field_manager,
    server_side_apply,
    tracker,
)
from kubeforge.apiserver.meta.fieldvalidation import check_duplicates
from kubeforge.apiserver.meta.queryparams import query_bool
from kubeforge.apiserver.patch.formats import (
    JSON_PATCH,
    MERGE_PATCH,
    STRATEGIC_MERGE_PATCH,
    PatchApplyError,
    PatchDecodeError,
    apply_patch,
)
from kubeforge.apiserver.protobuf import wire
from kubeforge.apiserver.registry import conversions, deletion
from kubeforge.apiserver.registry.engine import Engine
from kubeforge.apiserver.registry.options import WriteOptions
from kubeforge.apiserver.registry.scale import ScalePaths, apply_scale, to_scale
from kubeforge.apiserver.registry.served import Registry, ServedResource
from kubeforge.apiserver.storage.sqlite import clone
from kubeforge.core.status import success

__all__ = ["ResourceHandlers"]

# In the real server's order (its 415 message lists them so).
_PATCH_TYPES = (JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, APPLY_PATCH)
_CR_PATCH_TYPES = (JSON_PATCH, MERGE_PATCH, APPLY_PATCH)
_BODY_TYPES = ("application/json", "application/yaml")
_PROTOBUF = "application/vnd.kubernetes.protobuf"


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

        return await self._finished(target, await conversions.run_converting_async(once))

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
        return await self.admission.write(
            request_user(request),
            dry_run_requested(request),
            target.served,
            operation,
            target.namespace or "",
            name,
            target.subresource,
            attempt,
            warnings,
        )

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
                obj = await self._get(target)
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

    async def _finished(self, target: Target, obj: dict[str, Any]) -> dict[str, Any]:
        """``obj`` at the request's version: a write answers with what it stored, which
        may still need the conversion webhook (``Engine.committed_view``)."""
        info = target.served.info
        if obj.get("kind") != info.kind or obj.get("apiVersion") == info.api_version:
            return obj
        return await conversions.run_converting(lambda: self.engine.view(target.served, obj))

    async def _get(self, target: Target) -> dict[str, Any]:
        namespace, name = target.namespace or "", target.name
        return await conversions.run_converting(
            lambda: self.engine.get(target.served, namespace, name)
        )

    @staticmethod
    def _verb(target: Target, verb: str) -> None:
        if verb not in target.served.verbs:
            raise failures.method_not_allowed(target.served.info, _NOT_ALLOWED)

    def _object_response(
        self, request: web.Request, target: Target, obj: dict[str, Any], status: int = 200
    ) -> web.Response:
        conversion = partial.negotiate(request)  # metadata only, when asked for first
        if conversion is not None:
            return partial.object_response(conversion, target.served, obj, status)
        if tables.wants_table(request):
            include = request.query.get("includeObject", "Metadata")
            body = tables.to_table(target.served, [obj], {"resourceVersion": ""}, include)
            return table_response(tables, body, status)
        return protobody.object_response(request, obj, status)

    async def _body(
        self, request: web.Request, target: Target, warnings: list[str] | None = None
    ) -> dict[str, Any]:
        content_type = body_content_type(request)
        accepted = (*_BODY_TYPES, _PROTOBUF)
        raw: bytes | None = None
        if content_type == _PROTOBUF:
            info = target.served.info
            try:
                body = protobody.decode_protobuf(
                    await read_body(request), info.api_version, info.kind
                )
            except wire.UnsupportedKind:
                raise failures.unsupported_media_type(content_type, accepted) from None
        elif content_type in _BODY_TYPES:
            raw = await read_body(request)
            body = decode_body(raw, content_type)
            if content_type != "application/json":
                raw = None
        else:
            raise failures.unsupported_media_type(content_type, accepted)
        body = {} if body is None else body
        check_decodable(target.served, body, raw)
        if raw is not None:
            check_duplicates(raw, target.served.info, field_validation(request), warnings)
        self._check_type(target.served, body)
        return body

    @staticmethod
    def _check_type(served: ServedResource, body: dict[str, Any]) -> None:
        info = served.info
        api_version, kind = body.get("apiVersion"), body.get("kind")
        if not served.builtin and (not api_version or not kind):
            missing = "Kind" if not kind else "Version"
            raise failures.bad_request(
                f"Object '{missing}' is missing in '{orjson.dumps(body).decode()[:1024]}'"
            )
        if api_version and api_version != info.api_version:
            raise failures.bad_request(
                f"the API version in the data ({api_version}) does not match the expected API "
                f"version ({info.api_version})"
            )
        if kind and kind != info.kind:
            raise failures.bad_request(
                f"the kind in the data ({kind}) does not match the expected kind ({info.kind})"
            )

    async def _create(self, request: web.Request, target: Target) -> web.Response:
        self._verb(target, "create")
        if target.served.info.namespaced and target.namespace is None:
            raise failures.method_not_allowed(target.served.info, _NOT_ALLOWED)
        warnings: list[str] = []
        body = await self._body(request, target, warnings)
        validation = field_validation(request)

        self.engine.strategy(target.served).record_requester(body, request_user(request))

        def attempt(dry_run: bool) -> dict[str, Any]:
            options = self._write_options(request, target, "Create", dry_run, validation, warnings)
            return self.engine.create(target.served, target.namespace or "", body, options)

        name = str((body.get("metadata") or {}).get("name") or "")
        obj = await self._admitted(request, target, "CREATE", name, attempt, warnings)
        return _warn(self._object_response(request, target, obj, 201), warnings)

    async def _update(self, request: web.Request, target: Target) -> web.Response:
        self._verb(target, "update")
        warnings: list[str] = []
        body = await self._body(request, target, warnings)
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
        response = self._object_response(request, target, obj, 201 if created else 200)
        return _warn(response, warnings)

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
        warnings: list[str] = []
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
        return _warn(self._object_response(request, target, obj), warnings)

    async def _apply(self, request: web.Request, target: Target) -> web.Response:
        """Server-side apply (``application/apply-patch+yaml``); 201 when it creates."""
        if not request.query.get("fieldManager"):
            raise _patch_options_invalid("fieldManager", "Required", "is required for apply patch")
        manager = field_manager(request, "Patch")
        force = query_bool(request.query, "force")
        raw = await read_body(request)
        validation = field_validation(request)
        warnings: list[str] = []
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
        response = self._object_response(request, target, obj, 201 if created else 200)
        return _warn(response, warnings)

    async def _subresource(self, request: web.Request, target: Target) -> web.Response:
        if target.subresource == "finalize":
            if request.method != "PUT":
                raise failures.method_not_allowed(target.served.info, _NOT_ALLOWED)
            body = await self._body(request, target)
            return json_response(deletion.finalize_namespace(self.engine, target.name, body))
        if target.subresource == "scale":
            return await self._scale(request, target)
        if target.subresource == "eviction":
            return await evict(self.engine, request, target, self.admission)
        # approval: CSRs only; ephemeralcontainers: pods only (each only where served)
        if target.subresource not in ("status", "approval", "ephemeralcontainers"):
            raise failures.resource_not_found()
        if request.method == "GET":
            obj = await self._get(target)
            return self._object_response(request, target, obj)
        if request.method == "PUT":
            return await self._update(request, target)
        if request.method == "PATCH":
            return await self._patch(request, target)
        raise failures.method_not_allowed(target.served.info, _NOT_ALLOWED)

    async def _scale(self, request: web.Request, target: Target) -> web.Response:
        """``/scale`` of a custom resource or an apps workload, as an ``autoscaling/v1`` Scale."""
        paths = getattr(self.engine.strategy(target.served), "scale_paths", None)
        if not isinstance(paths, ScalePaths):
            raise failures.resource_not_found()
        namespace = target.namespace or ""
        current = await self._get(target)
        if request.method == "GET":
            return json_response(to_scale(current, paths))
        if request.method not in ("PUT", "PATCH"):
            raise failures.method_not_allowed(target.served.info, _NOT_ALLOWED)
        if request.method == "PUT":
            scale = decode_body(await read_body(request), body_content_type(request))
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
                scale = apply_patch(content_type, to_scale(current, paths), patch)
            except (PatchApplyError, PatchDecodeError) as error:
                raise failures.bad_request(str(error)) from None
        if not isinstance(scale, dict):
            raise failures.bad_request("the body must be a Scale object")
        body = clone(current)
        given_rv = (scale.get("metadata") or {}).get("resourceVersion")
        if given_rv:
            body["metadata"]["resourceVersion"] = given_rv
        apply_scale(body, scale, paths)
        options = WriteOptions(dry_run=dry_run_requested(request))
        obj, _ = await conversions.run_converting(
            lambda: self.engine.update(target.served, namespace, target.name, body, options)
        )
        return json_response(to_scale(await self._finished(target, obj), paths))

    async def _delete(self, request: web.Request, target: Target) -> web.Response:
        self._verb(target, "delete")
        options = await parse_options(request)
        if self.admission is not None:
            await self._admit_delete(request, target, target.namespace or "", target.name)
        obj, gone = await conversions.run_converting(
            lambda: deletion.delete(
                self.engine, target.served, target.namespace or "", target.name, options
            )
        )
        strategy = self.engine.strategy(target.served)
        if gone and not strategy.return_deleted_object:
            info = target.served.info
            details: dict[str, Any] = {"name": target.name}
            if info.group:
                details["group"] = info.group
            details["kind"] = info.plural
            details["uid"] = obj["metadata"].get("uid")
            return json_response(success(details))
        return protobody.object_response(request, await self._finished(target, obj))

    async def _admit_delete(
        self, request: web.Request, target: Target, namespace: str, name: str
    ) -> None:
        """Admission of one DELETE; the webhooks' ``oldObject`` may need converting first."""
        admission = self.admission
        assert admission is not None
        user, dry_run = request_user(request), dry_run_requested(request)
        await conversions.run_converting_async(
            lambda: admission.delete(user, dry_run, target.served, namespace, name)
        )

    async def _delete_collection(self, request: web.Request, target: Target) -> web.Response:
        self._verb(target, "deletecollection")
        if target.served.info.namespaced and target.namespace is None:
            raise failures.method_not_allowed(target.served.info, _NOT_ALLOWED)
        options = await parse_options(request)
        selected = self.lister.select(request, target)
        deleted: list[dict[str, Any]] = []
        for obj in selected:
            meta = obj["metadata"]
            namespace, name = meta.get("namespace") or "", meta["name"]
            if self.admission is not None:
                await self._admit_delete(request, target, namespace, name)
            try:
                last, _ = await conversions.run_converting(
                    lambda n=namespace, m=name: deletion.delete(  # type: ignore[misc]
                        self.engine, target.served, n, m, options
                    )
                )
            except failures.StatusError as error:
                if error.code == 404:
                    continue  # deleted meanwhile: not an error for a collection delete
                raise
            deleted.append(await self._finished(target, last))
        info = target.served.info
        return json_response(
            {
                "kind": info.list_kind,
                "apiVersion": info.api_version,
                "metadata": {"resourceVersion": str(self.engine.storage.revision)},
                "items": deleted,
            }
        )


_NOT_ALLOWED = "the server does not allow this method on the requested resource"


def _patch_options_invalid(field: str, kind: str, detail: str) -> failures.StatusError:
    return failures.invalid(
        "PatchOptions", "meta.k8s.io", "", [failures.FieldError(kind, field, detail)]
    )


def _warn(response: web.Response, warnings: list[str]) -> web.Response:
    add_warnings(response, warnings)
    return response
