"""ValidatingAdmissionPolicies and bindings are defaulted and validated as 1.32's
defaults.go and ValidateValidatingAdmissionPolicy / ValidateValidatingAdmissionPolicyBinding,
over HTTP."""

from __future__ import annotations

from typing import Any

from kf_http import Api
from kf_podspec import causes

GROUP = "/apis/admissionregistration.k8s.io/v1"
MERGE = "application/merge-patch+json"
RULE = {"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"]}
LABEL_1035 = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
    "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
)


def policy(name: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": name},
        "spec": {
            "matchConstraints": {"resourceRules": [dict(RULE)]},
            "validations": [{"expression": "true"}],
            **spec,
        },
    }


def binding(name: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": name},
        # A policy that does not exist binds nothing, so no write is affected.
        "spec": {"policyName": "no-such-policy", "validationActions": ["Audit"], **spec},
    }


def policies(name: str = "") -> str:
    return f"{GROUP}/validatingadmissionpolicies" + (f"/{name}" if name else "")


def bindings(name: str = "") -> str:
    return f"{GROUP}/validatingadmissionpolicybindings" + (f"/{name}" if name else "")


async def test_a_policy_is_defaulted(api: Api) -> None:
    created = await api.post(policies(), policy("vap-defaults"))
    assert created.status == 201, created.body
    spec = created.body["spec"]
    assert spec["failurePolicy"] == "Fail"
    assert spec["matchConstraints"] == {
        "resourceRules": [{**RULE, "scope": "*"}],
        "matchPolicy": "Equivalent",
        "namespaceSelector": {},
        "objectSelector": {},
    }
    assert created.body["metadata"]["generation"] == 1
    await api.delete(policies("vap-defaults"))


async def test_a_policy_needs_rules_and_something_to_check(api: Api) -> None:
    bare = policy("vap-bare", failurePolicy="Sometimes", matchConstraints={"matchPolicy": "Loose"})
    del bare["spec"]["validations"]
    assert causes(await api.post(policies(), bare)) == [
        (
            "spec.failurePolicy",
            'Unsupported value: "Sometimes": supported values: "Fail", "Ignore"',
        ),
        (
            "spec.matchConstraints.matchPolicy",
            'Unsupported value: "Loose": supported values: "Equivalent", "Exact"',
        ),
        ("spec.matchConstraints.resourceRules", "Required value"),
        (
            "spec.validations",
            "Required value: validations or auditAnnotations must contain at least one item",
        ),
        (
            "spec.auditAnnotations",
            "Required value: validations or auditAnnotations must contain at least one item",
        ),
    ]
    rules = {
        "resourceRules": [{**RULE, "resourceNames": ["a/b", "x", "x"]}],
        "excludeResourceRules": [{**RULE, "operations": ["PATCH"]}],
    }
    named = policy("vap-rules", matchConstraints=rules)
    assert causes(await api.post(policies(), named)) == [
        (
            "spec.matchConstraints.resourceRules[0].resourceNames[0]",
            "Invalid value: \"a/b\": may not contain '/'",
        ),
        ("spec.matchConstraints.resourceRules[0].resourceNames[2]", 'Duplicate value: "x"'),
        (
            "spec.matchConstraints.excludeResourceRules[0].operations[0]",
            'Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", '
            '"UPDATE"',
        ),
    ]


async def test_param_kind_variables_and_validations(api: Api) -> None:
    body = policy(
        "vap-fields",
        paramKind={"apiVersion": "Example.com/V1", "kind": "Widget_Config"},
        variables=[
            {"name": "in", "expression": "1"},
            {"name": "", "expression": " "},
            {"name": "ok", "expression": "object.x +"},
        ],
        validations=[
            {"expression": " "},
            {
                "expression": "params.max > 1",
                "messageExpression": "  ",
                "message": "two\nlines",
                "reason": "Conflict",
            },
            {"expression": "1", "messageExpression": "1"},
        ],
    )
    found = causes(await api.post(policies(), body))
    subdomain = found[0][1]
    assert found[0][0] == "spec.paramKind.apiVersion"
    assert subdomain.startswith('Invalid value: "Example.com": a lowercase RFC 1123 subdomain')
    assert found[1:3] == [
        ("spec.paramKind.apiVersion", f'Invalid value: "V1": {LABEL_1035}'),
        (
            "spec.paramKind.kind",
            'Invalid value: "Widget_Config": may have mixed case, but should otherwise match: '
            + LABEL_1035,
        ),
    ]
    assert found[3:7] == [
        ("spec.variables[0].name", 'Invalid value: "in": name is not a valid CEL identifier'),
        ("spec.variables[1].name", "Required value: name is not specified"),
        ("spec.variables[1].expression", "Required value: expression is not specified"),
        (
            "spec.variables[2].expression",
            found[6][1],
        ),
    ]
    assert found[6][1].startswith('Invalid value: "object.x +": compilation failed: ERROR:')
    assert found[7:] == [
        ("spec.validations[0].expression", "Required value: expression is not specified"),
        (
            "spec.validations[1].messageExpression",
            'Invalid value: "  ": must be non-empty if specified',
        ),
        (
            "spec.validations[1].message",
            'Invalid value: "two\\nlines": message must not contain line breaks',
        ),
        (
            "spec.validations[1].reason",
            'Unsupported value: "Conflict": supported values: "Forbidden", "Invalid", '
            '"RequestEntityTooLarge"',
        ),
        ("spec.validations[2].expression", 'Invalid value: "1": must evaluate to bool but got int'),
        (
            "spec.validations[2].messageExpression",
            'Invalid value: "1": must evaluate to string but got int',
        ),
    ]


