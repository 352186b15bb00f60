"""Affinity, tolerations, topology spread constraints and gates of a pod spec, as
kubernetes 1.32's ``validateAffinity``, ``ValidateTolerations`` and
``validateTopologySpreadConstraints`` answer them, and the label keys a 1.32 server
merges into a new pod's affinity selectors (``mutatePodAffinity``)."""

from __future__ import annotations

from typing import Any

from kf_http import Api
from kf_podspec import created, deployment, pod, refused

REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"
QUALIFIED = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start "
    "and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', "
    "regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)


async def test_node_affinity_operators_values_and_weights(api: Api, namespace: str) -> None:
    expressions = [
        {"key": "zone", "operator": "In"},
        {"key": "zone", "operator": "Exists", "values": ["a"]},
        {"key": "cpu", "operator": "Gt", "values": ["1", "2"]},
        {"key": "bad key", "operator": "Near", "values": ["a"]},
    ]
    fields = [{"key": "spec.nodeName", "operator": "In", "values": ["n"]}]
    node = {
        REQUIRED: {"nodeSelectorTerms": [{"matchExpressions": expressions, "matchFields": fields}]},
        PREFERRED: [{"weight": 101, "preference": {}}],
    }
    found = await refused(api, namespace, pod("nodes", affinity={"nodeAffinity": node}))
    at = f"spec.affinity.nodeAffinity.{REQUIRED}.nodeSelectorTerms[0]"
    assert found == [
        (f"{at}.matchExpressions[0].values", "Required value: must be specified when `operator` is 'In' or 'NotIn'"),  # noqa: E501
        (f"{at}.matchExpressions[1].values", "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"),  # noqa: E501
        (f"{at}.matchExpressions[2].values", "Required value: must be specified single value when `operator` is 'Lt' or 'Gt'"),  # noqa: E501
        (f"{at}.matchExpressions[3].operator", 'Invalid value: "Near": not a valid selector operator'),  # noqa: E501
        (f"{at}.matchExpressions[3].key", f'Invalid value: "bad key": {QUALIFIED}'),
        (f"{at}.matchFields[0].key", 'Invalid value: "spec.nodeName": not a valid field selector key'),  # noqa: E501
        (f"spec.affinity.nodeAffinity.{PREFERRED}[0].weight", "Invalid value: 101: must be in the range 1-100"),  # noqa: E501
    ]  # fmt: skip
    empty = {"nodeAffinity": {REQUIRED: {"nodeSelectorTerms": []}}}
    found = await refused(api, namespace, pod("no-terms", affinity=empty))
    assert found == [
        (
            f"spec.affinity.nodeAffinity.{REQUIRED}.nodeSelectorTerms",
            "Required value: must have at least one node selector term",
        )
    ]


async def test_pod_affinity_terms_need_a_topology_key_and_valid_selectors(
    api: Api, namespace: str
) -> None:
    term = {
        "labelSelector": {
            "matchExpressions": [{"key": "app", "operator": "In", "values": ["a b"]}]
        },
        "namespaces": ["Bad_NS"],
        "mismatchLabelKeys": ["tier"],
        "matchLabelKeys": ["tier"],
    }
    weighted = {"weight": 0, "podAffinityTerm": {"topologyKey": "zone"}}
    affinity = {"podAntiAffinity": {REQUIRED: [term], PREFERRED: [weighted]}}
    found = await refused(api, namespace, pod("pods", affinity=affinity))
    at = f"spec.affinity.podAntiAffinity.{REQUIRED}[0]"
    fields = [field for field, _ in found]
    assert fields == [
        f"{at}.labelSelector.matchExpressions[0].values[0]",
        f"{at}.namespace",
        f"{at}.matchLabelKeys[0]",
        f"{at}.topologyKey",
        f"{at}.topologyKey",
        f"{at}.topologyKey",
        f"spec.affinity.podAntiAffinity.{PREFERRED}[0].weight",
    ]
    assert (
        found[2][1] == 'Invalid value: "tier": exists in both matchLabelKeys and mismatchLabelKeys'
    )
    assert found[3][1] == "Required value: can not be empty"
    assert found[6][1] == "Invalid value: 0: must be in the range 1-100"


