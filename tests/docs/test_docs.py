"""Every code block in ``docs/`` is exercised (see ``kf_markdown_blocks`` for the rules).

Each page runs as one bash session in a fresh directory, with ``KUBECONFIG``
pointing at the session's local API server (the quickstart starts its own, as a
reader would), the venv's ``kubeforge``, ``python`` and ``kubectl`` first on PATH.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest

from kubeforge.testing import LocalApiServer

from .kf_markdown_blocks import Block, blocks, shell_script

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
PAGES = sorted(DOCS.glob("*.md"))


def check_pip_install(block: Block) -> None:
    """``pip install`` lines name this distribution and extras it really has."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    extras = set(project.get("optional-dependencies", {}))
    installs = [line for line in block.text.splitlines() if "pip install" in line]
    assert installs, block.where
    for line in installs:
        requirement = line.split("pip install", 1)[1].split()[-1].strip("'\"")
        name, _, rest = requirement.partition("[")
        assert name == project["name"], (block.where, line)
        assert set(filter(None, rest.rstrip("]").split(","))) <= extras, (block.where, line)


NORUN_CHECKS: dict[str, Callable[[Block], None]] = {"pip-install": check_pip_install}


def test_there_are_docs_for_every_layer() -> None:
    names = {page.stem for page in PAGES}
    assert {
        "index",
        "quickstart",
        "client",
        "informers",
        "controllers",
        "manager",
        "crds",
        "cli",
        "local-server",
        "testing",
        "concepts",
        "webhooks",
    } <= names


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_every_block_of_the_page_is_exercised(
    page: Path, tmp_path: Path, kube_apiserver: LocalApiServer
) -> None:
    found = blocks(page)
    for block in found:
        classified = (
            block.runs
            or "file" in block.options
            or (block.lang == "text" and "output" in block.options)
            or block.options.get("norun") in NORUN_CHECKS
        )
        assert classified, f"{block.where}: a block that is neither run, written nor checked"
    for block in found:
        if "norun" in block.options:
            NORUN_CHECKS[block.options["norun"]](block)
    if not any(b.runs or "file" in b.options for b in found):
        return

    outputs = tmp_path / ".kfdocs"
    outputs.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    script = shell_script([b for b in found if b.lang != "text"], outputs)
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "KUBECONFIG": str(kube_apiserver.kubeconfig),
        "PYTHONDONTWRITEBYTECODE": "1",
        "HOME": str(tmp_path),
    }
    result = subprocess.run(
        ["bash", "-c", script], cwd=work, env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, f"{page.name}:\n{result.stdout[-4000:]}\n{result.stderr[-2000:]}"

    _check_outputs(found, outputs)


def _check_outputs(found: list[Block], outputs: Path) -> None:
    ran = [b for b in found if b.lang != "text"]
    for position, block in enumerate(found):
        if block.lang != "text":
            continue
        before = found[position - 1]
        assert before.runs, f"{block.where}: an output block must follow a block that runs"
        produced = (outputs / f"{ran.index(before)}.out").read_text()
        _assert_lines_in_order(block, produced)


def _assert_lines_in_order(block: Block, produced: str) -> None:
    """Each expected line is in the output, after the one before it (``...``: anything)."""
    cursor = 0
    for expected in block.text.strip().splitlines():
        if expected.strip() in ("", "..."):
            continue
        pattern = re.escape(expected.strip()).replace(re.escape("..."), ".*")
        found = re.compile(pattern).search(produced, cursor)
        assert found is not None, f"{block.where}: {expected.strip()!r} not in\n{produced}"
        cursor = found.end()
