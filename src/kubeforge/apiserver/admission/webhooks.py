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

Entry point: ``Webhooks`` (``mutate``, ``validate``, ``may_match``); the request they
see is ``request``'s, the HTTPS exchange ``webhook_client``'s.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from kubeforge.apiserver import failures
from kubeforge.apiserver.admission.request import AdmissionRequest, rule_matches
from kubeforge.apiserver.admission.webhook_client import Hook, WebhookClient, denied, patched
from kubeforge.apiserver.cel.admission_env import activation
from kubeforge.apiserver.cel.lib_authz import Authorize, Authorizer
from kubeforge.apiserver.cel.policy_compile import match_condition
from kubeforge.apiserver.cel.values import EvalError
from kubeforge.apiserver.failures import StatusError
from kubeforge.apiserver.meta.labelselector import selector_matches
from kubeforge.apiserver.storage.sqlite import Event, Storage

__all__ = ["Webhooks"]

log = logging.getLogger("kubeforge.apiserver.webhooks")

_GROUP = "admissionregistration.k8s.io"
_MUTATING = (_GROUP, "mutatingwebhookconfigurations")
_VALIDATING = (_GROUP, "validatingwebhookconfigurations")
_EXEMPT = frozenset({"mutatingwebhookconfigurations", "validatingwebhookconfigurations"})
# RuntimeCELCostBudgetMatchConditions (k8s.io/apiserver pkg/apis/cel/config.go).
_MATCH_BUDGET = 2_500_000


class Webhooks:
    """The webhook configurations in storage, and the calls they ask for."""

    def __init__(self, storage: Storage, authorize: Authorize | None = None) -> None:
        self._storage = storage
        self._authorize = authorize
        self._hooks: dict[tuple[str, str], list[Hook]] | None = None
        self._client = WebhookClient()
        storage.subscribe(self._on_event, (_MUTATING, _VALIDATING))

    def _on_event(self, event: Event) -> None:
        if event.resource in (_MUTATING, _VALIDATING):
            self._hooks = None

    def _all(self, key: tuple[str, str]) -> list[Hook]:
        if self._hooks is None:
            self._hooks = {}
            for resource in (_MUTATING, _VALIDATING):
                hooks = []
                for config in self._storage.objects(resource):  # sorted by name already
                    for spec in config.get("webhooks") or []:
                        hooks.append(Hook(spec.get("name", ""), config["metadata"]["name"], spec))
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
    def _rules_match(hook: Hook, req: AdmissionRequest) -> bool:
        exact = hook.spec.get("matchPolicy") == "Exact"
        return any(rule_matches(r, req, exact) for r in hook.spec.get("rules") or [])

    def _selected(
        self, key: tuple[str, str], req: AdmissionRequest, objects: list[dict[str, Any]]
    ) -> list[Hook]:
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
        self, hook: Hook, req: AdmissionRequest, objects: list[dict[str, Any]]
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
        hook: Hook,
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
            obj = patched(hook, obj, response)
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

    async def _call(
        self,
        hook: Hook,
        req: AdmissionRequest,
        obj: dict[str, Any] | None,
        old: dict[str, Any] | None,
        warnings: list[str],
    ) -> dict[str, Any] | None:
        """One webhook call; ``None`` when it failed and its failure policy is Ignore."""
        versions = hook.spec.get("admissionReviewVersions") or ["v1"]
        version = "v1" if "v1" in versions else "v1beta1"
        try:
            response = await self._client.post(hook, req.review(obj, old, version), req.uid)
        except StatusError:
            if hook.spec.get("failurePolicy") == "Ignore":
                log.warning(
                    "webhook %s failed; failurePolicy Ignore lets the request pass", hook.name
                )
                return None
            raise
        warnings.extend(str(w) for w in response.get("warnings") or [])
        if not response.get("allowed"):
            raise denied(hook.name, response.get("status") or {})
        return response

    async def close(self) -> None:
        await self._client.close()
