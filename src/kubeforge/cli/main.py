"""The ``kubeforge`` command: entry point ``main()``.

Every subcommand reports failures as one readable line on stderr (no
traceback) and exits with a code scripts can rely on (``_errors.EXIT_CODES``:
1 failed, 2 bad usage, 3 a needed tool is missing, 4 timed out).
"""

from __future__ import annotations

import logging
import sys
from typing import TYPE_CHECKING

import click

from kubeforge._version import __version__
from kubeforge.cli._errors import EXIT_CODES
from kubeforge.cli._lazy import LazyCommand, LazyCommands

if TYPE_CHECKING:
    # What COMMANDS loads, named here so that the import graph and its contracts see it.
    import kubeforge.cli.apiserver
    import kubeforge.cli.check
    import kubeforge.cli.create
    import kubeforge.cli.demo
    import kubeforge.cli.deploy
    import kubeforge.cli.docker
    import kubeforge.cli.generate
    import kubeforge.cli.init
    import kubeforge.cli.install
    import kubeforge.cli.run  # noqa: F401

__all__ = ["cli", "main"]


# Each subcommand's module and the one line ``kubeforge --help`` shows for it
# (tests/cli checks the lines against the commands' own docstrings).
COMMANDS = {
    "init": LazyCommand(
        "kubeforge.cli.init",
        "init_command",
        "Create a controller project in the current directory.",
    ),
    "create": LazyCommand(
        "kubeforge.cli.create",
        "create_command",
        "Scaffold an API (a kind and/or its controller) in the current project.",
    ),
    "generate": LazyCommand(
        "kubeforge.cli.generate",
        "generate_command",
        "Regenerate files from code: CRDs, RBAC, or models from CRDs.",
    ),
    "check": LazyCommand(
        "kubeforge.cli.check", "check_command", "Check that generated files still match the code."
    ),
    "install": LazyCommand(
        "kubeforge.cli.install",
        "install_command",
        "Apply the project's CRDs to the cluster and wait until they are Established.",
    ),
    "uninstall": LazyCommand(
        "kubeforge.cli.install",
        "uninstall_command",
        "Delete the project's CRDs (and so every object of theirs) and wait until they are gone.",
    ),
    "run": LazyCommand(
        "kubeforge.cli.run",
        "run_command",
        "Run the controllers that TARGET's setup(manager) registers, until SIGINT/SIGTERM.",
    ),
    "docker-build": LazyCommand(
        "kubeforge.cli.docker",
        "docker_build_command",
        "Build the manager's image from the project's Dockerfile.",
    ),
    "docker-push": LazyCommand(
        "kubeforge.cli.docker", "docker_push_command", "Push the manager's image to its registry."
    ),
    "deploy": LazyCommand(
        "kubeforge.cli.deploy",
        "deploy_command",
        "Deploy the controller: CRDs, namespace, RBAC, manager Deployment, metrics Service.",
    ),
    "undeploy": LazyCommand(
        "kubeforge.cli.deploy",
        "undeploy_command",
        "Delete everything `kubeforge deploy` created and wait until it is gone.",
    ),
    "apiserver": LazyCommand(
        "kubeforge.cli.apiserver",
        "apiserver_command",
        "Run a local Kubernetes API server (HTTPS, bearer token) on 127.0.0.1.",
    ),
    "demo": LazyCommand(
        "kubeforge.cli.demo",
        "demo_command",
        "Watch the PodToIp controller converge on an embedded local API server.",
    ),
}


@click.group(
    cls=LazyCommands,
    lazy=COMMANDS,
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog=EXIT_CODES,
)
@click.version_option(__version__, prog_name="kubeforge")
@click.option("-v", "--verbose", count=True, help="More log output (-v info, -vv debug).")
def cli(verbose: int) -> None:
    """Write, run and test Kubernetes controllers in Python.

    \b
    A project's life, as with kubebuilder:
      kubeforge init --domain example.com
      kubeforge create api --group ship --version v1beta1 --kind Frigate
      kubeforge create webhook --group ship --version v1beta1 --kind Frigate --defaulting
      kubeforge generate                   # config/crd, config/rbac from the code
      kubeforge check rbac                 # does config/rbac grant what the code needs?
      kubeforge install                    # CRDs onto the current cluster
      kubeforge run frigate                # the manager, locally
      kubeforge docker-build --image IMG && kubeforge docker-push --image IMG
      kubeforge deploy --image IMG         # everything, in the cluster
      kubeforge undeploy; kubeforge uninstall

    \b
    No cluster? Run one locally:
      kubeforge apiserver --port 6443 --data-dir ./data --kubeconfig ./kubeconfig
      kubeforge demo                       # PodToIp on an embedded local API server
    """
    level = logging.WARNING - 10 * min(verbose, 2)
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")


def main() -> None:
    """Console-script entry point."""
    sys.exit(cli.main(prog_name="kubeforge", standalone_mode=True))
