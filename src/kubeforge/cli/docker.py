"""``kubeforge docker-build`` / ``docker-push``: the manager's image, with the docker CLI.

Entry points: ``docker_build_command`` and ``docker_push_command``. Both first
make sure the container tool exists and that an engine answers it, and say so in
one line with exit code 3 when not (a laptop without Docker, a CI runner without
a daemon), instead of failing halfway through a build with the tool's own noise.
"""

from __future__ import annotations

import shutil
import subprocess

import click

from kubeforge.cli._errors import EXIT_CODES, ToolMissing, readable_errors
from kubeforge.cli._project import Project

__all__ = ["docker_build_command", "docker_push_command"]

_ENGINE_TIMEOUT = 30.0

_TOOL = click.option(
    "--container-tool",
    default="docker",
    show_default=True,
    help="The docker-compatible CLI to run (docker, podman, nerdctl).",
)
_IMAGE = click.option(
    "--image", "-i", "image", required=True, metavar="IMG", help="Image reference to tag/push."
)


def require_engine(tool: str) -> str:
    """The tool's path, once an engine has answered it; ``ToolMissing`` otherwise."""
    path = shutil.which(tool)
    if path is None:
        raise ToolMissing(f"no `{tool}` command on PATH: install Docker, or pass --container-tool")
    try:
        probe = subprocess.run(
            [path, "info", "--format", "{{.ServerVersion}}"],
            capture_output=True,
            text=True,
            timeout=_ENGINE_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise ToolMissing(f"`{tool} info` did not answer within {_ENGINE_TIMEOUT:g}s") from exc
    if probe.returncode != 0:
        reason = (
            _last_line(probe.stderr) or _last_line(probe.stdout) or f"exit code {probe.returncode}"
        )
        raise ToolMissing(f"no container engine answers `{tool}`: {reason}")
    return path


@click.command(epilog=EXIT_CODES)
@_IMAGE
@_TOOL
@click.option(
    "--file",
    "-f",
    "dockerfile",
    default="Dockerfile",
    show_default=True,
    help="The Dockerfile, relative to the project root.",
)
def docker_build_command(image: str, container_tool: str, dockerfile: str) -> None:
    """Build the manager's image from the project's Dockerfile.

    \b
    Examples:
      kubeforge docker-build --image registry.example.com/frigate:v1
      kubeforge docker-build --image frigate:dev --container-tool podman
    """
    with readable_errors():
        project = Project.find()
        if not (project.root / dockerfile).is_file():
            raise click.ClickException(f"{project.root / dockerfile}: no such Dockerfile")
        tool = require_engine(container_tool)
        _run([tool, "build", "-t", image, "-f", dockerfile, "."], cwd=str(project.root))
        click.echo(f"built {image}")


@click.command(epilog=EXIT_CODES)
@_IMAGE
@_TOOL
def docker_push_command(image: str, container_tool: str) -> None:
    """Push the manager's image to its registry.

    \b
    Examples:
      kubeforge docker-push --image registry.example.com/frigate:v1
    """
    with readable_errors():
        tool = require_engine(container_tool)
        _run([tool, "push", image], cwd=None)
        click.echo(f"pushed {image}")


def _run(command: list[str], cwd: str | None) -> None:
    # The tool's own output streams through: a build log is the user's to read.
    result = subprocess.run(command, cwd=cwd, check=False)
    if result.returncode != 0:
        raise click.ClickException(
            f"`{' '.join(command[1:3])}` failed with exit code {result.returncode}"
        )


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else ""
