"""Project-wide test configuration.

The local API server fixtures (``kube_apiserver``, ``kube_apiserver_factory``) come
from the ``kubeforge.testing.plugin`` pytest plugin, which the package registers
through its ``pytest11`` entry point once it is installed (``pip install -e .``).
"""
