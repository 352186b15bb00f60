"""The ``scale`` subresource (``autoscaling/v1`` Scale) as verbs mixed into ``Api``.

Deployments, StatefulSets, ReplicaSets and custom resources whose CRD declares a
scale subresource answer these; others answer ``NotFound``.
"""

from __future__ import annotations

from typing import Any

from kubeforge.client._codec import encode
from kubeforge.client._options import PatchType, patch_content_type, write_params
from kubeforge.client._paths import object_path
from kubeforge.client.requester import Requester
from kubeforge.core import meta
from kubeforge.core.resource import ResourceInfo
from kubeforge.models.autoscaling_v1 import Scale

__all__ = ["ScaleVerbs"]

_JSON = "application/json"


class ScaleVerbs:
    """``get_scale``, ``replace_scale`` and ``patch_scale`` for an ``Api``."""

    client: Requester
    info: ResourceInfo
    namespace: str | None
    timeout: float | None

    async def get_scale(self, name: str) -> Scale:
        """The ``autoscaling/v1`` Scale of ``name`` (Deployments, StatefulSets, custom
        resources with a scale subresource, ...)."""
        path = object_path(self.info, self.namespace, name, "scale")
        answer = await self.client.exchange("GET", path, timeout=self.timeout)
        return meta.decode(answer.body, Scale)

    async def replace_scale(self, name: str, scale: Scale, *, dry_run: bool = False) -> Scale:
        """PUT a Scale; its ``metadata.resourceVersion``, if set, must be current."""
        path = object_path(self.info, self.namespace, name, "scale")
        answer = await self.client.exchange(
            "PUT",
            path,
            params=write_params(dry_run=dry_run),
            data=encode(scale),
            content_type=_JSON,
            timeout=self.timeout,
        )
        return meta.decode(answer.body, Scale)

    async def patch_scale(
        self, name: str, body: Any, *, patch_type: PatchType = "merge", dry_run: bool = False
    ) -> Scale:
        """PATCH the Scale, e.g. ``{"spec": {"replicas": 3}}``."""
        path = object_path(self.info, self.namespace, name, "scale")
        answer = await self.client.exchange(
            "PATCH",
            path,
            params=write_params(dry_run=dry_run),
            data=encode(body),
            content_type=patch_content_type(patch_type),
            timeout=self.timeout,
        )
        return meta.decode(answer.body, Scale)
