"""``kubeforge install`` / ``uninstall``: the project's CRDs on the current cluster.

Entry points: ``install_command`` and ``uninstall_command``. ``install``
regenerates ``config/crd`` from the code first (as kubebuilder's ``make install``
does), applies every CRD and waits until each is ``Established``; ``uninstall``
deletes them and waits until they are gone, which on a real server also means
every custom resource of theirs has been deleted.
"""

from __future__ import annotations

import asyncio
from typing import Any

import click

from kubeforge.cli._cluster import Cluster, delete_and_wait, display, object_name, wait_until
from kubeforge.cli._errors import EXIT_CODES, readable_errors
from kubeforge.cli._generate import CRD_BASES, write_crds
from kubeforge.cli._options import cluster_options, connect
from kubeforge.cli._project import Project
from kubeforge.client import Client
from kubeforge.config import ClientConfig
from kubeforge.crd import load_manifests

__all__ = ["install_command", "project_crds", "uninstall_command"]

_TIMEOUT = click.option(
    "--timeout",
    default=60.0,
    show_default=True,
    help="Seconds to wait for the cluster before giving up (exit code 4).",
)


def project_crds(project: Project) -> list[dict[str, Any]]:
    """The CRDs under ``config/crd/bases``, in file order."""
    bases = project.root / CRD_BASES
    crds = load_manifests(bases) if bases.is_dir() else []
    crds = [c for c in crds if c.get("kind") == "CustomResourceDefinition"]
    if not crds:
        raise click.ClickException(
            f"{bases}: no CRDs; add a kind with `kubeforge create api` first"
        )
    return crds


@click.command(epilog=EXIT_CODES)
@cluster_options
@click.option(
    "--generate/--no-generate",
    default=True,
    show_default=True,
    help="Regenerate config/crd from the code first.",
)
@_TIMEOUT
def install_command(
    kubeconfig: str | None, context: str | None, generate: bool, timeout: float
) -> None:
    """Apply the project's CRDs to the cluster and wait until they are Established.

    \b
    Examples:
      kubeforge install
      kubeforge install --kubeconfig ./kubeconfig --context dev
      kubeforge install --no-generate --timeout 120
    """
    with readable_errors():
        project = Project.find()
        if generate:
            write_crds(project)
        crds = project_crds(project)
        asyncio.run(_install(connect(kubeconfig, context), crds, timeout))


@click.command(epilog=EXIT_CODES)
@cluster_options
@click.option("--ignore-not-found", is_flag=True, help="A CRD that is not installed is no error.")
@_TIMEOUT
def uninstall_command(
    kubeconfig: str | None, context: str | None, ignore_not_found: bool, timeout: float
) -> None:
    """Delete the project's CRDs (and so every object of theirs) and wait until they are gone.

    \b
    Examples:
      kubeforge uninstall
      kubeforge uninstall --ignore-not-found --kubeconfig ./kubeconfig
    """
    with readable_errors():
        crds = project_crds(Project.find())
        config = connect(kubeconfig, context)
        asyncio.run(
            delete_and_wait(config, crds, ignore_not_found=ignore_not_found, timeout=timeout)
        )


async def _install(config: ClientConfig, crds: list[dict[str, Any]], timeout: float) -> None:
    async with Client(config) as client:
        cluster = Cluster(client)
        with display() as show:
            for crd in crds:
                key = crd["metadata"]["name"]
                show.state(key, "applying")
                outcome = await cluster.apply(crd)
                show.line(f"{object_name(crd)} {outcome}")
                show.state(key, "waiting until Established")
            await wait_until(
                {c["metadata"]["name"]: c for c in crds},
                cluster.established,
                timeout=timeout,
                waiting_for="Established",
                on_done=lambda key: show.line(f"{key} established"),
            )
