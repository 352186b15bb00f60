"""What a CRD says beyond a Python type: per-kind options and per-field markers.

Two kinds of declaration, both plain values (no metaprogramming):

* ``CRDOptions`` in a resource class's ``crd`` attribute: categories, printer
  columns, subresources, served/storage/deprecated, selectable fields, and
  CEL rules on the whole object. Group, version, kind, plural, scope and short
  names come from the class's ``info = ResourceInfo(...)``.
* Field markers inside ``typing.Annotated``, next to msgspec's own ``Meta``
  (whose ``gt``/``ge``/``lt``/``le``/``multiple_of``/``pattern``/``min_length``/
  ``max_length``/``description``/``title``/``examples``/``extra_json_schema``
  become the matching schema keywords)::

      class FrigateSpec(Model):
          replicas: Annotated[int, Meta(ge=1, le=10)] = 1  # documented by a docstring below it
          ports: Annotated[list[Port], ListType("map", keys=("name",))] = []
          window: Annotated[Window, CEL("self.start <= self.end", message="start after end")]

A marker describes the schema node of the type it annotates:
``list[Annotated[str, Format("hostname")]]`` marks the items,
``Annotated[list[str], ListType("set")]`` the list. A field without a default is
required (in Python and by the server); partial documents still decode, missing
required fields reading as Go's zero values.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

__all__ = [
    "CEL",
    "CRDOptions",
    "Default",
    "EmbeddedResource",
    "Format",
    "IntOrString",
    "ListType",
    "MapType",
    "PreserveUnknownFields",
    "PrinterColumn",
    "Required",
    "Scale",
    "Subresources",
]

IntOrString: TypeAlias = int | str
"""``x-kubernetes-int-or-string``: a port number or name, a count or a percentage."""


@dataclass(frozen=True, slots=True)
class ListType:
    """``x-kubernetes-list-type`` (and ``-list-map-keys`` for ``"map"``) of an array.

    ``"atomic"`` (the default of the API server) replaces the whole list on merge,
    ``"set"`` holds unique scalars, ``"map"`` holds objects identified by ``keys``
    (JSON names; each key must be required or defaulted in the item type).
    """

    kind: Literal["atomic", "set", "map"]
    keys: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if (self.kind == "map") != bool(self.keys):
            raise ValueError('ListType: keys are required for "map" and only allowed there')


@dataclass(frozen=True, slots=True)
class MapType:
    """``x-kubernetes-map-type`` of an object: ``"granular"`` (default) or ``"atomic"``."""

    kind: Literal["atomic", "granular"]


@dataclass(frozen=True, slots=True)
class CEL:
    """One ``x-kubernetes-validations`` rule, checked by the API server on every write.

    ``rule`` is a CEL expression over ``self`` (and ``oldSelf`` for transition
    rules); ``message`` or ``message_expression`` is what the client sees when it
    is false. ``reason`` is ``FieldValueInvalid`` (the default), ``FieldValueForbidden``,
    ``FieldValueRequired`` or ``FieldValueDuplicate``; ``field_path`` points at the
    offending child (``.spec.replicas``).
    """

    rule: str
    message: str | None = None
    message_expression: str | None = None
    reason: str | None = None
    field_path: str | None = None
    optional_old_self: bool | None = None

    def to_schema(self) -> dict[str, object]:
        """The rule as it appears in the CRD (camelCase keys, unset ones left out)."""
        out: dict[str, object] = {}
        for key, value in (
            ("fieldPath", self.field_path),
            ("message", self.message),
            ("messageExpression", self.message_expression),
            ("optionalOldSelf", self.optional_old_self),
            ("reason", self.reason),
            ("rule", self.rule),
        ):
            if value is not None:
                out[key] = value
        return out


@dataclass(frozen=True, slots=True)
class Format:
    """``format`` of a string (``date-time``, ``hostname``, ``uri``, ``int32``, ...)."""

    name: str


@dataclass(frozen=True, slots=True)
class Default:
    """The schema's ``default``, when it should differ from what the Python default implies.

    Without it, a field's Python default is the schema default unless it is ``None``
    or a zero value (``""``, ``0``, ``False``, empty): like Go's zero values, those
    mean "not set". ``Default`` states any JSON value, a zero value or an object
    included (``Default({})`` makes the server create the object so its own fields'
    defaults apply).
    """

    value: Any

    def __hash__(self) -> int:
        # Annotated hashes its metadata (``X | None`` builds a set of members), and a
        # dict or list default is not hashable itself.
        return hash(json.dumps(self.value, sort_keys=True, default=repr))


@dataclass(frozen=True, slots=True)
class PreserveUnknownFields:
    """``x-kubernetes-preserve-unknown-fields``: the server keeps undeclared fields here.

    ``dict[str, Any]`` and ``Any`` get it without asking; put this on a model type
    to keep unknown fields next to the declared ones.
    """


@dataclass(frozen=True, slots=True)
class EmbeddedResource:
    """``x-kubernetes-embedded-resource``: the object is a whole Kubernetes object
    (``apiVersion``, ``kind`` and ``metadata`` are validated as such)."""


@dataclass(frozen=True, slots=True)
class Required:
    """The server requires this field although the Python class gives it a default.

    Rarely needed: a field without a default is required anyway, and partial
    documents (watch bookmarks, older objects) still decode without one. A field
    with a default and this marker reads as its default until set, and is sent only
    once set, so leaving it unset gets the server's "Required value" answer.
    """


@dataclass(frozen=True, slots=True)
class PrinterColumn:
    """One ``additionalPrinterColumns`` entry: a column of ``kubectl get``.

    ``type`` is ``integer``, ``number``, ``string``, ``boolean`` or ``date``; left
    empty, it is read from the schema at ``json_path`` (``string`` when unknown).
    ``priority`` 0 shows in the default view, higher only with ``-o wide``.
    """

    name: str
    json_path: str
    type: str = ""
    description: str | None = None
    format: str | None = None
    priority: int = 0

    @classmethod
    def age(cls) -> PrinterColumn:
        """The usual ``AGE`` column (kubectl drops it once a CRD lists its own columns)."""
        return cls("Age", ".metadata.creationTimestamp", "date")


@dataclass(frozen=True, slots=True)
class Scale:
    """The ``scale`` subresource: where replicas live (``kubectl scale``, autoscalers)."""

    spec_replicas_path: str = ".spec.replicas"
    status_replicas_path: str = ".status.replicas"
    label_selector_path: str | None = None


@dataclass(frozen=True, slots=True)
class Subresources:
    """Subresources of one version: ``status`` (writes through ``/status`` only) and ``scale``."""

    status: bool = True
    scale: Scale | None = None


@dataclass(frozen=True, slots=True)
class CRDOptions:
    """The CRD facts of one resource class beyond its ``ResourceInfo``.

    ``subresources=None`` enables the status subresource exactly when the class has
    a ``status`` field. With several versions of one kind, exactly one says
    ``storage=True`` (a single version is the storage version by itself), and
    ``categories`` must agree. ``validations`` are CEL rules on the whole object;
    ``preserve_unknown_fields`` keeps top-level fields the class does not declare.
    """

    categories: tuple[str, ...] = ()
    printer_columns: tuple[PrinterColumn, ...] = ()
    subresources: Subresources | None = None
    storage: bool = False
    served: bool = True
    deprecated: bool = False
    deprecation_warning: str | None = None
    selectable_fields: tuple[str, ...] = ()
    validations: tuple[CEL, ...] = ()
    preserve_unknown_fields: bool = False
