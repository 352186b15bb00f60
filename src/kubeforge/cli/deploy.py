"""``kubeforge deploy`` / ``undeploy``: everything under ``config/default`` on the cluster.

Entry points: ``deploy_command`` and ``undeploy_command``. ``deploy`` regenerates
the manifests, renders ``config/default`` (the CRDs, the namespace, RBAC with the
leader-election role, the manager Deployment with ``--image``, the metrics
Service), then applies it in kustomize's order and waits for the CRDs;
``--dry-run`` prints the rendered YAML instead. ``undeploy`` deletes the same
objects in reverse order and waits until they are gone.
"""

from __future__ import annotations

import asyncio
from typing import Any

import click
import yaml

from kubeforge.cli._cluster import Cluster, delete_and_wait, display, object_name, wait_until
from kubeforge.cli._errors import EXIT_CODES, readable_errors
from kubeforge.cli._generate import write_manifests
from kubeforge.cli._kustomize import build, parse_image
from kubeforge.cli._options import cluster_options, connect
from kubeforge.cli._project import Project
from kubeforge.client import Client
from kubeforge.config import ClientConfig

__all__ = ["deploy_command", "render_deployment", "undeploy_command"]

_DEFAULT = "config/default"


def render_deployment(project: Project, image: str | None) -> list[dict[str, Any]]:
    """The objects ``config/default`` renders, with the manager's image set to ``image``."""
    images = [parse_image(image)] if image else []
    return build(project.root / _DEFAULT, images=images)


def to_yaml(objects: list[dict[str, Any]]) -> str:
    """A multi-document YAML stream, as ``kubectl kustomize`` prints one."""
    return "---\n".join(yaml.safe_dump(obj, sort_keys=False) for obj in objects)


_IMAGE = click.option(
    "--image",
    "-i",
    "image",
    default=None,
    metavar="IMG",
    help="The manager's image, like registry.example.com/frigate:v1 "
    "(default: what config/manager says).",
)
_TIMEOUT = click.option(
    "--timeout",
    default=120.0,
    show_default=True,
    help="Seconds to wait for the cluster before giving up (exit code 4).",
)


@click.command(epilog=EXIT_CODES)
@_IMAGE
@cluster_options
@click.option("--dry-run", is_flag=True, help="Print the manifests instead of applying them.")
@click.option(
    "--generate/--no-generate",
    default=True,
    show_default=True,
    help="Regenerate config/crd and config/rbac from the code first.",
)
@_TIMEOUT
def deploy_command(
    image: str | None,
    kubeconfig: str | None,
    context: str | None,
    dry_run: bool,
    generate: bool,
    timeout: float,
) -> None:
    """Deploy the controller: CRDs, namespace, RBAC, manager Deployment, metrics Service.

    \b
    Examples:
      kubeforge deploy --image registry.example.com/frigate:v1
      kubeforge deploy --image registry.example.com/frigate:v1 --dry-run > deploy.yaml
      kubeforge deploy --image frigate:dev --kubeconfig ./kubeconfig --context kind-dev
    """
    with readable_errors():
        project = Project.find()
        if generate:
            write_manifests(project)
        objects = render_deployment(project, image)
        if dry_run:
            click.echo(to_yaml(objects), nl=False)
            return
        asyncio.run(_deploy(connect(kubeconfig, context), objects, timeout))


@click.command(epilog=EXIT_CODES)
@cluster_options
@click.option("--ignore-not-found", is_flag=True, help="Objects already gone are no error.")
@click.option("--dry-run", is_flag=True, help="Print what would be deleted, delete nothing.")
@_TIMEOUT
def undeploy_command(
    kubeconfig: str | None,
    context: str | None,
    ignore_not_found: bool,
    dry_run: bool,
    timeout: float,
) -> None:
    """Delete everything `kubeforge deploy` created and wait until it is gone.

    \b
    Examples:
      kubeforge undeploy
      kubeforge undeploy --ignore-not-found --kubeconfig ./kubeconfig
    """
    with readable_errors():
        objects = render_deployment(Project.find(), None)
        if dry_run:
            for obj in reversed(objects):
                click.echo(f"{object_name(obj)} (dry run)")
            return
        config = connect(kubeconfig, context)
        asyncio.run(
            delete_and_wait(config, objects, ignore_not_found=ignore_not_found, timeout=timeout)
        )


async def _deploy(config: ClientConfig, objects: list[dict[str, Any]], timeout: float) -> None:
    async with Client(config) as client:
        cluster = Cluster(client)
        with display() as show:
            crds: dict[str, dict[str, Any]] = {}
            for obj in objects:
                key = object_name(obj)
                show.state(key, "applying")
                show.line(f"{key} {await cluster.apply(obj)}")
                show.state(key, "applied")
                if obj.get("kind") == "CustomResourceDefinition":
                    crds[key] = obj
            await wait_until(
                crds,
                cluster.established,
                timeout=timeout,
                waiting_for="Established",
                on_done=lambda key: show.state(key, "established"),
            )
