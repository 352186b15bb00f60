"""Webhook configurations are validated as 1.32's ValidateValidatingWebhookConfiguration and
ValidateMutatingWebhookConfiguration (with ValidateWebhookURL/ValidateWebhookService), over
HTTP: names, rules, client configs, side effects, review versions, timeouts, policies,
selectors and match conditions, in Go's order and words."""

from __future__ import annotations

from typing import Any

from kf_http import Api
from kf_podspec import causes

from kubeforge.apiserver.builtin.webhook_rules import WebhookOptions

GROUP = "/apis/admissionregistration.k8s.io/v1"
MERGE = "application/merge-patch+json"
DNS_SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
    "or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
URL_FORM = "; desired format: https://host[/path]"


def hook(name: str = "check.example.com", **fields: Any) -> dict[str, Any]:
    return {
        "name": name,
        "clientConfig": {"url": "https://hooks.example.com/check"},
        "rules": [
            {
                "operations": ["CREATE"],
                "apiGroups": [""],
                "apiVersions": ["v1"],
                "resources": ["configmaps"],
            }
        ],
        "sideEffects": "None",
        "admissionReviewVersions": ["v1"],
        # Nothing in any test namespace carries this label, so no write is sent anywhere.
        "namespaceSelector": {"matchLabels": {"never": "matched"}},
        **fields,
    }


def config(name: str, *hooks: dict[str, Any], kind: str = "Validating") -> dict[str, Any]:
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": f"{kind}WebhookConfiguration",
        "metadata": {"name": name},
        "webhooks": list(hooks),
    }


def path(kind: str = "Validating", name: str = "") -> str:
    base = f"{GROUP}/{kind.lower()}webhookconfigurations"
    return f"{base}/{name}" if name else base


async def refused(api: Api, body: dict[str, Any]) -> list[tuple[str, str]]:
    kind = body["kind"].removesuffix("WebhookConfiguration")
    return causes(await api.post(path(kind), body))


async def test_webhook_names_are_fully_qualified_and_unique(api: Api) -> None:
    body = config(
        "wh-names",
        hook("short"),
        hook("Not_DNS.example.com"),
        hook("dup.example.com"),
        hook("dup.example.com"),
        hook(""),
    )
    assert await refused(api, body) == [
        (
            "webhooks[0].name",
            'Invalid value: "short": should be a domain with at least three segments separated '
            "by dots",
        ),
        ("webhooks[1].name", f'Invalid value: "Not_DNS.example.com": {DNS_SUBDOMAIN}'),
        ("webhooks[3].name", 'Duplicate value: "dup.example.com"'),
        ("webhooks[4].name", "Required value"),
    ]


async def test_rules_name_operations_groups_versions_resources_and_scope(api: Api) -> None:
    rules = [
        {
            "operations": ["*", "CREATE", "PATCH"],
            "apiGroups": ["*", "apps"],
            "apiVersions": ["v1", ""],
            "resources": ["pods/*", "pods/status", "*/scale", "deployments/scale"],
            "scope": "World",
        },
        {"operations": [], "apiGroups": [], "apiVersions": ["*", "v1"], "resources": []},
        {
            "operations": ["CREATE"],
            "apiGroups": [""],
            "apiVersions": ["v1"],
            "resources": ["*/*", "*", "pods", ""],
        },
    ]
    body = config("wh-rules", hook(rules=rules))
    ops = '[]admissionregistration.OperationType{"*", "CREATE", "PATCH"}'
    supported_ops = 'supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"'
    assert await refused(api, body) == [
        (
            "webhooks[0].rules[0].operations",
            f"Invalid value: {ops}: if '*' is present, must not specify other operations",
        ),
        ("webhooks[0].rules[0].operations[2]", f'Unsupported value: "PATCH": {supported_ops}'),
        (
            "webhooks[0].rules[0].apiGroups",
            'Invalid value: []string{"*", "apps"}: if \'*\' is present, must not specify other '
            "API groups",
        ),
        ("webhooks[0].rules[0].apiVersions[1]", "Required value"),
        (
            "webhooks[0].rules[0].resources[1]",
            "Invalid value: \"pods/status\": if 'pods/*' is present, must not specify pods/status",
        ),
        (
            "webhooks[0].rules[0].resources[3]",
            "Invalid value: \"deployments/scale\": if '*/scale' is present, must not specify "
            "deployments/scale",
        ),
        (
            "webhooks[0].rules[0].scope",
            'Unsupported value: "World": supported values: "*", "Cluster", "Namespaced"',
        ),
        ("webhooks[0].rules[1].operations", "Required value"),
        ("webhooks[0].rules[1].apiGroups", "Required value"),
        (
            "webhooks[0].rules[1].apiVersions",
            'Invalid value: []string{"*", "v1"}: if \'*\' is present, must not specify other '
            "API versions",
        ),
        ("webhooks[0].rules[1].resources", "Required value"),
        ("webhooks[0].rules[2].resources[3]", "Required value"),
        (
            "webhooks[0].rules[2].resources",
            'Invalid value: []string{"*/*", "*", "pods", ""}: if \'*/*\' is present, must not '
            "specify other resources",
        ),
        (
            "webhooks[0].rules[2].resources",
            'Invalid value: []string{"*/*", "*", "pods", ""}: if \'*\' is present, must not '
            "specify other resources without subresources",
        ),
    ]


