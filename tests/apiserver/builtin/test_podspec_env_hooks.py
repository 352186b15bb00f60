"""A container's env, envFrom, lifecycle sleep and probe headers, as kubernetes 1.32's
``ValidateEnv``, ``ValidateEnvFrom``, ``validateSleepAction`` and ``validateHTTPGetAction``
answer them; and ``resizePolicy`` dropped as InPlacePodVerticalScaling (alpha) drops it."""

from __future__ import annotations

from kf_http import Api
from kf_podspec import created, pod, refused

ENV_FIELDS = (
    '"metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", '
    '"spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", '
    '"status.podIPs"'
)


async def test_env_sources_field_paths_resources_and_keys(api: Api, namespace: str) -> None:
    env = [
        {"name": "A", "valueFrom": {}},
        {"name": "B", "value": "x", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
        {"name": "C", "valueFrom": {"fieldRef": {"fieldPath": "metadata.nam"}}},
        {"name": "D", "valueFrom": {"fieldRef": {"fieldPath": "status.phase"}}},
        {"name": "E", "valueFrom": {"resourceFieldRef": {"resource": "limits.gpu"}}},
        {
            "name": "F",
            "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu", "divisor": "2"}},
        },
        {"name": "G", "valueFrom": {"configMapKeyRef": {"name": "Cfg", "key": "bad key"}}},
        {"name": "H", "valueFrom": {"secretKeyRef": {"name": "s"}}},
    ]
    found = await refused(api, namespace, pod("env", {"env": env}))
    at = "spec.containers[0].env"
    assert found == [
        (f"{at}[0].valueFrom", 'Invalid value: "": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`'),  # noqa: E501
        (f"{at}[1].valueFrom", 'Invalid value: "": may not be specified when `value` is not empty'),
        (f"{at}[2].valueFrom.fieldRef.fieldPath", 'Invalid value: "metadata.nam": error converting fieldPath: field label not supported: metadata.nam'),  # noqa: E501
        (f"{at}[3].valueFrom.fieldRef.fieldPath", f'Unsupported value: "status.phase": supported values: {ENV_FIELDS}'),  # noqa: E501
        (f"{at}[4].valueFrom.resourceFieldRef.resource", 'Unsupported value: "limits.gpu": supported values: "limits.cpu", "limits.ephemeral-storage", "limits.memory", "requests.cpu", "requests.ephemeral-storage", "requests.memory"'),  # noqa: E501
        (f"{at}[5].valueFrom.resourceFieldRef.divisor", 'Invalid value: "limits.cpu": only divisor\'s values 1m and 1 are supported with the cpu resource'),  # noqa: E501
        (f"{at}[6].valueFrom.configMapKeyRef.name", 'Invalid value: "Cfg": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')'),  # noqa: E501
        (f"{at}[6].valueFrom.configMapKeyRef.key", "Invalid value: \"bad key\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"),  # noqa: E501
        (f"{at}[7].valueFrom.secretKeyRef.key", "Required value"),
    ]  # fmt: skip


async def test_a_field_ref_gets_api_version_v1_and_labels_by_key(api: Api, namespace: str) -> None:
    env = [{"name": "TIER", "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['tier']"}}}]
    stored = await created(api, namespace, pod("labels", {"env": env}))
    field = stored["spec"]["containers"][0]["env"][0]["valueFrom"]["fieldRef"]
    assert field == {"apiVersion": "v1", "fieldPath": "metadata.labels['tier']"}


async def test_env_from_needs_one_source_and_valid_names(api: Api, namespace: str) -> None:
    env_from = [
        {"prefix": "A=", "configMapRef": {"name": "cfg-"}},
        {"configMapRef": {"name": "cfg"}, "secretRef": {"name": "sec"}},
        {"prefix": "X_"},
    ]
    found = await refused(api, namespace, pod("env-from", {"envFrom": env_from}))
    at = "spec.containers[0].envFrom"
    assert found == [
        (f"{at}[0].prefix", "Invalid value: \"A=\": a valid environment variable name must consist only of printable ASCII characters other than '='"),  # noqa: E501
        (at, 'Invalid value: "": may not have more than one field specified at a time'),
        (at, 'Invalid value: "": must specify one of: `configMapRef` or `secretRef`'),
    ]  # fmt: skip


async def test_a_sleep_hook_fits_in_the_grace_period_and_headers_are_tokens(
    api: Api, namespace: str
) -> None:
    lifecycle = {"preStop": {"sleep": {"seconds": 45}}, "postStart": {"sleep": {"seconds": 0}}}
    probe = {"httpGet": {"port": 80, "httpHeaders": [{"name": "X Bad", "value": "1"}]}}
    container = {"lifecycle": lifecycle, "readinessProbe": probe}
    found = await refused(api, namespace, pod("hooks", container, terminationGracePeriodSeconds=30))
    at = "spec.containers[0]"
    advice = "Enable AllowPodLifecycleSleepActionZeroValue feature gate for zero sleep."
    assert found == [
        (f"{at}.lifecycle.postStart.sleep", f"Invalid value: 0: must be greater than 0 and less than terminationGracePeriodSeconds (30). {advice}"),  # noqa: E501
        (f"{at}.lifecycle.preStop.sleep", f"Invalid value: 45: must be greater than 0 and less than terminationGracePeriodSeconds (30). {advice}"),  # noqa: E501
        (f"{at}.readinessProbe.httpGet.httpHeaders", "Invalid value: \"X Bad\": a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+')"),  # noqa: E501
    ]  # fmt: skip


async def test_resize_policy_is_dropped_as_its_alpha_gate_is_off(api: Api, namespace: str) -> None:
    policy = [{"resourceName": "cpu", "restartPolicy": "NotRequired"}]
    stored = await created(api, namespace, pod("resize", {"resizePolicy": policy}))
    assert "resizePolicy" not in stored["spec"]["containers"][0]


async def test_resource_claims_are_dropped_as_dynamic_resource_allocation_is_off(
    api: Api, namespace: str
) -> None:
    claims = [{"name": "gpu", "resourceClaimTemplateName": "gpu-template"}]
    body = pod("claims", {"resources": {"claims": [{"name": "gpu"}]}}, resourceClaims=claims)
    stored = await created(api, namespace, body)
    assert "resourceClaims" not in stored["spec"]
    assert stored["spec"]["containers"][0]["resources"] == {}
