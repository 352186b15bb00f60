"""Named health checks served as ``/healthz`` and ``/readyz``: ``HealthChecks``.

Entry point: ``HealthChecks``; ``probe_routes(healthz, readyz)`` turns two of them
into aiohttp routes. The answers follow controller-runtime's ``healthz`` handler
(itself the API server's format), so probes and people read them the same way:

- ``GET /healthz``: ``200 ok`` when every check passes; otherwise ``500`` and one
  line per check (``[+]ping ok``, ``[-]informer-sync failed: reason withheld``),
  ending in ``healthz check failed``. ``?verbose`` lists the checks on success too;
  ``?exclude=NAME`` (repeatable) skips a check.
- ``GET /healthz/NAME``: that one check, with its reason on failure
  (``500 internal server error: ...``); ``404`` for an unknown name.

A check is a callable (plain or ``async``) that returns when healthy and raises
with a reason when not. ``ping`` always passes.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aiohttp import web

__all__ = ["Check", "CheckResult", "HealthChecks", "ping", "probe_routes"]

log = logging.getLogger("kubeforge.runtime.health")

Check = Callable[[], Awaitable[None] | None]
"""Returns (or resolves) when healthy; raises with a reason when not."""


def ping() -> None:
    """The check that always passes: the process answers HTTP."""


@dataclass(frozen=True, slots=True)
class CheckResult:
    name: str
    error: str | None = None
    """Why the check failed; ``None`` when it passed or was excluded."""
    excluded: bool = False

    @property
    def healthy(self) -> bool:
        return self.error is None


class HealthChecks:
    """An ordered set of named checks (one for liveness, one for readiness).

    >>> import asyncio
    >>> checks = HealthChecks("readyz")
    >>> checks.add("ping", ping)
    >>> [r.healthy for r in asyncio.run(checks.run())]
    [True]
    """

    def __init__(self, kind: str) -> None:
        self.kind = kind
        """``healthz`` or ``readyz``: the word in the answer's last line."""
        self._checks: dict[str, Check] = {}

    @property
    def names(self) -> list[str]:
        return sorted(self._checks)

    def add(self, name: str, check: Check) -> None:
        """Register ``check`` as ``name``; names are unique and URL-safe (no ``/``)."""
        if not name or "/" in name:
            raise ValueError(f"invalid health check name {name!r}")
        if name in self._checks:
            raise ValueError(f"a {self.kind} check named {name!r} already exists")
        self._checks[name] = check

    async def check(self, name: str) -> str | None:
        """Run one check: ``None`` when it passes, else the reason. ``KeyError`` if unknown."""
        check = self._checks[name]
        try:
            result = check()
            if inspect.isawaitable(result):
                await result
        except Exception as err:  # a check's failure is its answer, whatever the type
            return str(err) or type(err).__name__
        return None

    async def run(self, exclude: frozenset[str] = frozenset()) -> list[CheckResult]:
        """Every check, sorted by name; excluded ones pass without running."""
        results = []
        for name in self.names:
            if name in exclude:
                results.append(CheckResult(name, excluded=True))
            else:
                results.append(CheckResult(name, await self.check(name)))
        return results

    def render(self, results: list[CheckResult], unknown: list[str], verbose: bool) -> str:
        """The aggregated answer's body (terse on success unless ``verbose``)."""
        failed = any(not r.healthy for r in results)
        if not failed and not verbose:
            return "ok"
        lines = []
        for result in results:
            if result.excluded:
                lines.append(f"[+]{result.name} excluded: ok")
            elif result.healthy:
                lines.append(f"[+]{result.name} ok")
            else:
                # The aggregate endpoint is public: reasons are only on /<kind>/<name>.
                lines.append(f"[-]{result.name} failed: reason withheld")
        if unknown:
            names = ",".join(f'"{name}"' for name in unknown)
            lines.append(f"warn: some health checks cannot be excluded: no matches for {names}")
        lines.append(f"{self.kind} check {'failed' if failed else 'passed'}")
        return "\n".join(lines) + "\n"

    async def serve_all(self, request: web.Request) -> web.Response:
        exclude = frozenset(request.query.getall("exclude", []))
        results = await self.run(exclude)
        failures = [r for r in results if not r.healthy]
        if failures:
            log.info(
                "%s check failed: %s",
                self.kind,
                ", ".join(f"{r.name}: {r.error}" for r in failures),
            )
        unknown = sorted(exclude - set(self._checks))
        body = self.render(results, unknown, verbose="verbose" in request.query)
        return _text(body, 500 if failures else 200)

    async def serve_one(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        if name not in self._checks:
            return _text("404 page not found\n", 404)
        error = await self.check(name)
        if error is not None:
            return _text(f"internal server error: {error}\n", 500)
        return _text("ok", 200)


def _text(body: str, status: int) -> web.Response:
    from aiohttp import web  # the server side, imported once something is served

    response = web.Response(text=body, status=status, charset="utf-8")
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


def probe_routes(healthz: HealthChecks, readyz: HealthChecks) -> list[web.RouteDef]:
    """``/healthz``, ``/readyz`` (with or without a trailing slash) and ``/<kind>/<name>``."""
    from aiohttp import web  # the server side, imported once something is served

    routes = []
    for checks in (healthz, readyz):
        base = f"/{checks.kind}"
        routes += [
            web.get(base, checks.serve_all),
            web.get(base + "/", checks.serve_all),
            web.get(base + "/{name}", checks.serve_one),
        ]
    return routes