async def test_a_client_config_is_an_https_url_or_a_service(api: Api) -> None:
    body = config(
        "wh-client",
        hook("a.example.com", clientConfig={}),
        hook("b.example.com", clientConfig={"url": "http://u:p@/x?q=1#frag"}),
        hook(
            "c.example.com",
            clientConfig={"service": {"port": 70000, "path": "no-slash//Bad_Segment/"}},
        ),
        hook("d.example.com", clientConfig={"url": "https://h", "service": {"name": "s"}}),
    )
    assert await refused(api, body) == [
        ("webhooks[0].clientConfig", "Required value: exactly one of url or service is required"),
        (
            "webhooks[1].clientConfig.url",
            f"Invalid value: \"http\": 'https' is the only allowed URL scheme{URL_FORM}",
        ),
        ("webhooks[1].clientConfig.url", f'Invalid value: "": host must be specified{URL_FORM}'),
        (
            "webhooks[1].clientConfig.url",
            'Invalid value: "u:p": user information is not permitted in the URL',
        ),
        (
            "webhooks[1].clientConfig.url",
            'Invalid value: "frag": fragments are not permitted in the URL',
        ),
        (
            "webhooks[1].clientConfig.url",
            'Invalid value: "q=1": query parameters are not permitted in the URL',
        ),
        ("webhooks[2].clientConfig.service.name", "Required value"),
        ("webhooks[2].clientConfig.service.namespace", "Required value"),
        (
            "webhooks[2].clientConfig.service.port",
            "Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive",
        ),
        (
            "webhooks[2].clientConfig.service.path",
            "Invalid value: \"no-slash//Bad_Segment/\": must start with a '/'",
        ),
        (
            "webhooks[2].clientConfig.service.path",
            'Invalid value: "no-slash//Bad_Segment/": segment[1] may not be empty',
        ),
        (
            "webhooks[2].clientConfig.service.path",
            f'Invalid value: "no-slash//Bad_Segment/": segment[2]: {DNS_SUBDOMAIN}',
        ),
        ("webhooks[3].clientConfig", "Required value: exactly one of url or service is required"),
    ]


async def test_a_missing_service_namespace_is_reported_at_its_name_as_1_32_does(api: Api) -> None:
    # ValidateWebhookService is declared (namespace, name) and called (name, namespace):
    # a real 1.32 server blames the other field (kubernetes/kubernetes#141353).
    body = config(
        "wh-service-swap",
        hook("a.example.com", clientConfig={"service": {"name": "hooks"}}),
        hook("b.example.com", clientConfig={"service": {"namespace": "default"}}),
    )
    assert await refused(api, body) == [
        ("webhooks[0].clientConfig.service.name", "Required value"),
        ("webhooks[1].clientConfig.service.namespace", "Required value"),
    ]


async def test_side_effects_review_versions_timeouts_and_policies(api: Api) -> None:
    validating = config(
        "wh-fields",
        hook(
            sideEffects="Some",
            admissionReviewVersions=["v2", "v2", "V3"],
            timeoutSeconds=0,
            failurePolicy="Never",
            matchPolicy="Loose",
        ),
        hook("b.example.com", sideEffects=None, admissionReviewVersions=[]),
    )
    del validating["webhooks"][1]["sideEffects"]
    label = (
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with "
        "an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
        "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
    )
    assert await refused(api, validating) == [
        (
            "webhooks[0].failurePolicy",
            'Unsupported value: "Never": supported values: "Fail", "Ignore"',
        ),
        (
            "webhooks[0].matchPolicy",
            'Unsupported value: "Loose": supported values: "Equivalent", "Exact"',
        ),
        (
            "webhooks[0].sideEffects",
            'Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
        ),
        (
            "webhooks[0].timeoutSeconds",
            "Invalid value: 0: the timeout value must be between 1 and 30 seconds",
        ),
        ("webhooks[0].admissionReviewVersions[1]", 'Invalid value: "v2": duplicate version'),
        ("webhooks[0].admissionReviewVersions[2]", f'Invalid value: "V3": {label}'),
        (
            "webhooks[0].admissionReviewVersions",
            'Invalid value: []string{"v2", "v2", "V3"}: must include at least one of v1, v1beta1',
        ),
        ("webhooks[1].sideEffects", "Required value: must specify one of None, NoneOnDryRun"),
        ("webhooks[1].admissionReviewVersions", "Required value: must specify one of v1, v1beta1"),
    ]
    mutating = config("wh-mutating", hook(reinvocationPolicy="Always"), kind="Mutating")
    assert await refused(api, mutating) == [
        (
            "webhooks[0].reinvocationPolicy",
            'Unsupported value: "Always": supported values: "IfNeeded", "Never"',
        )
    ]


