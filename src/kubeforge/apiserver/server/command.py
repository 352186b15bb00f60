"""``kubeforge apiserver``: run the local server in the foreground until SIGTERM/SIGINT.

Entry point: ``apiserver_command`` (click), used both by ``python -m
kubeforge.apiserver`` and by the ``kubeforge`` CLI group. Listens on 127.0.0.1
only, serves HTTPS with the CA from the data directory (or a throwaway one with
``--in-memory``), and writes the kubeconfig only once the socket accepts requests,
so "the file exists" means "the server is ready". The token is never logged.

A data directory serves one server at a time (a lock), and a damaged one, or one
whose database lost acknowledged writes, is refused with one line saying how to
recover (``datadir``); ``--repair-data-dir`` accepts what is left.

Verbosity: none logs start and stop only; ``-v`` adds one line per request
(``httplog``); ``-vv`` adds everything at debug level. ``kubeforge -v apiserver``
counts too.
"""

from __future__ import annotations

import asyncio
import logging
import shutil
import signal
import sys
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import click
from aiohttp import web

from kubeforge.apiserver.admission.plugins import UnknownPluginError, enabled_plugins
from kubeforge.apiserver.authn.authenticator import user_token
from kubeforge.apiserver.controllers.heartbeat import HeartbeatTiming
from kubeforge.apiserver.server import httplog
from kubeforge.apiserver.server.app import LocalServer, ServerOptions
from kubeforge.apiserver.server.limit_options import limit_options, raise_open_file_limit
from kubeforge.apiserver.server.limits import Limits
from kubeforge.apiserver.server.plane_options import heartbeat_options, plane_options
from kubeforge.apiserver.server.tls import Credentials, write_kubeconfig
from kubeforge.apiserver.storage.datadir import DataDirError, DirectoryLock
from kubeforge.apiserver.storage.fanout import DEFAULT_BOOKMARK_INTERVAL
from kubeforge.apiserver.storage.sqlite import DEFAULT_HISTORY

__all__ = ["Listening", "apiserver_command", "serve"]

log = logging.getLogger("kubeforge.apiserver")

_HOST = "127.0.0.1"
# Go's HTTP server, as kube-apiserver runs it, takes request lines and headers up to 1 MiB
# in all; aiohttp bounds each line instead (8 KiB by default, less than some OIDC tokens).
_MAX_HEADER_LINE = 64 * 1024


@dataclass(frozen=True)
class Listening:
    """Where the process serves and what it writes once ready: the port (0: a free one),
    the admin kubeconfig, ``(user, groups, path)`` kubeconfigs for other users (restricted
    ones under RBAC), and whether every request is logged (``httplog``)."""

    port: int
    kubeconfig: Path | None = None
    user_kubeconfigs: tuple[tuple[str, tuple[str, ...], Path], ...] = ()
    request_log: bool = False


async def serve(listening: Listening, options: ServerOptions) -> None:
    """Run until SIGTERM/SIGINT; every acknowledged write is already durable when it returns.

    ``options`` say how the server runs; its token and CA come from the data directory
    (or a throwaway one without it). A data directory another server holds, or that is
    damaged, raises ``DataDirError``.
    """
    data_dir = options.data_dir
    scratch: Path | None = None
    lock: DirectoryLock | None = None
    if data_dir is None:
        # --in-memory: the CA and token live only as long as this process.
        scratch = Path(tempfile.mkdtemp(prefix="kubeforge-apiserver-"))
    else:
        lock = DirectoryLock.acquire(data_dir)  # before anything in it is read or created
    try:
        credentials = Credentials.load_or_create(data_dir or scratch or Path())
        server = LocalServer(
            replace(options, token=credentials.token, ca_pem=credentials.ca_pem.decode())
        )
        try:
            await _run(server, credentials, listening)
        finally:
            server.close()
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
        if lock is not None:
            lock.release()


