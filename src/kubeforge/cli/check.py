"""``kubeforge check``: compare what the code needs with what the manifests say.

Entry point: ``check_command`` (a group). ``rbac`` derives the permissions the
manager needs from the project's code (``setup(mgr)`` and the ``rbac`` rules,
see ``kubeforge.crd.needs``) and lists each one the manifests under
``config/rbac`` do not grant the manager's ServiceAccount; it exits 1 when any is
missing, so CI can run it.
"""

from __future__ import annotations

import click

from kubeforge.cli._errors import EXIT_CODES, readable_errors
from kubeforge.cli._generate import project_needs
from kubeforge.cli._project import Project
from kubeforge.cli._rbac import RBAC_DIR, rbac_gaps

__all__ = ["check_command"]


@click.group(epilog=EXIT_CODES)
def check_command() -> None:
    """Check that generated files still match the code.

    \b
    Examples:
      kubeforge check rbac
    """


@check_command.command("rbac")
def rbac_command() -> None:
    """Fail, naming each one, if config/rbac lacks a permission the manager needs.

    \b
    Examples:
      kubeforge check rbac || kubeforge generate rbac
    """
    with readable_errors():
        project = Project.find()
        gaps = rbac_gaps(project, project_needs(project))
        if gaps:
            for line in gaps:
                click.echo(f"  missing: {line}")
            raise click.ClickException(
                f"{RBAC_DIR} lacks {len(gaps)} permission(s) the manager needs; "
                "run `kubeforge generate rbac`"
            )
        click.echo(f"{RBAC_DIR} grants everything the manager needs")
