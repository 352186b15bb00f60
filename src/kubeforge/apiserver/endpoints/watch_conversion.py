"""Watch events of a version that a conversion webhook serves, converted in the stream's own
task, so a slow webhook delays that watch only.

Events are rendered once, in the fan-out, inside whichever write made them: they must
neither wait there nor fail that write. So ``WatchConversion.view`` renders an object
that needs the webhook as stored, and ``finish`` (awaited by ``watch.stream_watch``
before each write) converts those events, one ConversionReview per event as the real
watch cache does when it decodes each event at the watcher's version. Table and
metadata-only watches render from the converted object and keep converting in the
fan-out, blocking while the webhook answers.

Entry point: ``WatchConversion.of(engine, served, plain)``.
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
    deferred: bool
    """Events may be written at the stored version, for ``finish`` to convert."""

    @classmethod
    def of(cls, engine: Engine, served: ServedResource, plain: bool) -> WatchConversion:
        """``plain``: the watch sends whole objects as JSON (no table, no metadata only)."""
        deferred = plain and engine.strategy(served).converts_by_webhook
        return cls(engine, served, deferred)

    def view(self, obj: dict[str, Any]) -> dict[str, Any]:
        """``obj`` as the watch shows it, or as stored when the webhook must be awaited."""
        if not self.deferred:
            with conversions.blocking():
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
            if (
                not isinstance(obj, dict)
                or obj.get("kind") != info.kind
                or obj.get("apiVersion") == info.api_version
            ):
                out.append(raw)
                continue
            try:
                viewed = await conversions.run_converting(
                    lambda o=obj: self.engine.view(self.served, o)  # type: ignore[misc]
                )
            except failures.StatusError as error:
                out.append(line("ERROR", error.status))  # the client ends the watch here
                break
            out.append(line(str(event.get("type")), viewed))
        return b"".join(out)
