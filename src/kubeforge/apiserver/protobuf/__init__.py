"""Kubernetes protobuf (``application/vnd.kubernetes.protobuf``) for every built-in kind.

Entry points: ``wire.decode(raw) -> dict`` (the ``k8s\\0`` envelope, then the typed message
by its ``(apiVersion, kind)``, into the JSON form) and ``wire.encode(obj) -> bytes | None``.
The layout of every message is ``builtin_proto.json``, generated from the Kubernetes 1.32
``generated.proto`` files by ``python -m kubeforge.apiserver.protobuf.generate``
(``table`` reads it; ``decoding``/``encoding`` walk it; ``reader``/``writer`` are the wire
format; ``scalars`` the times and durations).

May import: nothing else in the server.
"""
