"""``Requester``: the two request primitives the verbs are written against.

``Api``, ``Discovery`` and the scale verbs need only to send one request and read
its answer (``exchange``) and to read a streamed answer line by line (``stream``);
``Client`` provides both, with the rate limiting, credentials, retries and typed
errors its docstring describes. Depending on this Protocol instead of on ``Client``
keeps the verbs below the client in the import graph, as client-go's typed clients
depend on its ``rest.Interface`` rather than on a concrete ``RESTClient``::

    async def version(requester: Requester) -> bytes:
        answer = await requester.exchange("GET", "/version")
        return answer.body
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Protocol

from multidict import CIMultiDictProxy

__all__ = ["Answer", "ParamValue", "Requester"]

# A query parameter's value: booleans are sent as true/false, a list repeats the parameter.
ParamValue = str | int | bool | list[str]


@dataclass(frozen=True, slots=True)
class Answer:
    """A 2xx answer: its status code, raw body and headers."""

    status: int
    body: bytes
    headers: CIMultiDictProxy[str]


class Requester(Protocol):
    """Sends requests to one API server (``Client`` is the one implementation)."""

    async def exchange(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, ParamValue] | None = None,
        data: bytes | None = None,
        content_type: str | None = None,
        accept: str | None = None,
        timeout: float | None = None,
    ) -> Answer:
        """One request to ``path``; its 2xx answer, or the matching ``ApiError`` raised.

        ``timeout`` (seconds) bounds this request instead of the configured default.
        """
        ...

    def stream(
        self,
        path: str,
        params: Mapping[str, ParamValue] | None = None,
        *,
        idle_timeout: float | None = None,
        accept: str | None = None,
    ) -> AsyncIterator[bytes]:
        """GET ``path`` and yield its body line by line until the server ends it.

        ``TransportError`` if ``idle_timeout`` seconds pass without a byte.
        """
        ...
