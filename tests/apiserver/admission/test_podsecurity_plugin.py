"""The PodSecurity plugin on the store's ``Attempt``s, for what a client cannot reach over
HTTP on a server that checks every label: a namespace already holding a bad label (set
while the plugin was off) may be updated as long as that label is left as it is, as
``ValidateNamespace`` allows; and which subresources the plugin looks at."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from kubeforge.apiserver.admission.plugins.podsecurity import PodSecurityPlugin
from kubeforge.apiserver.failures import StatusError
from kubeforge.apiserver.registry.admit import Attempt
from kubeforge.apiserver.registry.options import WriteOptions
from kubeforge.apiserver.registry.served import ServedResource
from kubeforge.apiserver.storage.sqlite import Storage
from kubeforge.core.resource import ResourceInfo

P = "pod-security.kubernetes.io/"
NAMESPACES = ServedResource(ResourceInfo("", "v1", "Namespace", "namespaces", namespaced=False))
PODS = ServedResource(ResourceInfo("", "v1", "Pod", "pods"))
RCS = ServedResource(ResourceInfo("", "v1", "ReplicationController", "replicationcontrollers"))
PRIVILEGED_POD = {
    "metadata": {"name": "p", "namespace": "team"},
    "spec": {"containers": [{"name": "c", "image": "i", "securityContext": {"privileged": True}}]},
}


def _namespace(**labels: str) -> dict[str, Any]:
    return {"metadata": {"name": "team", "labels": {P + k: v for k, v in labels.items()}}}


@pytest.fixture
def plugin() -> Iterator[PodSecurityPlugin]:
    storage = Storage(None)
    storage.create(("", "namespaces"), _namespace(enforce="baseline", audit="loud"))
    yield PodSecurityPlugin(storage)
    storage.close()


def _attempt(
    served: ServedResource,
    obj: dict[str, Any],
    old: dict[str, Any] | None = None,
    subresource: str = "",
) -> tuple[Attempt, list[str]]:
    warnings: list[str] = []
    operation = "CREATE" if old is None else "UPDATE"
    namespace = "" if served is NAMESPACES else "team"
    options = WriteOptions(warnings=warnings)
    return Attempt(operation, served, namespace, obj, old, options, subresource), warnings


def test_an_unchanged_bad_label_does_not_block_an_update(plugin: PodSecurityPlugin) -> None:
    stored = _namespace(enforce="baseline", audit="loud")
    relabelled = _namespace(enforce="baseline", audit="loud")
    relabelled["metadata"]["labels"]["owner"] = "me"
    plugin.validate(_attempt(NAMESPACES, relabelled, stored)[0])
    changed = _namespace(enforce="baseline", audit="louder")
    with pytest.raises(StatusError) as caught:
        plugin.validate(_attempt(NAMESPACES, changed, stored)[0])
    assert caught.value.status["message"] == (
        f'Namespace "team" is invalid: metadata.labels[{P}audit]: Invalid value: "louder": '
        "must be one of privileged, baseline, restricted"
    )


def test_a_bad_audit_label_fails_open_and_enforce_still_applies(plugin: PodSecurityPlugin) -> None:
    with pytest.raises(StatusError) as caught:
        plugin.validate(_attempt(PODS, PRIVILEGED_POD)[0])
    assert caught.value.code == 403
    assert caught.value.status["message"] == (
        'pods "p" is forbidden: violates PodSecurity "baseline:latest": '
        'privileged (container "c" must not set securityContext.privileged=true)'
    )


@pytest.mark.parametrize("subresource", ["status", "binding", "eviction", "exec"])
def test_pod_subresources_that_cannot_change_the_spec_are_not_checked(
    plugin: PodSecurityPlugin, subresource: str
) -> None:
    plugin.validate(_attempt(PODS, PRIVILEGED_POD, subresource=subresource)[0])


def test_a_controller_without_a_template_and_a_scale_are_not_checked(
    plugin: PodSecurityPlugin,
) -> None:
    bare = {"metadata": {"name": "rc", "namespace": "team"}, "spec": {"replicas": 1}}
    attempt, warnings = _attempt(RCS, bare)
    plugin.validate(attempt)
    assert warnings == []
    templated = {"metadata": bare["metadata"], "spec": {"template": PRIVILEGED_POD}}
    attempt, warnings = _attempt(RCS, templated, subresource="scale")
    plugin.validate(attempt)
    assert warnings == []
    attempt, warnings = _attempt(RCS, templated)
    plugin.validate(attempt)
    assert warnings == [
        'would violate PodSecurity "baseline:latest": '
        'privileged (container "c" must not set securityContext.privileged=true)'
    ]
