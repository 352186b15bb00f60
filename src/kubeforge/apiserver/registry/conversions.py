"""Version conversions that need I/O (a CRD's conversion webhook), kept off the event loop's
synchronous path.

The ``Engine`` is synchronous: it must never wait for a webhook, or every client waits
with it. A request therefore runs its engine call under ``run_converting(call)``: when a
strategy meets a conversion it has no answer for, it raises ``ConversionNeeded``
(nothing has been written yet: conversions come before the commit), the request awaits
the webhook, keeps the answer for the rest of the request, and runs the call again, as
the real server's update loop retries. A call that conversions keep defeating (the
objects change under it each time) gives up after ``MAX_ROUNDS``.

Answers are kept by the object without the metadata the engine sets anew on every
attempt (uid, timestamps, resourceVersion, managedFields, a generated name), and applied
to the current attempt's object with its own metadata: a conversion webhook may only
change labels and annotations of metadata (``conversion_webhook`` checks that).

Entry points: ``prepared(objs, api_version, convert)`` for strategies;
``run_converting(call)`` and ``deferring()`` for their callers.
"""

from __future__ import annotations

import copy
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

import orjson

from kubeforge.apiserver import failures
from kubeforge.core.status import failure

__all__ = [
    "MAX_ROUNDS",
    "ConversionNeeded",
    "blocking",
    "deferring",
    "prepared",
    "run_converting",
    "run_converting_async",
]

T = TypeVar("T")
AsyncConvert = Callable[[list[dict[str, Any]], str], Awaitable[list[dict[str, Any]]]]

MAX_ROUNDS = 8
# Set anew by the engine on each attempt of a write, so never part of an answer's key.
_VOLATILE_METADATA = frozenset(
    {"uid", "creationTimestamp", "resourceVersion", "managedFields", "deletionTimestamp"}
)


class ConversionNeeded(Exception):
    """A strategy needs ``convert(objects, api_version)`` awaited before it can go on."""

    def __init__(
        self, objects: list[dict[str, Any]], api_version: str, convert: AsyncConvert
    ) -> None:
        super().__init__(f"{len(objects)} objects need converting to {api_version}")
        self.objects = objects
        self.api_version = api_version
        self.convert = convert


_answers: ContextVar[dict[bytes, dict[str, Any]] | None] = ContextVar(
    "kubeforge_conversions", default=None
)


def _key(obj: dict[str, Any], api_version: str) -> bytes:
    meta = obj.get("metadata") or {}
    kept = {k: v for k, v in meta.items() if k not in _VOLATILE_METADATA}
    if meta.get("generateName"):
        kept.pop("name", None)
    return orjson.dumps([api_version, {**obj, "metadata": kept}], option=orjson.OPT_SORT_KEYS)


def _applied(original: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
    """``answer`` with ``original``'s metadata, except the labels and annotations the
    webhook returned."""
    meta = copy.deepcopy(original.get("metadata") or {})
    answered = answer.get("metadata") or {}
    for key in ("labels", "annotations"):
        if key in answered:
            meta[key] = dict(answered[key])
        else:
            meta.pop(key, None)
    return {**copy.deepcopy(answer), "metadata": meta}


def prepared(
    objs: list[dict[str, Any]], api_version: str, convert: AsyncConvert
) -> list[dict[str, Any]] | None:
    """``objs`` at ``api_version`` from the answers this request already awaited; raises
    ``ConversionNeeded`` for the rest. ``None`` outside ``run_converting``/``deferring``
    (a caller that cannot wait: the strategy converts as it can)."""
    answers = _answers.get()
    if answers is None:
        return None
    out: list[dict[str, Any]] = []
    missing: list[dict[str, Any]] = []
    for obj in objs:
        if obj.get("apiVersion") == api_version:
            out.append(obj)
            continue
        answer = answers.get(_key(obj, api_version))
        if answer is None:
            missing.append(obj)
        else:
            out.append(_applied(obj, answer))
    if missing:
        raise ConversionNeeded(missing, api_version, convert)
    return out


@contextmanager
def deferring() -> Iterator[None]:
    """Within: a conversion that needs I/O raises ``ConversionNeeded`` (for synchronous
    code that falls back to something else, such as a watch sending stored objects to
    be converted by its stream)."""
    token = _answers.set({})
    try:
        yield
    finally:
        _answers.reset(token)


@contextmanager
def blocking() -> Iterator[None]:
    """Within: conversions block as they can (code run inside another request's write,
    such as a table watch rendering an event, must neither wait nor fail that write)."""
    token = _answers.set(None)
    try:
        yield
    finally:
        _answers.reset(token)


async def run_converting(call: Callable[[], T]) -> T:
    """``call()``, awaiting each conversion it needs first; the answers last for the rest
    of the call (a connection's requests share one task, so nothing outlives it)."""

    async def awaited() -> T:
        return call()

    return await run_converting_async(awaited)


async def run_converting_async(call: Callable[[], Awaitable[T]]) -> T:
    """``run_converting`` of a coroutine (a write with admission around it): each round
    awaits ``call()`` anew."""
    answers: dict[bytes, dict[str, Any]] = {}
    token = _answers.set(answers)
    try:
        for _ in range(MAX_ROUNDS):
            try:
                return await call()
            except ConversionNeeded as need:
                converted = await need.convert(need.objects, need.api_version)
                for original, answer in zip(need.objects, converted, strict=True):
                    answers[_key(original, need.api_version)] = answer
    finally:
        _answers.reset(token)
    message = "the objects kept changing while they were being converted"
    raise failures.StatusError(failure(500, "", message))
