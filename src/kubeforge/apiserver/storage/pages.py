"""Pagination: continue tokens in the real server's shape, and one page of a sorted list.

Entry points: ``encode_continue``/``decode_continue`` (base64url of
``{"v":"meta.k8s.io/v1","rv":N,"start":"<key after the last item>"}``; ``rv: -1``
continues at the latest revision, what an expired token's 410 offers) and
``read_page(view, ...)``, which reads one page from a ``RevisionView`` (a key-ordered
index: a page starts where the last one ended without scanning or sorting what came
before, so reading a large list page by page stays linear), yielding to the event
loop between chunks.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
from collections.abc import Callable
from typing import Any

import orjson

from kubeforge.apiserver import failures
from kubeforge.apiserver.storage.at_revision import Key, RevisionView

__all__ = [
    "EXPIRED_CONTINUE",
    "decode_continue",
    "encode_continue",
    "key_string",
    "key_tuple",
    "read_page",
]

SCAN_CHUNK = 1000
"""Objects a page reads between two turns of the event loop: a few milliseconds' work."""

EXPIRED_CONTINUE = (
    "The provided continue parameter is too old to display a consistent list result. You can "
    "start a new list without the continue parameter, or use the continue token in this "
    "response to retrieve the remainder of the results. Continuing with the provided token "
    "results in an inconsistent list - objects that were created, modified, or deleted between "
    "the time the first chunk was returned and now may show up in the list."
)


def encode_continue(revision: int, start: str) -> str:
    token = orjson.dumps({"v": "meta.k8s.io/v1", "rv": revision, "start": start})
    return base64.urlsafe_b64encode(token).decode().rstrip("=")


def decode_continue(token: str) -> tuple[int, str]:
    """``(revision, start key)``; a malformed token is a 400, as on the real server."""
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        data = orjson.loads(raw)
        revision, start = int(data["rv"]), str(data["start"])
        # rv -1 is the real server's "continue at the latest revision" (an expired
        # token's inconsistent continuation); 0 is never valid.
        if data.get("v") != "meta.k8s.io/v1" or revision == 0 or revision < -1:
            raise ValueError("bad token version")
    except (binascii.Error, ValueError, KeyError, TypeError, orjson.JSONDecodeError):
        raise failures.bad_request(
            "continue key is not valid: incorrect encoded start resourceVersion (version "
            "meta.k8s.io/v1)"
        ) from None
    return revision, start


def key_string(obj: dict[str, Any]) -> str:
    meta = obj["metadata"]
    namespace = meta.get("namespace") or ""
    return f"{namespace}/{meta['name']}" if namespace else str(meta["name"])


def key_tuple(key: str) -> tuple[str, str]:
    namespace, _, name = key.rpartition("/")
    return namespace, name


async def read_page(
    view: RevisionView,
    start_key: Key | None,
    matches: Callable[[dict[str, Any]], bool],
    limit: int,
    *,
    count: bool,
) -> tuple[list[dict[str, Any]], int]:
    """The matching objects after ``start_key`` (at most ``limit``; 0: all), and how many
    more there are: counted when only the namespace filters (``count``), else 1 for "some".

    Reads ``SCAN_CHUNK`` objects at a time and lets the event loop run between chunks,
    so a long scan (a selective selector, a whole list) never holds other clients up
    for long; the view keeps every chunk at one revision."""
    selected: list[dict[str, Any]] = []
    last: Key = ("", "")  # the key of ``selected[-1]``
    cursor = start_key
    while True:
        chunk = view.after(cursor, SCAN_CHUNK)
        for key, obj in chunk:
            if not matches(obj):
                continue
            if limit and len(selected) >= limit:
                return selected, view.count_after(last) if count else 1
            selected.append(obj)
            last = key
        if len(chunk) < SCAN_CHUNK:
            return selected, 0
        cursor = chunk[-1][0]
        await asyncio.sleep(0)
