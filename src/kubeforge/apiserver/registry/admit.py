"""The hook through which the built-in admission plugins see every write the store makes.

The real server runs its compiled-in admission plugins (ServiceAccount, Priority,
LimitRanger, ResourceQuota, PodSecurity, ...) on every create and update, the control
plane's included, after defaulting: the mutating ones before validation, the validating
ones after it. The store calls ``BuiltinAdmission`` at those two points; the plugins
themselves live in ``admission.plugins``, above the store, which sets them on the
engine (``Engine.builtin_admission``).

Entry point: the ``BuiltinAdmission`` protocol and ``Attempt``, what one write offers it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from kubeforge.apiserver.registry.options import WriteOptions
from kubeforge.apiserver.registry.served import ServedResource

__all__ = ["Attempt", "BuiltinAdmission"]


@dataclass(frozen=True)
class Attempt:
    """One write as the plugins see it: ``obj`` is the object about to be stored (changed
    in place by mutating plugins), ``old`` the stored one on an update."""

    operation: str  # CREATE or UPDATE
    served: ServedResource
    namespace: str
    obj: dict[str, Any]
    old: dict[str, Any] | None
    options: WriteOptions
    subresource: str = ""


class BuiltinAdmission(Protocol):
    """The enabled plugins, in kube-apiserver's order."""

    def mutate(self, attempt: Attempt) -> None:
        """Mutating plugins: change ``attempt.obj`` or raise a ``StatusError``."""

    def validate(self, attempt: Attempt) -> None:
        """Validating plugins, after the object's own validation: raise to refuse."""
