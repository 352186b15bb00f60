"""``kubeforge run TARGET``: run the controllers a module defines against a cluster.

Takes the manager flags of a kubebuilder project's ``main.go`` (metrics and probe
addresses, leader election), so a Python operator deploys with the same
manifests. Entry point: ``run_command``.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from kubeforge.cli._errors import readable_errors
from kubeforge.cli._targets import load_setup
from kubeforge.config import ClientConfig, load_config
from kubeforge.runtime import LeaderElectionOptions, Manager, ManagerOptions
from kubeforge.runtime.logs import install_log_context
from kubeforge.runtime.serving import parse_bind_address

__all__ = ["default_leader_election_id", "parse_duration", "run_command"]

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
    """``<target name>-leader``, a valid Lease name derived from the target.

    >>> default_leader_election_id("examples/podtoip")
    'podtoip-leader'
    >>> default_leader_election_id("My_Operator.controllers")
    'my-operator-controllers-leader'
    """
    path = Path(target.rstrip("/"))
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
    "--log-format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="Log lines as text or one JSON object each; both carry each reconcile's context.",
)
def run_command(
    target: str,
    kubeconfig: str | None,
    context: str | None,
    metrics_bind_address: str,
    health_probe_bind_address: str,
    leader_elect: bool,
    leader_election_id: str | None,
    leader_election_namespace: str | None,
    leader_elect_lease_duration: float,
    leader_elect_renew_deadline: float,
    leader_elect_retry_period: float,
    log_format: str,
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
    options = ManagerOptions(
        metrics_bind_address=metrics_bind_address,
        health_probe_bind_address=health_probe_bind_address,
        leader_election=election,
    )
    install_log_context(json=log_format == "json")
    with readable_errors():
        setup = load_setup(target)
        config = load_config(kubeconfig, context)
        try:
            asyncio.run(_run(setup, config, options))
        except OSError as err:
            # Typically a bind address already in use.
            raise click.ClickException(str(err)) from err


async def _run(setup: Callable[[Any], None], config: ClientConfig, options: ManagerOptions) -> None:
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
