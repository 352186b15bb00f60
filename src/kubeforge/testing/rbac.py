"""Run a project's manager as deployed, under exactly its generated RBAC: ``ManagerUnderRbac``.

Entry point: ``ManagerUnderRbac(server, project_dir)`` (an async context manager;
the pytest plugin's ``kube_manager`` fixture is one). On a local API server that
enforces RBAC (``LocalApiServer(authorization="RBAC")``) it applies the project's
CRDs and ``config/rbac`` as the admin, then runs the project's ``setup(mgr)`` on a
manager that authenticates as the manager's ServiceAccount, with leader election
on as in ``config/manager``. A permission missing from ``config/rbac`` therefore
fails with the server's own 403, as it would in a cluster: at once when a cache
cannot list or watch, and when leaving the block if a reconcile was refused::

    async with ManagerUnderRbac(server, Path(".")) as running:
        await running.admin.api(Frigate, namespace="default").create(frigate)
        await running.reconciled("default", "sample")  # raises on a 403
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

from kubeforge.cli._as_rbac import as_manager_account
from kubeforge.cli._project import Project
from kubeforge.cli._targets import cache_options_of, load_module, load_setup
from kubeforge.client import Client
from kubeforge.config import load_config
from kubeforge.controller import Controller
from kubeforge.core.errors import Forbidden
from kubeforge.reconcile import Request, Result
from kubeforge.runtime import LeaderElectionOptions, Manager, ManagerOptions
from kubeforge.testing.server import LocalApiServer
from kubeforge.webhook.local import local_serving

__all__ = ["ManagerUnderRbac", "PermissionMissing"]

_POLL = 0.05
_QUIET_POLLS = 6  # consecutive idle polls before the controllers count as settled


class PermissionMissing(AssertionError):
    """The server refused the manager something (its 403 text); config/rbac lacks it."""


class _Refusals(logging.Handler):
    """Collects every Forbidden the manager's caches and reconcilers log."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.seen: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        found = [a for a in (record.args or ()) if isinstance(a, Forbidden)]
        if record.exc_info and isinstance(record.exc_info[1], Forbidden):
            found.append(record.exc_info[1])
        for err in found:
            if str(err) not in self.seen:
                self.seen.append(str(err))


class ManagerUnderRbac:
    """The project's manager running as its ServiceAccount until the block ends."""

    def __init__(
        self,
        server: LocalApiServer,
        project_dir: Path,
        *,
        setup: Callable[[Manager], None] | None = None,
        sync_timeout: float = 60.0,
    ) -> None:
        if server.authorization.upper() != "RBAC":
            raise ValueError("the server must enforce RBAC: LocalApiServer(authorization='RBAC')")
        self.server = server
        self.project = Project.find(project_dir)
        self._setup = setup
        self._sync_timeout = sync_timeout
        self._refusals = _Refusals()
        self._task: asyncio.Task[None] | None = None
        self._done: set[Request] = set()
        self.admin: Client = Client(load_config(server.kubeconfig))
        """A client of the server's admin (for creating what the manager should see)."""
        self.manager: Manager | None = None
        self._serving = contextlib.ExitStack()  # the webhook server's generated certificate

    async def __aenter__(self) -> ManagerUnderRbac:
        logging.getLogger("kubeforge").addHandler(self._refusals)
        try:
            await self._start()
        except BaseException:
            await self._stop()
            raise
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self._stop()
        if exc is None:
            self._raise_refusals()

    async def settle(self, timeout: float = 30.0) -> None:
        """Wait until every controller is idle (nothing queued or running) for a moment;
        ``PermissionMissing`` as soon as the server refused anything."""
        manager = self._running()
        quiet = 0

        def calm() -> bool:
            nonlocal quiet
            quiet = quiet + 1 if _idle(manager) else 0
            return quiet >= _QUIET_POLLS

        await self._until(calm, timeout, lambda: "the controllers never went idle")

    async def reconciled(self, namespace: str, name: str, timeout: float = 30.0) -> None:
        """Wait until a controller finished reconciling ``namespace/name`` (``""`` for a
        cluster-scoped object) and all are idle; ``PermissionMissing`` on any refusal."""
        wanted = Request(namespace, name)
        await self._until(
            lambda: wanted in self._done,
            timeout,
            lambda: (
                f"no controller reconciled {wanted} "
                "(does a controller watch it, in a namespace the cache holds?)"
            ),
        )
        await self.settle(timeout)

    async def _until(
        self, condition: Callable[[], bool], timeout: float, failure: Callable[[], str]
    ) -> None:
        """Poll ``condition``; raise refusals at once, and ``failure()`` after ``timeout`` s."""
        __tracebackhide__ = True
        try:
            async with asyncio.timeout(timeout):
                while not condition():
                    self._raise_refusals()
                    if self._task is not None and self._task.done():
                        self._task.result()  # the manager stopped: its own error
                    await asyncio.sleep(_POLL)
        except TimeoutError:
            self._raise_refusals()
            raise AssertionError(f"{failure()} within {timeout:g}s") from None
        self._raise_refusals()

    def _record(self, controller: Controller) -> None:
        inner = controller.reconciler

        async def recorded(request: Request) -> Result | None:
            try:
                return await inner(request)
            finally:
                self._done.add(request)

        controller.reconciler = recorded

    async def _start(self) -> None:
        config = await as_manager_account(self.admin, self.project)
        election = LeaderElectionOptions(
            lease_name=self.project.leader_election_id, namespace=self.project.namespace
        )
        target = str(self.project.root)
        cache = cache_options_of(load_module(target))
        # Webhooks the project registers are served with a generated certificate.
        webhook, _ = self._serving.enter_context(local_serving())
        options = ManagerOptions(leader_election=election, cache=cache, webhook=webhook)
        manager = Manager(config, options=options)
        self.manager = manager
        setup = self._setup or load_setup(target)
        setup(manager)
        for controller in manager.controllers:
            self._record(controller)
        self._task = asyncio.create_task(manager.run(), name="manager under RBAC")

        def waiting() -> str:
            pending = [i.name for i in manager.cache.informers if not i.has_synced]
            return f"the manager did not start (caches not synced: {', '.join(pending)})"

        await self._until(lambda: manager.started, self._sync_timeout, waiting)

    async def _stop(self) -> None:
        logging.getLogger("kubeforge").removeHandler(self._refusals)
        task, self._task = self._task, None
        if self.manager is not None:
            self.manager.stop()
        if task is not None:
            with contextlib.suppress(Exception):
                await task
        await self.admin.close()
        self._serving.close()

    def _running(self) -> Manager:
        if self.manager is None:
            raise RuntimeError("the manager is not running: use `async with`")
        return self.manager

    def _raise_refusals(self) -> None:
        __tracebackhide__ = True  # pytest shows the refusal, not this helper
        if self._refusals.seen:
            raise PermissionMissing(
                f"the manager was refused under config/rbac: {self._refusals.seen[0]} "
                f"(run `kubeforge generate`, or declare it in an rbac list)"
            )


def _idle(manager: Manager) -> bool:
    workers = manager.metrics.registry.get_sample_value
    for controller in manager.controllers:
        active: Any = workers("controller_runtime_active_workers", {"controller": controller.name})
        if len(controller.queue) or active:
            return False
    return True
