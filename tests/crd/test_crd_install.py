"""Generated CRDs on the local API server: accepted, Established, enforced, explained by kubectl."""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml

from kubeforge.client import Client
from kubeforge.core import errors
from kubeforge.core.resource import ResourceInfo
from kubeforge.crd import generate_crd, install_crds, render_yaml

from .conftest import Kubectl
from .kf_ships import Carrier, CarrierV1Alpha1, Frigate, valid_carrier

pytestmark = pytest.mark.live

CRDS = ResourceInfo(
    group="apiextensions.k8s.io",
    version="v1",
    kind="CustomResourceDefinition",
    plural="customresourcedefinitions",
    namespaced=False,
)


async def test_every_generated_crd_is_established(client: Client) -> None:
    crds = client.dynamic(CRDS)
    for name in ("frigates.ship.example.com", "carriers.ship.example.com"):
        crd = await crds.get(name)
        conditions = {c["type"]: c["status"] for c in crd["status"]["conditions"]}
        assert conditions["Established"] == "True"
        assert conditions["NamesAccepted"] == "True"


async def test_installing_the_same_rendering_again_changes_nothing(client: Client) -> None:
    manifest = yaml.safe_load(render_yaml(generate_crd([Carrier, CarrierV1Alpha1])))
    before = await client.dynamic(CRDS).get("carriers.ship.example.com")
    await install_crds(client, [manifest])
    after = await client.dynamic(CRDS).get("carriers.ship.example.com")
    assert after["spec"]["versions"] == before["spec"]["versions"] == manifest["spec"]["versions"]
    assert after["spec"]["names"] == before["spec"]["names"]


async def test_a_valid_wide_object_is_stored_with_its_defaults(client: Client) -> None:
    carriers = client.dynamic(Carrier.info, namespace="default")
    created = await carriers.create(valid_carrier("wide"))
    spec = created["spec"]
    assert spec["capacity"] == "10Gi"
    assert spec["ports"][1] == {"name": "dns", "number": 80, "protocol": "UDP"}
    assert spec["ports"][0]["protocol"] == "TCP"
    assert spec["tier"] == 3
    assert spec["paused"] is False
    assert spec["config"] == {"nested": {"anything": [1, "two"]}}
    assert spec["payload"] == [1, {"x": None}]

    typed = await client.api(Carrier, namespace="default").get("wide")
    assert typed.spec.crew.captain == "Ahab"
    assert typed.spec.window.end == 4
    assert typed.spec.ports[1].number == 80


async def test_defaults_fill_a_minimal_object(client: Client) -> None:
    carriers = client.dynamic(Carrier.info, namespace="default")
    minimal = {
        "apiVersion": "ship.example.com/v1",
        "kind": "Carrier",
        "metadata": {"name": "minimal"},
        "spec": {"window": {}, "crew": {"captain": "Nemo"}},
    }
    spec = (await carriers.create(minimal))["spec"]
    assert spec["replicas"] == 1
    assert spec["ratio"] == 0.5
    assert spec["mode"] == "fast"
    assert spec["port"] == 8080
    assert spec["window"] == {"end": 23}
    assert spec["crew"] == {"captain": "Nemo", "rank": "sailor"}
    assert spec["level"] == 2
    assert spec["escort"] == {"end": 23}  # Default({}) made it, then its own defaults applied


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("replicas",), 11, "spec.replicas"),
        (("ratio",), 0.3, "spec.ratio"),
        (("mode",), "medium", "spec.mode"),
        (("hostname",), "Not A Host", "spec.hostname"),
        (("ports",), [{"number": 1}], "spec.ports[0].name"),
        (("ports",), [{"name": "x" * 16}], "spec.ports[0].name"),
        (("crew", "rank"), "admiral", "spec.crew.rank"),
        (("window", "start"), 24, "spec.window.start"),
        (("weights",), {}, "spec.weights"),
        (("labels",), {f"k{i}": "v" for i in range(21)}, "spec.labels"),
    ],
)
async def test_the_server_rejects_what_the_type_hints_forbid(
    client: Client, path: tuple[str, ...], value: Any, message: str
) -> None:
    body = valid_carrier(f"bad-{'-'.join(path)}-{len(str(value))}")
    target = body["spec"]
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(errors.Invalid) as caught:
        await client.dynamic(Carrier.info, namespace="default").create(body)
    assert message in str(caught.value)


async def test_required_fields_are_required(client: Client) -> None:
    carriers = client.dynamic(Carrier.info, namespace="default")
    body = valid_carrier("no-window")
    del body["spec"]["window"]
    with pytest.raises(errors.Invalid, match=r"spec\.window"):
        await carriers.create(body)
    body = valid_carrier("no-captain")
    del body["spec"]["crew"]["captain"]
    with pytest.raises(errors.Invalid, match=r"spec\.crew\.captain"):
        await carriers.create(body)


async def test_the_frigate_status_is_written_through_its_subresource(client: Client) -> None:
    frigates = client.api(Frigate, namespace="default")
    created = await frigates.create(Frigate(metadata={"name": "f1"}, spec={"foo": "bar"}))  # type: ignore[arg-type]
    created.status.created = True
    updated = await frigates.replace_status(created)
    assert updated.status.created is True
    assert updated.spec.foo == "bar"


def test_kubectl_explain_shows_the_field_descriptions(kubectl: Kubectl) -> None:
    spec = kubectl.ok("explain", "carriers.spec")
    assert "CarrierSpec is the desired state of a Carrier." in spec
    assert "How many carriers to run." in spec
    crew = kubectl.ok("explain", "carriers.spec.crew.captain")
    assert "The captain's name; the server insists on one." in crew
    frigate = kubectl.ok("explain", "frigates.spec.foo")
    assert "Foo is an example field of Frigate." in frigate


def test_kubectl_get_prints_the_declared_columns(kubectl: Kubectl) -> None:
    manifest = copy.deepcopy(valid_carrier("columns"))
    kubectl.ok("apply", "-n", "default", "-f", "-", stdin=yaml.safe_dump(manifest))
    lines = kubectl.ok("get", "-n", "default", "carriers", "columns").splitlines()
    assert lines[0].split() == ["NAME", "REPLICAS", "MODE", "LAUNCHED", "AGE"]
    assert lines[1].split()[:3] == ["columns", "2", "slow"]
    wide = kubectl.ok("get", "-n", "default", "cv", "columns", "-o", "wide").splitlines()
    assert wide[0].split() == ["NAME", "REPLICAS", "MODE", "LAUNCHED", "READY", "AGE"]
