"""Kubernetes protobuf request bodies: the ones kubectl's typed commands send.

Entry point: ``wire.decode(raw) -> dict`` (the ``k8s\\0`` envelope, then the typed message
by its ``(apiVersion, kind)`` schema, into the JSON form). The per-kind schemas are in the
other modules of this package.

May import: nothing else in the server.
"""
