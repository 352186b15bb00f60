"""Unknown fields in a write, as the ``fieldValidation`` directive asks: dropped silently
(``Ignore``), dropped with a warning each (``Warn``, the default), or refused
(``Strict``: a create's or update's 400 ``strict decoding error``, a patch's 422 on
field ``patch``), as the real server's decoders do.

The kind's ``Strategy.normalize`` finds and drops them; this module decides what the
client hears. Empty metadata collections go at the same point (``omitempty``).

Entry points: ``drop_unknown_fields(strategy, obj, options[, parts])`` for creates and updates,
``check_patch_fields(strategy, patched, options)`` for a patch's result.
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver import failures
from kubeforge.apiserver.meta.fieldvalidation import strict_patch_failure
from kubeforge.apiserver.registry.options import WriteOptions
from kubeforge.apiserver.registry.strategy import Strategy
from kubeforge.apiserver.registry.system_metadata import drop_empty_metadata
from kubeforge.apiserver.storage.sqlite import clone

__all__ = ["check_patch_fields", "drop_unknown_fields"]


def drop_unknown_fields(
    strategy: Strategy,
    obj: dict[str, Any],
    options: WriteOptions,
    parts: tuple[tuple[str, ...], ...] | None = None,
) -> None:
    """Drop ``obj``'s unknown fields (and empty metadata collections), warning about them
    or refusing the write as ``options.field_validation`` says. ``parts``: the only paths
    where ``obj`` may differ from a stored object (``Strategy.normalize_parts``)."""
    drop_empty_metadata(obj.get("metadata"))
    dropped = strategy.normalize(obj) if parts is None else strategy.normalize_parts(obj, parts)
    if dropped and options.field_validation in ("", "Warn"):
        options.warn(f'unknown field "{path}"' for path in dropped)
    if dropped and options.field_validation == "Strict":
        info = strategy.served.info
        unknown = ", ".join(f'unknown field "{path}"' for path in dropped)
        raise failures.bad_request(
            f'{info.kind} in version "{info.version}" cannot be handled as a {info.kind}: '
            f"strict decoding error: {unknown}"
        )


def check_patch_fields(strategy: Strategy, patched: dict[str, Any], options: WriteOptions) -> None:
    """Under ``Strict``, refuse a patch whose result has unknown fields (422 on ``patch``;
    the update that follows would answer 400, which is a PUT's answer)."""
    if options.field_validation != "Strict":
        return
    unknown = strategy.normalize(clone(patched))
    if unknown:
        raise strict_patch_failure(patched, unknown)