async def test_selectors_and_match_conditions(api: Api) -> None:
    selector = {"matchExpressions": [{"key": "tier", "operator": "In", "values": ["a b"]}]}
    conditions = [
        {"name": "ok", "expression": "true"},
        {"name": "ok", "expression": "object.metadata.name == 1 +"},
        {"name": "Bad Name", "expression": "   "},
        {"name": "", "expression": "'not a bool'"},
    ]
    body = config("wh-conditions", hook(objectSelector=selector, matchConditions=conditions))
    found = await refused(api, body)
    assert found[0] == (
        "webhooks[0].objectSelector.matchExpressions[0].values[0]",
        'Invalid value: "a b": a valid label must be an empty string or consist of '
        "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
        "character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
        "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    )
    fields = [field for field, _ in found[1:]]
    assert fields == [
        "webhooks[0].matchConditions[1].expression",
        "webhooks[0].matchConditions[1].name",
        "webhooks[0].matchConditions[2].expression",
        "webhooks[0].matchConditions[2].name",
        "webhooks[0].matchConditions[3].expression",
        "webhooks[0].matchConditions[3].name",
    ]
    assert found[1][1].startswith(
        'Invalid value: "object.metadata.name == 1 +": compilation failed: ERROR: <input>:1:'
    )
    assert found[2][1] == 'Duplicate value: "ok"'
    assert found[3][1] == "Required value"
    assert found[4][1].startswith('Invalid value: "Bad Name": name part must consist of')
    assert found[5][1] == ("Invalid value: \"'not a bool'\": must evaluate to bool but got string")
    assert found[6][1] == "Required value"
    many = [{"name": f"c{i}", "expression": "true"} for i in range(65)]
    too_many = config("wh-many", hook(matchConditions=many))
    assert await refused(api, too_many) == [
        ("webhooks[0].matchConditions", "Too many: 65: must have at most 64 items")
    ]


async def test_defaults_and_generation_of_a_valid_configuration(api: Api) -> None:
    service = {"service": {"namespace": "default", "name": "hooks", "path": "/check"}}
    body = config("wh-valid", hook(clientConfig=service), kind="Mutating")
    created = await api.post(path("Mutating"), body)
    assert created.status == 201, created.body
    made = created.body["webhooks"][0]
    assert made["clientConfig"]["service"]["port"] == 443
    assert made["reinvocationPolicy"] == "Never"
    assert made["timeoutSeconds"] == 10
    assert made["objectSelector"] == {}
    assert made["rules"][0]["scope"] == "*"
    assert created.body["metadata"]["generation"] == 1
    moved = await api.patch(
        path("Mutating", "wh-valid"), {"metadata": {"labels": {"a": "b"}}}, MERGE
    )
    assert moved.body["metadata"]["generation"] == 1
    bad = await api.patch(
        path("Mutating", "wh-valid"), {"webhooks": [hook(timeoutSeconds=31)]}, MERGE
    )
    assert causes(bad) == [
        (
            "webhooks[0].timeoutSeconds",
            "Invalid value: 31: the timeout value must be between 1 and 30 seconds",
        )
    ]
    await api.delete(path("Mutating", "wh-valid"))


def test_an_update_is_judged_by_what_the_stored_configuration_had() -> None:
    # Objects stored before a rule existed (or by an older server) keep what they had:
    # the HTTP API cannot make such an object, so the options are checked directly.
    old = [
        hook(sideEffects="Some", admissionReviewVersions=["v0"], matchConditions=[]),
        hook(
            objectSelector={"matchExpressions": [{"key": "k", "operator": "In", "values": ["a b"]}]}
        ),
    ]
    same_conditions = [dict(h) for h in old]
    options = WebhookOptions.for_update(same_conditions, old)
    assert options == WebhookOptions(
        check_match_conditions=False,
        no_side_effects=False,
        recognized_review_version=False,
        unique_names=False,
        strict_selectors=False,
    )
    fresh = [hook("a.example.com"), hook("b.example.com")]
    assert WebhookOptions.for_update(fresh, fresh) == WebhookOptions(check_match_conditions=False)
    grown = [*fresh, hook("c.example.com")]
    assert WebhookOptions.for_update(grown, fresh) == WebhookOptions()


async def test_an_update_must_name_a_resource_version(api: Api) -> None:
    created = await api.post(path(), config("wh-rv", hook()))
    assert created.status == 201, created.body
    body = config("wh-rv", hook(timeoutSeconds=5))
    unconditional = await api.put(path(name="wh-rv"), body)
    assert causes(unconditional) == [
        ("metadata.resourceVersion", "Invalid value: 0x0: must be specified for an update")
    ]
    assert unconditional.body["details"]["kind"] == "validatingwebhookconfigurations"
    body["metadata"]["resourceVersion"] = created.body["metadata"]["resourceVersion"]
    assert (await api.put(path(name="wh-rv"), body)).status == 200
    await api.delete(path(name="wh-rv"))
