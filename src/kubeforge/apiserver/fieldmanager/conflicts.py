"""``ApplyConflict``: a server-side apply refused because it would change fields that other
managers own, worded as the real server words it (one conflict, or a list grouped by
manager) with one ``FieldManagerConflict`` cause per field.

Entry point: ``ApplyConflict(conflicts)``, raised by ``managed.apply``; ``message`` and
``causes()`` make the 409.
"""

from __future__ import annotations

from kubeforge.apiserver.fieldmanager.entries import ManagerId
from kubeforge.apiserver.smd.fieldpath import Path, path_string

__all__ = ["ApplyConflict"]


class ApplyConflict(Exception):
    """Applying would change fields other managers own (HTTP 409 with causes)."""

    def __init__(self, conflicts: list[tuple[ManagerId, Path]]) -> None:
        self.conflicts = sorted(conflicts, key=lambda c: (c[0].manager, c[0], path_string(c[1])))
        super().__init__(self.message)

    @property
    def message(self) -> str:
        if len(self.conflicts) == 1:
            identity, path = self.conflicts[0]
            return (
                f"Apply failed with 1 conflict: conflict with {identity.describe()}: "
                f"{path_string(path)}"
            )
        lines: list[str] = []
        seen: list[ManagerId] = []
        for identity, _ in self.conflicts:
            if identity not in seen:
                seen.append(identity)
        for identity in seen:
            lines.append(f"conflicts with {identity.describe()}:")
            lines += [f"- {path_string(p)}" for m, p in self.conflicts if m == identity]
        return f"Apply failed with {len(self.conflicts)} conflicts: " + "\n".join(lines)

    def causes(self) -> list[dict[str, str]]:
        return [
            {
                "reason": "FieldManagerConflict",
                "message": f"conflict with {identity.describe()}",
                "field": path_string(path),
            }
            for identity, path in self.conflicts
        ]
