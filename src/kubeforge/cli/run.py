"""``kubeforge run TARGET``: run the controllers a module defines against a cluster."""

from __future__ import annotations

import asyncio

import click

from kubeforge.cli._errors import readable_errors
from kubeforge.cli._targets import load_setup
from kubeforge.config import load_config
from kubeforge.runtime import Manager

__all__ = ["run_command"]


@click.command()
@click.argument("target")
@click.option(
    "--kubeconfig",
    type=click.Path(dir_okay=False),
    default=None,
    help="Kubeconfig file (default: $KUBECONFIG, then ~/.kube/config, then in-cluster).",
)
@click.option("--context", default=None, help="Kubeconfig context (default: its current context).")
def run_command(target: str, kubeconfig: str | None, context: str | None) -> None:
    """Run the controllers that TARGET's setup(manager) registers, until SIGINT/SIGTERM.

    TARGET is a module name, a .py file, or a package directory.

    \b
    Examples:
      kubeforge run examples/podtoip
      kubeforge run my_operator.controllers --kubeconfig ./kubeconfig --context dev
    """
    with readable_errors():
        setup = load_setup(target)
        config = load_config(kubeconfig, context)
        asyncio.run(_run(setup, config))


async def _run(setup: object, config: object) -> None:
    manager = Manager(config)  # type: ignore[arg-type]
    setup(manager)  # type: ignore[operator]
    await manager.run_until_signal()
