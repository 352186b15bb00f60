"""What a write carries besides its object: for now, who records its managedFields.

Entry point: ``FieldTracker``, the one thing the store asks of field management. The
store calls ``track`` on every create, update and patch it is given a tracker for;
``fieldmanager.apply`` provides the implementation (the ``Update`` entry of a manager,
or an apply's precomputed entries). Writes without one (the built-in controllers')
keep the stored entries.
"""

from __future__ import annotations

from typing import Any, Protocol

__all__ = ["FieldTracker"]


class FieldTracker(Protocol):
    """Records one write in the new object's ``metadata.managedFields``."""

    def track(
        self, old: dict[str, Any] | None, new: dict[str, Any], sent: Any, subresource: str
    ) -> None:
        """``old`` is the stored object (``None`` on create), ``new`` the one about to be
        stored (changed in place), ``sent`` what the client sent."""
