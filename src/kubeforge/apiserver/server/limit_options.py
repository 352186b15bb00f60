"""The ``kubeforge apiserver`` flags that set ``Limits``, and the process's open-file limit.

Entry points: ``limit_options`` (a click decorator: the command receives one
``limits: Limits`` argument) and ``raise_open_file_limit()``. The flags are named
after kube-apiserver's (``--request-timeout``, ``--min-request-timeout``,
``--max-requests-inflight``, ``--max-mutating-requests-inflight``) and take durations
as Go writes them (``1m0s``, ``32s``) or plain seconds.
"""

from __future__ import annotations

import functools
import logging
import resource
from collections.abc import Callable
from typing import Any

import click

from kubeforge.apiserver.server.limits import Limits, parse_duration

__all__ = ["Duration", "limit_options", "raise_open_file_limit"]

log = logging.getLogger("kubeforge.apiserver")

_DEFAULTS = Limits()


class Duration(click.ParamType[float, Any]):
    """A Go duration (``1m0s``, ``90s``) or a number of seconds, above zero."""

    name = "duration"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        if isinstance(value, float | int):
            return float(value)
        try:
            seconds = parse_duration(str(value))
        except ValueError as error:
            self.fail(str(error), param, ctx)
        if seconds <= 0:
            self.fail(f"{value!r} is not a positive duration", param, ctx)
        return seconds


_OPTIONS = (
    click.option(
        "--max-request-bytes",
        type=click.IntRange(1024),
        default=_DEFAULTS.max_request_bytes,
        show_default=True,
        help="Largest request body; more is refused with 413 (kube-apiserver's fixed 3 MiB).",
    ),
    click.option(
        "--request-timeout",
        type=Duration(),
        default="1m0s",
        show_default=True,
        help="Answer 504 to a request (not a watch) still running after this long.",
    ),
    click.option(
        "--min-request-timeout",
        type=click.IntRange(1),
        default=int(_DEFAULTS.min_request_timeout),
        show_default=True,
        help="Seconds; a watch without timeoutSeconds ends after a random 1x-2x of this.",
    ),
    click.option(
        "--max-requests-inflight",
        type=click.IntRange(0),
        default=_DEFAULTS.max_requests_inflight,
        show_default=True,
        help="Read-only requests (not watches) served at once; more get 429. 0: no limit.",
    ),
    click.option(
        "--max-mutating-requests-inflight",
        type=click.IntRange(0),
        default=_DEFAULTS.max_mutating_requests_inflight,
        show_default=True,
        help="Writes served at once; more get 429. 0: no limit.",
    ),
    click.option(
        "--connection-idle-timeout",
        type=Duration(),
        default="32s",
        show_default=True,
        help="Close a connection that has not finished its TLS handshake, or sent a whole "
        "request since it opened or got its last answer, for this long.",
    ),
    click.option(
        "--max-watch-backlog-bytes",
        type=click.IntRange(65536),
        default=_DEFAULTS.max_watch_backlog_bytes,
        show_default=True,
        help="Cut off a watcher whose unsent events pass this size; it re-watches.",
    ),
)

_NAMES = (
    "max_request_bytes",
    "request_timeout",
    "min_request_timeout",
    "max_requests_inflight",
    "max_mutating_requests_inflight",
    "connection_idle_timeout",
    "max_watch_backlog_bytes",
)


def limit_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add the limit flags to a click command, which then gets ``limits=Limits(...)``."""

    @functools.wraps(command)
    def with_limits(**kwargs: Any) -> Any:
        values = {name: kwargs.pop(name) for name in _NAMES}
        values["min_request_timeout"] = float(values["min_request_timeout"])
        return command(limits=Limits(**values), **kwargs)

    for option in reversed(_OPTIONS):
        with_limits = option(with_limits)
    return with_limits


def raise_open_file_limit() -> None:
    """Raise the soft limit on open files to the hard one, as Go's runtime does at start
    for every Go program, kube-apiserver included: each connection is a descriptor, and
    a soft limit of 1,024 lets a thousand idle clients lock everyone else out. asyncio
    waits with epoll or kqueue, never select(), so nothing here needs the low limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == hard:
        return
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    except (ValueError, OSError):  # macOS refuses an unlimited hard limit: keep the soft one
        log.debug("cannot raise the open-file limit from %d to %d", soft, hard)