async def test_audit_annotations_and_match_conditions(api: Api) -> None:
    annotations = [
        {"key": "Bad Key", "valueExpression": "'x'"},
        {"key": "fine", "valueExpression": ""},
        {"key": "fine", "valueExpression": "1"},
    ]
    conditions = [{"name": "params-ok", "expression": "params != null"}]
    body = policy("vap-audit", auditAnnotations=annotations, matchConditions=conditions)
    del body["spec"]["validations"]
    found = causes(await api.post(policies(), body))
    assert found[0][0] == "spec.matchConditions[0].expression"
    assert "undeclared reference to 'params'" in found[0][1]
    assert found[1][0] == "spec.auditAnnotations[0].key"
    assert found[1][1].startswith('Invalid value: "vap-audit/Bad Key": name part must consist of')
    assert found[2:] == [
        (
            "spec.auditAnnotations[1].valueExpression",
            "Required value: valueExpression is not specified",
        ),
        (
            "spec.auditAnnotations[2].valueExpression",
            found[3][1],
        ),
        ("spec.auditAnnotations[2].key", 'Duplicate value: "fine"'),
    ]
    assert found[3][1].startswith('Invalid value: "1": must evaluate to one of [string null_type]')
    # With a paramKind, match conditions may read params.
    with_params = policy(
        "vap-params",
        paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
        matchConditions=conditions,
    )
    created = await api.post(policies(), with_params)
    assert created.status == 201, created.body
    await api.delete(policies("vap-params"))


async def test_an_update_is_validated_and_moves_generation(api: Api) -> None:
    created = await api.post(policies(), policy("vap-update"))
    assert created.status == 201, created.body
    bad = await api.patch(
        policies("vap-update"), {"spec": {"validations": [{"expression": "'s'"}]}}, MERGE
    )
    assert causes(bad) == [
        (
            "spec.validations[0].expression",
            "Invalid value: \"'s'\": must evaluate to bool but got string",
        )
    ]
    moved = await api.patch(
        policies("vap-update"), {"spec": {"validations": [{"expression": "false"}]}}, MERGE
    )
    assert moved.status == 200, moved.body
    assert moved.body["metadata"]["generation"] == 2
    await api.delete(policies("vap-update"))


async def test_a_binding_names_its_policy_params_and_actions(api: Api) -> None:
    body = binding(
        "vapb-bad",
        policyName="Not_A_Name",
        paramRef={"name": "a/b", "selector": {}, "parameterNotFoundAction": "Ignore"},
        matchResources={"resourceRules": [{**RULE, "scope": "Everywhere"}]},
        validationActions=["Deny", "Warn", "Deny", "Log"],
    )
    found = causes(await api.post(bindings(), body))
    assert found[0][0] == "spec.policyName"
    assert found[0][1].startswith('Invalid value: "Not_A_Name": a lowercase RFC 1123 subdomain')
    assert found[1:] == [
        ("spec.paramRef.name", "Invalid value: \"a/b\": may not contain '/'"),
        ("spec.paramRef.name", "Forbidden: name and selector are mutually exclusive"),
        ("spec.paramRef.selector", "Forbidden: name and selector are mutually exclusive"),
        (
            "spec.paramRef.parameterNotFoundAction",
            'Unsupported value: "Ignore": supported values: "Deny", "Allow"',
        ),
        (
            "spec.matchResouces.resourceRules[0].scope",
            'Unsupported value: "Everywhere": supported values: "*", "Cluster", "Namespaced"',
        ),
        ("spec.validationActions[2]", 'Duplicate value: "Deny"'),
        (
            "spec.validationActions[3]",
            'Unsupported value: "Log": supported values: "Audit", "Deny", "Warn"',
        ),
        (
            "spec.validationActions",
            'Invalid value: []admissionregistration.ValidationAction{"Deny", "Warn", "Deny", '
            '"Log"}: must not contain both Deny and Warn (repeating the same validation failure '
            "information in the API response and headers serves no purpose)",
        ),
    ]
    empty = binding("vapb-empty", policyName="", paramRef={}, validationActions=[])
    assert causes(await api.post(bindings(), empty)) == [
        ("spec.policyName", "Required value"),
        ("spec.paramRef", "Required value: one of name or selector must be specified"),
        ("spec.paramRef.parameterNotFoundAction", "Required value"),
        ("spec.validationActions", "Required value: at least one validation action is required"),
    ]


async def test_a_binding_gets_match_resource_defaults(api: Api) -> None:
    body = binding("vapb-defaults", matchResources={"resourceRules": [dict(RULE)]})
    created = await api.post(bindings(), body)
    assert created.status == 201, created.body
    assert created.body["spec"]["matchResources"] == {
        "resourceRules": [{**RULE, "scope": "*"}],
        "matchPolicy": "Equivalent",
        "namespaceSelector": {},
        "objectSelector": {},
    }
    await api.delete(bindings("vapb-defaults"))
