"""Subcommands loaded when they run: ``LazyCommands``, the group ``kubeforge`` is.

Each subcommand pulls in a layer of its own (``apiserver`` the whole local
server, ``run`` the runtime, ``generate`` codegen), so importing them all would
make ``kubeforge --help`` pay for every layer. The group knows each command's
module and one-line help; the module is imported only when the command is
looked up to run or to print its own help.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

import click

from kubeforge.cli._errors import OneLineErrors

__all__ = ["LazyCommand", "LazyCommands"]


@dataclass(frozen=True)
class LazyCommand:
    """Where a subcommand lives (``module``, ``attribute``) and its one line for ``--help``.

    Example: ``LazyCommand("kubeforge.cli.init", "init_command", "Create a project.")``
    """

    module: str
    attribute: str
    short_help: str

    def load(self) -> click.Command:
        command = getattr(importlib.import_module(self.module), self.attribute)
        if not isinstance(command, click.Command):
            raise TypeError(f"{self.module}.{self.attribute} is not a click command")
        return command


class LazyCommands(OneLineErrors):
    """A group whose subcommands are imported on first lookup, listed from their ``LazyCommand``."""

    def __init__(self, *args: object, lazy: dict[str, LazyCommand], **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.lazy = lazy

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in self.lazy:
            self.add_command(self.lazy[cmd_name].load(), cmd_name)
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # click's own listing would load every command just for its one line.
        names = [
            n for n in self.list_commands(ctx) if n in self.lazy or not self.commands[n].hidden
        ]
        if not names:
            return
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = [(name, self._short_help(name, limit)) for name in names]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def _short_help(self, name: str, limit: int) -> str:
        if name in self.commands:
            return self.commands[name].get_short_help_str(limit)
        # click shortens a command's help to fit; a stand-in with the same help does the same.
        return click.Command(name, help=self.lazy[name].short_help).get_short_help_str(limit)
