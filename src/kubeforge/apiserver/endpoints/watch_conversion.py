"""Watch events of a version that a conversion webhook serves, converted in the stream's own
task, so a slow webhook delays that watch only.

Events are rendered once, in the fan-out, inside whichever write made them: they must
neither wait there nor fail that write. So ``WatchConversion.view`` renders an object
that needs the webhook as stored, and ``finish`` (awaited by ``watch.stream_watch``
before each write) converts those events, one ConversionReview per event as the real
watch cache does when it decodes each event at the watcher's version, then shapes them
as the watch asked (a Table row, metadata only, or the object itself).

Entry point: ``WatchConversion.of(engine, served, shape)``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import orjson

from kubeforge.apiserver import failures
from kubeforge.apiserver.registry import conversions
from kubeforge.apiserver.registry.engine import Engine
from kubeforge.apiserver.registry.served import ServedResource
from kubeforge.apiserver.storage.fanout import line

__all__ = ["WatchConversion"]

Finish = Callable[[bytes], Awaitable[bytes]]


@dataclass(frozen=True)
class WatchConversion:
    engine: Engine
    served: ServedResource
    shape: Callable[[dict[str, Any]], dict[str, Any]]
    """What the watch sends of an object at its version (a Table, metadata, itself)."""
    deferred: bool
    """Events may be written at the stored version, for ``finish`` to convert."""

    @classmethod
    def of(
        cls,
        engine: Engine,
        served: ServedResource,
        shape: Callable[[dict[str, Any]], dict[str, Any]],
    ) -> WatchConversion:
        deferred = engine.strategy(served).converts_by_webhook
        return cls(engine, served, shape, deferred)

    def pending(self, viewed: dict[str, Any]) -> bool:
        """``viewed`` (from ``view``) is still at its stored version: ``finish`` shapes it."""
        info = self.served.info
        return self.deferred and _stored(viewed, info.kind, info.api_version)

    def view(self, obj: dict[str, Any]) -> dict[str, Any]:
        """``obj`` at the watch's version, or as stored when the webhook must be awaited."""
        if not self.deferred:
            return self.engine.view(self.served, obj)
        with conversions.deferring():
            try:
                return self.engine.view(self.served, obj)
            except conversions.ConversionNeeded:
                return self.engine.strategy(self.served).on_read(obj)

    @property
    def finish(self) -> Finish | None:
        return self._finish if self.deferred else None

    async def _finish(self, data: bytes) -> bytes:
        """``data`` (watch lines) with every object still at its stored version converted."""
        info = self.served.info
        lines = data.splitlines(keepends=True)
        out: list[bytes] = []
        for raw in lines:
            event = orjson.loads(raw)
            obj = event.get("object")
            if not isinstance(obj, dict) or not _stored(obj, info.kind, info.api_version):
                out.append(raw)  # converted already, a bookmark, or an error
                continue
            try:
                viewed = await conversions.run_converting(
                    lambda o=obj: self.engine.view(self.served, o)  # type: ignore[misc]
                )
            except failures.StatusError as error:
                out.append(line("ERROR", error.status))  # the client ends the watch here
                break
            out.append(line(str(event.get("type")), self.shape(viewed)))
        return b"".join(out)


def _stored(obj: dict[str, Any], kind: str, api_version: str) -> bool:
    return obj.get("kind") == kind and obj.get("apiVersion") != api_version
