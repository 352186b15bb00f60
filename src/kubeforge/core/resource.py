"""What a resource *is* (``ResourceInfo``) and the base class of typed objects (``Resource``).

``ResourceInfo`` is the REST mapping of one kind: group, version, kind, plural,
scope. Typed classes carry theirs as the ``info`` class attribute; the dynamic
client takes one directly.

Example, a custom resource as a user writes it::

    class PodToIpSpec(Model):
        pod_name: str = ""
        pod_address: str = ""

    class PodToIp(Resource):
        info = ResourceInfo(group="example.com", version="v1", kind="PodToIp",
                            plural="podtoips", namespaced=True, short_names=("ptp",))
        spec: PodToIpSpec = msgspec.field(default_factory=PodToIpSpec)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import msgspec

from kubeforge.core.meta import Model, ObjectMeta

__all__ = ["Resource", "ResourceInfo"]


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


class Resource(Model):
    """Base of typed Kubernetes objects; subclasses set ``info``.

    ``api_version`` and ``kind`` are filled from ``info`` when left empty, so a
    freshly built object encodes as a complete manifest.
    """

    info: ClassVar[ResourceInfo]

    api_version: str = ""
    kind: str = ""
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)

    def __post_init__(self) -> None:
        info = getattr(type(self), "info", None)
        if info is not None:
            if not self.api_version:
                self.api_version = info.api_version
            if not self.kind:
                self.kind = info.kind
