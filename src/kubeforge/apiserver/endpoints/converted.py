"""Engine reads whose answer may need a CRD's conversion webhook, awaited off the engine.

The engine is synchronous and never waits for a webhook: a read that meets a conversion
it has no answer for raises ``ConversionNeeded`` and is run again once the webhook has
answered (``registry.conversions``). These are the handlers' two such reads.

Entry points: ``get_object(engine, target)`` (GET of the named object) and
``at_request_version(engine, target, obj)`` (a write's answer, at the URL's version).
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.endpoints.request import Target
from kubeforge.apiserver.registry import conversions
from kubeforge.apiserver.registry.engine import Engine

__all__ = ["at_request_version", "get_object"]


async def get_object(engine: Engine, target: Target) -> dict[str, Any]:
    """The object the URL names, as served at the URL's version."""
    namespace, name = target.namespace or "", target.name
    return await conversions.run_converting(lambda: engine.get(target.served, namespace, name))


async def at_request_version(engine: Engine, target: Target, obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` at the request's version: a write answers with what it stored, which
    may still need the conversion webhook (``Engine.committed_view``)."""
    info = target.served.info
    if obj.get("kind") != info.kind or obj.get("apiVersion") == info.api_version:
        return obj
    return await conversions.run_converting(lambda: engine.view(target.served, obj))
