"""What every compiled-in admission plugin is: a name as kube-apiserver spells it, and a
mutating and a validating step over one ``Attempt``, with read access to the store.

Entry points: ``Plugin`` (subclass it), ``is_pod_create``, ``forbid``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from kubeforge.apiserver import failures
from kubeforge.apiserver.failures import StatusError
from kubeforge.apiserver.registry.admit import Attempt
from kubeforge.apiserver.storage.sqlite import ResourceKey, Storage

__all__ = ["Plugin", "forbid", "is_create_of", "object_name"]


class Plugin:
    """One admission plugin; the defaults do nothing."""

    name: ClassVar[str]
    resources: ClassVar[frozenset[ResourceKey] | None] = None
    """The ``(group, plural)`` pairs the plugin may act on (None: any), so that the others'
    writes skip it; its steps still check everything they rely on."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    def mutate(self, attempt: Attempt) -> None:
        """Change ``attempt.obj`` before validation (a ``MutationInterface``'s ``Admit``)."""

    def validate(self, attempt: Attempt) -> None:
        """Refuse ``attempt`` by raising, after validation (a ``ValidationInterface``)."""


def is_create_of(attempt: Attempt, group: str, plural: str) -> bool:
    """A create of the main resource ``group``/``plural`` (never of a subresource)."""
    info = attempt.served.info
    return (
        attempt.operation == "CREATE"
        and not attempt.subresource
        and info.group == group
        and info.plural == plural
    )


def object_name(obj: dict[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("name") or "")


def forbid(attempt: Attempt, detail: str) -> StatusError:
    """``admission.NewForbidden``: 403 ``<resource> "<name>" is forbidden: <detail>``.

    An object not yet named is called by its ``generateName`` (or ``Unknown``), as
    apiserver's ``extractResourceName`` does: names are generated after admission.
    """
    metadata = attempt.obj.get("metadata") or {}
    name = metadata.get("name") or metadata.get("generateName") or "Unknown"
    return failures.forbidden(attempt.served.info, str(name), detail)
