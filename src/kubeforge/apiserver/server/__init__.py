"""The server: assembly of every part into one aiohttp application, and the process around it.

Entry points: ``app.LocalServer`` (embed it in a process) and ``command.apiserver_command``
(``kubeforge apiserver`` / ``python -m kubeforge.apiserver``); ``tls`` makes the CA and
serving certificate, ``httplog`` the ``-v`` request log.

May import: everything in the server.
"""
