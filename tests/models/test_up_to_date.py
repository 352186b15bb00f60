"""The committed ``kubeforge.models`` modules are exactly what the generator produces now."""

from __future__ import annotations

from pathlib import Path

import kubeforge.models
from kubeforge.codegen.builtin import stale_files


def test_committed_models_match_a_fresh_generation() -> None:
    package_dir = Path(kubeforge.models.__file__).parent
    stale = stale_files(package_dir)
    assert stale == [], f"regenerate with: python -m kubeforge.codegen.builtin  (stale: {stale})"
