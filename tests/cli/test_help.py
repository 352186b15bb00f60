"""Every command explains itself: ``--help`` with examples, and the exit codes on top."""

from __future__ import annotations

from pathlib import Path

import click
import pytest

from kubeforge.cli.main import cli

from .kf_cli import kubeforge


def _commands(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = []
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None, name
        path = (*prefix, name)
        found.append(path)
        if isinstance(command, click.Group):
            found += _commands(command, path)
    return found


COMMANDS = _commands(cli)


@pytest.mark.parametrize("path", COMMANDS, ids=[" ".join(p) for p in COMMANDS])
def test_every_command_s_help_has_examples(path: tuple[str, ...], tmp_path: Path) -> None:
    outcome = kubeforge(*path, "--help", cwd=tmp_path)
    assert outcome.code == 0, outcome
    assert "Examples:" in outcome.stdout
    assert f"kubeforge {' '.join(path)}" in outcome.stdout


def test_the_top_level_help_documents_the_exit_codes(tmp_path: Path) -> None:
    outcome = kubeforge("--help", cwd=tmp_path)
    assert outcome.code == 0
    for code in ("0  done", "1  the command failed", "2  bad usage", "3  a tool", "4  timed out"):
        assert code in outcome.stdout


def test_cluster_commands_take_kubeconfig_and_context(tmp_path: Path) -> None:
    for command in ("install", "uninstall", "deploy", "undeploy", "run"):
        outcome = kubeforge(command, "--help", cwd=tmp_path)
        assert "--kubeconfig" in outcome.stdout and "--context" in outcome.stdout, command
