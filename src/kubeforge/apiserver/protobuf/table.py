"""The generated protobuf table of the built-in kinds, and which message a kind is.

Entry points: ``fields(message)`` (number -> ``Field``), ``is_list(message)`` and
``message_for(api_version, kind)``. The table (``builtin_proto.json``) is written by
``python -m kubeforge.apiserver.protobuf.generate`` from the Kubernetes 1.32
``generated.proto`` files; see that module for its format.

Example::

    >>> message_for("apps/v1", "Deployment")
    'apps.v1.Deployment'
    >>> fields("core.v1.Probe")[2].name
    'initialDelaySeconds'
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any, NamedTuple

__all__ = ["SCALARS", "Field", "fields", "is_list", "message_for", "message_names"]

SCALARS = frozenset({"string", "bytes", "bool", "int32", "int64", "uint32", "double", "float"})

# API groups whose Go package directory is not the group's first label.
_GROUP_PACKAGES = {
    "": "core",
    "rbac.authorization.k8s.io": "rbac",
    "flowcontrol.apiserver.k8s.io": "flowcontrol",
    "internal.apiserver.k8s.io": "apiserverinternal",
}
# Kinds every group version carries (``metav1.AddToGroupVersion``): DeleteOptions bodies
# of ``kubectl drain`` and ``delete`` name the resource's group version.
_META_KINDS = frozenset(
    {"DeleteOptions", "Status", "WatchEvent", "ListOptions", "GetOptions", "CreateOptions"}
    | {"PatchOptions", "UpdateOptions", "APIVersions", "APIGroup", "APIGroupList"}
    | {"APIResourceList", "Table", "PartialObjectMetadata", "PartialObjectMetadataList"}
)


class Field(NamedTuple):
    """One field of a message: JSON name ("" when inline), type, and how it repeats."""

    number: int
    name: str
    type: str
    repeated: bool
    map: bool
    inline: bool
    omit_zero: bool  # a value field with omitempty: its zero is not in the JSON
    always: bool  # a value (not pointer) scalar: Go writes it even when zero


@cache
def _table() -> dict[str, Any]:
    text = resources.files(__package__).joinpath("builtin_proto.json").read_text()
    table: dict[str, Any] = json.loads(text)
    return table


@cache
def fields(message: str) -> dict[int, Field]:
    """The fields of ``message`` by number; ``KeyError`` for a message the table lacks."""
    rows = _table()["messages"][message]
    return {
        number: Field(number, name, type_, *(flag in mode for flag in ("*", "m", "i", "z", "w")))
        for number, name, type_, mode in rows
    }


@cache
def by_name(message: str) -> tuple[tuple[str, Field], ...]:
    """The fields of ``message`` in number order, keyed by JSON name (inline ones by "")."""
    return tuple((field.name, field) for _, field in sorted(fields(message).items()))


def is_list(message: str) -> bool:
    """Whether the message is a wrapper whose JSON is its one repeated field."""
    return message in _table()["lists"]


def message_names() -> frozenset[str]:
    """Every message of the table."""
    return frozenset(_table()["messages"])


def message_for(api_version: str, kind: str) -> str | None:
    """The table's message for a kind of a group version, or ``None``."""
    group, _, version = api_version.rpartition("/")
    package = _GROUP_PACKAGES.get(group, group.split(".", 1)[0])
    messages = _table()["messages"]
    name = f"{package}.{version}.{kind}"
    if name in messages:
        return name
    if kind in _META_KINDS and f"meta.v1.{kind}" in messages:
        return f"meta.v1.{kind}"
    return None