async def _run(server: LocalServer, credentials: Credentials, listening: Listening) -> None:
    loop = asyncio.get_running_loop()
    stopping = asyncio.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stopping.set)
    app = server.build_app()
    logging_options: dict[str, Any] = {"access_log": None}
    if listening.request_log:
        logging_options = httplog.enable_request_log(app)
    idle = server.options.limits.connection_idle_timeout
    runner = web.AppRunner(
        app,
        handle_signals=False,
        shutdown_timeout=2.0,
        logger=httplog.protocol_log,  # never quotes a malformed request (a token)
        max_line_size=_MAX_HEADER_LINE,
        max_field_size=_MAX_HEADER_LINE,
        keepalive_timeout=idle,  # also closes a connection that never sends a whole request
        **logging_options,
    )
    await runner.setup()
    assert runner.server is not None
    # Our own listener rather than a web.TCPSite: only create_server bounds the TLS
    # handshake, which would otherwise hold a silent connection for asyncio's 60 s.
    listener = await loop.create_server(
        runner.server,
        _HOST,
        listening.port,
        ssl=credentials.ssl_context(),
        ssl_handshake_timeout=idle,
    )
    bound = int(listener.sockets[0].getsockname()[1])  # the real port when asked for port 0
    await server.start(bound)
    url = f"https://{_HOST}:{bound}"
    for user, groups, path in listening.user_kubeconfigs:
        token = user_token(credentials.token, user, groups)
        write_kubeconfig(path, url, credentials.ca_pem, token)
    # The admin kubeconfig last: its existence means "ready", user kubeconfigs included.
    if listening.kubeconfig is not None:
        write_kubeconfig(listening.kubeconfig, url, credentials.ca_pem, credentials.token)
    log.info("serving on %s (kubeconfig: %s)", url, listening.kubeconfig or "not written")
    try:
        await stopping.wait()
    finally:
        log.info("shutting down")
        listener.close()
        await server.stop()
        await runner.cleanup()


@click.command("apiserver")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=6443,
    show_default=True,
    help="Port on 127.0.0.1; 0 picks a free one (written into the kubeconfig).",
)
@click.option(
    "--data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Directory for the database, CA, certificate and token.",
)
@click.option("--in-memory", is_flag=True, help="Keep nothing: no data directory.")
@click.option(
    "--repair-data-dir",
    is_flag=True,
    help="Start from a data directory whose database lost acknowledged writes (a deleted "
    "or truncated kubeforge.db-wal) with what is left; clients relist.",
)
@click.option(
    "--kubeconfig",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write a kubeconfig here once the server is ready.",
)
@click.option(
    "--simulate-node/--no-simulate-node",
    default=True,
    show_default=True,
    help="Run the simulated control plane (nodes, scheduler, kubelets, controllers); "
    "off behaves like envtest.",
)
@click.option(
    "--nodes",
    type=click.IntRange(0),
    default=1,
    show_default=True,
    help="How many simulated nodes (kubeforge-node-0, ...).",
)
@click.option(
    "--node-config",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="YAML/JSON file describing the simulated nodes (names, labels, taints, capacity).",
)
@click.option(
    "--controllers",
    default="*",
    show_default=True,
    help="kube-controller-manager's list: '*' all, 'name' on, '-name' off (e.g. '*,-job').",
)
@click.option(
    "--job-pod-run-time",
    type=click.FloatRange(min=0),
    default=0.5,
    show_default=True,
    help="Seconds a Job's pod runs, then exits 0 (unless its kubeforge.dev/ annotations differ).",
)
@click.option(
    "--job-pod-failure-backoff",
    "job_backoff",
    type=click.FloatRange(min=0),
    default=10.0,
    show_default=True,
    help="Seconds a Job waits after a pod failure to create the next (doubling to 6m).",
)
@click.option(
    "--watch-history",
    type=click.IntRange(1),
    default=DEFAULT_HISTORY,
    show_default=True,
    help="Events kept so watches can resume.",
)
@click.option(
    "--bookmark-interval",
    type=click.FloatRange(min=0.01),
    default=DEFAULT_BOOKMARK_INTERVAL,
    show_default=True,
    help="Seconds between watch BOOKMARK events (a Kubernetes 1.32 server: 60).",
)
@click.option(
    "--post-start-interval",
    type=click.FloatRange(min=0.05),
    default=None,
    hidden=True,  # for tests: 1.32's are 10 s (kubernetes Service, identity Lease), 60 s (APF)
    help="Seconds between passes of the keepers of the server's own objects.",
)
@click.option(
    "--authorization",
    type=click.Choice(["AlwaysAllow", "RBAC"], case_sensitive=False),
    default="AlwaysAllow",
    show_default=True,
    help="RBAC: enforce Roles and bindings for every user but the admin kubeconfig's.",
)
@click.option(
    "--user-kubeconfig",
    "user_kubeconfigs",
    multiple=True,
    metavar="USER[,GROUP...]=PATH",
    help="Also write a kubeconfig for USER (in the GROUPs) to PATH; repeatable.",
)
@click.option(
    "--enable-admission-plugins",
    default="",
    metavar="NAME,...",
    help="Admission plugins to run besides kube-apiserver's default ones.",
)
@click.option(
    "--disable-admission-plugins",
    default="",
    metavar="NAME,...",
    help="Default admission plugins not to run (e.g. ServiceAccount, as envtest does).",
)
@limit_options
@heartbeat_options
@click.option(
    "-v",
    "--verbose",
    count=True,
    help="-v: log each request (never its token or body); -vv: debug output too.",
)
def apiserver_command(
    port: int,
    data_dir: Path | None,
    in_memory: bool,
    repair_data_dir: bool,
    kubeconfig: Path | None,
    simulate_node: bool,
    nodes: int,
    node_config: Path | None,
    controllers: str,
    job_pod_run_time: float,
    job_backoff: float,
    watch_history: int,
    bookmark_interval: float,
    post_start_interval: float | None,
    authorization: str,
    user_kubeconfigs: tuple[str, ...],
    enable_admission_plugins: str,
    disable_admission_plugins: str,
    limits: Limits,
    heartbeats: HeartbeatTiming,
    verbose: int,
) -> None:
    """Run a local Kubernetes API server (HTTPS, bearer token) on 127.0.0.1.

    It writes a kubeconfig for kubectl and any client once it is ready, and
    keeps every acknowledged write in --data-dir across restarts. The limits
    default to kube-apiserver's own (durations as Go writes them: 1m0s, 32s).

    \b
    Examples:
      kubeforge apiserver --port 6443 --data-dir ./data --kubeconfig ./kubeconfig
      kubeforge apiserver --port 0 --in-memory --kubeconfig /tmp/kubeconfig
      kubectl --kubeconfig ./kubeconfig get namespaces
    """
    if in_memory == (data_dir is not None):
        raise click.UsageError("give exactly one of --data-dir DIR or --in-memory")
    plane = plane_options(nodes, node_config, controllers, job_pod_run_time, job_backoff)
    options = ServerOptions(
        token="",  # the data directory's, read by serve
        data_dir=data_dir,
        simulate_node=simulate_node,
        plane=replace(plane, heartbeats=heartbeats),
        watch_history=watch_history,
        bookmark_interval=bookmark_interval,
        post_start_interval=post_start_interval,
        authorization="RBAC" if authorization.upper() == "RBAC" else "AlwaysAllow",
        repair_data_dir=repair_data_dir,
        limits=limits,
        admission_plugins=_admission_plugins(
            enable_admission_plugins, disable_admission_plugins, simulate_node
        ),
        tune_garbage_collector=True,  # this process exists to run the server
    )
    verbose += _inherited_verbosity()
    listening = Listening(
        port,
        kubeconfig,
        tuple(_user_kubeconfig(value) for value in user_kubeconfigs),
        request_log=verbose >= 1,
    )
    raise_open_file_limit()
    _log_to_stderr(verbose)
    try:
        asyncio.run(serve(listening, options))
    except DataDirError as error:
        raise click.ClickException(str(error)) from None
    except OSError as error:
        raise click.ClickException(
            f"cannot serve on {_HOST}:{port}: {error.strerror or error}"
        ) from None


