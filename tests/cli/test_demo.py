"""The README's first command: the demo converges and exits 0 with --exit-when-converged."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_the_demo_converges_and_exits_zero() -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "kubeforge.cli",
            "demo",
            "--pods",
            "4",
            "--exit-when-converged",
            "--timeout",
            "60",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert "converged" in result.stdout
    assert "web-3" in result.stdout
