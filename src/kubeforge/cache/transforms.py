"""Ready-made transforms for informers: rewrite each object before it is cached.

A transform runs on every object the server sends, before the store keeps it and
before any handler sees it (client-go's ``SetTransform``, controller-runtime's
``DefaultTransform``). It may change its argument in place (nothing else holds it)
and must return the object to cache.

>>> obj = {"metadata": {"name": "a", "managedFields": [{"manager": "kubectl"}]}}
>>> drop_managed_fields(obj)
{'metadata': {'name': 'a'}}
"""

from __future__ import annotations

from typing import Any

from kubeforge.core.resource import Resource

__all__ = ["drop_managed_fields"]


def drop_managed_fields(obj: Any) -> Any:
    """Remove ``metadata.managedFields``: often a third of an object, and rarely read."""
    if isinstance(obj, Resource):
        obj.metadata.managed_fields = None
    elif isinstance(obj, dict):
        meta = obj.get("metadata")
        if isinstance(meta, dict):
            meta.pop("managedFields", None)
    return obj
