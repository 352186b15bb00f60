"""Typed object metadata (``metav1.ObjectMeta`` and friends) and the ``Model`` base class.

Every typed model in kubeforge, built-in or custom, is a ``Model``: a msgspec
``Struct`` that decodes straight from JSON bytes, omits unset fields when encoded,
and uses the API's camelCase names on the wire. Optional fields default to ``None``.
"""

from __future__ import annotations

from typing import Any

import msgspec

__all__ = [
    "ListMeta",
    "ManagedFieldsEntry",
    "Model",
    "ObjectMeta",
    "OwnerReference",
]


class Model(msgspec.Struct, kw_only=True, omit_defaults=True, rename="camel"):
    """Base of every typed model: camelCase on the wire, unset fields left out."""


class OwnerReference(Model):
    """Points a dependent at its owner; the garbage collector follows these."""

    api_version: str
    kind: str
    name: str
    uid: str
    controller: bool | None = None
    block_owner_deletion: bool | None = None


class ManagedFieldsEntry(Model):
    manager: str | None = None
    operation: str | None = None
    api_version: str | None = None
    time: str | None = None
    fields_type: str | None = None
    fields_v1: dict[str, Any] | None = msgspec.field(default=None, name="fieldsV1")
    subresource: str | None = None


class ObjectMeta(Model):
    """``metadata`` of every persisted object. Timestamps stay RFC 3339 strings, as on the wire."""

    name: str | None = None
    generate_name: str | None = None
    namespace: str | None = None
    uid: str | None = None
    resource_version: str | None = None
    generation: int | None = None
    creation_timestamp: str | None = None
    deletion_timestamp: str | None = None
    deletion_grace_period_seconds: int | None = None
    labels: dict[str, str] | None = None
    annotations: dict[str, str] | None = None
    owner_references: list[OwnerReference] | None = None
    finalizers: list[str] | None = None
    managed_fields: list[ManagedFieldsEntry] | None = None


class ListMeta(Model):
    resource_version: str | None = None
    continue_: str | None = msgspec.field(default=None, name="continue")
    remaining_item_count: int | None = None
