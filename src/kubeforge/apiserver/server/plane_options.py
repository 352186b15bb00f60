"""The ``kubeforge apiserver`` flags of the simulated control plane, checked before it starts.

Entry points: ``plane_options(nodes, node_config, controllers, *job_times)`` (the
checked ``PlaneOptions``) and ``heartbeat_options`` (a click decorator: the command
receives one ``heartbeats: HeartbeatTiming`` argument, the timing of the kubelets'
heartbeats and of the node lifecycle controller's patience with them).

``--node-monitor-grace-period`` and ``--node-startup-grace-period`` are
kube-controller-manager's flags;
``--node-heartbeat-interval`` (how often a kubelet renews its Lease, 10 s on a cluster)
and ``--node-status-report-frequency`` (the kubelet's ``nodeStatusReportFrequency``) are
the kubelet's settings. Durations are Go's (``40s``, ``1m0s``) or plain seconds; tests
shorten them to see a silent node turn ``Unknown``::

    kubeforge apiserver --in-memory --node-heartbeat-interval=0.2 --node-monitor-grace-period=2
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
import yaml

from kubeforge.apiserver.controllers.controlplane import PlaneOptions, enabled_controllers
from kubeforge.apiserver.controllers.heartbeat import HeartbeatTiming
from kubeforge.apiserver.controllers.nodes import load_node_specs
from kubeforge.apiserver.server.limit_options import Duration

__all__ = ["heartbeat_options", "plane_options"]

_DEFAULTS = HeartbeatTiming()

_OPTIONS = (
    click.option(
        "--node-heartbeat-interval",
        type=Duration(),
        default=f"{_DEFAULTS.lease_renew_interval:g}s",
        show_default=True,
        help="How often each simulated kubelet renews its Lease in kube-node-lease.",
    ),
    click.option(
        "--node-status-report-frequency",
        type=Duration(),
        default="5m0s",
        show_default=True,
        help="How often a simulated kubelet posts an unchanged node status (lastHeartbeatTime).",
    ),
    click.option(
        "--node-monitor-grace-period",
        type=Duration(),
        default=f"{_DEFAULTS.monitor_grace_period:g}s",
        show_default=True,
        help="How long a node may go without a heartbeat before it is marked Unknown.",
    ),
    click.option(
        "--node-startup-grace-period",
        type=Duration(),
        default=f"{_DEFAULTS.startup_grace_period:g}s",
        show_default=True,
        help="How long a node that never posted Ready may go before it is marked Unknown.",
    ),
)


def heartbeat_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add the heartbeat flags to a click command, which then gets ``heartbeats=...``."""

    @functools.wraps(command)
    def with_heartbeats(**kwargs: Any) -> Any:
        timing = HeartbeatTiming(
            lease_renew_interval=kwargs.pop("node_heartbeat_interval"),
            status_report_frequency=kwargs.pop("node_status_report_frequency"),
            monitor_grace_period=kwargs.pop("node_monitor_grace_period"),
            startup_grace_period=kwargs.pop("node_startup_grace_period"),
        )
        return command(heartbeats=timing, **kwargs)

    for option in reversed(_OPTIONS):
        with_heartbeats = option(with_heartbeats)
    return with_heartbeats


def plane_options(
    nodes: int, node_config: Path | None, controllers: str, *job_times: float
) -> PlaneOptions:
    """The simulated control plane's flags, checked before anything starts."""
    try:
        enabled_controllers([controllers])
        if node_config is not None:
            load_node_specs(node_config, nodes)
    except (ValueError, OSError, yaml.YAMLError) as error:
        raise click.UsageError(str(error)) from None
    return PlaneOptions(nodes, node_config, (controllers,), *job_times)
