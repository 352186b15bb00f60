"""Typed server-side apply sends what the user set, and only that, as client-go's apply
configurations do: a field set to its default value is owned and enforced, a field not
set is released, and a conflict is reported on a set field. Against the local server."""

from __future__ import annotations

import json

import msgspec
import pytest

from kubeforge.client import Client
from kubeforge.core.errors import Conflict
from kubeforge.core.meta import Model, ObjectMeta, encode, partial
from kubeforge.core.resource import Resource, ResourceInfo
from kubeforge.crd import generate_crd, install_crds
from kubeforge.models.apps_v1 import Deployment, DeploymentSpec
from kubeforge.models.core_v1 import Container, PodSpec, PodTemplateSpec
from kubeforge.models.meta_v1 import LabelSelector


class FleetSpec(Model):
    replicas: int = 1
    """How many ships; the CRD defaults it to 1, as the Python default says."""
    image: str | None = None


class Fleet(Resource):
    info = ResourceInfo(group="apply.kubeforge.test", version="v1", kind="Fleet", plural="fleets")
    spec: FleetSpec = msgspec.field(default_factory=FleetSpec)


@pytest.fixture
async def fleets(client: Client, namespace: str) -> object:
    await install_crds(client, [generate_crd(Fleet)])
    return client.api(Fleet, namespace=namespace)


def _fleet(spec: FleetSpec) -> Fleet:
    return Fleet(metadata=ObjectMeta(name="armada"), spec=spec)


def _owned(obj: Resource, manager: str) -> set[str]:
    """The spec fields ``manager`` owns on ``obj``."""
    for entry in obj.metadata.managed_fields or []:
        if entry.manager == manager:
            return set((entry.fields() or {}).get("f:spec", {}))
    return set()


def test_the_applied_configuration_holds_exactly_what_was_set() -> None:
    assert json.loads(encode(_fleet(FleetSpec(replicas=1)))) == {
        "apiVersion": "apply.kubeforge.test/v1",
        "kind": "Fleet",
        "metadata": {"name": "armada"},
        "spec": {"replicas": 1},
    }
    assert json.loads(encode(_fleet(FleetSpec(image="x"))))["spec"] == {"image": "x"}
    assert FleetSpec().replicas == 1  # unset, it still reads as its default


async def test_a_field_set_to_its_default_value_is_owned_and_enforced(fleets) -> None:  # type: ignore[no-untyped-def]
    await fleets.apply(_fleet(FleetSpec(replicas=4)), field_manager="scaler")
    forced = await fleets.apply(_fleet(FleetSpec(replicas=1)), field_manager="ops", force=True)
    assert forced.spec.replicas == 1
    assert "f:replicas" in _owned(forced, "ops")
    assert "f:replicas" not in _owned(forced, "scaler")


async def test_a_field_not_set_is_released(fleets) -> None:  # type: ignore[no-untyped-def]
    await fleets.apply(_fleet(FleetSpec(replicas=3, image="v1")), field_manager="ops")
    # Neither field set now: the manager gives both up; nobody else owns them, so
    # they go, and the CRD's default fills replicas in again.
    released = await fleets.apply(_fleet(FleetSpec()), field_manager="ops")
    assert released.spec.image is None
    assert released.spec.replicas == 1
    assert _owned(released, "ops") == set()


async def test_a_conflict_is_reported_on_a_set_field(fleets) -> None:  # type: ignore[no-untyped-def]
    await fleets.apply(_fleet(FleetSpec(replicas=3)), field_manager="scaler")
    # replicas=1 is the Python default, and it is still what "ops" asks for.
    with pytest.raises(Conflict) as conflict:
        await fleets.apply(_fleet(FleetSpec(replicas=1)), field_manager="ops")
    assert ".spec.replicas" in conflict.value.message
    assert 'conflict with "scaler"' in conflict.value.message
    # A field left unset is not a claim, so it conflicts with nobody.
    shared = await fleets.apply(_fleet(FleetSpec(image="v2")), field_manager="ops")
    assert (shared.spec.replicas, shared.spec.image) == (3, "v2")


def _deployment(replicas: int | None) -> Deployment:
    labels = {"app": "web"}
    return Deployment(
        metadata=ObjectMeta(name="web"),
        spec=DeploymentSpec(
            replicas=replicas,
            selector=LabelSelector(match_labels=labels),
            template=PodTemplateSpec(
                metadata=ObjectMeta(labels=labels),
                spec=PodSpec(containers=[Container(name="web", image="nginx")]),
            ),
        ),
    )


async def test_a_built_in_kind_applies_replicas_1_over_4(client: Client, namespace: str) -> None:
    deployments = client.api(Deployment, namespace=namespace)
    await deployments.apply(_deployment(4), field_manager="scaler")
    forced = await deployments.apply(_deployment(1), field_manager="ops", force=True)
    assert forced.spec is not None and forced.spec.replicas == 1
    assert "f:replicas" in _owned(forced, "ops")
    # replicas left unset: "ops" gives it up, and with nobody owning it the server's
    # default (1) is what remains.
    released = await deployments.apply(_deployment(None), field_manager="ops")
    assert "f:replicas" not in _owned(released, "ops")


async def test_a_partial_configuration_owns_only_what_it_names(
    client: Client, namespace: str
) -> None:
    deployments = client.api(Deployment, namespace=namespace)
    await deployments.apply(_deployment(2), field_manager="ops")
    # As client-go's DeploymentSpec().WithReplicas(5): selector and template, required
    # in the model, are not given, so they are not sent and "scaler" claims nothing else.
    scale = Deployment(metadata=ObjectMeta(name="web"), spec=partial(DeploymentSpec, replicas=5))
    assert json.loads(encode(scale))["spec"] == {"replicas": 5}
    with pytest.raises(Conflict, match=r"\.spec\.replicas"):
        await deployments.apply(scale, field_manager="scaler")
    scaled = await deployments.apply(scale, field_manager="scaler", force=True)
    assert scaled.spec is not None and scaled.spec.replicas == 5
    assert scaled.spec.template.spec is not None  # still there, still "ops"'s
    assert _owned(scaled, "scaler") == {"f:replicas"}
    assert "f:template" in _owned(scaled, "ops") and "f:replicas" not in _owned(scaled, "ops")