def _log_to_stderr(verbose: int) -> None:
    # force: the kubeforge group may have set up logging already, for its own level.
    logging.basicConfig(
        level=logging.DEBUG if verbose >= 2 else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
        force=True,
    )


def _admission_plugins(enable: str, disable: str, simulate_node: bool) -> frozenset[str] | None:
    """The plugins the flags name, checked as kube-apiserver checks them; None without flags
    (the server's defaults, which depend on ``--simulate-node``)."""
    if not enable and not disable:
        return None
    on = [name.strip() for name in enable.split(",") if name.strip()]
    off = [name.strip() for name in disable.split(",") if name.strip()]
    if not simulate_node and "ServiceAccount" not in on and "ServiceAccount" not in off:
        off.append("ServiceAccount")
    try:
        return enabled_plugins(on, off)
    except UnknownPluginError as error:
        raise click.UsageError(str(error)) from None


def _inherited_verbosity() -> int:
    """``kubeforge -v apiserver``: the group's ``-v`` counts as the command's own."""
    parent = click.get_current_context().parent
    value = parent.params.get("verbose", 0) if parent is not None else 0
    return value if isinstance(value, int) else 0


def _user_kubeconfig(value: str) -> tuple[str, tuple[str, ...], Path]:
    who, sep, path = value.rpartition("=")
    user, *groups = who.split(",")
    if not sep or not user or not path:
        raise click.BadParameter(
            f"expected USER[,GROUP...]=PATH, got {value!r}", param_hint="--user-kubeconfig"
        )
    return user, tuple(g for g in groups if g), Path(path)
