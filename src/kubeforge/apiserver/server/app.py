"""Assembles the server: storage, registry, engine, controllers, and the aiohttp app.

Entry point: ``LocalServer(options)``; ``build_app()`` gives the aiohttp application
(routes: health, discovery/OpenAPI from ``discovery``, then every ``/api`` and
``/apis`` resource URL); ``start()``/``stop()`` run the built-in controllers.

One middleware: authentication, impersonation and authorization (``access``;
health endpoints are open: ``health``); every failure becomes a ``Status``
(``failure_response``: never a traceback); and no answer leaves before the writes it
may show are committed (``Storage.durable``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import web

from kubeforge.apiserver.admission.chain import Admission
from kubeforge.apiserver.admission.plugins import (
    SYSTEM_PRIORITY_CLASSES,
    BuiltinPlugins,
    enabled_plugins,
)
from kubeforge.apiserver.admission.policies import ValidatingPolicies
from kubeforge.apiserver.admission.webhooks import Webhooks
from kubeforge.apiserver.apiextensions.crds import CRDController
from kubeforge.apiserver.authn.authenticator import Authenticator, UserInfo
from kubeforge.apiserver.authn.signing import KEY_FILE, KeyFile
from kubeforge.apiserver.authz.attributes import Attributes
from kubeforge.apiserver.authz.bootstrap import install_bootstrap_policy
from kubeforge.apiserver.authz.rbac import RBAC, AlwaysAllow, Authorizer
from kubeforge.apiserver.builtin.resources import BUILTIN_RESOURCES, builtin_strategy
from kubeforge.apiserver.controllers.cluster import Cluster
from kubeforge.apiserver.controllers.controlplane import (
    ControlPlane,
    PlaneOptions,
    Runnable,
    build_control_plane,
)
from kubeforge.apiserver.controllers.disruption import DISRUPTION_CONTROLLER, DisruptionController
from kubeforge.apiserver.controllers.legacytokens import (
    LEGACY_TOKENS_CONTROLLER,
    LegacyTokens,
    stamp_last_used,
)
from kubeforge.apiserver.controllers.poststart import PostStartHooks, Serving
from kubeforge.apiserver.controllers.roles import ClusterRoleAggregator
from kubeforge.apiserver.controllers.rootca import ROOT_CA_CONTROLLER, RootCAPublisher
from kubeforge.apiserver.endpoints import discovery, openid, reviews
from kubeforge.apiserver.endpoints.access import Access
from kubeforge.apiserver.endpoints.bodies import BODY_LIMIT
from kubeforge.apiserver.endpoints.handlers import ResourceHandlers
from kubeforge.apiserver.endpoints.listing import Lister
from kubeforge.apiserver.endpoints.responses import json_response, send_request_warnings
from kubeforge.apiserver.endpoints.watch import MIN_REQUEST_TIMEOUT, WatchHub
from kubeforge.apiserver.registry.engine import Engine
from kubeforge.apiserver.registry.served import Registry
from kubeforge.apiserver.server.collector import tune_collector
from kubeforge.apiserver.server.failure_response import failure_response
from kubeforge.apiserver.server.health import OPEN_PATHS, Health
from kubeforge.apiserver.server.limits import (
    Limits,
    RequestGate,
    is_long_running,
    timed_out,
    too_many_requests,
)
from kubeforge.apiserver.storage.fanout import DEFAULT_BOOKMARK_INTERVAL
from kubeforge.apiserver.storage.sqlite import DEFAULT_HISTORY, Storage

__all__ = ["DB_FILE", "LocalServer", "ServerOptions"]

DB_FILE = "kubeforge.db"
_INITIAL_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@dataclass(frozen=True)
class ServerOptions:
    """How one server runs. ``data_dir=None`` keeps everything in memory."""

    token: str
    data_dir: Path | None = None
    simulate_node: bool = True
    """Run the simulated control plane: nodes, kubelets, scheduler, controllers (off: envtest)."""
    plane: PlaneOptions = field(default_factory=PlaneOptions)
    """How many nodes, which controllers (``controllers.controlplane``)."""
    watch_history: int = DEFAULT_HISTORY
    """Events kept so watches can resume from an older resourceVersion."""
    bookmark_interval: float = DEFAULT_BOOKMARK_INTERVAL
    """Seconds between BOOKMARK events on watches that allow them (1.32: a minute)."""
    authorization: str = "AlwaysAllow"
    """``AlwaysAllow`` (any authenticated user may do anything) or ``RBAC``."""
    limits: Limits = field(default_factory=Limits)
    """Request size, time and concurrency limits (``kubeforge apiserver``'s flags)."""
    repair_data_dir: bool = False
    """Start from a database that lost acknowledged writes instead of refusing it (see
    ``datadir``): revisions continue past every one handed out, and clients relist."""
    ca_pem: str = ""
    """The CA the kubeconfig trusts, published as every namespace's ``kube-root-ca.crt``
    (no publisher without it)."""
    admission_plugins: frozenset[str] | None = None
    """The enabled admission plugins (``admission.plugins``); None: kube-apiserver's
    defaults, without ``ServiceAccount`` when the control plane is off (as envtest runs)."""
    post_start_interval: float | None = None
    """Seconds between passes of the keepers of the server's own objects (``poststart``);
    None: 1.32's own periods."""
    tune_garbage_collector: bool = False
    """Fit the process's garbage collector to a long-running server (``gc.freeze`` and a
    larger youngest generation). Process-wide, so only for a process that exists to run
    this server, as ``kubeforge apiserver`` does; embedding code keeps its own settings."""


class LocalServer:
    """One local API server's state, rules and HTTP face."""

    def __init__(self, options: ServerOptions) -> None:
        self.options = options
        path = options.data_dir / DB_FILE if options.data_dir is not None else None
        self.storage = Storage(path, history=options.watch_history, repair=options.repair_data_dir)
        self.registry = Registry(BUILTIN_RESOURCES)
        self.engine = Engine(self.storage, self.registry, builtin_strategy)
        self.hub = WatchHub()
        self.hub.bookmark_interval = options.bookmark_interval
        self.hub.max_backlog_bytes = options.limits.max_watch_backlog_bytes
        self.crds = CRDController(self.engine, self.registry, self.hub.close)
        self.crds.install()
        self.lister = Lister(self.engine, self.storage, self.hub)
        self.handlers = ResourceHandlers(self.engine, self.registry, self.lister)
        authorizer: Authorizer = (
            RBAC(self.storage) if options.authorization == "RBAC" else AlwaysAllow()
        )
        self.access = Access(
            Authenticator(
                options.token,
                service_accounts=self._service_account,
                bound_objects=self._bound_object,
                keys=KeyFile(options.data_dir / KEY_FILE if options.data_dir else None),
                legacy_token_used=lambda secret: stamp_last_used(
                    self.engine, self.registry, secret
                ),
            ),
            authorizer,
        )
        self._gate = RequestGate(options.limits)
        self.webhooks = Webhooks(self.storage, self._authorize)
        self.policies = ValidatingPolicies(self.storage, self.registry, self._authorize)
        self.handlers.admission = Admission(self.engine, authorizer, self.webhooks, self.policies)
        self.engine.builtin_admission = BuiltinPlugins(self.storage, self._admission_plugins())
        self._plane: ControlPlane | None = None
        self._hooks: PostStartHooks | None = None
        self._bootstrap()

    def _admission_plugins(self) -> frozenset[str]:
        if self.options.admission_plugins is not None:
            return self.options.admission_plugins
        if self.options.simulate_node:
            return enabled_plugins((), ())
        # No service-account controller: no default account to find (envtest's choice too).
        return enabled_plugins((), ("ServiceAccount",))

    def _bootstrap(self) -> None:
        """What a fresh cluster has, and the CRDs a restarted one already served."""
        namespaces = self.registry.lookup("", "v1", "namespaces")
        assert namespaces is not None  # built-in
        for name in _INITIAL_NAMESPACES:
            if self.storage.get(("", "namespaces"), "", name) is None:
                body = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
                self.engine.create(namespaces, "", body)
        install_bootstrap_policy(self.engine, self.registry)
        self._bootstrap_priority_classes()
        self.crds.restore()

    def _bootstrap_priority_classes(self) -> None:
        """kube-apiserver's ``scheduling/bootstrap-system-priority-classes`` hook."""
        served = self.registry.lookup("scheduling.k8s.io", "v1", "priorityclasses")
        assert served is not None  # built-in
        for name, value, description in SYSTEM_PRIORITY_CLASSES:
            if self.storage.get(served.storage_key, "", name) is None:
                body = {
                    "apiVersion": "scheduling.k8s.io/v1",
                    "kind": "PriorityClass",
                    "metadata": {"name": name},
                    "value": value,
                    "description": description,
                }
                self.engine.create(served, "", body)

    def _authorize(self, user: dict[str, Any], attributes: dict[str, str]) -> tuple[str, str]:
        """The authorizer as CEL's ``authorizer`` sees it (``system:masters`` is always allowed,
        as the real server's privileged-group authorizer allows it)."""
        who = UserInfo(
            name=str(user.get("username") or ""),
            uid=str(user.get("uid") or ""),
            groups=tuple(user.get("groups") or ()),
            extra={k: tuple(v) for k, v in (user.get("extra") or {}).items()},
        )
        if who.privileged:
            return "allow", ""
        if "path" in attributes:
            attrs = Attributes(attributes["verb"], resource_request=False, path=attributes["path"])
        else:
            attrs = Attributes(
                attributes["verb"],
                api_group=attributes.get("group", ""),
                resource=attributes.get("resource", ""),
                subresource=attributes.get("subresource", ""),
                namespace=attributes.get("namespace", ""),
                name=attributes.get("name", ""),
            )
        decision = self.access.authorizer.authorize(who, attrs)
        return ("allow" if decision.allowed else "no-opinion"), decision.reason

    def _service_account(self, namespace: str, name: str) -> dict[str, Any] | None:
        return self.storage.get(("", "serviceaccounts"), namespace, name)

    def _bound_object(self, resource: str, namespace: str, name: str) -> dict[str, Any] | None:
        """A pod, secret or node a service-account token is bound to (core group)."""
        return self.storage.get(("", resource), namespace, name)

    async def start(self, port: int = 0) -> None:
        """Start the built-in controllers (needs the running loop); ``port``: where this
        server is served (0: not served, so no ``kubernetes`` Service points at it)."""
        if self.options.tune_garbage_collector:
            tune_collector()
        own = Cluster(self.engine, self.registry)
        own.admission = self.handlers.admission  # the loopback client's writes are requests
        serving = Serving(port, ca_pem=self.options.ca_pem)
        self._hooks = PostStartHooks(own, serving, self.options.post_start_interval)
        self._hooks.start()
        if self.options.simulate_node:
            aggregator: dict[str, Callable[[Cluster], Runnable]] = {
                "clusterrole-aggregation-controller": ClusterRoleAggregator
            }
            aggregator[DISRUPTION_CONTROLLER] = DisruptionController
            ca_pem = self.options.ca_pem
            signing = self.access.authenticator
            aggregator[LEGACY_TOKENS_CONTROLLER] = lambda c: LegacyTokens(
                c, lambda: signing.signing, ca_pem
            )
            if ca_pem:
                aggregator[ROOT_CA_CONTROLLER] = lambda c: RootCAPublisher(c, ca_pem)
            cluster = Cluster(self.engine, self.registry)
            cluster.admission = self.handlers.admission  # the controllers' writes are requests
            self._plane = build_control_plane(cluster, self.options.plane, aggregator)
            self._plane.start()

    async def stop(self) -> None:
        """End watches and controllers; call before the app's cleanup, then ``close``."""
        if self._plane is not None:
            self._plane.stop()
        if self._hooks is not None:
            self._hooks.stop()
        self.hub.close_all()
        await self.webhooks.close()

    def close(self) -> None:
        self.storage.close()

    # --- HTTP ------------------------------------------------------------------------------

    def build_app(self) -> web.Application:
        app = web.Application(middlewares=[self._middleware])
        app[BODY_LIMIT] = self.options.limits.max_request_bytes
        app[MIN_REQUEST_TIMEOUT] = self.options.limits.min_request_timeout
        app.on_response_prepare.append(send_request_warnings)
        Health(self.storage).add_routes(app)
        app.router.add_get("/", self._root)
        discovery.add_routes(app, self.registry)
        reviews.add_routes(app, self.access, self.engine)
        openid.add_routes(app, self.access.authenticator)
        app.router.add_route("*", "/api/{tail:.*}", self.handlers.handle)
        app.router.add_route("*", "/apis/{tail:.*}", self.handlers.handle)
        return app

    @web.middleware
    async def _middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """Access checks, failures as a ``Status``, and no answer before its writes are
        durable. One middleware rather than two: each costs a coroutine per request."""
        try:
            if request.path in OPEN_PATHS:
                response = await handler(request)
            else:
                user = self.access.admit(request)  # 401 or 403 as a Status (see endpoints.access)
                response = await self._within_limits(request, handler, user)
        except Exception as error:  # every failure is answered as a Status
            response = failure_response(request, error)
        storage = self.storage
        if storage.committed < storage.revision:
            # Writes (this request's, or others' it may have read) are still in the open
            # transaction: the answer waits for their commit (see ``storage``).
            try:
                await storage.durable()
            except Exception as error:  # a failed commit is a 500, like other surprises
                response = failure_response(request, error)
        return response

    async def _within_limits(
        self, request: web.Request, handler: Handler, user: UserInfo
    ) -> web.StreamResponse:
        """Run a request under the in-flight limits and the request timeout (a watch:
        under neither), as the real server's filters do."""
        if is_long_running(request):
            return await handler(request)
        gate = self._gate
        mutating = gate.mutating(request)
        if not gate.enter(mutating, user):
            return too_many_requests()
        try:
            async with asyncio.timeout(gate.limits.request_timeout) as deadline:
                return await handler(request)
        except TimeoutError:
            if deadline.expired():
                raise timed_out() from None
            raise
        finally:
            gate.leave(mutating)

    async def _root(self, request: web.Request) -> web.Response:
        paths = ["/api", "/api/v1", "/apis", "/healthz", "/livez", "/readyz", "/version"]
        for group, versions in self.registry.group_versions():
            if group:
                paths.append(f"/apis/{group}")
                paths += [f"/apis/{group}/{v}" for v in versions]
        return json_response({"paths": sorted(paths)})
