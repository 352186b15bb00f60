"""flowcontrol.apiserver.k8s.io: API Priority and Fairness configuration, validated and
defaulted as 1.32 does (``flowcontrol_rules``), kept as its config producer keeps it
(``controllers.apf_producer``), and not enforced: no request is queued or refused by it.

Entry point: ``KINDS``; the rules are ``FlowSchemaStrategy`` and
``PriorityLevelConfigurationStrategy``.
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.builtin.flowcontrol_rules import (
    default_level,
    default_schema,
    level_errors,
    schema_errors,
    status_errors,
)
from kubeforge.apiserver.builtin.generic import CatalogStrategy
from kubeforge.apiserver.builtin.kind import STATUS, Kind
from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.printers.cells import created, dict_at, name_of
from kubeforge.apiserver.printers.columns import AGE_COLUMN, NAME_COLUMN, Printer, column

__all__ = ["KINDS", "FlowSchemaStrategy", "PriorityLevelConfigurationStrategy"]

_GROUP = "flowcontrol.apiserver.k8s.io"


def _name(obj: dict[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("name") or "")


def _spec(obj: dict[str, Any]) -> dict[str, Any]:
    spec = obj.get("spec")
    return spec if isinstance(spec, dict) else {}


class _FlowControlStrategy(CatalogStrategy):
    """Both kinds' strategies: their defaults, their spec's rules (given the name, which
    decides what a mandatory object may hold) and their status's, on create and update
    alike (1.32 validates an update as a create)."""

    def spec_defaults(self, obj: dict[str, Any]) -> None:
        raise NotImplementedError

    def spec_rules(self, name: str, spec: dict[str, Any]) -> list[FieldError]:
        raise NotImplementedError

    def default(self, obj: dict[str, Any]) -> None:
        obj.setdefault("spec", {})
        self.spec_defaults(obj)

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return self.spec_rules(_name(obj), _spec(obj)) + status_errors(obj.get("status"))

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return self.validate(new)

    def validate_status_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return status_errors(new.get("status"))


class FlowSchemaStrategy(_FlowControlStrategy):
    def spec_defaults(self, obj: dict[str, Any]) -> None:
        default_schema(obj)

    def spec_rules(self, name: str, spec: dict[str, Any]) -> list[FieldError]:
        return schema_errors(name, spec)


class PriorityLevelConfigurationStrategy(_FlowControlStrategy):
    def spec_defaults(self, obj: dict[str, Any]) -> None:
        default_level(obj)

    def spec_rules(self, name: str, spec: dict[str, Any]) -> list[FieldError]:
        return level_errors(name, spec)


def _missing_level(schema: dict[str, Any]) -> str:
    """``MissingPL``: the status of the ``Dangling`` condition, ``?`` without one."""
    for condition in dict_at(schema, "status").get("conditions") or []:
        if isinstance(condition, dict) and condition.get("type") == "Dangling":
            return str(condition.get("status") or "")
    return "?"


def _schema_row(obj: dict[str, Any], now: Any) -> list[Any]:
    spec = _spec(obj)
    method = dict_at(spec, "distinguisherMethod").get("type")
    return [
        name_of(obj),
        str(dict_at(spec, "priorityLevelConfiguration").get("name") or ""),
        int(spec.get("matchingPrecedence") or 0),
        str(method) if spec.get("distinguisherMethod") is not None else "<none>",
        created(obj, now),
        _missing_level(obj),
    ]


def _level_row(obj: dict[str, Any], now: Any) -> list[Any]:
    spec = _spec(obj)
    cells: list[Any] = ["<none>"] * 4
    limited = spec.get("limited")
    if isinstance(limited, dict):
        cells[0] = int(limited.get("nominalConcurrencyShares") or 0)
        queuing = dict_at(limited, "limitResponse").get("queuing")
        if isinstance(queuing, dict):
            cells[1:] = [
                int(queuing.get(k) or 0) for k in ("queues", "handSize", "queueLengthLimit")
            ]
    return [name_of(obj), str(spec.get("type") or ""), *cells, created(obj, now)]


_SCHEMA_PRINTER = Printer(
    (
        NAME_COLUMN,
        column("PriorityLevel", "string", "The priority level the flow schema maps to."),
        column("MatchingPrecedence", "string", "The schema's matching precedence."),
        column("DistinguisherMethod", "string", "How flows are distinguished."),
        AGE_COLUMN,
        column("MissingPL", "string", "indicates if the referenced priority level exists"),
    ),
    _schema_row,
)
_LEVEL_PRINTER = Printer(
    (
        NAME_COLUMN,
        column("Type", "string", "Whether the priority level is subject to limits."),
        column("NominalConcurrencyShares", "string", "The level's nominal concurrency shares."),
        column("Queues", "string", "The number of queues."),
        column("HandSize", "string", "The shuffle sharding hand size."),
        column("QueueLengthLimit", "string", "The most requests waiting in one queue."),
        AGE_COLUMN,
    ),
    _level_row,
)

KINDS = (
    Kind(
        _GROUP,
        "v1",
        "FlowSchema",
        "flowschemas",
        namespaced=False,
        subresources=STATUS,
        strategy=FlowSchemaStrategy,
        printer=_SCHEMA_PRINTER,
    ),
    Kind(
        _GROUP,
        "v1",
        "PriorityLevelConfiguration",
        "prioritylevelconfigurations",
        namespaced=False,
        subresources=STATUS,
        strategy=PriorityLevelConfigurationStrategy,
        printer=_LEVEL_PRINTER,
    ),
)
