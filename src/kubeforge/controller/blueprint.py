"""What a controller was built with, kept for the tools that derive its permissions.

Entry point: ``Blueprint``, which ``Builder.complete`` attaches to the controller it
makes (``controller.blueprint``). ``kubeforge.crd.required_rules(manager)`` reads it
to say which RBAC the controller needs, so a ``owns(ConfigMap)`` can never be
forgotten in ``config/rbac/role.yaml``.

>>> from kubeforge.models.core_v1 import ConfigMap, Pod
>>> Blueprint(for_=Pod.info, owns=(ConfigMap.info,)).owns[0].plural
'configmaps'
"""

from __future__ import annotations

from dataclasses import dataclass

from kubeforge.core.resource import ResourceInfo

__all__ = ["Blueprint"]


@dataclass(frozen=True, slots=True)
class Blueprint:
    """The kinds a controller watches and what it writes on the ``for_`` object."""

    for_: ResourceInfo | None = None
    owns: tuple[ResourceInfo, ...] = ()
    watches: tuple[ResourceInfo, ...] = ()
    writes_status: bool = False
    """The reconciler writes the ``for_`` object's ``/status`` subresource."""
    finalizers: tuple[str, ...] = ()
    """Finalizers the reconciler adds to and removes from the ``for_`` object."""
