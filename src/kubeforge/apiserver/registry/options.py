"""What a write carries besides its object: ``WriteOptions``, and the ``FieldTracker`` in it.

Entry point: ``WriteOptions``, the store's reading of metav1 ``CreateOptions``,
``UpdateOptions`` and ``PatchOptions`` (``dryRun``, ``fieldManager``, ``fieldValidation``,
``force``) plus what the server itself adds to a write: where its warnings go, who records
its managedFields, and whether a built-in controller makes it. ``PLAIN`` and ``TRUSTED``
are the options of the server's own writes.

``FieldTracker`` is the one thing the store asks of field management: it calls ``track``
on every create, update and patch given a tracker (``fieldmanager.apply`` provides it:
the ``Update`` entry of a manager, or an apply's precomputed entries). Writes without one
(the built-in controllers') keep the stored entries.

>>> warnings: list[str] = []
>>> options = WriteOptions(dry_run=True, warnings=warnings)
>>> options.warn(['unknown field "spec.color"']); warnings
['unknown field "spec.color"']
>>> PLAIN.warn(["dropped: nobody collects the server's own warnings"])
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = ["PLAIN", "TRUSTED", "FieldTracker", "WriteOptions"]


class FieldTracker(Protocol):
    """Records one write in the new object's ``metadata.managedFields``."""

    def track(
        self, old: dict[str, Any] | None, new: dict[str, Any], sent: Any, subresource: str
    ) -> None:
        """``old`` is the stored object (``None`` on create), ``new`` the one about to be
        stored (changed in place), ``sent`` the managedFields the client sent."""


@dataclass(frozen=True)
class WriteOptions:
    """How one create, update or patch is made."""

    dry_run: bool = False
    """``dryRun=All``: defaulted, validated and answered, never stored."""
    field_manager: str = ""
    """``fieldManager``: the owner of the fields this write sets (server-side apply)."""
    field_validation: str = ""
    """``fieldValidation``: unknown fields are dropped (``Ignore``), dropped with a warning
    (``Warn``, and ``""``, the default) or refused (``Strict``)."""
    force: bool = False
    """``force``: server-side apply takes fields other managers own instead of conflicting."""
    fields: FieldTracker | None = None
    """Records managedFields; ``None`` keeps the stored entries."""
    warnings: list[str] | None = None
    """Collects the ``Warning`` headers of the answer; ``None`` drops them."""
    trusted: bool = False
    """A built-in controller's write: metadata rules only, no spec validation (the real
    controllers write through subresources such as ``binding`` this server lacks)."""

    def warn(self, messages: Iterable[str]) -> None:
        """Add ``messages`` to the answer's warnings, if anyone collects them."""
        if self.warnings is not None:
            self.warnings.extend(messages)


PLAIN = WriteOptions()
"""The server's own writes as any client's: validated, warnings dropped."""
TRUSTED = WriteOptions(trusted=True)
"""The built-in controllers' writes."""
