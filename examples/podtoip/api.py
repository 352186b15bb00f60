"""The PodToIp custom resource: example.com/v1, namespaced, short name ``ptp``.

Its CRD manifest is ``config/crd.yaml``.
"""

from __future__ import annotations

import msgspec

from kubeforge import Model, Resource, ResourceInfo

__all__ = ["PodToIp", "PodToIpSpec"]


class PodToIpSpec(Model):
    pod_name: str = ""
    """Name of the pod this object mirrors (always its own name too)."""
    pod_address: str = ""
    """The pod's current IP address (``status.podIP``)."""


class PodToIp(Resource):
    info = ResourceInfo(
        group="example.com",
        version="v1",
        kind="PodToIp",
        plural="podtoips",
        namespaced=True,
        short_names=("ptp",),
        singular="podtoip",
    )
    spec: PodToIpSpec = msgspec.field(default_factory=PodToIpSpec)
