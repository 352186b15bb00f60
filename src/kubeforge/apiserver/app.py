"""The public import path of the embeddable server: ``kubeforge.apiserver.app.LocalServer``.

Example::

    server = LocalServer(ServerOptions(token="secret"))  # data_dir=None: in memory
    app = server.build_app()

The server is assembled in ``kubeforge.apiserver.server.app``; this module is the stable
name users import it by.
"""

from kubeforge.apiserver.server.app import LocalServer, ServerOptions

__all__ = ["LocalServer", "ServerOptions"]
