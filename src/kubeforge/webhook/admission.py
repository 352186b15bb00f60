"""Admission webhooks over HTTP: ``AdmissionRequest``, ``AdmissionResponse``, ``AdmissionWebhook``.

Entry point: ``AdmissionWebhook(handler)``, an aiohttp handler for one path of the
``WebhookServer``. ``handler`` is any (async or plain) function from an
``AdmissionRequest`` to an ``AdmissionResponse``: the raw face, for what the typed
defaulter and validator (``typed``) do not cover. The HTTP side follows
controller-runtime's ``admission.Webhook``: an ``AdmissionReview`` of
``admission.k8s.io/v1`` or ``v1beta1`` in, the same version out, always with HTTP
200 and the request's ``uid``; an empty body, a body over 7 MiB, a content type other
than ``application/json`` or an undecodable review are answered with a ``400``
result. A handler that raises ``Denied``/``Invalid`` refuses the request; one that
raises an ``ApiError`` refuses it with that Status; one that raises anything else has
a bug: the answer is ``allowed: false`` with code 500 and the exception in the
message (controller-runtime's recovered panic), never a hung request.

Example::

    async def no_privileged(req: AdmissionRequest) -> AdmissionResponse:
        if req.object and req.object["spec"].get("privileged"):
            return AdmissionResponse.denied("privileged pods are not allowed here")
        return AdmissionResponse.allow()

    server.register("/validate-pods", AdmissionWebhook(no_privileged))
"""

from __future__ import annotations

import base64
import inspect
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
from aiohttp import web

from kubeforge.core.errors import ApiError
from kubeforge.webhook.denials import Denied

__all__ = [
    "MAX_REQUEST_BYTES",
    "AdmissionHandler",
    "AdmissionRequest",
    "AdmissionResponse",
    "AdmissionWebhook",
    "UserInfo",
    "read_json_body",
]

log = logging.getLogger("kubeforge.webhook")

MAX_REQUEST_BYTES = 7 * 1024 * 1024
"""controller-runtime's limit on a review's size (the API server caps objects at 3 MiB)."""

_VERSIONS = ("admission.k8s.io/v1", "admission.k8s.io/v1beta1")


@dataclass(frozen=True, slots=True)
class UserInfo:
    """Who made the request (``authentication.k8s.io/v1`` ``UserInfo``)."""

    username: str = ""
    uid: str = ""
    groups: tuple[str, ...] = ()
    extra: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> UserInfo:
        data = data or {}
        return cls(
            username=str(data.get("username") or ""),
            uid=str(data.get("uid") or ""),
            groups=tuple(str(g) for g in data.get("groups") or ()),
            extra={str(k): [str(x) for x in v] for k, v in (data.get("extra") or {}).items()},
        )


@dataclass(frozen=True, slots=True)
class AdmissionRequest:
    """``AdmissionReview.request``: what is being done to which object, by whom.

    ``object`` is the new object (CREATE, UPDATE), ``old_object`` the stored one
    (UPDATE, DELETE), as plain dicts; ``raw`` is the whole request as sent.
    """

    uid: str
    operation: str
    kind: dict[str, str]
    resource: dict[str, str]
    name: str = ""
    namespace: str = ""
    sub_resource: str = ""
    user_info: UserInfo = field(default_factory=UserInfo)
    object: dict[str, Any] | None = None
    old_object: dict[str, Any] | None = None
    dry_run: bool = False
    options: dict[str, Any] | None = None
    raw: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, request: dict[str, Any]) -> AdmissionRequest:
        return cls(
            uid=str(request.get("uid") or ""),
            operation=str(request.get("operation") or ""),
            kind=dict(request.get("kind") or {}),
            resource=dict(request.get("resource") or {}),
            name=str(request.get("name") or ""),
            namespace=str(request.get("namespace") or ""),
            sub_resource=str(request.get("subResource") or ""),
            user_info=UserInfo.from_dict(request.get("userInfo")),
            object=request.get("object"),
            old_object=request.get("oldObject"),
            dry_run=bool(request.get("dryRun")),
            options=request.get("options"),
            raw=request,
        )


