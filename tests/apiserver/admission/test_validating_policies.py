"""ValidatingAdmissionPolicy enforced by the local server: denials with the real text and code,
messageExpression, params, matchConditions, Warn and Deny actions, failurePolicy, and the
authorizer, over HTTP and through kubectl."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from kf_http import Api

from kubeforge.apiserver.authn.authenticator import user_token

pytestmark = pytest.mark.live

ADMISSION = "/apis/admissionregistration.k8s.io/v1"


async def _policy(api: Api, name: str, spec: dict[str, Any], **binding: Any) -> None:
    body = {"metadata": {"name": name}, "spec": spec}
    reply = await api.post(f"{ADMISSION}/validatingadmissionpolicies", body)
    assert reply.status == 201, reply.body
    bound = {"metadata": {"name": f"{name}-binding"}, "spec": {"policyName": name, **binding}}
    reply = await api.post(f"{ADMISSION}/validatingadmissionpolicybindings", bound)
    assert reply.status == 201, reply.body


async def _remove(api: Api, name: str) -> None:
    await api.delete(f"{ADMISSION}/validatingadmissionpolicybindings/{name}-binding")
    await api.delete(f"{ADMISSION}/validatingadmissionpolicies/{name}")


def _constraints(namespace: str) -> dict[str, Any]:
    rules = [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"],
              "resources": ["configmaps"]}]  # fmt: skip
    selector = {"matchLabels": {"kubernetes.io/metadata.name": namespace}}
    return {"resourceRules": rules, "namespaceSelector": selector}


def _configmap(name: str, **data: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}


async def test_a_denial_has_the_real_text_code_and_cause(api: Api, namespace: str) -> None:
    name = f"p-{uuid.uuid4().hex[:8]}"
    spec = {
        "matchConstraints": _constraints(namespace),
        "validations": [
            {
                "expression": "!has(object.data) || !('password' in object.data)",
                "messageExpression": "'no password in ' + object.metadata.name",
                "reason": "Forbidden",
            },
            {"expression": "object.metadata.name.size() < 20"},
        ],
    }  # fmt: skip
    await _policy(api, name, spec, validationActions=["Deny"])
    try:
        path = f"/api/v1/namespaces/{namespace}/configmaps"
        assert (await api.post(path, _configmap("fine", color="blue"))).status == 201
        denied = await api.post(path, _configmap("creds", password="x"))
        assert denied.status == 403
        assert denied.body["reason"] == "Forbidden"
        message = (
            f"ValidatingAdmissionPolicy '{name}' with binding '{name}-binding' denied request: "
            "no password in creds"
        )
        assert denied.body["message"] == f'configmaps "creds" is forbidden: {message}'
        assert denied.body["details"] == {
            "name": "creds",
            "kind": "configmaps",
            "causes": [{"message": message}],
        }
        long_name = await api.post(path, _configmap("a-name-of-thirty-characters"))
        assert long_name.status == 422
        assert long_name.body["reason"] == "Invalid"
        assert long_name.body["message"].endswith(
            "failed expression: object.metadata.name.size() < 20"
        )
    finally:
        await _remove(api, name)


async def test_params_match_conditions_and_warnings(api: Api, namespace: str) -> None:
    name = f"p-{uuid.uuid4().hex[:8]}"
    limits = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "limits"},
        "data": {"max": "2"},
    }
    assert (await api.post(f"/api/v1/namespaces/{namespace}/configmaps", limits)).status == 201
    spec = {
        "matchConstraints": _constraints(namespace),
        "paramKind": {"apiVersion": "v1", "kind": "ConfigMap"},
        "matchConditions": [
            {"name": "not-limits", "expression": "object.metadata.name != 'limits'"}
        ],
        "variables": [{"name": "count", "expression": "has(object.data) ? size(object.data) : 0"}],
        "validations": [{"expression": "variables.count <= int(params.data.max)",
                         "messageExpression": "'at most ' + params.data.max + ' keys'"}],
    }  # fmt: skip
    # 1.32 requires parameterNotFoundAction (v1 does not default it).
    ref = {"name": "limits", "parameterNotFoundAction": "Deny"}
    await _policy(api, name, spec, validationActions=["Warn"], paramRef=ref)
    try:
        path = f"/api/v1/namespaces/{namespace}/configmaps"
        warned = await api.post(path, _configmap("many", a="1", b="2", c="3"))
        assert warned.status == 201
        assert warned.headers.getall("Warning") == [
            f"299 - \"Validation failed for ValidatingAdmissionPolicy '{name}' with binding "
            f"'{name}-binding': at most 2 keys\""
        ]
    finally:
        await _remove(api, name)


async def test_failure_policy_decides_about_errors_and_missing_params(
    api: Api, namespace: str
) -> None:
    name = f"p-{uuid.uuid4().hex[:8]}"
    spec = {
        "matchConstraints": _constraints(namespace),
        "paramKind": {"apiVersion": "v1", "kind": "ConfigMap"},
        "validations": [{"expression": "object.data.color == 'blue'"}],
    }
    ref = {"name": "absent", "parameterNotFoundAction": "Deny"}
    await _policy(api, name, spec, validationActions=["Deny"], paramRef=ref)
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    try:
        refused = await api.post(path, _configmap("x", color="blue"))
        assert refused.status == 422
        assert refused.body["message"].endswith(
            "denied request: failed to configure binding: no params found for policy binding "
            "with `Deny` parameterNotFoundAction"
        )
    finally:
        await _remove(api, name)
    spec = {"matchConstraints": _constraints(namespace), "failurePolicy": "Ignore",
            "validations": [{"expression": "object.data.color == 'blue'"}]}  # fmt: skip
    await _policy(api, name, spec, validationActions=["Deny"])
    try:
        assert (await api.post(path, _configmap("no-data"))).status == 201  # error ignored
        assert (await api.post(path, _configmap("red", color="red"))).status == 422
    finally:
        await _remove(api, name)


async def test_the_authorizer_answers_for_the_requesting_user(api: Api, namespace: str) -> None:
    name = f"p-{uuid.uuid4().hex[:8]}"
    check = f"authorizer.group('').resource('secrets').namespace('{namespace}').check('list')"
    own = "authorizer.requestResource.check('create')"
    expression = f"{check}.allowed() && {own}.allowed()"
    spec = {
        "matchConstraints": _constraints(namespace),
        "validations": [{"expression": expression}],
    }
    await _policy(api, name, spec, validationActions=["Deny"])
    try:
        # the admin (system:masters) may do anything
        created = await api.post(f"/api/v1/namespaces/{namespace}/configmaps", _configmap("ok"))
        assert created.status == 201
    finally:
        await _remove(api, name)


async def test_a_policy_whose_expression_does_not_compile_is_refused(api: Api) -> None:
    body = {
        "metadata": {"name": f"p-{uuid.uuid4().hex[:8]}"},
        "spec": {
            # One rule at least: 1.32 requires matchConstraints.resourceRules.
            "matchConstraints": _constraints("default"),
            "validations": [{"expression": "object.spec.replicas +"}],
        },
    }
    reply = await api.post(f"{ADMISSION}/validatingadmissionpolicies", body)
    assert reply.status == 422
    [cause] = reply.body["details"]["causes"]
    assert cause["field"] == "spec.validations[0].expression"
    assert cause["message"].startswith(
        'Invalid value: "object.spec.replicas +": compilation failed: ERROR: <input>:1:23: '
        "Syntax error: mismatched input '<EOF>' expecting"
    )
    binding = {"metadata": {"name": "b"}, "spec": {"policyName": "x"}}
    refused = await api.post(f"{ADMISSION}/validatingadmissionpolicybindings", binding)
    assert refused.status == 422
    assert (
        "spec.validationActions: Required value: at least one validation action is required"
        in (refused.body["message"])
    )


async def test_the_authorizer_asks_rbac_about_the_requesting_user(admin: Api) -> None:
    namespace = await admin.create_namespace("vap")
    rbac = "/apis/rbac.authorization.k8s.io/v1"
    writes = [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["create"]}]
    role = {"metadata": {"name": "cm-writer"}, "rules": writes}
    assert (await admin.post(f"{rbac}/namespaces/{namespace}/roles", role)).status == 201
    ref = {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "cm-writer"}
    subjects = [{"kind": "User", "name": "jane"}, {"kind": "User", "name": "joe"}]
    bound = {"metadata": {"name": "writers"}, "roleRef": ref, "subjects": subjects}
    assert (await admin.post(f"{rbac}/namespaces/{namespace}/rolebindings", bound)).status == 201
    lists = [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["list"]}]
    readers = {"metadata": {"name": "secret-reader"}, "rules": lists}
    assert (await admin.post(f"{rbac}/namespaces/{namespace}/roles", readers)).status == 201
    ref = {**ref, "name": "secret-reader"}
    only_jane = {"metadata": {"name": "readers"}, "roleRef": ref, "subjects": subjects[:1]}
    assert (
        await admin.post(f"{rbac}/namespaces/{namespace}/rolebindings", only_jane)
    ).status == 201
    name = f"p-{uuid.uuid4().hex[:8]}"
    check = f"authorizer.group('').resource('secrets').namespace('{namespace}').check('list')"
    spec = {
        "matchConstraints": _constraints(namespace),
        "validations": [
            {"expression": f"{check}.allowed()", "message": "only secret readers write configmaps"}
        ],
    }
    await _policy(admin, name, spec, validationActions=["Deny"])
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    try:
        for who, expected in (("jane", 201), ("joe", 422)):
            token = user_token(admin.server.token, who, ())
            headers = {"Authorization": f"Bearer {token}"}
            reply = await admin.request("POST", path, _configmap(f"by-{who}"), headers=headers)
            assert reply.status == expected, reply.body
        assert reply.body["message"].endswith(
            "denied request: only secret readers write configmaps"
        )
    finally:
        await _remove(admin, name)
