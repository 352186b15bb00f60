"""Test helper: resource classes for the CRD generator, from a two-field kind to a wide one.

``Frigate`` is the seed's kind (ship.example.com/v1beta1). ``Carrier`` uses every
type and marker the generator supports; ``CarrierV1Alpha1`` is an older version of
the same kind. Classes live at module level: their annotations are resolved from
this module's globals, and their attribute docstrings are read from its source.
"""

from __future__ import annotations

import datetime
import enum
import uuid
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from kubeforge import Model, Resource, ResourceInfo
from kubeforge.crd import (
    CEL,
    CRDOptions,
    Default,
    EmbeddedResource,
    Format,
    IntOrString,
    ListType,
    MapType,
    PreserveUnknownFields,
    PrinterColumn,
    Required,
    Scale,
    Subresources,
)

GROUP = "ship.example.com"


class FrigateSpec(Model):
    """FrigateSpec defines the desired state of Frigate."""

    foo: str = ""
    """Foo is an example field of Frigate."""
    demo: str = ""
    """Demo is a second example field."""


class FrigateStatus(Model):
    """FrigateStatus defines the observed state of Frigate."""

    created: bool = False
    """Created is true once the controller has seen the Frigate."""


class Frigate(Resource):
    """Frigate is the Schema for the frigates API."""

    info = ResourceInfo(group=GROUP, version="v1beta1", kind="Frigate", plural="frigates")
    spec: FrigateSpec = msgspec.field(default_factory=FrigateSpec)
    status: FrigateStatus = msgspec.field(default_factory=FrigateStatus)


class Rank(enum.Enum):
    CAPTAIN = "captain"
    SAILOR = "sailor"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Port(Model):
    """A named port of the carrier."""

    name: Annotated[str, Meta(min_length=1, max_length=15)]
    """Name of the port, unique in the list."""
    number: Annotated[int, Meta(ge=1, le=65535)] = 80
    """Port number."""
    protocol: Literal["TCP", "UDP"] = "TCP"


class Window(Model):
    """A maintenance window, in hours of the day."""

    start: Annotated[int, Meta(ge=0, lt=24)] = 0
    end: Annotated[int, Meta(ge=0, lt=24)] = 23


class Crew(Model):
    """Who serves on the carrier."""

    captain: Annotated[str, Required()] = ""
    """The captain's name; the server insists on one."""
    rank: Rank = Rank.SAILOR
    size: Annotated[int, Meta(ge=1)] | None = None


class CarrierSpec(Model):
    """CarrierSpec is the desired state of a Carrier.

    It exercises every type and marker that the CRD generator supports.
    """

    # ``start`` is optional: a real server fails ``self.start`` with "no such key" when unset.
    window: Annotated[
        Window,
        CEL("!has(self.start) || self.start <= self.end", message="start must not be after end"),
    ]
    """When maintenance may happen (required: no default)."""
    replicas: Annotated[int, Meta(ge=0, le=10)] = 1
    """How many carriers to run."""
    ratio: Annotated[float, Meta(gt=0.0, le=1.0, multiple_of=0.25)] = 0.5
    """Share of the fleet, a multiple of a quarter."""
    hostname: Annotated[str, Format("hostname"), Meta(pattern=r"^[a-z0-9.-]+$")] | None = None
    """DNS name the carrier answers to."""
    mode: Literal["fast", "slow"] = "fast"
    """How to sail."""
    port: IntOrString = 8080
    """Port number or name."""
    capacity: int | Annotated[str, Meta(pattern=r"^[0-9]+(Ki|Mi|Gi)$")] | None = None
    """A count or a quantity with a binary suffix."""
    ports: Annotated[list[Port], ListType("map", keys=("name",)), Meta(max_length=8)] = []
    """Ports, merged by name."""
    tags: set[str] = set()
    """Unordered unique tags."""
    aliases: Annotated[list[Annotated[str, Meta(min_length=1)]], ListType("atomic")] = []
    labels: Annotated[dict[str, str], MapType("atomic"), Meta(max_length=20)] = {}
    """Labels replaced as a whole on merge."""
    config: dict[str, Any] = {}
    """Free-form configuration, kept as given."""
    payload: Any = None
    """Any JSON value at all."""
    crew: Annotated[
        Crew,
        CEL("!has(self.size) || self.size <= 100", message="crew too large", field_path=".size"),
    ] = msgspec.field(default_factory=Crew)
    template: Annotated[dict[str, Any], EmbeddedResource()] | None = None
    """A whole Kubernetes object to create alongside."""
    notes: Annotated[Window, PreserveUnknownFields()] | None = None
    """A window that keeps fields this version does not know."""
    launched: datetime.datetime | None = None
    """When the carrier was launched."""
    blob: bytes | None = None
    """Opaque data, base64 on the wire."""
    paused: Annotated[bool, Default(False)] = False
    """Explicitly defaulted to false on the server."""
    tier: Annotated[int, CEL("self == oldSelf", message="tier is immutable")] = 3
    """Service tier; immutable once set."""
    weights: Annotated[dict[str, Annotated[int, Meta(ge=0)]], Meta(min_length=1)] | None = None
    """Relative weights by name."""
    title: Annotated[str, Meta(title="Title", description="Shown by kubectl explain.")] = ""
    shifts: tuple[Annotated[int, Meta(ge=0)], ...] = ()
    """Hours at which the watch changes."""
    zones: frozenset[str] = frozenset()
    serial: uuid.UUID | None = None
    commissioned: datetime.date | None = None
    level: Level = Level.HIGH
    """Alert level, as a number."""
    motto: Annotated[str, Meta(examples=["Ever onward"])] | None = None
    callsign: Annotated[str | None, Meta(extra_json_schema={"nullable": True})] = None
    """Null is a value of its own here."""
    escort: Annotated[Window, Default({})] | None = None
    """Created empty by the server when absent, so its own defaults apply."""
    budget: Annotated[
        int,
        CEL(
            "self <= 1000",
            message_expression="self > 10000 ? 'budget is over 10000' : 'budget is over 1000'",
            reason="FieldValueForbidden",
        ),
    ] = 10


