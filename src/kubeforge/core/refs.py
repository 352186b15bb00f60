"""``ObjectKey``: the hashable ``namespace/name`` that identifies one object.

Keys are what the workqueue holds and what reconcilers receive: never events,
never objects (level-triggered reconciliation).

>>> ObjectKey.parse("default/web-0")
ObjectKey(namespace='default', name='web-0')
>>> str(ObjectKey("", "node-1"))
'node-1'
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["ObjectKey"]


class ObjectKey(NamedTuple):
    """``namespace`` is ``""`` for cluster-scoped objects (client-go's ``MetaNamespaceKeyFunc``)."""

    namespace: str
    name: str

    def __str__(self) -> str:
        return f"{self.namespace}/{self.name}" if self.namespace else self.name

    @classmethod
    def parse(cls, key: str) -> ObjectKey:
        """Split ``"ns/name"`` (or ``"name"``); more than one ``/`` is an error."""
        parts = key.split("/")
        if len(parts) == 1:
            return cls("", parts[0])
        if len(parts) == 2:
            return cls(parts[0], parts[1])
        raise ValueError(f"unexpected key format: {key!r}")
