"""In-memory list/watch sources for the cache and informer benchmarks.

``StaticListWatch`` answers ``list`` by decoding a fixed list body with the real
client codec (as ``Api.list`` does with the server's answer) and ``watch`` with
pre-encoded watch lines decoded by the same codec, so a benchmark measures the
client's decoding, the watcher, the store and the handlers, but no network.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from typing import Any

from kubeforge.client._codec import typed_codec
from kubeforge.core.resource import Resource


class StaticListWatch:
    """``list`` decodes ``list_body``; ``watch`` decodes ``watch_lines`` once, then idles."""

    def __init__(
        self, cls: type[Resource], list_body: bytes, watch_lines: Sequence[bytes] = ()
    ) -> None:
        self.info = cls.info
        self._codec = typed_codec(cls)
        self._list_body = list_body
        self._watch_lines = watch_lines
        self._watched = False
        self.idle = asyncio.Event()  # set once every watch line has been handed out

    async def list(self, **_: Any) -> Any:
        return self._codec.decode_list(self._list_body)

    async def watch(self, **_: Any) -> AsyncIterator[Any]:
        if not self._watched:
            self._watched = True
            decode = self._codec.decode_event
            for line in self._watch_lines:
                yield decode(line)
        self.idle.set()
        await asyncio.Event().wait()  # an open watch with nothing more to say
        yield  # pragma: no cover - unreachable, makes this an async generator
