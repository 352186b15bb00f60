"""Resources that are answered, never stored: access reviews, identity reviews, token requests.

* ``authorization.k8s.io/v1``: SelfSubjectAccessReview (``kubectl auth can-i``),
  SubjectAccessReview, LocalSubjectAccessReview and SelfSubjectRulesReview
  (``kubectl auth can-i --list``), answered by the server's authorizer.
* ``authentication.k8s.io/v1``: SelfSubjectReview (``kubectl auth whoami``) and
  TokenReview.
* ``POST /api/v1/namespaces/{ns}/serviceaccounts/{name}/token``: a TokenRequest, what
  ``kubectl create token`` sends (``tokenrequest``); the token authenticates as the
  ServiceAccount. TokenReview answers with the real authenticator's reasons.

Each is a POST that returns the request with its ``status`` filled in (201), after the
usual authentication and authorization of the POST itself.

Entry point: ``add_routes(app, access, engine)``, called before the generic
resource routes so these paths are served here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from kubeforge.apiserver import failures
from kubeforge.apiserver.authn.authenticator import UserInfo
from kubeforge.apiserver.authz.attributes import Attributes
from kubeforge.apiserver.endpoints.access import Access, request_user
from kubeforge.apiserver.endpoints.bodies import body_content_type, decode_body, read_body
from kubeforge.apiserver.endpoints.protobody import decode_protobuf
from kubeforge.apiserver.endpoints.responses import json_response
from kubeforge.apiserver.endpoints.tokenrequest import issue_token
from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.protobuf import wire
from kubeforge.apiserver.registry.engine import Engine
from kubeforge.apiserver.registry.gotypes import Field, check_fields

__all__ = ["add_routes"]

_AUTHZ = "authorization.k8s.io"
_PROTOBUF = "application/vnd.kubernetes.protobuf"
_AUTHN = "authentication.k8s.io"

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

_ATTRIBUTES = ("namespace", "verb", "group", "version", "resource", "subresource", "name")
# The typed fields of the review and TokenRequest bodies, as Go's decoder checks them.
_REVIEW_FIELDS: dict[str, Field] = {
    "metadata": ("", "v1.ObjectMeta"),
    "spec": ("", "spec"),
    "spec.resourceAttributes": ("spec", "*v1.ResourceAttributes"),
    "spec.nonResourceAttributes": ("spec", "*v1.NonResourceAttributes"),
    "spec.nonResourceAttributes.path": ("NonResourceAttributes", "string"),
    "spec.nonResourceAttributes.verb": ("NonResourceAttributes", "string"),
    **{f"spec.resourceAttributes.{n}": ("ResourceAttributes", "string") for n in _ATTRIBUTES},
    **{f"spec.{n}": ("spec", "string") for n in ("user", "uid", "namespace", "token")},
    "spec.groups": ("spec", "[]string"),
    "spec.audiences": ("spec", "[]string"),
    "spec.extra": ("spec", "map[string]v1.ExtraValue"),
    "spec.expirationSeconds": ("TokenRequestSpec", "int64"),
    "spec.boundObjectRef": ("TokenRequestSpec", "*v1.BoundObjectReference"),
    **{
        f"spec.boundObjectRef.{n}": ("BoundObjectReference", "string")
        for n in ("kind", "apiVersion", "name", "uid")
    },
}


async def _body(request: web.Request, group: str, kind: str) -> dict[str, Any]:
    content_type = body_content_type(request)
    raw = await read_body(request)
    body: Any
    if content_type == _PROTOBUF:  # kubectl auth can-i, whoami and create token send it
        try:
            body = decode_protobuf(raw, f"{group}/v1", kind)
        except wire.UnsupportedKind as error:
            raise failures.bad_request(str(error)) from None
    else:
        body = decode_body(raw, content_type)
    if not isinstance(body, dict):
        raise failures.bad_request(f"the body must be a {kind} object")
    api_version = f"{group}/v1"
    if body.get("apiVersion") not in (None, "", api_version):
        raise failures.bad_request(
            f"the API version in the data ({body.get('apiVersion')}) does not match the expected "
            f"API version ({api_version})"
        )
    if body.get("kind") not in (None, "", kind):
        raise failures.bad_request(
            f"the kind in the data ({body.get('kind')}) does not match the expected kind ({kind})"
        )
    check_fields(kind, "v1", body, _REVIEW_FIELDS)
    return body


def _answer(group: str, kind: str, body: dict[str, Any], status: dict[str, Any]) -> web.Response:
    meta = dict(body.get("metadata") or {})
    meta.setdefault("creationTimestamp", None)
    answer = {
        "kind": kind,
        "apiVersion": f"{group}/v1",
        "metadata": meta,
        "spec": body.get("spec") or {},
        "status": status,
    }
    return json_response(answer, 201)


def _attributes(spec: dict[str, Any]) -> Attributes | list[FieldError]:
    resource, other = spec.get("resourceAttributes"), spec.get("nonResourceAttributes")
    if bool(resource) == bool(other):
        return [
            FieldError(
                "Invalid",
                "spec.resourceAttributes",
                "exactly one of nonResourceAttributes or resourceAttributes must be specified",
                resource,
            )
        ]
    if isinstance(other, dict):
        return Attributes(
            str(other.get("verb") or ""), resource_request=False, path=str(other.get("path") or "")
        )
    assert isinstance(resource, dict)
    return Attributes(
        str(resource.get("verb") or ""),
        api_group=str(resource.get("group") or ""),
        api_version=str(resource.get("version") or ""),
        namespace=str(resource.get("namespace") or ""),
        resource=str(resource.get("resource") or ""),
        subresource=str(resource.get("subresource") or ""),
        name=str(resource.get("name") or ""),
    )


class _Reviews:
    def __init__(self, access: Access, engine: Engine) -> None:
        self.access = access
        self.engine = engine

    def _decide(self, user: UserInfo, attrs: Attributes) -> dict[str, Any]:
        if user.privileged:
            return {"allowed": True}
        decision = self.access.authorizer.authorize(user, attrs)
        status: dict[str, Any] = {"allowed": decision.allowed}
        if decision.reason:
            status["reason"] = decision.reason
        return status

    async def self_access(self, request: web.Request) -> web.Response:
        kind = "SelfSubjectAccessReview"
        body = await _body(request, _AUTHZ, kind)
        spec = body.get("spec") or {}
        attrs = _attributes(spec)
        if isinstance(attrs, list):
            raise failures.invalid(kind, _AUTHZ, "", attrs)
        return _answer(_AUTHZ, kind, body, self._decide(request_user(request), attrs))

    async def subject_access(self, request: web.Request) -> web.Response:
        kind = "SubjectAccessReview"
        body = await _body(request, _AUTHZ, kind)
        spec = body.get("spec") or {}
        errors: list[FieldError] = []
        attrs = _attributes(spec)
        if isinstance(attrs, list):
            errors += attrs
        if not spec.get("user") and not spec.get("groups"):
            errors.append(
                FieldError(
                    "Invalid", "spec.user", "at least one of user or group must be specified", ""
                )
            )
        if errors or isinstance(attrs, list):
            raise failures.invalid(kind, _AUTHZ, "", errors)
        return _answer(_AUTHZ, kind, body, self._decide(_subject(spec), attrs))

    async def local_access(self, request: web.Request) -> web.Response:
        kind = "LocalSubjectAccessReview"
        namespace = request.match_info["namespace"]
        body = await _body(request, _AUTHZ, kind)
        spec = body.get("spec") or {}
        errors: list[FieldError] = []
        if spec.get("nonResourceAttributes"):
            errors.append(
                FieldError(
                    "Invalid",
                    "spec.nonResourceAttributes",
                    "disallowed on this kind of request",
                    spec["nonResourceAttributes"],
                )
            )
        given = (spec.get("resourceAttributes") or {}).get("namespace")
        if given != namespace:
            errors.append(
                FieldError(
                    "Invalid",
                    "spec.resourceAttributes.namespace",
                    "must match metadata.namespace",
                    given or "",
                )
            )
        attrs = _attributes(spec)
        if isinstance(attrs, list):
            errors += attrs
        if errors or isinstance(attrs, list):
            raise failures.invalid(kind, _AUTHZ, "", errors)
        body.setdefault("metadata", {})["namespace"] = namespace
        return _answer(_AUTHZ, kind, body, self._decide(_subject(spec), attrs))

    async def self_rules(self, request: web.Request) -> web.Response:
        kind = "SelfSubjectRulesReview"
        body = await _body(request, _AUTHZ, kind)
        namespace = str((body.get("spec") or {}).get("namespace") or "")
        rules, errors = self.access.authorizer.rules_for(request_user(request), namespace)
        status: dict[str, Any] = {
            "resourceRules": [_resource_rule(r) for r in rules if not r.get("nonResourceURLs")],
            "nonResourceRules": [
                {"verbs": r.get("verbs") or [], "nonResourceURLs": r["nonResourceURLs"]}
                for r in rules
                if r.get("nonResourceURLs")
            ],
            "incomplete": bool(errors),
        }
        if errors:
            status["evaluationError"] = "; ".join(errors)
        return _answer(_AUTHZ, kind, body, status)

    async def self_subject(self, request: web.Request) -> web.Response:
        kind = "SelfSubjectReview"
        await _body(request, _AUTHN, kind)  # validated, though it carries nothing to read
        answer = {
            "kind": kind,
            "apiVersion": f"{_AUTHN}/v1",
            "metadata": {"creationTimestamp": None},
            "status": {"userInfo": request_user(request).to_dict()},
        }
        return json_response(answer, 201)

    async def token_review(self, request: web.Request) -> web.Response:
        kind = "TokenReview"
        body = await _body(request, _AUTHN, kind)
        spec = body.get("spec") or {}
        token = str(spec.get("token") or "")
        if not token:
            raise failures.bad_request("token is required for TokenReview in authentication")
        audiences = tuple(str(a) for a in spec.get("audiences") or [])
        outcome = self.access.authenticator.review(token, audiences)
        # TokenReviewStatus's fields are omitempty but for ``user``, a struct.
        status: dict[str, Any] = {"user": outcome.user.to_dict() if outcome.user else {}}
        if outcome.user is not None:
            status = {"authenticated": True, **status, "audiences": list(outcome.audiences)}
        if outcome.error:
            status["error"] = outcome.error
        return _answer(_AUTHN, kind, body, status)

    async def token_request(self, request: web.Request) -> web.Response:
        namespace, name = request.match_info["namespace"], request.match_info["name"]
        body = await _body(request, _AUTHN, "TokenRequest")
        return json_response(
            issue_token(self.engine, self.access.authenticator, namespace, name, body), 201
        )


def _subject(spec: dict[str, Any]) -> UserInfo:
    groups = tuple(str(g) for g in spec.get("groups") or [])
    extra = {str(k): tuple(v) for k, v in (spec.get("extra") or {}).items()}
    return UserInfo(str(spec.get("user") or ""), str(spec.get("uid") or ""), groups, extra)


def _resource_rule(rule: dict[str, Any]) -> dict[str, Any]:
    out = {
        "verbs": rule.get("verbs") or [],
        "apiGroups": rule.get("apiGroups") or [],
        "resources": rule.get("resources") or [],
    }
    if rule.get("resourceNames"):
        out["resourceNames"] = rule["resourceNames"]
    return out


def add_routes(app: web.Application, access: Access, engine: Engine) -> None:
    """Mount the review and token endpoints (POST only; other methods fall through)."""
    reviews = _Reviews(access, engine)
    routes: dict[str, Handler] = {
        f"/apis/{_AUTHZ}/v1/selfsubjectaccessreviews": reviews.self_access,
        f"/apis/{_AUTHZ}/v1/subjectaccessreviews": reviews.subject_access,
        f"/apis/{_AUTHZ}/v1/namespaces/{{namespace}}/localsubjectaccessreviews": (
            reviews.local_access
        ),
        f"/apis/{_AUTHZ}/v1/selfsubjectrulesreviews": reviews.self_rules,
        f"/apis/{_AUTHN}/v1/selfsubjectreviews": reviews.self_subject,
        f"/apis/{_AUTHN}/v1/tokenreviews": reviews.token_review,
        "/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token": reviews.token_request,
    }
    for path, handler in routes.items():
        app.router.add_post(path, handler)
