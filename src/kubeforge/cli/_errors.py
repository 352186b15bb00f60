"""Turn kubeforge's errors into one readable CLI line (no traceback), with exit codes scripts use.

Exit codes of every ``kubeforge`` command (``EXIT_CODES`` is what ``kubeforge
--help`` prints):

- 0: done
- 1: the command failed (the server refused, the project or a file is wrong, ...)
- 2: bad usage (unknown option, invalid value: click's rule)
- 3: a tool the command needs is missing or not working (no docker CLI, no engine)
- 4: timed out waiting for the cluster (CRDs not Established, objects not gone)
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, NoReturn

import click

from kubeforge.core import errors

__all__ = ["EXIT_CODES", "OneLineErrors", "TimedOut", "ToolMissing", "readable_errors"]

EXIT_CODES = """\
\b
Exit codes:
  0  done
  1  the command failed (the server refused, the project or a file is wrong)
  2  bad usage (unknown option or invalid value)
  3  a tool the command needs is missing or not working (docker CLI or engine)
  4  timed out waiting for the cluster (install, uninstall, deploy, undeploy)"""


class ToolMissing(click.ClickException):
    """A program the command runs (docker) is not installed or cannot do its job."""

    exit_code = 3


class TimedOut(click.ClickException):
    """The cluster did not reach the awaited state in time."""

    exit_code = 4


@contextmanager
def readable_errors() -> Iterator[None]:
    """Re-raise kubeforge errors as ``click.ClickException``: printed as ``Error: <message>``."""
    try:
        yield
    except errors.KubeforgeError as exc:
        raise click.ClickException(str(exc)) from exc


class OneLineErrors(click.Group):
    """A command group whose usage errors are one line too (click prints usage and a hint).

    ``Error: <what is wrong> (see `kubeforge init --help`)`` on stderr, exit code 2;
    every other ``ClickException`` prints as click prints it, with its own exit code.
    """

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, **extra)
        try:
            result = super().main(args, prog_name, complete_var, False, **extra)
        except click.UsageError as exc:
            where = exc.ctx.command_path if exc.ctx is not None else (prog_name or self.name)
            message = exc.format_message().rstrip(".")
            click.echo(f"Error: {message} (see `{where} --help`)", err=True)
            _exit(exc.exit_code)
        except click.ClickException as exc:
            exc.show()
            _exit(exc.exit_code)
        except click.Abort:
            click.echo("Aborted!", err=True)
            _exit(1)
        _exit(result if isinstance(result, int) else 0)


def _exit(code: int) -> NoReturn:
    sys.exit(code)
