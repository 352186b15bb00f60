"""The ``kubeforge`` command: entry point ``main()``.

Every subcommand reports failures as one readable line on stderr (no
traceback) and exits non-zero: 1 for errors, 2 for bad usage (click's rule).
"""

from __future__ import annotations

import logging
import sys

import click

from kubeforge._version import __version__
from kubeforge.cli.apiserver import apiserver_command
from kubeforge.cli.demo import demo_command
from kubeforge.cli.run import run_command

__all__ = ["cli", "main"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="kubeforge")
@click.option("-v", "--verbose", count=True, help="More log output (-v info, -vv debug).")
def cli(verbose: int) -> None:
    """Write, run and test Kubernetes controllers in Python.

    \b
    Examples:
      kubeforge demo                       # PodToIp on an embedded local API server
      kubeforge apiserver --port 6443 --data-dir ./data --kubeconfig ./kubeconfig
      kubeforge run examples/podtoip --kubeconfig ./kubeconfig
    """
    level = logging.WARNING - 10 * min(verbose, 2)
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")


cli.add_command(apiserver_command, "apiserver")
cli.add_command(run_command, "run")
cli.add_command(demo_command, "demo")


def main() -> None:
    """Console-script entry point."""
    sys.exit(cli.main(prog_name="kubeforge", standalone_mode=True))