async def test_a_new_pods_match_label_keys_are_merged_into_its_selector(
    api: Api, namespace: str
) -> None:
    term = {
        "labelSelector": {"matchLabels": {"tier": "web"}},
        "matchLabelKeys": ["app"],
        "mismatchLabelKeys": ["missing"],
        "topologyKey": "kubernetes.io/hostname",
    }
    stored = await created(
        api, namespace, pod("merged", affinity={"podAffinity": {REQUIRED: [term]}})
    )
    selector = stored["spec"]["affinity"]["podAffinity"][REQUIRED][0]["labelSelector"]
    assert selector == {
        "matchLabels": {"tier": "web"},
        "matchExpressions": [{"key": "app", "operator": "In", "values": ["merged"]}],
    }
    # Naming the key in the selector too is then a duplicate, reported at Go's odd path.
    term["labelSelector"] = {"matchLabels": {"app": "twice"}}
    found = await refused(
        api, namespace, pod("twice", affinity={"podAffinity": {REQUIRED: [term]}})
    )
    assert found == [
        (
            f"spec.affinity.podAffinity.{REQUIRED}[0][0]",
            'Invalid value: "app": exists in both matchLabelKeys and labelSelector',
        )
    ]


async def test_tolerations_follow_the_operator_and_effect_rules(api: Api, namespace: str) -> None:
    tolerations: list[dict[str, Any]] = [
        {"key": "k", "operator": "Exists", "value": "v"},
        {"operator": "Equal", "value": "v"},
        {"key": "k", "value": "v", "effect": "NoSchedule", "tolerationSeconds": 5},
        {"key": "k", "operator": "Near", "effect": "Sometimes"},
        {"key": "k", "value": "bad value"},
    ]
    found = await refused(api, namespace, pod("tolerant", tolerations=tolerations))
    assert found == [
        ("spec.tolerations[0].operator", "Invalid value: \"v\": value must be empty when `operator` is 'Exists'"),  # noqa: E501
        ("spec.tolerations[1].operator", 'Invalid value: "Equal": operator must be Exists when `key` is empty, which means "match all values and all keys"'),  # noqa: E501
        ("spec.tolerations[2].effect", "Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set"),  # noqa: E501
        ("spec.tolerations[3].operator", 'Unsupported value: "Near": supported values: "Equal", "Exists"'),  # noqa: E501
        ("spec.tolerations[3].effect", 'Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"'),  # noqa: E501
        ("spec.tolerations[4].operator", "Invalid value: \"bad value\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"),  # noqa: E501
    ]  # fmt: skip


async def test_topology_spread_constraints(api: Api, namespace: str) -> None:
    constraints = [
        {
            "maxSkew": 0,
            "topologyKey": "zone",
            "whenUnsatisfiable": "ScheduleAnyway",
            "minDomains": 2,
        },
        {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway"},
        {
            "maxSkew": 1,
            "topologyKey": "",
            "whenUnsatisfiable": "Maybe",
            "nodeTaintsPolicy": "Never",
            "matchLabelKeys": ["app"],
        },
    ]
    found = await refused(api, namespace, pod("spread", topologySpreadConstraints=constraints))
    at = "spec.topologySpreadConstraints"
    assert found == [
        (f"{at}[0].maxSkew", "Invalid value: 0: must be greater than zero"),
        (f"{at}[0].{{topologyKey, whenUnsatisfiable}}", 'Duplicate value: "{zone, ScheduleAnyway}"'),  # noqa: E501
        (f"{at}[0].minDomains", "Invalid value: 2: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway"),  # noqa: E501
        (f"{at}[2].topologyKey", "Required value: can not be empty"),
        (f"{at}[2].whenUnsatisfiable", 'Unsupported value: "Maybe": supported values: "DoNotSchedule", "ScheduleAnyway"'),  # noqa: E501
        (f"{at}[2].nodeTaintsPolicy", 'Unsupported value: "Never": supported values: "Honor", "Ignore"'),  # noqa: E501
        (f"{at}[2].matchLabelKeys", "Forbidden: must not be specified when labelSelector is not set"),  # noqa: E501
    ]  # fmt: skip


async def test_scheduling_gates_and_node_selector(api: Api, namespace: str) -> None:
    spec = {
        "nodeSelector": {"disk": "ssd ok"},
        "schedulingGates": [{"name": "example.com/wait"}, {"name": "example.com/wait"}],
    }
    found = await refused(api, namespace, pod("gated", **spec))
    assert [field for field, _ in found] == ["spec.nodeSelector", "spec.schedulingGates[1]"]
    assert found[1][1] == 'Duplicate value: "example.com/wait"'


async def test_a_deployment_template_gets_the_scheduling_rules(api: Api, namespace: str) -> None:
    body = deployment("web", tolerations=[{"key": "k", "operator": "Exists", "value": "v"}])
    found = await refused(api, namespace, body)
    assert found == [
        (
            "spec.template.spec.tolerations[0].operator",
            "Invalid value: \"v\": value must be empty when `operator` is 'Exists'",
        )
    ]
