"""Custom resource definitions: installing them on a cluster (later: generating them).

See ``install_crds()`` for the entry point.
"""

from kubeforge.crd.install import install_crds, load_manifests

__all__ = ["install_crds", "load_manifests"]
