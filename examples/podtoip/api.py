"""The PodToIp custom resource: example.com/v1, namespaced, short name ``ptp``.

``config/crd.yaml`` is generated from this module (a test checks it is current).
After editing the classes, run from ``examples/``::

    python -c 'from podtoip.api import crd_yaml; print(crd_yaml(), end="")' \
        > podtoip/config/crd.yaml
"""

from __future__ import annotations

import msgspec

from kubeforge import Model, Resource, ResourceInfo
from kubeforge.crd import CRDOptions, PrinterColumn, generate_crd, render_yaml

__all__ = ["PodToIp", "PodToIpSpec"]


class PodToIpSpec(Model):
    pod_name: str = ""
    """Name of the pod this object mirrors (always its own name too)."""
    pod_address: str = ""
    """The pod's current IP address (its status.podIP)."""


class PodToIp(Resource):
    """PodToIp records the IP address of the pod with the same name and namespace."""

    info = ResourceInfo(
        group="example.com",
        version="v1",
        kind="PodToIp",
        plural="podtoips",
        namespaced=True,
        short_names=("ptp",),
        singular="podtoip",
    )
    crd = CRDOptions(
        printer_columns=(
            PrinterColumn("Pod", ".spec.podName"),
            PrinterColumn("Address", ".spec.podAddress"),
            PrinterColumn.age(),
        )
    )
    spec: PodToIpSpec = msgspec.field(default_factory=PodToIpSpec)
    """Which pod, and its address."""


def crd_yaml() -> str:
    """The CRD manifest of ``PodToIp``, as committed in ``config/crd.yaml``."""
    return render_yaml([generate_crd(PodToIp)])
