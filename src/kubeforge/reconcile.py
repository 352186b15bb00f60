"""What a reconciler receives and returns: ``Request``, ``Result``, ``TerminalError``.

A reconciler is any ``async def reconcile(request: Request) -> Result | None``. It is
handed a key, never an event or an object: it reads the present state (usually
from a cache ``Store``) and makes the world match it, so it must be idempotent.

The retry contract (controller-runtime's, applied by ``controller.Controller``):

- returns ``None`` or ``Result()``: done; the key's backoff is forgotten.
- ``Result(requeue_after=s)``: run again in ``s`` seconds; backoff forgotten.
- ``Result(requeue=True)``: run again after the key's rate-limited backoff.
- raises ``TerminalError``: logged, not retried (until a new event for the key).
- raises anything else: logged, retried after the key's rate-limited backoff.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from kubeforge.core.errors import KubeforgeError
from kubeforge.core.refs import ObjectKey

__all__ = ["Reconciler", "Request", "Result", "TerminalError"]


@dataclass(frozen=True, slots=True, order=True)
class Request:
    """The key of the object to reconcile; ``namespace`` is ``""`` when cluster-scoped.

    >>> Request("default", "web-0").key
    ObjectKey(namespace='default', name='web-0')
    >>> str(Request("", "node-1"))
    'node-1'
    """

    namespace: str
    name: str
    # A key is hashed a dozen times on its way through a work queue (dirty set,
    # processing set, rate limiter, metrics): computed once, not each time.
    _hash: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_hash", hash((self.namespace, self.name)))

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple[Any, ...]:
        # String hashes differ between processes: a copy computes its own.
        return (Request, (self.namespace, self.name))

    @property
    def key(self) -> ObjectKey:
        return ObjectKey(self.namespace, self.name)

    @classmethod
    def from_key(cls, key: ObjectKey) -> Request:
        return cls(key.namespace, key.name)

    def __str__(self) -> str:
        return str(self.key)


@dataclass(frozen=True, slots=True)
class Result:
    """How a successful reconcile wants to be run again, if at all.

    ``requeue_after`` (seconds, > 0) wins over ``requeue``, as in controller-runtime.
    """

    requeue: bool = False
    requeue_after: float | None = None


class TerminalError(KubeforgeError):
    """Raise (or raise ``from``) this when retrying cannot help: the key is not requeued."""


Reconciler: TypeAlias = Callable[[Request], Awaitable[Result | None]]
"""``async def reconcile(request: Request) -> Result | None``."""
