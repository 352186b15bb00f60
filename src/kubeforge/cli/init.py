"""``kubeforge init``: lay out a new controller project in the working directory.

Entry point: ``init_command``. Writes the ``PROJECT`` file, ``pyproject.toml``,
the package with its manager ``setup()``, a Dockerfile, ``config/`` (CRDs, RBAC
with the leader-election role, the manager Deployment, the metrics Service,
kustomization files) and ``tests/`` that run on kubeforge's local API server.
"""

from __future__ import annotations

import re
from pathlib import Path

import click

from kubeforge._version import __version__
from kubeforge.cli._errors import readable_errors
from kubeforge.cli._generate import write_manifests
from kubeforge.cli._project import (
    PROJECT_FILE,
    Project,
    check_package,
    check_project_name,
)
from kubeforge.cli._scaffold import BOILERPLATE, license_header, render, write_files
from kubeforge.core.names import is_dns1123_subdomain

__all__ = ["init_command"]

# Templates under templates/project, written to the same path in the project except
# where _RENAMED says otherwise ("package" is the project's package directory).
_TEMPLATES = (
    "pyproject.toml",
    "README.md",
    "Dockerfile",
    "dockerignore",
    "gitignore",
    "package/__init__.py",
    "package/manager.py",
    "package/api/__init__.py",
    "package/controllers/__init__.py",
    "tests/conftest.py",
    "tests/test_manager.py",
    "config/crd/kustomization.yaml",
    "config/rbac/kustomization.yaml",
    "config/rbac/service_account.yaml",
    "config/rbac/leader_election_role.yaml",
    "config/rbac/leader_election_role_binding.yaml",
    "config/rbac/metrics_auth_role.yaml",
    "config/rbac/metrics_auth_role_binding.yaml",
    "config/rbac/metrics_reader_role.yaml",
    "config/manager/manager.yaml",
    "config/manager/kustomization.yaml",
    "config/default/metrics_service.yaml",
    "config/default/kustomization.yaml",
)
_RENAMED = {"dockerignore": ".dockerignore", "gitignore": ".gitignore"}


@click.command()
@click.option(
    "--domain",
    default="my.domain",
    show_default=True,
    help="Domain of the project's API groups: `--group ship` becomes ship.DOMAIN.",
)
@click.option(
    "--project-name",
    default=None,
    help="Name of the project, prefixing everything it deploys (default: the directory's name).",
)
@click.option(
    "--package",
    "--repo",
    "package",
    default=None,
    help="Python package of the project (default: the project name with '_' for '-').",
)
@click.option(
    "--license",
    "license_name",
    type=click.Choice(["apache2", "none"]),
    default="none",
    show_default=True,
    help="Licence header for every scaffolded Python file (hack/boilerplate.py.txt).",
)
@click.option("--owner", default="", help="Copyright owner named in the licence header.")
@click.option("--force", is_flag=True, help="Overwrite files that exist already.")
def init_command(
    domain: str,
    project_name: str | None,
    package: str | None,
    license_name: str,
    owner: str,
    force: bool,
) -> None:
    """Create a controller project in the current directory.

    \b
    Examples:
      mkdir frigate && cd frigate
      kubeforge init --domain example.com
      kubeforge init --domain example.com --license apache2 --owner "The Kubernetes authors"
      kubeforge init --domain example.com --project-name ship-operator --package ships
    """
    with readable_errors():
        root = Path.cwd()
        if (root / PROJECT_FILE).exists() and not force:
            raise click.ClickException(
                f"{root}: already a kubeforge project ({PROJECT_FILE} exists)"
            )
        name = check_project_name(project_name or _default_name(root))
        project = Project(
            root=root,
            project_name=name,
            package=check_package(package or name.replace("-", "_")),
            domain=_check_domain(domain),
        )
        header = license_header(license_name, owner)
        files = _project_files(project, header, license_name)
        written = write_files(root, files, force=force)
        project.save()
        written += write_manifests(project)
        click.echo(f"Wrote {len(written) + 1} files for project {name!r}.")
        click.echo("Next: define a resource with")
        click.echo("  kubeforge create api --group <group> --version <version> --kind <Kind>")


def _project_files(project: Project, header: str, license_name: str) -> dict[Path, str]:
    values = {
        "project_name": project.project_name,
        "package": project.package,
        "domain": project.domain,
        "namespace": project.namespace,
        "manager_name": project.manager_name,
        "leader_election_id": project.leader_election_id,
        "kubeforge_version": __version__,
        "license_line": '\nlicense = "Apache-2.0"' if license_name == "apache2" else "",
    }
    files: dict[Path, str] = {}
    for template in _TEMPLATES:
        text = render(f"project/{template}", values)
        if template.endswith(".py") and header:
            text = header + text
        target = _RENAMED.get(template, template)
        if target.startswith("package/"):
            target = project.package + target.removeprefix("package")
        files[Path(target)] = text
    if header:
        files[BOILERPLATE] = header
    return files


def _default_name(root: Path) -> str:
    # A directory name like "My_Operator" becomes "my-operator"; anything still invalid is
    # reported by check_project_name with a hint to pass --project-name.
    return re.sub(r"[^a-z0-9-]+", "-", root.name.lower()).strip("-") or root.name


def _check_domain(domain: str) -> str:
    if domain and not is_dns1123_subdomain(domain):
        raise click.BadParameter(
            f"{domain!r} is not a lower-case DNS domain", param_hint="--domain"
        )
    return domain
