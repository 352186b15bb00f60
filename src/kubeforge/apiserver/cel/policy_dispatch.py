"""ValidatingAdmissionPolicy decisions for one request, as a 1.32 server reaches them.

``dispatch(hooks, request, env)`` goes through every policy whose ``matchConstraints``
match, every binding of it whose ``matchResources`` match, and every param the binding
selects; it evaluates ``matchConditions`` (all must hold), then each validation. A
false validation is acted on by the binding's ``validationActions``: ``Deny`` refuses
the request (the first denial wins, with ``ValidatingAdmissionPolicy '<p>' with binding
'<b>' denied request: <message>`` and the validation's ``reason``, 422 Invalid by
default), ``Warn`` adds ``Validation failed for ValidatingAdmissionPolicy '<p>' with
binding '<b>': <message>`` as a warning, ``Audit`` records an audit annotation. An
expression that fails to compile or evaluate, a missing param, or a bad binding is
handled by the policy's ``failurePolicy`` (Fail: a denial; Ignore: nothing).

Written from k8s.io/apiserver v0.32.0 ``pkg/admission/plugin/policy/validating``
(dispatcher.go, validator.go) and ``policy/generic/policy_dispatcher.go``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Protocol

from kubeforge.apiserver.cel.admission_env import activation
from kubeforge.apiserver.cel.lib_authz import Authorize, Authorizer
from kubeforge.apiserver.cel.policy_compile import CompiledExpression, CompiledPolicy
from kubeforge.apiserver.cel.values import CostExceeded, EvalError

__all__ = ["Denial", "Hook", "Outcome", "ParamError", "PolicyEnvironment", "dispatch"]

RUNTIME_BUDGET = 10_000_000
PER_CALL_LIMIT = 1_000_000
_CODES = {"Forbidden": 403, "Unauthorized": 401, "RequestEntityTooLarge": 413, "Invalid": 422}


class ParamError(Exception):
    """The binding's params cannot be collected (not found with ``Deny``, bad paramRef ...)."""


class PolicyEnvironment(Protocol):
    """What the server provides: matching, params, the request's namespace, authorization."""

    def matches(self, constraints: dict[str, Any] | None, required: bool) -> bool: ...

    def params(self, param_kind: dict[str, Any], param_ref: dict[str, Any]) -> list[Any]: ...

    @property
    def authorize(self) -> Authorize | None: ...

    @property
    def namespace(self) -> dict[str, Any] | None: ...


@dataclass(frozen=True)
class Hook:
    policy: CompiledPolicy
    bindings: list[dict[str, Any]]


@dataclass(frozen=True)
class Denial:
    policy: str
    binding: str
    message: str
    reason: str = "Invalid"

    @property
    def code(self) -> int:
        return _CODES.get(self.reason, 422)

    def text(self) -> str:
        if self.binding:
            return (
                f"ValidatingAdmissionPolicy '{self.policy}' with binding '{self.binding}' "
                f"denied request: {self.message}"
            )
        return f"ValidatingAdmissionPolicy '{self.policy}' denied request: {self.message}"


@dataclass
class Outcome:
    denials: list[Denial] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    annotations: dict[str, str] = field(default_factory=dict)


def dispatch(
    hooks: list[Hook], request: dict[str, Any], obj: Any, old: Any, env: PolicyEnvironment
) -> Outcome:
    outcome = Outcome()
    for hook in hooks:
        policy = hook.policy
        if not env.matches(policy.spec.get("matchConstraints"), True):
            continue
        for binding in hook.bindings:
            spec = binding.get("spec") or {}
            if not env.matches(spec.get("matchResources"), False):
                continue
            binding_name = str((binding.get("metadata") or {}).get("name", ""))
            try:
                params = _params(policy, spec, env)
            except ParamError as error:
                _config_error(
                    outcome, policy, binding_name, f"failed to configure binding: {error}"
                )
                continue
            for param in params:
                run = _Evaluation(policy, request, obj, old, param, env)
                for decision in run.decisions():
                    _act(outcome, policy, binding_name, spec, decision)
    return outcome


def _params(policy: CompiledPolicy, spec: dict[str, Any], env: PolicyEnvironment) -> list[Any]:
    kind = policy.spec.get("paramKind")
    ref = spec.get("paramRef")
    if not kind or not ref:
        return [None]
    return env.params(kind, ref)


def _config_error(outcome: Outcome, policy: CompiledPolicy, binding: str, message: str) -> None:
    if policy.failure_policy == "Ignore":
        return
    outcome.denials.append(Denial(policy.name, binding, message))


