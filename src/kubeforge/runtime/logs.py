"""Structured logs with per-reconcile context: ``ReconcileContextFilter``, ``JsonFormatter``.

Entry point: ``install_log_context()``, which ``kubeforge run`` calls. Every log
record written while a reconcile runs (kubeforge's own and the reconciler's,
through any logger) then carries ``controller``, ``namespace``, ``name`` and
``reconcileID``, taken from the controller's context variable
(``kubeforge.controller.controller.current_reconcile``), as controller-runtime
puts them in each reconcile's logger.

The manager itself never touches global logging: a library must leave that to
the application.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

import orjson

from kubeforge.controller.controller import current_reconcile

__all__ = ["TEXT_FORMAT", "JsonFormatter", "ReconcileContextFilter", "install_log_context"]

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s%(reconcile_fields)s"
"""The text format ``kubeforge run`` uses: the reconcile's fields trail each line."""


class ReconcileContextFilter(logging.Filter):
    """Adds the running reconcile's fields to each record (and never drops one).

    Sets ``record.reconcile`` (a dict, empty outside a reconcile) and
    ``record.reconcile_fields`` (`` controller=... namespace=... name=... reconcileID=...``,
    or ``""``) for text formats.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        context = current_reconcile()
        if context is None:
            record.reconcile = {}
            record.reconcile_fields = ""
            return True
        fields = {
            "controller": context.controller,
            "namespace": context.namespace,
            "name": context.name,
            "reconcileID": context.reconcile_id,
        }
        record.reconcile = fields
        record.reconcile_fields = "".join(f" {key}={value}" for key, value in fields.items())
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ``ts``, ``level``, ``logger``, ``msg``, the reconcile's fields,
    and ``error`` with the traceback when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        entry.update(getattr(record, "reconcile", None) or {})
        if record.exc_info:
            entry["error"] = self.formatException(record.exc_info)
        return orjson.dumps(entry, default=str).decode()


def install_log_context(
    handlers: Iterable[logging.Handler] | None = None, *, json: bool = False
) -> None:
    """Add the reconcile context to every record ``handlers`` emit (default: the root logger's).

    Handler filters, not logger filters, because records from child loggers
    (``kubeforge.controller``, the user's own) reach the root's handlers without
    passing the root logger's filters. ``json=True`` also switches them to
    ``JsonFormatter``; otherwise they get ``TEXT_FORMAT``.
    """
    targets = list(handlers) if handlers is not None else list(logging.getLogger().handlers)
    for handler in targets:
        if not any(isinstance(f, ReconcileContextFilter) for f in handler.filters):
            handler.addFilter(ReconcileContextFilter())
        handler.setFormatter(JsonFormatter() if json else logging.Formatter(TEXT_FORMAT))
