"""What the local API server serves right now: the built-in kinds plus every established CRD.

``Registry`` is the one source of truth shared by the REST handlers (which look a
URL up here), discovery and OpenAPI (which list everything) and Table output (which
reads printer columns). CRD create/delete calls ``add_crd``/``remove_crd`` so a
custom resource is served, and advertised, the moment its CRD exists.

Entry point: ``Registry(builtins)`` (the kinds it serves from the start: the server gives it
``builtin.resources.BUILTIN_RESOURCES``), then ``lookup(group, version, plural)``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from kubeforge.apiserver.printers.columns import DEFAULT_PRINTER, Printer
from kubeforge.apiserver.storage.sqlite import ResourceKey
from kubeforge.core.resource import ResourceInfo

__all__ = ["ALL_VERBS", "Registry", "Representation", "ServedResource"]

ALL_VERBS: tuple[str, ...] = (
    "create",
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "update",
    "watch",
)


@dataclass(frozen=True)
class ServedResource:
    """One resource at one group/version, as discovery and the handlers see it."""

    info: ResourceInfo
    verbs: tuple[str, ...] = ALL_VERBS
    subresources: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    schema: dict[str, Any] | None = None
    printer_columns: tuple[dict[str, Any], ...] = ()
    # Extra knowledge the REST layer needs; discovery may ignore these.
    storage: bool = True
    builtin: bool = True
    crd_name: str = ""
    # A CRD version marked deprecated: every response carries this as a Warning header.
    deprecation_warning: str | None = None
    # Set when the objects are stored as another resource's (events.k8s.io Events).
    representation: Representation | None = None
    # A built-in's ``kubectl get`` columns (its ``Kind``'s); a CRD's come from ``printer_columns``.
    printer: Printer = field(default=DEFAULT_PRINTER, compare=False)

    @property
    def storage_key(self) -> ResourceKey:
        """Where the objects are stored: under this resource, or under the one it converts to."""
        if self.representation is not None:
            return self.representation.storage_key
        return (self.info.group, self.info.plural)


@dataclass(frozen=True)
class Representation:
    """A served resource whose objects are stored as another resource's (converted both ways)."""

    storage_key: ResourceKey
    api_version: str
    kind: str

    def to_served(self, stored: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def to_stored(self, served: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError


class Registry:
    """The mutable set of served resources (built-ins first, then CRDs in creation order)."""

    def __init__(self, builtins: Iterable[ServedResource]) -> None:
        self._builtins: list[ServedResource] = list(builtins)
        # crd name -> its served resources, one per served version (priority order)
        self._crds: dict[str, list[ServedResource]] = {}
        self._index: _Index | None = None  # every request looks up: built once per change

    def resources(self) -> list[ServedResource]:
        """Everything served now, in a stable order: core group first, then by group."""
        return [*self._builtins, *(r for served in self._crds.values() for r in served)]

    def lookup(self, group: str, version: str, plural: str) -> ServedResource | None:
        return self._indexed().by_version.get((group, version, plural))

    def storage_version_of(self, group: str, plural: str) -> ServedResource | None:
        """The version objects of ``plural.group`` are stored at (CRDs may serve several)."""
        return self._indexed().stored.get((group, plural))

    def _indexed(self) -> _Index:
        index = self._index
        if index is None:
            index = self._index = _Index()
            for served in self.resources():  # the first one in this order wins, as a scan
                info = served.info
                index.by_version.setdefault((info.group, info.version, info.plural), served)
                if served.storage:
                    index.stored.setdefault((info.group, info.plural), served)
        return index

    def group_versions(self) -> list[tuple[str, list[str]]]:
        """``[(group, [versions, highest priority first])]``; the core group is ``""``."""
        order: dict[str, list[str]] = {}
        for served in self.resources():
            versions = order.setdefault(served.info.group, [])
            if served.info.version not in versions:
                versions.append(served.info.version)
        return [(group, _by_priority(versions)) for group, versions in order.items()]

    def add_crd(self, name: str, served: list[ServedResource]) -> None:
        """Serve (or re-serve, after an update) every version of one CRD."""
        self._crds[name] = list(served)
        self._index = None

    def remove_crd(self, name: str) -> None:
        self._crds.pop(name, None)
        self._index = None


@dataclass
class _Index:
    """The registry's lookups as dictionaries."""

    by_version: dict[tuple[str, str, str], ServedResource] = field(default_factory=dict)
    stored: dict[ResourceKey, ServedResource] = field(default_factory=dict)


def deprecation_warning(
    group: str, kind: str, version: dict[str, Any], versions: list[dict[str, Any]]
) -> str | None:
    """The Warning a deprecated CRD version's responses carry (``None`` if not deprecated):
    its ``deprecationWarning``, or the default that names the newest served version of
    equal or greater stability, as the real server words it."""
    if not version.get("deprecated"):
        return None
    if version.get("deprecationWarning"):
        return str(version["deprecationWarning"])
    name = str(version.get("name"))
    warning = f"{group}/{name} {kind} is deprecated"
    stage = _version_key(name)[0]
    candidates = [
        str(v.get("name"))
        for v in versions
        if v.get("served") and not v.get("deprecated") and v.get("name") != name
    ]
    better = [v for v in _by_priority(candidates) if _version_key(v)[0] <= stage]
    return f"{warning}; use {group}/{better[0]} {kind}" if better else warning


def _by_priority(versions: list[str]) -> list[str]:
    """Kubernetes version priority: GA > beta > alpha, higher numbers first, others last."""
    return sorted(versions, key=_version_key)


def _version_key(version: str) -> tuple[int, int, int, str]:
    match = re.fullmatch(r"v(\d+)(?:(alpha|beta)(\d+))?", version)
    if not match:
        return (3, 0, 0, version)
    major = int(match.group(1))
    stage = {None: 0, "beta": 1, "alpha": 2}[match.group(2)]
    minor = int(match.group(3) or 0)
    return (stage, -major, -minor, version)
