"""Options shared by every command that talks to a cluster: ``--kubeconfig`` and ``--context``.

Entry point: the ``cluster_options`` decorator, and ``connect()`` to load the
configuration they name (kubectl's rules: the flag, then ``$KUBECONFIG``, then
``~/.kube/config``, then in-cluster).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import click

from kubeforge.config import ClientConfig, load_config

__all__ = ["cluster_options", "connect"]

F = TypeVar("F", bound=Callable[..., object])


def cluster_options(command: F) -> F:
    """Add ``--kubeconfig PATH`` and ``--context NAME`` to ``command``."""
    command = click.option(
        "--context", default=None, help="Kubeconfig context (default: its current context)."
    )(command)
    return click.option(
        "--kubeconfig",
        type=click.Path(dir_okay=False),
        default=None,
        help="Kubeconfig file (default: $KUBECONFIG, then ~/.kube/config, then in-cluster).",
    )(command)


def connect(kubeconfig: str | None, context: str | None) -> ClientConfig:
    return load_config(kubeconfig, context)
