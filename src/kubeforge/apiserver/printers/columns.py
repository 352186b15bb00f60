"""``Printer``: the columns of a ``kubectl get`` table and how one object fills a row.

A ``Printer`` is a tuple of ``TableColumnDefinition``s plus a function from one object
(and the time ages are measured from) to its row of cells. This module holds the shared
parts: ``column``, the ``Name``/``Age`` columns, ``DEFAULT_PRINTER`` (the ``Name`` and
``Created At`` columns of a built-in kind without bespoke ones) and ages rendered as the
real printers render them (``5m``, ``3h12m``, ``2d``). A built-in kind's own printer is
part of its ``Kind`` entry, in its API group's module under ``builtin``.

Entry points: ``Printer(columns, row)``, ``column(...)``, ``human_duration(seconds)``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

__all__ = [
    "AGE_COLUMN",
    "AGE_DESCRIPTION",
    "DEFAULT_PRINTER",
    "NAME_COLUMN",
    "Printer",
    "age",
    "column",
    "human_duration",
    "parse_time",
    "simple_columns",
]

Row = Callable[[dict[str, Any], datetime], list[Any]]

NAME_DESCRIPTION = "Name of the object, unique among objects of its kind in its namespace."
AGE_DESCRIPTION = "Time since the object was created (metadata.creationTimestamp)."


@dataclass(frozen=True, slots=True)
class Printer:
    """Column definitions and how to compute one object's cells for them."""

    columns: tuple[dict[str, Any], ...]
    row: Row


def column(
    name: str, kind: str, description: str, *, priority: int = 0, fmt: str = ""
) -> dict[str, Any]:
    """One ``TableColumnDefinition``."""
    return {
        "name": name,
        "type": kind,
        "format": fmt,
        "description": description,
        "priority": priority,
    }


NAME_COLUMN = column("Name", "string", NAME_DESCRIPTION, fmt="name")
AGE_COLUMN = column("Age", "string", AGE_DESCRIPTION)


def simple_columns(*cells: tuple[str, str, str]) -> tuple[dict[str, Any], ...]:
    """``Name`` and then one priority-0 column per ``(name, type, description)``."""
    return (NAME_COLUMN, *(column(n, k, d) for n, k, d in cells))


def parse_time(value: Any) -> datetime | None:
    """An RFC 3339 timestamp as an aware ``datetime``, or ``None`` when absent or malformed."""
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else None


def human_duration(seconds: float) -> str:
    """Elapsed time the way kubectl prints ages: coarse, at most two units.

    >>> [human_duration(s) for s in (5, 130, 600, 3 * 3600 + 120, 9 * 3600, 3 * 86400 + 7200)]
    ['5s', '2m10s', '10m', '3h2m', '9h', '3d2h']
    """
    whole = int(seconds)
    if whole < -1:
        return "<invalid>"
    if whole < 0:
        return "0s"
    if whole < 120:
        return f"{whole}s"
    minutes = whole // 60
    if minutes < 10:
        rest = whole % 60
        return f"{minutes}m{rest}s" if rest else f"{minutes}m"
    if minutes < 180:
        return f"{minutes}m"
    hours = whole // 3600
    if hours < 8:
        rest = minutes % 60
        return f"{hours}h{rest}m" if rest else f"{hours}h"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        rest = hours % 24
        return f"{hours // 24}d{rest}h" if rest else f"{hours // 24}d"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        days = (hours // 24) % 365
        return f"{hours // 24 // 365}y{days}d" if days else f"{hours // 24 // 365}y"
    return f"{hours // 24 // 365}y"


def age(timestamp: Any, now: datetime) -> str:
    """``human_duration`` since ``timestamp``; ``<unknown>`` when it is missing."""
    when = parse_time(timestamp)
    if when is None:
        return "<unknown>"
    return human_duration((now - when).total_seconds())


def _created_at_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    meta = obj.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    return [str(meta.get("name") or ""), meta.get("creationTimestamp")]


DEFAULT_PRINTER = Printer(
    (NAME_COLUMN, column("Created At", "date", "When the object was created.")),
    _created_at_row,
)
"""What a built-in kind without bespoke columns prints: its name and creation time."""
