"""``/healthz``, ``/livez`` and ``/readyz``, with a path per check (``/readyz/etcd``).

The three endpoints are open, as the real server's are (its ``system:public-info-viewer``
role); a check's own path needs a token. While writes fail (a full disk) ``/readyz``
fails its ``etcd`` check with the real server's "reason withheld", and ``/readyz/etcd``
says why; ``/livez`` stays ok, since a restart would not make room.

Entry point: ``Health(storage).add_routes(app)``; ``OPEN_PATHS`` are the paths the
access middleware lets through.
"""

from __future__ import annotations

from aiohttp import web

from kubeforge.apiserver.storage.sqlite import Storage

__all__ = ["OPEN_PATHS", "Health"]

OPEN_PATHS = frozenset({"/healthz", "/livez", "/readyz"})
_CHECKS = ("ping", "etcd")


class Health:
    """The health endpoints of one server, reading its storage's state."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    def add_routes(self, app: web.Application) -> None:
        for path in OPEN_PATHS:
            app.router.add_get(path, self.endpoint)
            app.router.add_get(path + "/{check}", self.check)

    def failed_checks(self, endpoint: str) -> dict[str, str]:
        """Failing checks of ``/healthz``, ``/livez`` or ``/readyz`` and why."""
        failure = self.storage.check_writable() if endpoint == "/readyz" else None
        return {"etcd": str(failure)} if failure is not None else {}

    async def endpoint(self, request: web.Request) -> web.Response:
        failed = self.failed_checks(request.path)
        name = request.path.strip("/")
        lines = [
            f"[-]{check} failed: reason withheld" if check in failed else f"[+]{check} ok"
            for check in _CHECKS
        ]
        if failed:
            # Like the real server: always verbose on failure, the reasons only in its own
            # log (the endpoint is public) and at the check's own path.
            return web.Response(status=500, text="\n".join(lines) + f"\n{name} check failed\n")
        if "verbose" in request.query:
            return web.Response(text="\n".join(lines) + f"\n{name} check passed\n")
        return web.Response(text="ok")

    async def check(self, request: web.Request) -> web.Response:
        check = request.match_info["check"]
        if check not in _CHECKS:
            raise web.HTTPNotFound()
        failed = self.failed_checks("/" + request.path.split("/")[1])
        if check in failed:
            return web.Response(status=500, text=f"internal server error: {failed[check]}\n")
        return web.Response(text="ok")
