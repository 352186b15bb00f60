"""The ``Warning`` headers a 1.32 server answers a pod create with (``WarningsOnCreate`` in
pkg/registry/core/pod/strategy.go, ``GetWarningsForPod`` in pkg/api/pod/warnings.go), in
Go's order and words, and none when the pod is refused."""

from __future__ import annotations

from typing import Any

from kf_http import Api, Reply
from kf_podspec import pod

GRACE = "must be >= 0; negative values are invalid and will be treated as 1"
NULL_SELECTOR = "a null labelSelector results in matching no pod"


async def created(api: Api, namespace: str, body: dict[str, Any]) -> list[str]:
    reply = await api.post(f"/api/v1/namespaces/{namespace}/pods", body)
    assert reply.status == 201, reply.body
    return texts(reply)


def texts(reply: Reply) -> list[str]:
    """The warnings' texts, unquoted as a client shows them."""
    found = []
    for header in reply.headers.getall("Warning", []):
        assert header.startswith('299 - "') and header.endswith('"'), header
        found.append(header[len('299 - "') : -1].replace('\\"', '"'))
    return found


async def test_a_pod_s_spec_is_warned_of_in_go_s_order(api: Api, namespace: str) -> None:
    container = {
        "env": [
            {"name": "MODE", "value": "a"},
            {"name": "MODE", "value": "b"},
            {"name": "PATH", "value": "/bin"},
            {"name": "PATH", "value": "$(PATH):/sbin"},
        ],
        "resources": {"limits": {"memory": "1.5"}, "requests": {"memory": "100m"}},
        "ports": [{"containerPort": 80}, {"containerPort": 80, "hostPort": 8080}],
    }
    term = {"topologyKey": "kubernetes.io/hostname"}
    body = pod(
        "spec-warnings",
        container,
        nodeSelector={"beta.kubernetes.io/arch": "amd64"},
        hostAliases=[
            {"ip": "10.0.0.1", "hostnames": ["a"]},
            {"ip": "10.0.0.1", "hostnames": ["b"]},
        ],
        imagePullSecrets=[{"name": "reg"}, {"name": "reg"}],
        terminationGracePeriodSeconds=-1,
        affinity={"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}},
    )
    body["spec"]["containers"].append(
        {"name": "side", "image": "busybox", "ports": [{"containerPort": 80}]}
    )
    c0, c1 = "spec.containers[0]", "spec.containers[1]"
    assert await created(api, namespace, body) == [
        'spec.nodeSelector[beta.kubernetes.io/arch]: deprecated since v1.14; use "kubernetes.io/arch" instead',  # noqa: E501
        'spec.hostAliases[1].ip: duplicate ip "10.0.0.1"',
        'spec.imagePullSecrets[1].name: duplicate name "reg"',
        f'{c0}.resources.limits[memory]: fractional byte value "1500m" is invalid, must be an integer',  # noqa: E501
        f'{c0}.resources.requests[memory]: fractional byte value "100m" is invalid, must be an integer',  # noqa: E501
        f'{c0}.env[1]: hides previous definition of "MODE", which may be dropped when using apply',
        f"{c0}.ports[1]: overlapping port definition with {c0}.ports[0]",
        f"{c1}.ports[0]: duplicate port definition with {c0}.ports[0]",
        f"{c1}.ports[0]: overlapping port definition with {c0}.ports[1]",
        f"spec.terminationGracePeriodSeconds: {GRACE}",
        "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]"
        f".labelSelector: {NULL_SELECTOR}",
    ]


async def test_a_pod_name_that_is_no_dns_label_is_warned_of(api: Api, namespace: str) -> None:
    assert await created(api, namespace, pod("web.v1")) == [
        "metadata.name: this is used in the Pod's hostname, which can result in surprising "
        "behavior; a DNS label is recommended: [a lowercase RFC 1123 label must consist of "
        "lower case alphanumeric characters or '-', and must start and end with an "
        "alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')]"
    ]


async def test_spread_constraints_volumes_and_host_ports(api: Api, namespace: str) -> None:
    spread = {"maxSkew": 1, "topologyKey": "failure-domain.beta.kubernetes.io/zone"}
    spread["whenUnsatisfiable"] = "DoNotSchedule"
    volume = {"name": "repo", "gitRepo": {"repository": "https://example.com/r.git"}}
    container = {
        "ports": [{"containerPort": 53, "protocol": "UDP", "hostIP": "10.1.2.3"}],
        "volumeMounts": [{"name": "repo", "mountPath": "/repo"}],
    }
    body = pod("spread", container, topologySpreadConstraints=[spread], volumes=[volume])
    assert await created(api, namespace, body) == [
        "spec.topologySpreadConstraints[0].topologyKey: failure-domain.beta.kubernetes.io/zone "
        'is deprecated since v1.17; use "topology.kubernetes.io/zone" instead',
        f"spec.topologySpreadConstraints[0].labelSelector: {NULL_SELECTOR}",
        "spec.volumes[0].gitRepo: deprecated in v1.11",
        "spec.containers[0].ports[0]: hostIP set without hostPort: "
        "{Name: HostPort:0 ContainerPort:53 Protocol:UDP HostIP:10.1.2.3}",
    ]


async def test_a_refused_pod_is_not_warned_of(api: Api, namespace: str) -> None:
    # WarningsOnCreate runs only once validation passed (rest.BeforeCreate).
    body = pod("refused", {"image": ""}, terminationGracePeriodSeconds=-1)
    reply = await api.post(f"/api/v1/namespaces/{namespace}/pods", body)
    assert reply.status == 422, reply.body
    assert texts(reply) == []