@dataclass(slots=True)
class AdmissionResponse:
    """``AdmissionReview.response`` (the ``uid`` is filled in by ``AdmissionWebhook``)."""

    allowed: bool
    result: dict[str, Any] | None = None
    patch: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    audit_annotations: dict[str, str] = field(default_factory=dict)

    @classmethod
    def allow(cls, message: str = "", *, warnings: list[str] | None = None) -> AdmissionResponse:
        result: dict[str, Any] = {"metadata": {}, "code": 200}
        if message:
            result["message"] = message
        return cls(True, result, warnings=list(warnings or ()))

    @classmethod
    def denied(cls, message: str, *, warnings: list[str] | None = None) -> AdmissionResponse:
        """``403 Forbidden`` with ``message`` (controller-runtime's ``Denied``)."""
        return cls.from_denial(Denied(message, warnings=warnings or ()))

    @classmethod
    def errored(cls, code: int, message: str) -> AdmissionResponse:
        """``allowed: false`` with a bare code and message (controller-runtime's ``Errored``)."""
        return cls(False, {"metadata": {}, "code": code, "message": message})

    @classmethod
    def patched(cls, patch: list[dict[str, Any]]) -> AdmissionResponse:
        """Allowed with a JSON patch (no patch type is sent when ``patch`` is empty)."""
        return cls(True, None, patch=patch)

    @classmethod
    def from_denial(cls, denial: Denied) -> AdmissionResponse:
        return cls(False, denial.status(), warnings=list(denial.warnings))

    def to_dict(self, uid: str) -> dict[str, Any]:
        body: dict[str, Any] = {"uid": uid, "allowed": self.allowed}
        if self.result is not None:
            body["status"] = self.result
        if self.patch:
            body["patch"] = base64.b64encode(orjson.dumps(self.patch)).decode()
            body["patchType"] = "JSONPatch"
        if self.warnings:
            body["warnings"] = self.warnings
        if self.audit_annotations:
            body["auditAnnotations"] = self.audit_annotations
        return body


AdmissionHandler = Callable[[AdmissionRequest], Awaitable[AdmissionResponse] | AdmissionResponse]
"""A raw admission handler: plain or ``async``."""


async def read_json_body(request: web.Request) -> tuple[Any, str | None]:
    """The decoded JSON body, or ``(None, why)`` for what controller-runtime answers with 400."""
    if not request.can_read_body:
        return None, "request body is empty"
    body = await request.content.read(MAX_REQUEST_BYTES + 1)
    if not body:
        return None, "request body is empty"
    if len(body) > MAX_REQUEST_BYTES:
        return None, f"request entity is too large; limit is {MAX_REQUEST_BYTES} bytes"
    content_type = request.headers.get("Content-Type", "")
    if content_type != "application/json":
        return None, f"contentType={content_type}, expected application/json"
    try:
        return orjson.loads(body), None
    except orjson.JSONDecodeError as error:
        return None, f"couldn't decode the request body: {error}"


class AdmissionWebhook:
    """One admission path: decodes the review, runs ``handler``, writes the review back."""

    def __init__(
        self, handler: AdmissionHandler, *, on_panic: Callable[[], None] | None = None
    ) -> None:
        self.handler = handler
        self.on_panic = on_panic

    async def __call__(self, request: web.Request) -> web.Response:
        body, problem = await read_json_body(request)
        version = "admission.k8s.io/v1"
        if problem is None:
            version, problem = _review_version(body)
        if problem is not None:
            log.error("admission webhook %s: bad request: %s", request.path, problem)
            return _review(version, AdmissionResponse.errored(400, problem), "")
        req = AdmissionRequest.from_dict(body["request"])
        response = await self.handle(req)
        return _review(version, response, req.uid)

    async def handle(self, req: AdmissionRequest) -> AdmissionResponse:
        """``handler(req)``, with its refusals and failures turned into responses."""
        try:
            result = self.handler(req)
            if inspect.isawaitable(result):
                result = await result
            return result
        except Denied as denial:
            return AdmissionResponse.from_denial(denial)
        except ApiError as error:
            return AdmissionResponse(False, _status_of(error))
        except Exception as error:  # a bug in the handler: answer, never hang or drop
            log.exception("admission webhook handler for %s %s raised", req.operation, req.kind)
            if self.on_panic is not None:
                self.on_panic()
            return AdmissionResponse.errored(500, f"{type(error).__name__}: {error} [recovered]")


def _review_version(body: Any) -> tuple[str, str | None]:
    if not isinstance(body, dict) or body.get("kind") != "AdmissionReview":
        return "admission.k8s.io/v1", "the request body is not an AdmissionReview"
    version = str(body.get("apiVersion") or "")
    if version not in _VERSIONS:
        return "admission.k8s.io/v1", f'unsupported AdmissionReview version "{version}"'
    if not isinstance(body.get("request"), dict):
        return version, "the AdmissionReview has no request"
    return version, None


def _status_of(error: ApiError) -> dict[str, Any]:
    status = {k: v for k, v in error.status.items() if k not in ("kind", "apiVersion")}
    status.setdefault("metadata", {})
    status["code"] = error.code
    return status


def _review(version: str, response: AdmissionResponse, uid: str) -> web.Response:
    review = {"kind": "AdmissionReview", "apiVersion": version, "response": response.to_dict(uid)}
    return web.Response(body=orjson.dumps(review), content_type="application/json")
