"""ValidatingAdmissionPolicy decisions: matchConditions, validations, actions, failure policy."""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.cel.policy_compile import CompiledPolicy, expression_error
from kubeforge.apiserver.cel.policy_dispatch import Hook, Outcome, ParamError, dispatch
from kubeforge.apiserver.cel.types import STRING


class Env:
    """What the server gives a policy: matching, params, the namespace, an authorizer."""

    def __init__(self, params: list[Any] | None = None, allow: bool = True) -> None:
        self._params = params
        self._allow = allow
        self.namespace: dict[str, Any] | None = {
            "metadata": {"name": "default", "labels": {"env": "prod"}}
        }
        self.asked: list[dict[str, str]] = []

    def authorize(self, user: dict[str, Any], attributes: dict[str, str]) -> tuple[str, str]:
        self.asked.append({"user": user.get("username", ""), **attributes})
        return ("allow", "") if self._allow else ("deny", "RBAC: no")

    def matches(self, constraints: dict[str, Any] | None, required: bool) -> bool:
        return True

    def params(self, kind: dict[str, Any], ref: dict[str, Any]) -> list[Any]:
        if self._params is None:
            raise ParamError(
                "no params found for policy binding with `Deny` parameterNotFoundAction"
            )
        return self._params


REQUEST = {
    "operation": "CREATE",
    "namespace": "default",
    "name": "web",
    "userInfo": {"username": "alice", "groups": ["devs"]},
    "resource": {"group": "apps", "version": "v1", "resource": "deployments"},
    "kind": {"group": "apps", "version": "v1", "kind": "Deployment"},
}


def _run(
    spec: dict[str, Any], obj: dict[str, Any], env: Env | None = None, **binding: Any
) -> Outcome:
    policy = CompiledPolicy.of({"metadata": {"name": "p"}, "spec": spec})
    bound = {
        "metadata": {"name": "b"},
        "spec": {"policyName": "p", "validationActions": ["Deny"], **binding},
    }
    return dispatch([Hook(policy, [bound])], REQUEST, obj, None, env or Env())


DEPLOYMENT = {"metadata": {"name": "web"}, "spec": {"replicas": 5}}


def test_a_false_validation_denies_with_the_expression() -> None:
    outcome = _run({"validations": [{"expression": "object.spec.replicas <= 3"}]}, DEPLOYMENT)
    [denial] = outcome.denials
    assert denial.code == 422 and denial.reason == "Invalid"
    assert denial.text() == (
        "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: "
        "failed expression: object.spec.replicas <= 3"
    )


def test_message_expression_and_reason() -> None:
    validation = {
        "expression": "object.spec.replicas <= 3",
        "messageExpression": "'replicas ' + string(object.spec.replicas) + ' > 3'",
        "message": "unused",
        "reason": "Forbidden",
    }
    [denial] = _run({"validations": [validation]}, DEPLOYMENT).denials
    assert (denial.code, denial.message) == (403, "replicas 5 > 3")


def test_warn_and_audit_actions_do_not_deny() -> None:
    spec = {"validations": [{"expression": "false", "message": "nope"}]}
    outcome = _run(spec, DEPLOYMENT, validationActions=["Warn", "Audit"])
    assert outcome.denials == []
    assert outcome.warnings == [
        "Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': nope"
    ]
    assert "validation.policy.admission.k8s.io/validation_failure" in outcome.annotations


def test_match_conditions_skip_the_policy() -> None:
    spec = {
        "matchConditions": [{"name": "big", "expression": "object.spec.replicas > 10"}],
        "validations": [{"expression": "false"}],
    }
    assert _run(spec, DEPLOYMENT).denials == []


def test_params_and_variables() -> None:
    spec = {
        "paramKind": {"apiVersion": "v1", "kind": "ConfigMap"},
        "variables": [{"name": "limit", "expression": "int(params.data.max)"}],
        "validations": [{"expression": "object.spec.replicas <= variables.limit"}],
    }
    env = Env(params=[{"data": {"max": "10"}}])
    assert _run(spec, DEPLOYMENT, env, paramRef={"name": "limits"}).denials == []
    env = Env(params=[{"data": {"max": "2"}}])
    assert len(_run(spec, DEPLOYMENT, env, paramRef={"name": "limits"}).denials) == 1


def test_missing_params_follow_the_failure_policy() -> None:
    spec = {
        "paramKind": {"apiVersion": "v1", "kind": "ConfigMap"},
        "validations": [{"expression": "true"}],
    }
    [denial] = _run(spec, DEPLOYMENT, Env(params=None), paramRef={"name": "x"}).denials
    assert denial.message == (
        "failed to configure binding: no params found for policy binding with `Deny` "
        "parameterNotFoundAction"
    )
    ignoring = {**spec, "failurePolicy": "Ignore"}
    assert _run(ignoring, DEPLOYMENT, Env(params=None), paramRef={"name": "x"}).denials == []


def test_runtime_errors_follow_the_failure_policy() -> None:
    spec = {"validations": [{"expression": "object.spec.missing > 1"}]}
    [denial] = _run(spec, DEPLOYMENT).denials
    assert (
        denial.message
        == "expression 'object.spec.missing > 1' resulted in error: no such key: missing"
    )
    assert _run({**spec, "failurePolicy": "Ignore"}, DEPLOYMENT).denials == []


def test_an_expression_that_does_not_compile_fails_closed() -> None:
    [denial] = _run(
        {"validations": [{"expression": "object.spec.replicas + 'x'"}]}, DEPLOYMENT
    ).denials
    assert denial.message == "compilation error: must evaluate to bool but got string"


def test_authorizer_checks_the_requesting_user() -> None:
    env = Env(allow=False)
    check = "authorizer.group('apps').resource('deployments').namespace('default').check('delete')"
    spec = {
        "validations": [
            {"expression": f"{check}.allowed()", "messageExpression": f"{check}.reason()"}
        ]
    }
    [denial] = _run(spec, DEPLOYMENT, env).denials
    # messageExpression sees no authorizer, so the message falls back to the expression
    assert denial.message == f"failed expression: {check}.allowed()"
    assert env.asked[0] == {
        "user": "alice", "verb": "delete", "group": "apps", "resource": "deployments",
        "subresource": "", "namespace": "default", "name": "",
    }  # fmt: skip


def test_namespace_object_and_request_are_typed() -> None:
    expression = "namespaceObject.metadata.labels.env == 'prod' && request.operation == 'CREATE'"
    spec = {"validations": [{"expression": expression}]}
    assert _run(spec, DEPLOYMENT).denials == []
    assert expression_error("request.nope == 1", params=False).startswith(
        "compilation failed: ERROR: <input>:1:8: undefined field 'nope'"
    )
    assert expression_error("object.x", params=False, returns=(STRING,)) == (
        "must evaluate to string but got dyn"
    )
