"""The server's limits, named after kube-apiserver's flags: how big a request may be, how
long it may run, how many may run at once, and how long a connection may idle.

Entry points: ``Limits`` (a value on ``ServerOptions``; ``kubeforge apiserver`` sets it
from its flags) and ``RequestGate``, which the app's middleware asks before and after
each request. Defaults are the real server's:

* ``max_request_bytes`` 3 MiB: kube-apiserver's ``MaxRequestBodyBytes`` (fixed there;
  etcd's flag for its own limit is ``--max-request-bytes``); more is a 413.
* ``request_timeout`` 60 s (``--request-timeout``): a request that is not a watch and
  has not been answered by then gets 504 ``Timeout`` "request did not complete within
  the allotted timeout" (``WithTimeoutForNonLongRunningRequests``).
* ``min_request_timeout`` 1800 s (``--min-request-timeout``): a watch without
  ``timeoutSeconds`` ends after a random time in [1x, 2x) of it.
* ``max_requests_inflight`` 400 and ``max_mutating_requests_inflight`` 200
  (``--max-requests-inflight``, ``--max-mutating-requests-inflight``; 0 is no limit):
  requests past them get the real 429 "Too many requests, please try again later."
  with ``Retry-After: 1``; watches are not counted and ``system:masters`` is never
  refused (``WithMaxInFlightLimit``).
* ``connection_idle_timeout`` 32 s: a connection that has not completed its TLS
  handshake, or sent a whole request (since it opened or since its last answer), for
  that long is closed. kube-apiserver's Go server gives 32 s to read request headers
  (``ReadHeaderTimeout``) and closes keep-alive connections idle for 90 s; aiohttp has
  one timer for both, so idle connections go after 32 s too and clients reconnect.
* ``max_watch_backlog_bytes`` 32 MiB: a watcher whose unsent events pass this is cut
  off, as the real watch cache drops a watcher that cannot keep up; its client
  re-watches from the last resourceVersion it got (or relists on 410).

>>> Limits().request_timeout
60.0
"""

from __future__ import annotations

from dataclasses import dataclass

from aiohttp import web

from kubeforge.apiserver.authn.authenticator import UserInfo
from kubeforge.apiserver.failures import StatusError
from kubeforge.apiserver.meta.goduration import parse_go_duration
from kubeforge.apiserver.meta.queryparams import query_bool
from kubeforge.apiserver.storage.watch_log import DEFAULT_BACKLOG_BYTES
from kubeforge.core.status import failure

__all__ = [
    "Limits",
    "RequestGate",
    "is_long_running",
    "parse_duration",
    "timed_out",
    "too_many_requests",
]

_READ_ONLY_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


@dataclass(frozen=True)
class Limits:
    """The limits of one server (see the module docstring for each default's source)."""

    max_request_bytes: int = 3 * 1024 * 1024
    request_timeout: float = 60.0
    min_request_timeout: float = 1800.0
    max_requests_inflight: int = 400
    max_mutating_requests_inflight: int = 200
    connection_idle_timeout: float = 32.0
    max_watch_backlog_bytes: int = DEFAULT_BACKLOG_BYTES


def parse_duration(text: str) -> float:
    """Seconds in a Go duration (``1m0s``, ``90s``, ``1.5h``), as kube-apiserver's duration
    flags take them; a bare number is seconds. ``ValueError`` for anything else.

    >>> parse_duration("1m0s"), parse_duration("500ms"), parse_duration("32")
    (60.0, 0.5, 32.0)
    """
    text = text.strip()
    try:
        return float(text)
    except ValueError:
        pass
    return parse_go_duration(text) / 1e9


def is_long_running(request: web.BaseRequest) -> bool:
    """A watch: exempt from the request timeout and the in-flight limits."""
    return query_bool(request.query, "watch") or "/watch/" in request.path


def too_many_requests() -> web.Response:
    """The real server's answer past its in-flight limits: plain text, not a Status."""
    return web.Response(
        status=429,
        text="Too many requests, please try again later.\n",
        headers={"Retry-After": "1"},
    )


def timed_out() -> StatusError:
    """The real server's 504 for a request that outran ``--request-timeout``."""
    message = "Timeout: request did not complete within the allotted timeout"
    return StatusError(failure(504, "Timeout", message, {}))


class RequestGate:
    """Counts the requests in flight, read-only and mutating apart, as the real filter does."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._running = {False: 0, True: 0}  # mutating? -> requests in flight

    @staticmethod
    def mutating(request: web.BaseRequest) -> bool:
        return request.method not in _READ_ONLY_METHODS

    def enter(self, mutating: bool, user: UserInfo) -> bool:
        """Count one more request; ``False`` (nothing counted) when it must be refused."""
        limit = (
            self.limits.max_mutating_requests_inflight
            if mutating
            else self.limits.max_requests_inflight
        )
        if 0 < limit <= self._running[mutating] and not user.privileged:
            return False
        self._running[mutating] += 1
        return True

    def leave(self, mutating: bool) -> None:
        self._running[mutating] -= 1
