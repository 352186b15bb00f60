"""The server: assembly of every part into one aiohttp application, and the process around it.

Entry points: ``app.LocalServer`` (embed it in a process) and ``command.apiserver_command``
(``kubeforge apiserver`` / ``python -m kubeforge.apiserver``); ``health`` serves the
health endpoints, ``failure_response`` turns every failure into a ``Status``, ``limits``
the in-flight and time limits, ``tls`` makes the CA and serving certificate,
``httplog`` the ``-v`` request log.

May import: everything in the server.
"""
