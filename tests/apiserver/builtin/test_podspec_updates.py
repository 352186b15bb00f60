"""Pod updates as kubernetes 1.32's ``ValidatePodUpdate`` refuses them: containers may
not come or go, ``activeDeadlineSeconds`` only goes down, tolerations are only added,
and any other change gets Go's message, its first line word for word."""

from __future__ import annotations

from typing import Any

from kf_http import Api
from kf_podspec import causes, created, pod

FIRST_LINE = (
    "Forbidden: pod updates may not change fields other than `spec.containers[*].image`,"
    "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only "
    "additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be "
    "set to 1 if it was previously negative)"
)


async def _stored(api: Api, namespace: str, name: str, **spec: Any) -> dict[str, Any]:
    await created(api, namespace, pod(name, **spec))
    reply = await api.get(f"/api/v1/namespaces/{namespace}/pods/{name}")
    assert reply.status == 200
    current: dict[str, Any] = reply.body
    return current


async def _put(api: Api, namespace: str, body: dict[str, Any]) -> Any:
    # Unconditional (pods allow it): the simulated kubelet's status writes move the
    # resourceVersion meanwhile, and only the spec matters here.
    body["metadata"].pop("resourceVersion", None)
    name = body["metadata"]["name"]
    return await api.put(f"/api/v1/namespaces/{namespace}/pods/{name}", body)


async def test_a_changed_field_gets_the_real_first_line_and_a_diff(
    api: Api, namespace: str
) -> None:
    current = await _stored(api, namespace, "selector")
    current["spec"]["nodeSelector"] = {"disk": "ssd"}
    found = causes(await _put(api, namespace, current))
    assert len(found) == 1
    field, message = found[0]
    assert field == "spec"
    first, diff = message.split("\n", 1)
    assert first == FIRST_LINE
    assert diff.startswith("  core.PodSpec{\n")
    assert '+ \tNodeSelector: {"disk": "ssd"},' in diff
    assert diff.endswith("\n  }")


async def test_an_image_change_is_allowed_and_containers_may_not_come_or_go(
    api: Api, namespace: str
) -> None:
    current = await _stored(api, namespace, "images")
    current["spec"]["containers"][0]["image"] = "nginx:1.27"
    reply = await _put(api, namespace, current)
    assert reply.status == 200, reply.body
    current = reply.body
    current["spec"]["containers"].append({"name": "extra", "image": "busybox"})
    found = causes(await _put(api, namespace, current))
    assert ("spec.containers", "Forbidden: pod updates may not add or remove containers") in found
    assert not any(field == "spec" for field, _ in found)


async def test_active_deadline_only_goes_down(api: Api, namespace: str) -> None:
    current = await _stored(api, namespace, "deadline", activeDeadlineSeconds=60)
    current["spec"]["activeDeadlineSeconds"] = 120
    found = causes(await _put(api, namespace, current))
    assert found == [
        (
            "spec.activeDeadlineSeconds",
            "Invalid value: 120: must be less than or equal to previous value",
        )
    ]
    current["spec"]["activeDeadlineSeconds"] = 30
    assert (await _put(api, namespace, current)).status == 200


async def test_tolerations_may_be_added_and_their_seconds_changed_but_not_edited(
    api: Api, namespace: str
) -> None:
    toleration = {"key": "k", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 5}
    current = await _stored(api, namespace, "tolerations", tolerations=[toleration])
    current["spec"]["tolerations"][0]["tolerationSeconds"] = 10
    current["spec"]["tolerations"].append({"key": "other", "operator": "Exists"})
    reply = await _put(api, namespace, current)
    assert reply.status == 200, reply.body
    current = reply.body
    current["spec"]["tolerations"][0]["key"] = "changed"
    found = causes(await _put(api, namespace, current))
    assert found == [
        (
            "spec.tolerations",
            "Forbidden: existing toleration can not be modified except its tolerationSeconds",
        )
    ]


async def test_scheduling_gates_may_only_be_removed(api: Api, namespace: str) -> None:
    gates = [{"name": "example.com/a"}]
    current = await _stored(api, namespace, "gates", schedulingGates=gates)
    current["spec"]["schedulingGates"].append({"name": "example.com/b"})
    found = causes(await _put(api, namespace, current))
    assert found == [
        (
            "spec.schedulingGates[1].name",
            "Forbidden: only deletion is allowed, but found new scheduling gate 'example.com/b'",
        )
    ]
    current["spec"]["schedulingGates"] = []
    assert (await _put(api, namespace, current)).status == 200


async def test_a_gated_pods_node_selector_and_affinity_may_only_grow(
    api: Api, namespace: str
) -> None:
    term = {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [term]}}}  # fmt: skip
    current = await _stored(
        api,
        namespace,
        "queued",
        schedulingGates=[{"name": "example.com/queue"}],
        nodeSelector={"pool": "x"},
        affinity=affinity,
    )
    # A queueing controller may add a selector entry and a requirement while gated.
    current["spec"]["nodeSelector"]["disk"] = "ssd"
    added = {"key": "arch", "operator": "In", "values": ["arm64"]}
    terms = current["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]  # fmt: skip
    terms[0]["matchExpressions"].append(added)
    reply = await _put(api, namespace, current)
    assert reply.status == 200, reply.body
    current = reply.body
    current["spec"]["nodeSelector"] = {"pool": "y"}
    terms = current["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]  # fmt: skip
    terms[0]["matchExpressions"] = [added]
    found = causes(await _put(api, namespace, current))
    at = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
    assert found == [
        (
            "spec.nodeSelector",
            'Invalid value: map[string]string{"pool":"y"}: only additions to '
            "spec.nodeSelector are allowed (no mutations or deletions)",
        ),
        (
            f"{at}.nodeSelectorTerms[0]",
            "Invalid value: core.NodeSelectorTerm{MatchExpressions:[]core.NodeSelectorRequirement"
            '{core.NodeSelectorRequirement{Key:"arch", Operator:"In", Values:[]string{"arm64"}}}, '
            "MatchFields:[]core.NodeSelectorRequirement(nil)}: only additions are allowed (no "
            "mutations or deletions)",
        ),
    ]
    # Once ungated, the selector is as immutable as the rest of the spec.
    current = (await api.get(f"/api/v1/namespaces/{namespace}/pods/queued")).body
    current["spec"]["schedulingGates"] = []
    assert (await _put(api, namespace, current)).status == 200
    current["spec"]["nodeSelector"]["more"] = "x"
    found = causes(await _put(api, namespace, current))
    assert found[0][0] == "spec"
