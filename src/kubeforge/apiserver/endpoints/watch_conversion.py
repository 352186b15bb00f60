"""Watch events of a version that a conversion webhook serves, converted in the stream's own
task, so a slow webhook delays that watch only.

Events are rendered once, in the fan-out, inside whichever write made them: they must
neither wait there nor fail that write. So ``WatchConversion.view`` renders an object
that needs the webhook as stored, and ``finish`` (awaited by ``watch.stream_watch``
before each write) converts those events, then shapes them as the watch asked (a Table
row, metadata only, or the object itself). One ConversionReview per event and version,
shared by every watch of that version (``_SharedConversions``), as the real watch cache
encodes each event once per version for all its watchers (its ``cachingObject``); a
failure is shared alike.

Entry point: ``WatchConversion.of(engine, served, shape)``.
"""

from __future__ import annotations

import asyncio
import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
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

# Conversions kept for sharing between watches: a burst's worth of events.
_SHARED_CONVERSIONS = 4096


class _SharedConversions:
    """Each object state's conversion, run once (in a task of its own, so a watch that
    goes away mid-call does not cancel it for the others) and handed to every watch
    that asks: the converted object, or the ``StatusError`` that ended it."""

    def __init__(self) -> None:
        self._runs: OrderedDict[Hashable, asyncio.Task[dict[str, Any]]] = OrderedDict()

    @classmethod
    def of(cls, engine: Engine) -> _SharedConversions:
        """The one kept for ``engine`` (one server, one event loop)."""
        # Keyed by id, checked through a weak reference: an Engine (a dataclass) has
        # no hash, and a server that stopped must not be kept alive by this.
        key = id(engine)
        kept = _by_engine.get(key)
        if kept is None or kept[0]() is not engine:

            def forget(ref: weakref.ref[Engine]) -> None:
                if _by_engine.get(key, (None,))[0] is ref:
                    del _by_engine[key]

            kept = _by_engine[key] = (weakref.ref(engine, forget), cls())
        return kept[1]

    async def converted(
        self, key: Hashable, convert: Callable[[], Awaitable[dict[str, Any]]]
    ) -> dict[str, Any]:
        run = self._runs.get(key)
        if run is None:
            run = self._runs[key] = asyncio.ensure_future(convert())
            run.add_done_callback(_seen)
            if len(self._runs) > _SHARED_CONVERSIONS:
                self._runs.popitem(last=False)
        return await asyncio.shield(run)


_by_engine: dict[int, tuple[weakref.ref[Engine], _SharedConversions]] = {}


def _seen(run: asyncio.Task[dict[str, Any]]) -> None:
    """Mark a failure as handled: the watches still waiting get it, or none is left."""
    if not run.cancelled():
        run.exception()


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
                viewed = await self._converted(obj)
            except failures.StatusError as error:
                out.append(line("ERROR", error.status))  # the client ends the watch here
                break
            out.append(line(str(event.get("type")), self.shape(viewed)))
        return b"".join(out)

    async def _converted(self, obj: dict[str, Any]) -> dict[str, Any]:
        """``obj`` (as stored) at this watch's version, converted once for every watch."""
        meta = obj.get("metadata") or {}
        # A resourceVersion names one state of one object; the rules version changes
        # with the CRD (and so with its webhook), the served info names the version.
        key = (
            self.served.info,
            self.engine.rules_version(self.served),
            meta.get("namespace"),
            meta.get("name"),
            meta.get("resourceVersion"),
        )

        async def convert() -> dict[str, Any]:
            return await conversions.run_converting(lambda: self.engine.view(self.served, obj))

        return await _SharedConversions.of(self.engine).converted(key, convert)


def _stored(obj: dict[str, Any], kind: str, api_version: str) -> bool:
    return obj.get("kind") == kind and obj.get("apiVersion") != api_version
