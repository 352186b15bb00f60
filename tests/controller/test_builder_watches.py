"""Builder watches against the real local API server: map functions, predicates, every owner."""

from __future__ import annotations

import pytest

from kubeforge.controller import (
    Builder,
    LabelSelectorPredicate,
    ResourceVersionChanged,
    set_controller_reference,
    set_owner_reference,
)
from kubeforge.core.meta import ObjectMeta
from kubeforge.models.core_v1 import ConfigMap, Secret
from kubeforge.reconcile import Request
from watch.kf_server import configmap, eventually, fresh_namespace

pytestmark = pytest.mark.live


def secret(name: str, namespace: str, **labels: str) -> Secret:
    return Secret(metadata=ObjectMeta(name=name, namespace=namespace, labels=labels or None))


async def test_watches_queue_what_the_map_function_returns_through_its_predicates(client, running):
    namespace = await fresh_namespace(client, "builder-watches")
    seen: list[Request] = []

    async def reconcile(request: Request) -> None:
        seen.append(request)

    def to_configmap(obj: Secret) -> list[Request]:
        # Secrets name the ConfigMap they belong to in a label.
        target = (obj.metadata.labels or {}).get("for")
        return [Request(namespace, target)] if target else []

    (
        Builder(running.mgr)
        .named("watches")
        .for_(ConfigMap, namespace=namespace, predicates=[LabelSelectorPredicate("watched=yes")])
        .watches(Secret, to_configmap, namespace=namespace, predicates=[ResourceVersionChanged()])
        .complete(reconcile)
    )
    running.start()
    configmaps = client.api(ConfigMap, namespace=namespace)
    quiet = configmap("quiet", namespace)
    watched = configmap("target", namespace)
    watched.metadata.labels = {"watched": "yes"}
    await configmaps.create(quiet)
    await configmaps.create(watched)
    await eventually(lambda: Request(namespace, "target") in seen)
    await client.api(Secret, namespace=namespace).create(secret("s", namespace, **{"for": "quiet"}))
    await eventually(lambda: Request(namespace, "quiet") in seen)
    assert seen.count(Request(namespace, "quiet")) == 1  # only through the secret


async def test_owns_with_match_every_owner_queues_each_owner_and_event_filters_apply(
    client, running
):
    namespace = await fresh_namespace(client, "builder-owners")
    seen: list[Request] = []

    async def reconcile(request: Request) -> None:
        seen.append(request)

    (
        Builder(running.mgr)
        .named("every-owner")
        .for_(ConfigMap, namespace=namespace)
        .owns(Secret, namespace=namespace, match_every_owner=True)
        .with_event_filter(LabelSelectorPredicate("team=a"))
        .complete(reconcile)
    )
    running.start()
    configmaps = client.api(ConfigMap, namespace=namespace)
    owners = []
    for name in ("boss", "helper"):
        owner = configmap(name, namespace)
        owner.metadata.labels = {"team": "a"}
        owners.append(await configmaps.create(owner))
    await eventually(lambda: {r.name for r in seen} == {"boss", "helper"})
    seen.clear()
    dependent = secret("dep", namespace, team="a")
    set_controller_reference(owners[0], dependent)
    set_owner_reference(owners[1], dependent)
    await client.api(Secret, namespace=namespace).create(dependent)
    await eventually(lambda: {r.name for r in seen} == {"boss", "helper"})
    seen.clear()
    unlabelled = secret("filtered", namespace)
    set_controller_reference(owners[0], unlabelled)
    await client.api(Secret, namespace=namespace).create(unlabelled)
    # One informer hands events over in order and one worker takes keys in order: had
    # the unlabelled secret passed the filter, "boss" would be reconciled before "helper".
    marker = secret("marker", namespace, team="a")
    set_controller_reference(owners[1], marker)
    await client.api(Secret, namespace=namespace).create(marker)
    await eventually(lambda: Request(namespace, "helper") in seen)
    assert Request(namespace, "boss") not in seen
