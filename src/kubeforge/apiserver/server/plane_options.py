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

_FLAGS = (
    # flag, HeartbeatTiming field, help
    (
        "--node-heartbeat-interval",
        "lease_renew_interval",
        "How often each simulated kubelet renews its Lease in kube-node-lease.",
    ),
    (
        "--node-status-report-frequency",
        "status_report_frequency",
        "How often a simulated kubelet posts an unchanged node status (lastHeartbeatTime).",
    ),
    (
        "--node-monitor-grace-period",
        "monitor_grace_period",
        "How long a node may go without a heartbeat before it is marked Unknown.",
    ),
    (
        "--node-startup-grace-period",
        "startup_grace_period",
        "How long a node that never posted Ready may go before it is marked Unknown.",
    ),
)


def _go_duration(seconds: float) -> str:
    minutes, rest = divmod(seconds, 60)
    return f"{int(minutes)}m{rest:g}s" if minutes else f"{rest:g}s"


def heartbeat_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add the heartbeat flags to a click command, which then gets ``heartbeats=...``."""

    @functools.wraps(command)
    def with_heartbeats(**kwargs: Any) -> Any:
        values = {field: kwargs.pop(flag[2:].replace("-", "_")) for flag, field, _ in _FLAGS}
        return command(heartbeats=HeartbeatTiming(**values), **kwargs)

    for flag, field, text in reversed(_FLAGS):
        default = _go_duration(getattr(_DEFAULTS, field))
        option = click.option(flag, type=Duration(), default=default, show_default=True, help=text)
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