class CarrierStatus(Model):
    replicas: int = 0
    """Carriers actually running."""
    selector: str = ""
    conditions: list[dict[str, Any]] = []


class Carrier(Resource):
    """Carrier is a wide test kind: every supported type and marker."""

    info = ResourceInfo(
        group=GROUP,
        version="v1",
        kind="Carrier",
        plural="carriers",
        short_names=("cv",),
        singular="carrier",
    )
    crd = CRDOptions(
        categories=("fleet", "all"),
        printer_columns=(
            PrinterColumn("Replicas", ".spec.replicas"),
            PrinterColumn("Mode", ".spec.mode", description="How it sails"),
            PrinterColumn("Launched", ".spec.launched"),
            PrinterColumn("Ready", ".status.replicas", priority=1),
            PrinterColumn.age(),
        ),
        subresources=Subresources(
            status=True,
            scale=Scale(label_selector_path=".status.selector"),
        ),
        storage=True,
        selectable_fields=(".spec.mode",),
        validations=(CEL("self.metadata.name.size() <= 40", message="name too long"),),
    )
    spec: Annotated[CarrierSpec, Required()] = msgspec.field(
        default_factory=lambda: CarrierSpec(window=Window())
    )
    status: CarrierStatus = msgspec.field(default_factory=CarrierStatus)


class CarrierSpecV1Alpha1(Model):
    replicas: int = 1


class CarrierV1Alpha1(Resource):
    """Carrier, as it was first released."""

    info = ResourceInfo(
        group=GROUP,
        version="v1alpha1",
        kind="Carrier",
        plural="carriers",
        short_names=("cv",),
        singular="carrier",
    )
    crd = CRDOptions(
        categories=("fleet", "all"),
        deprecated=True,
        deprecation_warning="ship.example.com/v1alpha1 Carrier is deprecated; use v1",
    )
    spec: CarrierSpecV1Alpha1 = msgspec.field(default_factory=CarrierSpecV1Alpha1)


def valid_carrier(name: str) -> dict[str, Any]:
    """A Carrier manifest the generated schema accepts."""
    return {
        "apiVersion": f"{GROUP}/v1",
        "kind": "Carrier",
        "metadata": {"name": name},
        "spec": {
            "replicas": 2,
            "ratio": 0.75,
            "hostname": "carrier.example.com",
            "mode": "slow",
            "port": "http",
            "capacity": "10Gi",
            "ports": [{"name": "http", "number": 8080}, {"name": "dns", "protocol": "UDP"}],
            "tags": ["a", "b"],
            "labels": {"team": "blue"},
            "config": {"nested": {"anything": [1, "two"]}},
            "payload": [1, {"x": None}],
            "window": {"start": 2, "end": 4},
            "crew": {"captain": "Ahab", "rank": "captain", "size": 3},
            "launched": "2024-01-02T03:04:05Z",
            "weights": {"a": 1},
        },
    }
