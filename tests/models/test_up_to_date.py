"""The committed ``kubeforge.models`` modules are exactly what the generator produces now."""

from __future__ import annotations

from pathlib import Path

import pytest

import kubeforge.models
from kubeforge.codegen.builtin import main


def test_committed_models_match_a_fresh_generation(capsys: pytest.CaptureFixture[str]) -> None:
    package_dir = Path(kubeforge.models.__file__).parent
    status = main(["--check", "--out", str(package_dir)])
    out = capsys.readouterr().out
    assert status == 0, f"regenerate with: python -m kubeforge.codegen.builtin\n{out}"