def _act(
    outcome: Outcome,
    policy: CompiledPolicy,
    binding: str,
    spec: dict[str, Any],
    decision: _Decision,
) -> None:
    if decision.error and policy.failure_policy == "Ignore":
        return
    if decision.error or not decision.admit:
        for action in spec.get("validationActions") or []:
            if action == "Deny":
                outcome.denials.append(
                    Denial(policy.name, binding, decision.message, decision.reason)
                )
            elif action == "Warn":
                outcome.warnings.append(
                    f"Validation failed for ValidatingAdmissionPolicy '{policy.name}' "
                    f"with binding '{binding}': {decision.message}"
                )
            elif action == "Audit":
                key = "validation.policy.admission.k8s.io/validation_failure"
                entry = {
                    "message": decision.message,
                    "policy": policy.name,
                    "binding": binding,
                    "expressionIndex": decision.index,
                    "validationActions": spec.get("validationActions"),
                }
                outcome.annotations[key] = json.dumps([entry])


@dataclass
class _Decision:
    index: int
    admit: bool
    message: str = ""
    reason: str = "Invalid"
    error: bool = False


class _Evaluation:
    """One policy evaluated for one binding and one param."""

    def __init__(
        self,
        policy: CompiledPolicy,
        request: dict[str, Any],
        obj: Any,
        old: Any,
        param: Any,
        env: PolicyEnvironment,
    ) -> None:
        self.policy = policy
        self.budget = RUNTIME_BUDGET
        authorizer = request_check = None
        if env.authorize is not None:
            authorizer = Authorizer(env.authorize, dict(request.get("userInfo") or {}))
            request_check = authorizer.for_request(request)
        self.values = activation(
            obj=obj, old=old, request=request, namespace=env.namespace, params=param,
            authorizer=authorizer, request_resource=request_check,
        )  # fmt: skip
        self.values["variables"] = _LazyVariables(self)

    def run(self, expression: CompiledExpression) -> Any:
        """The expression's value; raises EvalError with Kubernetes' message."""
        if expression.program is None:
            raise EvalError(f"compilation error: {expression.error}")
        try:
            value, cost = expression.program.evaluate(self.values, PER_CALL_LIMIT)
        except CostExceeded as error:
            raise EvalError(
                f"expression '{expression.source}' resulted in error: {error}"
            ) from None
        except EvalError as error:
            raise EvalError(
                f"expression '{expression.source}' resulted in error: {error}"
            ) from None
        if cost > self.budget:
            raise EvalError(
                "validation failed due to running out of cost budget, "
                "no further validation rules will be run"
            )
        self.budget -= cost
        return value

    def decisions(self) -> list[_Decision]:
        fail = self.policy.failure_policy != "Ignore"
        errors = []
        for _, condition in self.policy.conditions:
            try:
                if self.run(condition) is False:
                    return []
            except EvalError as error:
                errors.append(str(error))
        if errors:
            if not fail:
                return []
            text = errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"
            return [_Decision(0, False, text, error=True)]
        return [
            self.validate(i, v, rule, message)
            for i, (v, rule, message) in enumerate(self.policy.validations)
        ]

    def validate(
        self,
        index: int,
        validation: dict[str, Any],
        rule: CompiledExpression,
        message: CompiledExpression | None,
    ) -> _Decision:
        try:
            result = self.run(rule)
        except EvalError as error:
            return _Decision(index, False, str(error), error=True)
        if result is True:
            return _Decision(index, True)
        text = ""
        if message is not None:
            try:
                produced = self.run(message)
            except EvalError:
                produced = None
            if isinstance(produced, str):
                text = produced.strip()
                if len(text) > 5 * 1024 or "\n" in text:
                    text = ""
        if not text:
            text = str(validation.get("message") or "").strip()
        if not text:
            text = f"failed expression: {str(validation.get('expression') or '').strip()}"
        return _Decision(index, False, text, str(validation.get("reason") or "Invalid"))


class _LazyVariables:
    """``variables.<name>``: each evaluated on first use, then remembered."""

    cel_type_name = "kubernetes.variables"

    def __init__(self, evaluation: _Evaluation) -> None:
        self._evaluation = evaluation
        self._known: dict[str, CompiledExpression] = dict(evaluation.policy.variables)
        self._values: dict[str, Any] = {}

    def cel_field(self, name: str) -> Any:
        if name not in self._values:
            expression = self._known.get(name)
            if expression is None:
                raise EvalError(f"no such key: {name}")
            if expression.program is None:
                raise EvalError(
                    f'composited variable "{name}" fails to compile: {expression.error}'
                )
            try:
                value, cost = expression.program.evaluate(self._evaluation.values, PER_CALL_LIMIT)
            except EvalError as error:
                raise EvalError(
                    f'composited variable "{name}" fails to evaluate: {error}'
                ) from None
            self._evaluation.budget -= cost
            self._values[name] = value
        return self._values[name]
