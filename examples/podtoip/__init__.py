"""PodToIp: the controller from the seed documents, written with kubeforge.

For every pod that has an IP there is a ``PodToIp`` (example.com/v1, short
name ``ptp``) with the pod's name and namespace, an ownerReference to the pod,
and the pod's current IP in ``spec.podAddress``. It follows IP changes and is
deleted when the pod is deleted or starts deleting.

Run it against any cluster (the CRD from ``config/crd.yaml`` must be installed)::

    kubeforge run examples/podtoip --kubeconfig ~/.kube/config
"""

from pathlib import Path

from .api import PodToIp, PodToIpSpec
from .controller import desired_podtoip, setup
from .verify import differences, waiting_for_ip

CRD_PATH = Path(__file__).parent / "config" / "crd.yaml"

__all__ = [
    "CRD_PATH",
    "PodToIp",
    "PodToIpSpec",
    "desired_podtoip",
    "differences",
    "setup",
    "waiting_for_ip",
]
