"""Admission webhooks, called as a real server calls them: ``AdmissionReview`` over HTTPS.

A webhook of a Mutating/ValidatingWebhookConfiguration is called for a request when
one of its ``rules`` matches (operation, group, version, resource/subresource, scope),
its ``namespaceSelector`` matches the labels of the request's namespace (or of the
Namespace itself), and its ``objectSelector`` matches the object's labels (new or
old). Mutating webhooks run one after another (configurations by name, webhooks in
order) and their ``JSONPatch`` responses are applied; validating webhooks run
concurrently. The call is ``POST <url>?timeout=<N>s`` with ``admission.k8s.io/v1``
``AdmissionReview``, TLS verified against ``clientConfig.caBundle``.

Failures follow the real server: a denial answers the webhook's ``status`` (code 400
when it gives none) with ``admission webhook "<name>" denied the request: <message>``;
a webhook that cannot be called, times out or answers nonsense fails the request with
500 under ``failurePolicy: Fail`` and is skipped under ``Ignore``. A
``clientConfig.service`` cannot be reached from outside a cluster: such webhooks fail
(their ``failurePolicy`` decides). ``matchConditions`` are CEL expressions over
``object``, ``oldObject``, ``request``, ``namespaceObject`` and ``authorizer`` (the
server's authorizer, for the requesting user); the webhook is called only when all are
true, and an error is
handled by the ``failurePolicy``. Writes to webhook configurations themselves are never
sent to webhooks.

Entry point: ``Webhooks`` (``mutate``, ``validate``, ``may_match``).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import logging
import ssl
import uuid
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import orjson

from kubeforge.apiserver import failures
from kubeforge.apiserver.cel.admission_env import activation
from kubeforge.apiserver.cel.lib_authz import Authorize, Authorizer
from kubeforge.apiserver.cel.policy_compile import match_condition
from kubeforge.apiserver.cel.values import EvalError
from kubeforge.apiserver.failures import StatusError
from kubeforge.apiserver.meta.labelselector import selector_matches
from kubeforge.apiserver.patch.formats import (
    JSON_PATCH,
    PatchApplyError,
    PatchDecodeError,
    apply_patch,
)
from kubeforge.apiserver.storage.sqlite import Event, Storage
from kubeforge.core.status import failure

__all__ = ["AdmissionRequest", "Webhooks", "rule_matches"]

log = logging.getLogger("kubeforge.apiserver.webhooks")

_GROUP = "admissionregistration.k8s.io"
_MUTATING = (_GROUP, "mutatingwebhookconfigurations")
_VALIDATING = (_GROUP, "validatingwebhookconfigurations")
_EXEMPT = frozenset({"mutatingwebhookconfigurations", "validatingwebhookconfigurations"})
# RuntimeCELCostBudgetMatchConditions (k8s.io/apiserver pkg/apis/cel/config.go).
_MATCH_BUDGET = 2_500_000
_OPTIONS_KIND = {"CREATE": "CreateOptions", "UPDATE": "UpdateOptions", "DELETE": "DeleteOptions"}


@dataclass(frozen=True)
class AdmissionRequest:
    """One request as admission sees it (the fields of ``AdmissionReview.request``)."""

    operation: str  # CREATE UPDATE DELETE
    group: str
    version: str
    kind: str
    resource: str
    subresource: str
    namespace: str
    name: str
    namespaced: bool
    user: dict[str, Any]
    dry_run: bool = False
    uid: str = field(default_factory=lambda: str(uuid.uuid4()))
    object_kind: tuple[str, str, str] | None = None
    """(group, version, kind) of the object when it is not the resource's own kind: a
    ``pods/eviction`` request carries a ``policy/v1`` Eviction."""

    def review(
        self, obj: dict[str, Any] | None, old: dict[str, Any] | None, version: str
    ) -> dict[str, Any]:
        group, api_version, name = self.object_kind or (self.group, self.version, self.kind)
        kind = {"group": group, "version": api_version, "kind": name}
        resource = {"group": self.group, "version": self.version, "resource": self.resource}
        request: dict[str, Any] = {
            "uid": self.uid,
            "kind": kind,
            "resource": resource,
            "requestKind": kind,
            "requestResource": resource,
            "name": self.name,
            "operation": self.operation,
            "userInfo": self.user,
            "object": obj,
            "oldObject": old,
            "dryRun": self.dry_run,
            "options": {"kind": _OPTIONS_KIND[self.operation], "apiVersion": "meta.k8s.io/v1"},
        }
        if self.subresource:
            request["subResource"] = self.subresource
            request["requestSubResource"] = self.subresource
        if self.namespace:
            request["namespace"] = self.namespace
        return {
            "apiVersion": f"admission.k8s.io/{version}",
            "kind": "AdmissionReview",
            "request": request,
        }


@dataclass(frozen=True)
class _Hook:
    name: str
    configuration: str
    spec: dict[str, Any]


def rule_matches(rule: dict[str, Any], req: AdmissionRequest, exact: bool) -> bool:
    operations = rule.get("operations") or []
    if "*" not in operations and req.operation not in operations:
        return False
    groups = rule.get("apiGroups") or []
    if "*" not in groups and req.group not in groups:
        return False
    # Equivalent (the default) matches the same resource at any version it is served at.
    versions = rule.get("apiVersions") or []
    if exact and "*" not in versions and req.version not in versions:
        return False
    scope = rule.get("scope") or "*"
    if (scope == "Cluster" and req.namespaced) or (scope == "Namespaced" and not req.namespaced):
        return False
    wanted = f"{req.resource}/{req.subresource}" if req.subresource else req.resource
    for resource in rule.get("resources") or []:
        if resource == wanted or resource == "*/*":
            return True
        base, _, sub = resource.partition("/")
        if not req.subresource and resource == "*":
            return True
        if (
            req.subresource
            and sub
            and (base in ("*", req.resource))
            and sub in ("*", req.subresource)
        ):
            return True
    return False


class Webhooks:
    """The webhook configurations in storage, and the calls they ask for."""

    def __init__(self, storage: Storage, authorize: Authorize | None = None) -> None:
        self._storage = storage
        self._authorize = authorize
        self._hooks: dict[tuple[str, str], list[_Hook]] | None = None
        self._session: aiohttp.ClientSession | None = None
        storage.subscribe(self._on_event)

    def _on_event(self, event: Event) -> None:
        if event.resource in (_MUTATING, _VALIDATING):
            self._hooks = None

    def _all(self, key: tuple[str, str]) -> list[_Hook]:
        if self._hooks is None:
            self._hooks = {}
            for resource in (_MUTATING, _VALIDATING):
                hooks = []
                for config in self._storage.objects(resource):  # sorted by name already
                    for spec in config.get("webhooks") or []:
                        hooks.append(_Hook(spec.get("name", ""), config["metadata"]["name"], spec))
                self._hooks[resource] = hooks
        return self._hooks[key]

    @property
    def configured(self) -> bool:
        """Whether any webhook exists at all (the common case is none: nothing to do)."""
        return bool(self._all(_MUTATING) or self._all(_VALIDATING))

    def may_match(self, req: AdmissionRequest) -> bool:
        """Whether any webhook's rules match ``req`` (selectors not yet looked at)."""
        if req.group == _GROUP and req.resource in _EXEMPT:
            return False
        return any(
            self._rules_match(h, req) for key in (_MUTATING, _VALIDATING) for h in self._all(key)
        )

    @staticmethod
    def _rules_match(hook: _Hook, req: AdmissionRequest) -> bool:
        exact = hook.spec.get("matchPolicy") == "Exact"
        return any(rule_matches(r, req, exact) for r in hook.spec.get("rules") or [])

    def _selected(
        self, key: tuple[str, str], req: AdmissionRequest, objects: list[dict[str, Any]]
    ) -> list[_Hook]:
        if req.group == _GROUP and req.resource in _EXEMPT:
            return []
        chosen = []
        for hook in self._all(key):
            if not self._rules_match(hook, req):
                continue
            if not self._namespace_matches(hook, req, objects):
                continue
            selector = hook.spec.get("objectSelector") or {}
            if not any(
                selector_matches(selector, (obj.get("metadata") or {}).get("labels"))
                for obj in objects
            ):
                continue
            chosen.append(hook)
        return chosen

    def _namespace_matches(
        self, hook: _Hook, req: AdmissionRequest, objects: list[dict[str, Any]]
    ) -> bool:
        selector = hook.spec.get("namespaceSelector") or {}
        if not selector:
            return True
        if req.group == "" and req.resource == "namespaces":
            return any(
                selector_matches(selector, (o.get("metadata") or {}).get("labels")) for o in objects
            )
        if not req.namespaced:
            return True  # the namespace selector does not apply to cluster-scoped objects
        namespace = self._storage.get(("", "namespaces"), "", req.namespace) or {}
        return selector_matches(selector, (namespace.get("metadata") or {}).get("labels"))

    # --- calls ------------------------------------------------------------------------------

    def _conditions_hold(
        self,
        hook: _Hook,
        req: AdmissionRequest,
        obj: dict[str, Any] | None,
        old: dict[str, Any] | None,
    ) -> bool:
        """Whether every ``matchCondition`` is true; an error follows the failure policy."""
        conditions = hook.spec.get("matchConditions") or []
        if not conditions:
            return True
        namespace = None
        if req.namespace:
            namespace = self._storage.get(("", "namespaces"), "", req.namespace)
        request = req.review(None, None, "v1")["request"]
        authorizer = check = None
        if self._authorize is not None:
            authorizer = Authorizer(self._authorize, dict(req.user))
            check = authorizer.for_request(request)
        values = activation(
            obj=obj,
            old=old,
            request=request,
            namespace=namespace,
            authorizer=authorizer,
            request_resource=check,
        )
        for condition in conditions:
            name = condition.get("name", "")
            compiled = match_condition(str(condition.get("expression") or ""))
            try:
                if compiled.program is None:
                    raise EvalError(compiled.error)
                result, _ = compiled.program.evaluate(values, _MATCH_BUDGET)
            except EvalError as error:
                if hook.spec.get("failurePolicy") == "Ignore":
                    return False
                raise failures.internal_error(
                    f'failed calling webhook "{hook.name}": match condition "{name}" failed: '
                    f"{error}"
                ) from None
            if result is not True:
                return False
        return True

    async def mutate(
        self,
        req: AdmissionRequest,
        obj: dict[str, Any] | None,
        old: dict[str, Any] | None,
        warnings: list[str],
    ) -> dict[str, Any] | None:
        """Run the matching mutating webhooks in order; returns the (patched) object."""
        for hook in self._selected(_MUTATING, req, [o for o in (obj, old) if o is not None]):
            if not self._conditions_hold(hook, req, obj, old):
                continue
            response = await self._call(hook, req, obj, old, warnings)
            if response is None or obj is None or not response.get("patch"):
                continue
            obj = self._patched(hook, obj, response)
        return obj

    async def validate(
        self,
        req: AdmissionRequest,
        obj: dict[str, Any] | None,
        old: dict[str, Any] | None,
        warnings: list[str],
    ) -> None:
        """Run the matching validating webhooks concurrently; raise the first denial."""
        hooks = [
            hook
            for hook in self._selected(_VALIDATING, req, [o for o in (obj, old) if o is not None])
            if self._conditions_hold(hook, req, obj, old)
        ]
        results = await asyncio.gather(
            *(self._call(h, req, obj, old, warnings) for h in hooks), return_exceptions=True
        )
        for result in results:
            if isinstance(result, BaseException):
                raise result

    def _patched(
        self, hook: _Hook, obj: dict[str, Any], response: dict[str, Any]
    ) -> dict[str, Any]:
        if response.get("patchType") != "JSONPatch":
            raise _call_failed(hook, f'unsupported patch type "{response.get("patchType")}"')
        try:
            patch = orjson.loads(base64.b64decode(str(response["patch"])))
            patched = apply_patch(JSON_PATCH, obj, patch)
        except (binascii.Error, ValueError, PatchApplyError, PatchDecodeError) as error:
            raise failures.internal_error(
                f'failed calling webhook "{hook.name}": JSON patch failed: {error}'
            ) from None
        if not isinstance(patched, dict):
            raise _call_failed(hook, "the patch did not produce an object")
        return patched

    async def _call(
        self,
        hook: _Hook,
        req: AdmissionRequest,
        obj: dict[str, Any] | None,
        old: dict[str, Any] | None,
        warnings: list[str],
    ) -> dict[str, Any] | None:
        """One webhook call; ``None`` when it failed and its failure policy is Ignore."""
        versions = hook.spec.get("admissionReviewVersions") or ["v1"]
        version = "v1" if "v1" in versions else "v1beta1"
        try:
            response = await self._post(hook, req.review(obj, old, version), req.uid)
        except StatusError:
            if hook.spec.get("failurePolicy") == "Ignore":
                log.warning(
                    "webhook %s failed; failurePolicy Ignore lets the request pass", hook.name
                )
                return None
            raise
        warnings.extend(str(w) for w in response.get("warnings") or [])
        if not response.get("allowed"):
            raise _denied(hook.name, response.get("status") or {})
        return response

    async def _post(self, hook: _Hook, review: dict[str, Any], uid: str) -> dict[str, Any]:
        config = hook.spec.get("clientConfig") or {}
        timeout = int(hook.spec.get("timeoutSeconds") or 10)
        url = _url(config)
        address = f"{url}?timeout={timeout}s"
        try:
            context = _ssl_context(config.get("caBundle"))
            session = self._client()
            async with session.post(
                address,
                data=orjson.dumps(review),
                headers={"Content-Type": "application/json", "Accept": "application/json"},
                ssl=context,
                timeout=aiohttp.ClientTimeout(total=timeout),
            ) as answer:
                if answer.status != 200:
                    raise _call_failed(
                        hook, f'Post "{address}": unexpected status code {answer.status}'
                    )
                body = orjson.loads(await answer.read())
        except TimeoutError:
            raise _call_failed(hook, f'Post "{address}": context deadline exceeded') from None
        except (aiohttp.ClientError, ssl.SSLError, OSError, ValueError) as error:
            raise _call_failed(hook, f'Post "{address}": {error}') from None
        response = body.get("response") if isinstance(body, dict) else None
        if not isinstance(response, dict):
            raise _call_failed(hook, "the response is not an AdmissionReview with a response")
        if response.get("uid") != uid:
            raise _call_failed(
                hook, f'expected response.uid="{uid}", got "{response.get("uid") or ""}"'
            )
        return response

    def _client(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession()
        return self._session

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()


def _url(config: dict[str, Any]) -> str:
    if config.get("url"):
        return str(config["url"])
    service = config.get("service") or {}
    # What the real server would dial; outside a cluster this name does not resolve.
    host = f"{service.get('name')}.{service.get('namespace')}.svc"
    return f"https://{host}:{service.get('port') or 443}{service.get('path') or ''}"


def _ssl_context(bundle: Any) -> ssl.SSLContext:
    context = ssl.create_default_context()
    if bundle:
        context.load_verify_locations(cadata=base64.b64decode(str(bundle)).decode())
    return context


def _call_failed(hook: _Hook, detail: str) -> StatusError:
    return failures.internal_error(
        f'failed calling webhook "{hook.name}": failed to call webhook: {detail}'
    )


def _denied(name: str, status: dict[str, Any]) -> StatusError:
    """``webhookerrors.ToStatusErr``: the webhook's own Status, made a proper failure."""
    given = status.get("code")
    code = given if isinstance(given, int) and given >= 400 else 400
    denied = f'admission webhook "{name}" denied the request'
    if status.get("message"):
        message = f"{denied}: {status['message']}"
    elif status.get("reason"):
        message = f"{denied}: {status['reason']}"
    else:
        message = f"{denied} without explanation"
    body = failure(code, str(status.get("reason") or ""), message, status.get("details") or None)
    return StatusError(body)
