"""A list's JSON body (typed list, Table, PartialObjectMetadataList), encoded a chunk of
items at a time with the event loop free in between, and streamed when it is larger.

Entry point: ``await json_list_response(request, head, field, items, encode)``. The
body is ``head`` with ``field`` (its last member: ``items``, or a Table's ``rows``)
holding ``encode(chunk)`` of every ``ITEMS_PER_CHUNK`` items; the bytes are those one
``orjson.dumps`` of the whole body would give. A body of one chunk goes out whole, with a
Content-Length; a longer one with chunked transfer encoding, written as it is encoded, as
a real server's large lists leave Go's net/http (which only sets a Content-Length on a
body it saw whole). Encoding 500 pods in one go held every other client of the server up
for the whole page; a chunk is about a millisecond.

Everything that can fail with a Status must have failed before this is called: once the
headers are out, the status cannot change.

Example::

    encode = lambda chunk: orjson.dumps(chunk)  # a JSON array of the chunk
    await json_list_response(request, {"kind": "PodList", ...}, "items", pods, encode)
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

import orjson
from aiohttp import web

__all__ = ["ITEMS_PER_CHUNK", "array_of", "json_list_response"]

ITEMS_PER_CHUNK = 100
"""Items encoded between two turns of the event loop: about a millisecond of pods."""


def array_of(transform: Callable[[Any], Any] | None = None) -> Callable[[Sequence[Any]], bytes]:
    """An ``encode`` that makes each item ``transform(item)`` (or leaves it) as a JSON array."""
    if transform is None:
        return orjson.dumps
    return lambda chunk: orjson.dumps([transform(item) for item in chunk])


async def json_list_response(
    request: web.Request,
    head: dict[str, Any],
    field: str,
    items: Sequence[Any],
    encode: Callable[[Sequence[Any]], bytes],
    content_type: str = "application/json",
) -> web.StreamResponse:
    """``head`` plus ``field``: the items as ``encode`` makes them, chunk by chunk."""
    opening = orjson.dumps(head)[:-1] + b',"' + field.encode() + b'":['
    headers = {"Content-Type": content_type}
    if len(items) <= ITEMS_PER_CHUNK:
        return web.Response(body=opening + encode(items)[1:] + b"}", headers=headers)
    response = web.StreamResponse(headers=headers)
    await response.prepare(request)
    separator = opening
    try:
        for start in range(0, len(items), ITEMS_PER_CHUNK):
            await response.write(separator + encode(items[start : start + ITEMS_PER_CHUNK])[1:-1])
            separator = b","
            await asyncio.sleep(0)  # the other clients' turn
        await response.write(b"]}")
        await response.write_eof()
    except ConnectionError:
        pass  # the client left: nothing is left to answer
    return response
