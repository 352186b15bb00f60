"""``kubeforge run TARGET``: run the controllers a module defines against a cluster.

Takes the manager flags of a kubebuilder project's ``main.go`` (metrics and probe
addresses, leader election, the webhook server's port and certificate directory),
so a Python operator deploys with the same manifests. ``--local-webhooks`` serves
the webhooks to a cluster that cannot reach the process through a Service (the
local API server, say) with a generated certificate (``webhook.local``). Entry
point: ``run_command``.
"""

from __future__ import annotations

import asyncio
import importlib
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from kubeforge.cli._errors import readable_errors
from kubeforge.cli._project import PROJECT_FILE, Project
from kubeforge.cli._targets import cache_options_of, load_module, load_setup
from kubeforge.client import Client
from kubeforge.config import ClientConfig, load_config
from kubeforge.runtime import LeaderElectionOptions, Manager, ManagerOptions
from kubeforge.runtime.logs import install_log_context
from kubeforge.runtime.serving import parse_bind_address
from kubeforge.webhook.options import (
    DEFAULT_CERT_DIR,
    DEFAULT_PORT,
    CertificateMissing,
    WebhookServerOptions,
)

__all__ = [
    "default_leader_election_id",
    "event_loop_factory",
    "parse_duration",
    "run_command",
]

_SECONDS = re.compile(r"\d+(?:\.\d+)?")
_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h)")
_UNIT_SECONDS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


def parse_duration(text: str) -> float:
    """Seconds in a Go-style duration (``15s``, ``500ms``, ``1m30s``) or plain seconds (``2.5``).

    >>> parse_duration("1m30s"), parse_duration("500ms"), parse_duration("2.5")
    (90.0, 0.5, 2.5)
    """
    text = text.strip()
    if _SECONDS.fullmatch(text):
        return float(text)
    parts = _DURATION_PART.findall(text)
    if not parts or "".join(number + unit for number, unit in parts) != text:
        raise ValueError(f"{text!r} is not a duration (e.g. 15s, 500ms, 1m30s)")
    return sum(float(number) * _UNIT_SECONDS[unit] for number, unit in parts)


def _duration(ctx: click.Context, param: click.Parameter, value: str) -> float:
    try:
        return parse_duration(value)
    except ValueError as err:
        raise click.BadParameter(str(err)) from err


def _bind_address(ctx: click.Context, param: click.Parameter, value: str) -> str:
    try:
        parse_bind_address(value, environ={})
    except ValueError as err:
        raise click.BadParameter(str(err)) from err
    return value


def default_leader_election_id(target: str) -> str:
    """``<target name>-leader``, a valid Lease name derived from the target; for a project
    directory, the Lease its deployed manager uses (``config/manager/manager.yaml``).

    >>> default_leader_election_id("examples/podtoip")
    'podtoip-leader'
    >>> default_leader_election_id("My_Operator.controllers")
    'my-operator-controllers-leader'
    """
    path = Path(target.rstrip("/"))
    if path.is_dir() and (path / PROJECT_FILE).is_file():
        return Project.load(path.resolve()).leader_election_id
    stem = path.stem if path.suffix == ".py" else path.name
    name = re.sub(r"[^a-z0-9-]+", "-", stem.lower()).strip("-") or "kubeforge"
    return f"{name}-leader"


