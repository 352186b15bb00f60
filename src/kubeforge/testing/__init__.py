"""Test helpers: the local API server as a real process, and pytest fixtures for it.

``LocalApiServer`` runs ``python -m kubeforge.apiserver`` in a subprocess and knows
its kubeconfig, URL, token and CA. The pytest plugin (``kubeforge.testing.plugin``,
registered through the ``pytest11`` entry point) provides ``kube_apiserver`` (one
in-memory server per session) and ``kube_apiserver_factory`` (servers a test may
restart or kill).

>>> from kubeforge.testing import LocalApiServer
>>> LocalApiServer  # doctest: +ELLIPSIS
<class '...LocalApiServer'>
"""

from kubeforge.testing.server import LocalApiServer, ServerStartError

__all__ = ["LocalApiServer", "ServerStartError"]
