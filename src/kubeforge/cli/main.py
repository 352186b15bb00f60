"""The ``kubeforge`` command: entry point ``main()``.

Every subcommand reports failures as one readable line on stderr (no
traceback) and exits with a code scripts can rely on (``_errors.EXIT_CODES``:
1 failed, 2 bad usage, 3 a needed tool is missing, 4 timed out).
"""

from __future__ import annotations

import logging
import sys

import click

from kubeforge._version import __version__
from kubeforge.cli._errors import EXIT_CODES, OneLineErrors
from kubeforge.cli.apiserver import apiserver_command
from kubeforge.cli.check import check_command
from kubeforge.cli.create import create_command
from kubeforge.cli.create_webhook import create_webhook_command
from kubeforge.cli.demo import demo_command
from kubeforge.cli.deploy import deploy_command, undeploy_command
from kubeforge.cli.docker import docker_build_command, docker_push_command
from kubeforge.cli.generate import generate_command
from kubeforge.cli.init import init_command
from kubeforge.cli.install import install_command, uninstall_command
from kubeforge.cli.run import run_command

__all__ = ["cli", "main"]


@click.group(
    cls=OneLineErrors,
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


cli.add_command(init_command, "init")
cli.add_command(create_command, "create")
create_command.add_command(create_webhook_command, "webhook")
cli.add_command(generate_command, "generate")
cli.add_command(check_command, "check")
cli.add_command(install_command, "install")
cli.add_command(uninstall_command, "uninstall")
cli.add_command(run_command, "run")
cli.add_command(docker_build_command, "docker-build")
cli.add_command(docker_push_command, "docker-push")
cli.add_command(deploy_command, "deploy")
cli.add_command(undeploy_command, "undeploy")
cli.add_command(apiserver_command, "apiserver")
cli.add_command(demo_command, "demo")


def main() -> None:
    """Console-script entry point."""
    sys.exit(cli.main(prog_name="kubeforge", standalone_mode=True))