@click.command()
@click.argument("target")
@click.option(
    "--kubeconfig",
    type=click.Path(dir_okay=False),
    default=None,
    help="Kubeconfig file (default: $KUBECONFIG, then ~/.kube/config, then in-cluster).",
)
@click.option("--context", default=None, help="Kubeconfig context (default: its current context).")
@click.option(
    "--metrics-bind-address",
    default=":8080",
    show_default=True,
    callback=_bind_address,
    help="Serve /metrics here; '0' disables. ':PORT' is 127.0.0.1 outside a cluster.",
)
@click.option(
    "--metrics-secure/--no-metrics-secure",
    default=False,
    show_default=True,
    help="Serve /metrics over HTTPS, only to callers whose token the API server accepts "
    "(TokenReview) and who may get /metrics (SubjectAccessReview), as kubebuilder's scaffold.",
)
@click.option(
    "--metrics-cert-path",
    type=click.Path(file_okay=False),
    default="",
    help="Directory holding the metrics certificate, reloaded when it changes "
    "(default: a self-signed one, made at start).",
)
@click.option("--metrics-cert-name", default="tls.crt", show_default=True)
@click.option("--metrics-cert-key", default="tls.key", show_default=True)
@click.option(
    "--health-probe-bind-address",
    default=":8081",
    show_default=True,
    callback=_bind_address,
    help="Serve /healthz and /readyz here; '0' disables.",
)
@click.option(
    "--leader-elect",
    is_flag=True,
    help="Run controllers only while holding a Lease, so only one replica is active.",
)
@click.option(
    "--leader-election-id",
    default=None,
    help="Name of the Lease (default: '<target name>-leader').",
)
@click.option(
    "--leader-election-namespace",
    default=None,
    help="Namespace of the Lease (default: the kubeconfig context's, or the pod's own).",
)
@click.option(
    "--leader-elect-lease-duration",
    metavar="DURATION",
    callback=_duration,
    default="15s",
    show_default=True,
    help="How long a standby waits for an unrenewed lease before taking it over.",
)
@click.option(
    "--leader-elect-renew-deadline",
    metavar="DURATION",
    callback=_duration,
    default="10s",
    show_default=True,
    help="How long the leader retries renewing before it gives up leading.",
)
@click.option(
    "--leader-elect-retry-period",
    metavar="DURATION",
    callback=_duration,
    default="2s",
    show_default=True,
    help="Time between attempts to acquire or renew the lease.",
)
@click.option(
    "--as-generated-rbac",
    is_flag=True,
    help="Apply the project's CRDs and config/rbac, then run as its manager ServiceAccount "
    "(a token from a TokenRequest), so a permission config/rbac lacks fails here as it would "
    "in the cluster. TARGET must be a project; the cluster must enforce RBAC "
    "(kubeforge apiserver --authorization RBAC does).",
)
@click.option(
    "--log-format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="Log lines as text or one JSON object each; both carry each reconcile's context.",
)
@click.option(
    "--webhook-port",
    type=click.IntRange(0, 65535),
    default=DEFAULT_PORT,
    show_default=True,
    help="Port of the HTTPS webhook server (started only if the target registers webhooks).",
)
@click.option(
    "--webhook-cert-dir",
    "--webhook-cert-path",
    "webhook_cert_dir",
    default=DEFAULT_CERT_DIR,
    show_default=True,
    help="Directory with the webhook server's certificate; reloaded when it changes.",
)
@click.option("--webhook-cert-name", default="tls.crt", show_default=True, hidden=True)
@click.option("--webhook-cert-key", default="tls.key", show_default=True, hidden=True)
@click.option(
    "--local-webhooks",
    is_flag=True,
    help="Serve the webhooks on 127.0.0.1 with a generated certificate and point the "
    "cluster's webhook configurations and CRD conversions at them while running.",
)
@click.option(
    "--event-loop",
    type=click.Choice(["auto", "uvloop", "asyncio"]),
    default="auto",
    show_default=True,
    help="auto: uvloop when it is installed (pip install 'kubeforge[uvloop]'), else asyncio's.",
)
def run_command(
    target: str,
    kubeconfig: str | None,
    context: str | None,
    metrics_bind_address: str,
    metrics_secure: bool,
    metrics_cert_path: str,
    metrics_cert_name: str,
    metrics_cert_key: str,
    health_probe_bind_address: str,
    leader_elect: bool,
    leader_election_id: str | None,
    leader_election_namespace: str | None,
    leader_elect_lease_duration: float,
    leader_elect_renew_deadline: float,
    leader_elect_retry_period: float,
    as_generated_rbac: bool,
    log_format: str,
    webhook_port: int,
    webhook_cert_dir: str,
    webhook_cert_name: str,
    webhook_cert_key: str,
    local_webhooks: bool,
    event_loop: str,
) -> None:
    """Run the controllers that TARGET's setup(manager) registers, until SIGINT/SIGTERM.

    TARGET is a module name, a .py file, a package directory, or a project
    directory made by `kubeforge init` (its PROJECT file names the package). The
    process exits with status 1 if it loses its leader-election lease.

    \b
    Examples:
      kubeforge run examples/podtoip
      kubeforge run examples/frigate
      kubeforge run my_operator.controllers --kubeconfig ./kubeconfig --context dev
      kubeforge run my_operator --leader-elect --metrics-bind-address 0.0.0.0:8080
      kubeforge run frigate --local-webhooks --kubeconfig ./kubeconfig
      kubeforge run . --as-generated-rbac     # as the deployed ServiceAccount
    """
    election = None
    if leader_elect:
        try:
            election = LeaderElectionOptions(
                lease_name=leader_election_id or default_leader_election_id(target),
                namespace=leader_election_namespace,
                lease_duration=leader_elect_lease_duration,
                renew_deadline=leader_elect_renew_deadline,
                retry_period=leader_elect_retry_period,
            )
        except ValueError as err:
            raise click.UsageError(str(err)) from err
    webhook = WebhookServerOptions(
        port=webhook_port,
        cert_dir=webhook_cert_dir,
        cert_name=webhook_cert_name,
        key_name=webhook_cert_key,
    )
    options = ManagerOptions(
        metrics_bind_address=metrics_bind_address,
        metrics_secure=metrics_secure,
        metrics_cert_dir=metrics_cert_path,
        metrics_cert_name=metrics_cert_name,
        metrics_cert_key=metrics_cert_key,
        health_probe_bind_address=health_probe_bind_address,
        leader_election=election,
        webhook=webhook,
    )
    install_log_context(json=log_format == "json")
    with readable_errors():
        setup = load_setup(target)
        options = replace(options, cache=cache_options_of(load_module(target)))
        config = admin = load_config(kubeconfig, context)
        if as_generated_rbac:
            project = Project.find(Path(target) if Path(target).is_dir() else None)
            config = asyncio.run(_as_manager_account(config, project))
        # The webhook configurations are installed with the user's own credentials.
        installer = admin if local_webhooks else None
        try:
            with asyncio.Runner(loop_factory=event_loop_factory(event_loop)) as runner:
                runner.run(_run(setup, config, options, local_webhooks=installer))
        except CertificateMissing as err:
            hint = "give --webhook-cert-dir, or --local-webhooks to generate one"
            raise click.ClickException(f"{err} ({hint})") from err
        except OSError as err:
            # Typically a bind address already in use.
            raise click.ClickException(str(err)) from err


