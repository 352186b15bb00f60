"""What a resource *is* (``ResourceInfo``) and the base class of typed objects (``Resource``).

``ResourceInfo`` is the REST mapping of one kind: group, version, kind, plural,
scope. Typed classes carry theirs as the ``info`` class attribute; the dynamic
client takes one directly.

Example, a custom resource as a user writes it::

    class PodToIpSpec(Model):
        pod_name: str = ""      # reads "" until set; sent only once set
        pod_address: str | None = None

    class PodToIp(Resource):
        info = ResourceInfo(group="example.com", version="v1", kind="PodToIp",
                            plural="podtoips", namespaced=True, short_names=("ptp",))
        spec: PodToIpSpec = msgspec.field(default_factory=PodToIpSpec)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import msgspec

from kubeforge.core._defaults import UnsetReads, slot_of
from kubeforge.core.meta import Model, ObjectMeta

__all__ = ["Resource", "ResourceInfo", "fill_type_meta"]


@dataclass(frozen=True, slots=True)
class ResourceInfo:
    """REST mapping of one kind. ``group`` is ``""`` for the core API group."""

    group: str
    version: str
    kind: str
    plural: str
    namespaced: bool = True
    short_names: tuple[str, ...] = ()
    singular: str = field(default="")

    @property
    def api_version(self) -> str:
        """``apps/v1``, or just ``v1`` for the core group."""
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def group_resource(self) -> str:
        """``plural.group`` as in error messages (``pods``, ``widgets.example.com``)."""
        return f"{self.plural}.{self.group}" if self.group else self.plural

    @property
    def list_kind(self) -> str:
        return f"{self.kind}List"


# Typed as the field's type so that mypy accepts it as the default; it is msgspec.UNSET.
_NOT_SENT: Any = msgspec.UNSET


class Resource(Model):
    """Base of typed Kubernetes objects; subclasses set ``info``.

    ``api_version`` and ``kind`` read as ``info``'s when the object does not carry them
    (a freshly built object, a list item) and are sent only when it does, or when the
    object itself is what is encoded: ``encode(Deployment(...))`` and every write of
    the client put them in, as the server needs them. A resource embedded in another
    object (a StatefulSet's ``volumeClaimTemplates``) is sent exactly as given, as in Go.
    """

    info: ClassVar[ResourceInfo]

    api_version: str = _NOT_SENT
    kind: str = _NOT_SENT
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)

    def with_type_meta(self) -> Resource:
        """This object with ``apiVersion`` and ``kind`` set (a copy when it lacked them)."""
        info = getattr(type(self), "info", None)
        if info is None:
            return self
        fill: dict[str, str] = {}
        if _API_VERSION.__get__(self, type(self)) is msgspec.UNSET:
            fill["api_version"] = info.api_version
        if _KIND.__get__(self, type(self)) is msgspec.UNSET:
            fill["kind"] = info.kind
        return msgspec.structs.replace(self, **fill) if fill else self


def _from_info(attribute: str) -> Callable[[Any], str]:
    def read(obj: Any) -> str:
        info = getattr(type(obj), "info", None)
        return "" if info is None else str(getattr(info, attribute))

    return read


_API_VERSION = slot_of(Resource, "api_version")
_KIND = slot_of(Resource, "kind")
# An unset api_version/kind reads as info's.
Resource.api_version = UnsetReads(_API_VERSION, _from_info("api_version"))  # type: ignore[assignment]
Resource.kind = UnsetReads(_KIND, _from_info("kind"))  # type: ignore[assignment]


def fill_type_meta(objects: Iterable[Resource], info: ResourceInfo) -> None:
    """Give objects that lack them ``info``'s ``apiVersion`` and ``kind``, in place: the
    items of a list page, which the server sends without (client-go's unstructured
    lists fill them the same way)."""
    api_version, kind = info.api_version, info.kind
    for obj in objects:
        if _API_VERSION.__get__(obj) is msgspec.UNSET:
            _API_VERSION.__set__(obj, api_version)
        if _KIND.__get__(obj) is msgspec.UNSET:
            _KIND.__set__(obj, kind)
