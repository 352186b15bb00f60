"""ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding, enforced.

The ``ValidatingAdmissionPolicy`` admission plugin of a 1.32 server: it runs after the
mutating webhooks and before the validating ones. A policy applies to a request its
``matchConstraints`` match (resource rules, ``excludeResourceRules``, namespace and
object selectors), through each binding of it whose ``matchResources`` also match,
with the params the binding's ``paramRef`` selects (by name or selector, in the
request's namespace or ``paramRef.namespace``; ``parameterNotFoundAction: Deny``
refuses when there are none). What a policy decides, and the wording, is
``cel.policy_dispatch``'s; a denial is the real 422 (or the validation's ``reason``):
``<resource> "<name>" is forbidden: ValidatingAdmissionPolicy '<p>' with binding '<b>'
denied request: <message>``. Webhook configurations, policies and bindings are not
subject to policies, as on a real server.

Entry point: ``ValidatingPolicies`` (``configured``, ``validate``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kubeforge.apiserver.admission.request import AdmissionRequest, rule_matches
from kubeforge.apiserver.cel.policy_compile import CompiledPolicy
from kubeforge.apiserver.cel.policy_dispatch import Hook, ParamError, dispatch
from kubeforge.apiserver.failures import StatusError
from kubeforge.apiserver.meta.labelselector import selector_matches
from kubeforge.apiserver.registry.served import Registry
from kubeforge.apiserver.storage.sqlite import Event, Storage
from kubeforge.core.status import failure

__all__ = ["ValidatingPolicies"]

_GROUP = "admissionregistration.k8s.io"
_POLICIES = (_GROUP, "validatingadmissionpolicies")
_BINDINGS = (_GROUP, "validatingadmissionpolicybindings")
_EXEMPT = frozenset(
    {
        "mutatingwebhookconfigurations",
        "validatingwebhookconfigurations",
        "validatingadmissionpolicies",
        "validatingadmissionpolicybindings",
    }
)

Authorize = Callable[[dict[str, Any], dict[str, str]], tuple[str, str]]
"""``(user, attributes) -> (decision, reason)``: the server's authorizer, for ``authorizer``."""


class ValidatingPolicies:
    """The policies and bindings in storage, and their verdict on a write."""

    def __init__(self, storage: Storage, registry: Registry, authorize: Authorize | None) -> None:
        self._storage = storage
        self._registry = registry
        self._authorize = authorize
        self._hooks: list[Hook] | None = None
        storage.subscribe(self._on_event, (_POLICIES, _BINDINGS))

    def _on_event(self, event: Event) -> None:
        if event.resource in (_POLICIES, _BINDINGS):
            self._hooks = None

    def hooks(self) -> list[Hook]:
        if self._hooks is None:
            bindings: dict[str, list[dict[str, Any]]] = {}
            for binding in self._storage.objects(_BINDINGS):
                policy = str((binding.get("spec") or {}).get("policyName") or "")
                bindings.setdefault(policy, []).append(binding)
            self._hooks = [
                Hook(CompiledPolicy.of(policy), bindings[name])
                for policy in self._storage.objects(_POLICIES)
                if (name := str(policy["metadata"]["name"])) in bindings
            ]
        return self._hooks

    @property
    def configured(self) -> bool:
        """Whether any policy is bound (the common case is none: nothing to do)."""
        return bool(self.hooks())

    def applies(self, req: AdmissionRequest) -> bool:
        """Whether a bound policy's resource rules name ``req`` (its selectors and its
        bindings' constraints are looked at when it is validated): a write no policy
        names needs no dry run and no CEL."""
        if req.group == _GROUP and req.resource in _EXEMPT:
            return False
        return any(_names(hook.policy.spec.get("matchConstraints"), req) for hook in self.hooks())

    def validate(
        self,
        req: AdmissionRequest,
        obj: dict[str, Any] | None,
        old: dict[str, Any] | None,
        warnings: list[str],
    ) -> None:
        """Raise the first denial; add the ``Warn`` messages to ``warnings``."""
        if not self.applies(req):
            return
        environment = _Environment(self, req, obj, old)
        request = req.review(None, None, "v1")["request"]
        outcome = dispatch(self.hooks(), request, obj, old, environment)
        warnings.extend(outcome.warnings)
        if outcome.denials:
            raise _forbidden(req, obj, outcome.denials[0].text(), outcome.denials[0].reason)

    def namespace(self, name: str) -> dict[str, Any] | None:
        return self._storage.get(("", "namespaces"), "", name) if name else None

    def objects(
        self, api_version: str, kind: str, namespace: str
    ) -> tuple[list[dict[str, Any]], bool]:
        """The stored objects of a param kind (in ``namespace`` when it is namespaced)."""
        group, _, version = api_version.rpartition("/")
        for served in self._registry.resources():
            info = served.info
            if (info.group, info.version, info.kind) == (group, version, kind):
                key = (info.group, info.plural)
                objects = [
                    o for o in self._storage.objects(key)
                    if not info.namespaced or o["metadata"].get("namespace") == namespace
                ]  # fmt: skip
                return objects, info.namespaced
        raise ParamError(f"paramKind kind `{kind}.{version}.{group}` not known")


