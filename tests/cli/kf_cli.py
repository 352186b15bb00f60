"""Helpers for the CLI tests: run ``kubeforge`` in-process or as a real process.

In-process runs go through the same entry point (``cli.main``) as the console
script, so exit codes and the one-line error format are the real ones; they are
used where no server or second process is involved, because they are fast.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from click.testing import CliRunner

from kubeforge.cli.main import cli
from kubeforge.crd._docs import _class_nodes

REPO = Path(__file__).resolve().parents[2]
FRIGATE = REPO / "examples" / "frigate"
BIN = Path(sys.executable).parent


@dataclass(frozen=True)
class Outcome:
    code: int
    stdout: str
    stderr: str


@contextmanager
def _cwd(path: Path) -> Iterator[None]:
    before = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


def kubeforge(*args: str, cwd: Path) -> Outcome:
    """``kubeforge ARGS`` in this process, in ``cwd``."""
    saved_path, saved_modules = list(sys.path), set(sys.modules)
    try:
        with _cwd(cwd):
            result = CliRunner().invoke(cli, list(args), prog_name="kubeforge")
    finally:
        # The commands import the project under test; forget it, as a new process would.
        sys.path[:] = saved_path
        # The CRD generator caches each module's parsed source by module name; a new
        # process starts empty, and so must the next in-process run (same names, new files).
        _class_nodes.cache_clear()
        for name in set(sys.modules) - saved_modules:
            file = getattr(sys.modules[name], "__file__", None) or ""
            if file.startswith(str(cwd.resolve())):
                del sys.modules[name]
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return Outcome(result.exit_code, result.stdout, result.stderr)


def kubeforge_process(
    *args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """``kubeforge ARGS`` as its own process (what a user's shell runs)."""
    return subprocess.run(
        [sys.executable, "-m", "kubeforge.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        env={**os.environ, **(env or {})},
    )


def one_line_error(outcome: Outcome, code: int, *fragments: str) -> str:
    """The single stderr line of a failed command, checked for ``code`` and ``fragments``."""
    assert outcome.code == code, outcome
    lines = outcome.stderr.strip().splitlines()
    assert len(lines) == 1, outcome.stderr
    assert lines[0].startswith("Error: "), lines[0]
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


def new_project(root: Path, *create_args: str, name: str = "frigate") -> Path:
    """``kubeforge init`` in ``root/name``, then ``create api`` with ``create_args`` if any."""
    project = root / name
    project.mkdir()
    assert kubeforge("init", "--domain", "example.com", cwd=project).code == 0
    if create_args:
        outcome = kubeforge("create", "api", *create_args, cwd=project)
        assert outcome.code == 0, outcome
    return project


FRIGATE_API = ("--group", "ship", "--version", "v1beta1", "--kind", "Frigate")


def tree(root: Path) -> dict[str, str]:
    """Every file under ``root`` (caches left out) as relative path -> text."""
    return {
        str(path.relative_to(root)): path.read_text()
        for path in sorted(root.rglob("*"))
        if path.is_file() and not (_CACHES & set(path.parts))
    }


_CACHES = {"__pycache__", ".pytest_cache", ".ruff_cache", ".mypy_cache"}
