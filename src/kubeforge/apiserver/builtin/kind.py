"""``Kind``: one built-in resource at one version, as its API group's module lists it.

Each API group's module ends with its ``KINDS``: for every resource, what discovery
advertises (where it lives, namespaced or not, short names, subresources, categories,
verbs), the ``Strategy`` its writes follow and the ``Printer`` of its ``kubectl get``
columns; ``resources`` joins the groups into the server's one table. Adding a kind is
one ``Kind`` entry in its group's module.

>>> kind = Kind("networking.k8s.io", "v1", "IngressClass", "ingressclasses", namespaced=False)
>>> kind.served.info.api_version, kind.served.info.namespaced
('networking.k8s.io/v1', False)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from kubeforge.apiserver.builtin.generic import CatalogStrategy
from kubeforge.apiserver.printers.columns import DEFAULT_PRINTER, Printer
from kubeforge.apiserver.registry.served import ALL_VERBS, Representation, ServedResource
from kubeforge.apiserver.registry.strategy import Strategy
from kubeforge.core.resource import ResourceInfo

__all__ = ["STATUS", "Kind"]

STATUS = ("status",)
"""The subresources of most kinds that have any."""


@dataclass(frozen=True)
class Kind:
    """A built-in resource: its facts for discovery and the rules its objects follow."""

    group: str
    version: str
    kind: str
    plural: str
    namespaced: bool = True
    short: tuple[str, ...] = ()
    subresources: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    verbs: tuple[str, ...] = ALL_VERBS
    storage: bool = True
    """False when the objects are not stored under this resource: answered and forgotten
    (reviews), or stored as another resource's (see ``representation``)."""
    strategy: type[Strategy] = CatalogStrategy
    """The rules of its writes; the generic ones of a GA kind unless it has its own."""
    representation: Representation | None = None
    """How its objects convert to and from the resource they are stored as, if another."""
    printer: Printer = field(default=DEFAULT_PRINTER, compare=False)
    """Its ``kubectl get`` columns; ``Name`` and ``Created At`` unless it has its own."""

    @cached_property
    def served(self) -> ServedResource:
        """The resource as the registry serves it."""
        info = ResourceInfo(
            group=self.group,
            version=self.version,
            kind=self.kind,
            plural=self.plural,
            namespaced=self.namespaced,
            short_names=self.short,
            singular=self.kind.lower(),
        )
        return ServedResource(
            info=info,
            verbs=self.verbs,
            subresources=self.subresources,
            categories=self.categories,
            storage=self.storage,
            representation=self.representation,
            printer=self.printer,
        )