@dataclass
class _Environment:
    """What one request gives the policies: matching, params, its namespace, authorization."""

    policies: ValidatingPolicies
    req: AdmissionRequest
    obj: dict[str, Any] | None
    old: dict[str, Any] | None

    @property
    def namespace(self) -> dict[str, Any] | None:
        if self.req.group == "" and self.req.resource == "namespaces":
            return None  # a Namespace is not in a namespace, even its own
        return self.policies.namespace(self.req.namespace)

    @property
    def authorize(self) -> Authorize | None:
        return self.policies._authorize

    def matches(self, constraints: dict[str, Any] | None, required: bool) -> bool:
        if not constraints:
            return not required
        if not self._namespace_selected(constraints.get("namespaceSelector") or {}):
            return False
        objects = [o for o in (self.obj, self.old) if o is not None]
        selector = constraints.get("objectSelector") or {}
        if selector and not any(
            selector_matches(selector, (o.get("metadata") or {}).get("labels")) for o in objects
        ):
            return False
        exact = constraints.get("matchPolicy") == "Exact"
        if any(
            rule_matches(r, self.req, exact) for r in constraints.get("excludeResourceRules") or []
        ):
            return False
        rules = constraints.get("resourceRules") or []
        return not rules or any(rule_matches(r, self.req, exact) for r in rules)

    def _namespace_selected(self, selector: dict[str, Any]) -> bool:
        if not selector:
            return True
        if self.req.group == "" and self.req.resource == "namespaces":
            objects = [o for o in (self.obj, self.old) if o is not None]
            return any(selector_matches(selector, o["metadata"].get("labels")) for o in objects)
        if not self.req.namespaced:
            return True
        namespace = self.policies.namespace(self.req.namespace) or {}
        return selector_matches(selector, (namespace.get("metadata") or {}).get("labels"))

    def params(self, kind: dict[str, Any], ref: dict[str, Any]) -> list[Any]:
        """Kubernetes' CollectParams, with its error messages."""
        namespace = str(ref.get("namespace") or self.req.namespace)
        objects, namespaced = self.policies.objects(
            str(kind.get("apiVersion") or ""), str(kind.get("kind") or ""), namespace
        )
        if namespaced and not namespace:
            raise ParamError(
                "cannot use namespaced paramRef in policy binding that matches "
                "cluster-scoped resources"
            )
        if ref.get("namespace") and not namespaced:
            raise ParamError(
                "paramRef.namespace must not be provided for a cluster-scoped `paramKind`"
            )
        if ref.get("name"):
            found = [o for o in objects if o["metadata"]["name"] == ref["name"]]
        elif ref.get("selector") is not None:
            found = [
                o for o in objects if selector_matches(ref["selector"], o["metadata"].get("labels"))
            ]
        else:
            raise ParamError("one of name or selector must be provided")
        if not found and ref.get("parameterNotFoundAction") == "Deny":
            raise ParamError(
                "no params found for policy binding with `Deny` parameterNotFoundAction"
            )
        return found


def _names(constraints: dict[str, Any] | None, req: AdmissionRequest) -> bool:
    """The resource rules of a policy's ``matchConstraints`` name ``req``."""
    if not constraints:
        return True
    exact = constraints.get("matchPolicy") == "Exact"
    rules = constraints.get("resourceRules") or []
    return not rules or any(rule_matches(r, req, exact) for r in rules)


def _forbidden(
    req: AdmissionRequest, obj: dict[str, Any] | None, message: str, reason: str
) -> StatusError:
    """admission.NewForbidden, with the policy's reason and code (422 Invalid by default)."""
    name = req.name
    if not name and obj is not None:
        meta = obj.get("metadata") or {}
        name = str(meta.get("name") or meta.get("generateName") or "Unknown")
    resource = f"{req.resource}.{req.group}" if req.group else req.resource
    codes = {"Forbidden": 403, "Unauthorized": 401, "RequestEntityTooLarge": 413}
    details: dict[str, Any] = {"name": name}
    if req.group:
        details["group"] = req.group
    details["kind"] = req.resource
    details["causes"] = [{"message": message}]
    text = f'{resource} "{name}" is forbidden: {message}'
    return StatusError(failure(codes.get(reason, 422), reason or "Invalid", text, details))
