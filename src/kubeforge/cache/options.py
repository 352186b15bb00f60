"""What a manager's whole cache holds: ``CacheOptions`` and ``ByObject``.

controller-runtime's ``cache.Options``: ``default_namespaces`` restricts every
namespaced kind to those namespaces (one watch per namespace, so the manager
needs RBAC only there), ``default_label_selector``/``default_field_selector``
keep only matching objects, ``default_transform`` trims objects before they are
cached, and ``by_object`` overrides any of these for one kind. A selector given
to one watch is added to (ANDed with) the cache's. Reads outside the namespaces
raise ``OutsideCacheScope`` (``kubeforge.cache.multinamespace``) instead of
finding nothing.

Example, a namespaced operator that caches only its own Secrets' metadata::

    CacheOptions(
        default_namespaces=["team-a", "team-b"],
        by_object={Secret: ByObject(label_selector="app=shop", transform=drop_managed_fields)},
    )

``initial_list="streaming"`` fills every informer from a watch with
``sendInitialEvents`` instead of a paged list (see ``WatcherConfig.initial_list``):
one object in flight instead of a page, for the largest caches.

There is no ``unsafe_disable_deep_copy``: the store keeps objects packed and
decodes a private copy per read, which is what keeps its memory low; handing
out shared decoded objects would keep a decoded copy of everything read alive,
costing memory instead of saving it (a typical Deployment pod: 1.3 kB packed,
5.8 kB as a decoded ``Pod``, measured with tracemalloc).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from kubeforge.cache.store import Transform
from kubeforge.core.resource import Resource, ResourceInfo

__all__ = ["ByObject", "CacheOptions", "Kind", "and_selectors"]

Kind: TypeAlias = type[Resource] | ResourceInfo
"""A typed resource class, or a ``ResourceInfo`` for the dynamic (``dict``) face."""


def _names(value: Sequence[str] | None) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        raise TypeError(f"namespaces is a list of names, not the string {value!r}")
    return tuple(value)


@dataclass(frozen=True, slots=True)
class ByObject:
    """The cache settings of one kind; ``None`` keeps the cache-wide default."""

    namespaces: Sequence[str] | None = None
    """Namespaces to cache this kind in (``[]`` is not allowed: use ``None``)."""
    label_selector: str | None = None
    field_selector: str | None = None
    transform: Transform | None = None

    def __post_init__(self) -> None:
        names = _names(self.namespaces)
        if names == ():
            raise ValueError("ByObject.namespaces must name at least one namespace (or be None)")
        object.__setattr__(self, "namespaces", names)


@dataclass(frozen=True, slots=True)
class CacheOptions:
    """What the shared cache of a manager holds; every field has a default."""

    default_namespaces: Sequence[str] = ()
    """Cache namespaced kinds in these namespaces only; empty: every namespace."""
    default_label_selector: str | None = None
    default_field_selector: str | None = None
    default_transform: Transform | None = None
    by_object: Mapping[Kind, ByObject] = field(default_factory=dict)
    initial_list: Literal["paged", "streaming"] = "paged"
    """How informers read the initial state: ``WatcherConfig.initial_list``."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "default_namespaces", _names(self.default_namespaces) or ())

    def for_kind(self, kind: Kind) -> ByObject:
        """The effective settings of ``kind`` (its ``by_object`` entry over the defaults)."""
        own = self.by_object.get(kind) or next(
            (v for k, v in self.by_object.items() if _info(k) == _info(kind)), ByObject()
        )
        namespaces = own.namespaces or tuple(self.default_namespaces) or None
        return ByObject(
            namespaces=namespaces,
            label_selector=_first(own.label_selector, self.default_label_selector),
            field_selector=_first(own.field_selector, self.default_field_selector),
            transform=_first(own.transform, self.default_transform),
        )


def _info(kind: Kind) -> ResourceInfo:
    return kind if isinstance(kind, ResourceInfo) else kind.info


def _first(*values: Any) -> Any:
    return next((value for value in values if value is not None), None)


def and_selectors(*selectors: str | None) -> str | None:
    """Selectors ANDed (a comma joins requirements in both label and field selectors).

    >>> and_selectors("app=shop", None, "tier!=db")
    'app=shop,tier!=db'
    """
    given = [s for s in selectors if s]
    return ",".join(given) if given else None