def event_loop_factory(choice: str = "auto") -> Callable[[], asyncio.AbstractEventLoop] | None:
    """The loop ``kubeforge run`` runs the manager on: ``None`` for asyncio's own.

    uvloop's transports do TLS and socket writes in compiled code, where asyncio's
    SSL layer is pure Python: a fifth of a busy controller's CPU (see
    benchmarks/README.md). Like kopf's CLI, ``auto`` uses it when it is installed;
    ``uvloop`` insists on it (``click.UsageError`` if missing), ``asyncio`` declines it.
    """
    if choice == "asyncio":
        return None
    try:
        uvloop: Any = importlib.import_module("uvloop")
    except ImportError:
        if choice == "uvloop":
            raise click.UsageError(
                "--event-loop uvloop: uvloop is not installed (pip install 'kubeforge[uvloop]')"
            ) from None
        return None
    factory: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    return factory


async def _as_manager_account(config: ClientConfig, project: Project) -> ClientConfig:
    # Only --as-generated-rbac needs the CRD and RBAC machinery: a plain run does not load it.
    from kubeforge.cli._as_rbac import as_manager_account

    async with Client(config) as admin:
        return await as_manager_account(admin, project)


async def _run(
    setup: Callable[[Any], None],
    config: ClientConfig,
    options: ManagerOptions,
    *,
    local_webhooks: ClientConfig | None = None,
) -> None:
    """Run the manager; with ``local_webhooks`` (the installer's credentials) its webhooks
    are served locally and installed into the cluster while it runs."""
    if local_webhooks is not None:
        await _run_with_local_webhooks(setup, config, options, local_webhooks)
        return
    manager = Manager(config, options=options)
    setup(manager)
    # Fail at once when the cluster cannot be reached, as a controller-runtime manager
    # does when its first discovery fails, rather than after the cache-sync timeout.
    try:
        await manager.client.request("GET", "/version")
    except BaseException:
        await manager.client.close()
        raise
    await manager.run_until_signal()


async def _run_with_local_webhooks(
    setup: Callable[[Any], None],
    config: ClientConfig,
    options: ManagerOptions,
    installer: ClientConfig,
) -> None:
    # Imported here: certificates (cryptography) only for --local-webhooks.
    from kubeforge.webhook.local import local_serving, local_webhooks

    with local_serving() as (serving, cert):
        # The flags' port is kept (0 picks one); the certificate is the generated one.
        webhook = replace(serving, port=options.webhook.port)
        manager = Manager(config, options=replace(options, webhook=webhook))
        setup(manager)
        async with local_webhooks(manager.webhook_server, installer, cert):
            await manager.run_until_signal()
