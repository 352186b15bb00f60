"""``kubeforge generate``: manifests from the project's code, and models from any CRD.

Entry point: ``generate_command`` (a group). ``crd`` writes ``config/crd/bases``
from the ``Resource`` classes under ``<package>/api``; ``rbac`` writes
``config/rbac/role.yaml`` from the controllers' ``rbac`` rules; ``manifests``
(also what a bare ``kubeforge generate`` runs) does both; ``models`` turns
CustomResourceDefinition YAML files (yours or a third party's) into typed Python
models, and needs no project.
"""

from __future__ import annotations

from pathlib import Path
from typing import IO

import click

from kubeforge.cli._errors import EXIT_CODES, readable_errors
from kubeforge.cli._generate import write_crds, write_manifests, write_rbac
from kubeforge.cli._project import Project

__all__ = ["generate_command"]


@click.group(invoke_without_command=True, epilog=EXIT_CODES)
@click.pass_context
def generate_command(ctx: click.Context) -> None:
    """Regenerate files from code: CRDs, RBAC, or models from CRDs.

    Without a subcommand: the same as `kubeforge generate manifests`.

    \b
    Examples:
      kubeforge generate                 # config/crd and config/rbac/role.yaml
      kubeforge generate crd
      kubeforge generate models certificates.yaml --package certs --output ./certs
    """
    if ctx.invoked_subcommand is None:
        ctx.invoke(manifests_command)


def _report(paths: list[Path]) -> None:
    for path in paths:
        click.echo(f"  {path}")


@generate_command.command("manifests")
def manifests_command() -> None:
    """Write config/crd/bases and config/rbac/role.yaml from the project's code.

    \b
    Examples:
      kubeforge generate manifests
    """
    with readable_errors():
        _report(write_manifests(Project.find()))


@generate_command.command("crd")
def crd_command() -> None:
    """Write one CRD per kind to config/crd/bases from the Resource classes under <package>/api.

    \b
    Examples:
      kubeforge generate crd && kubectl apply -k config/crd
    """
    with readable_errors():
        _report(write_crds(Project.find()))


@generate_command.command("rbac")
def rbac_command() -> None:
    """Write config/rbac/role.yaml from the rbac rules of the modules under <package>/controllers.

    \b
    Examples:
      kubeforge generate rbac
    """
    with readable_errors():
        _report(write_rbac(Project.find()))


@generate_command.command("models")
@click.argument("crd_files", nargs=-1, required=True, type=click.File("r"), metavar="CRD.yaml...")
@click.option(
    "--package",
    required=True,
    help="The Python package the modules will live in (their imports name it).",
)
@click.option(
    "--output",
    "-o",
    type=click.Path(file_okay=False),
    default=None,
    help="Directory to write the modules to (default: the package's path under the current "
    "directory).",
)
@click.option("--check", is_flag=True, help="Write nothing; fail if the files are not up to date.")
def models_command(
    crd_files: tuple[IO[str], ...], package: str, output: str | None, check: bool
) -> None:
    """Write typed models (Resource classes) for the custom resources in CRD files.

    Each served version of each kind becomes a module. Use them with the client,
    informers and controllers like the built-in models. "-" reads standard input.

    \b
    Examples:
      kubeforge generate models certificates.yaml --package certs
      kubectl get crd servicemonitors.monitoring.coreos.com -o yaml \\
        | kubeforge generate models - --package monitoring --output src/monitoring
    """
    from kubeforge.crd import generate_models  # type: ignore[attr-defined]

    with readable_errors():
        target = Path(output) if output is not None else Path(*package.split("."))
        sources: dict[str, str] = {}
        for file in crd_files:
            sources.update(generate_models(file.read(), package=package))
        stale = [
            name for name, text in sorted(sources.items()) if _read(target / f"{name}.py") != text
        ]
        if check:
            if stale:
                raise click.ClickException(
                    f"out of date in {target}: {', '.join(f'{n}.py' for n in stale)}"
                )
            click.echo(f"{len(sources)} module(s) in {target} are up to date")
            return
        target.mkdir(parents=True, exist_ok=True)
        for name in stale:
            (target / f"{name}.py").write_text(sources[name])
        _report([target / f"{name}.py" for name in sorted(sources)])


def _read(path: Path) -> str | None:
    return path.read_text() if path.is_file() else None
