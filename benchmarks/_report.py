"""Shared helpers of the benchmarks: what was measured where, tables, JSON and PNG output.

Entry points: ``environment()`` (machine, Python, package versions, git commit and
the exact command), ``print_table()``, ``write_results()`` (JSON under
``benchmarks/results/``, ``<name>-quick.json`` for ``--quick`` runs so a smoke
test never overwrites the real numbers) and ``bar_chart()`` (a PNG beside it,
skipped with a note when matplotlib, from the ``bench`` extra, is missing).
"""

from __future__ import annotations

import json
import os
import platform
import shlex
import signal
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

__all__ = [
    "RESULTS",
    "bar_chart",
    "clean_exit_on_sigterm",
    "environment",
    "machine",
    "print_table",
    "results_path",
    "versions",
    "write_results",
]

RESULTS = Path(__file__).resolve().parent / "results"
_ROOT = Path(__file__).resolve().parent.parent

# Every package a benchmark here may compare; absent ones are reported as such.
_PACKAGES = (
    "kubeforge",
    "aiohttp",
    "msgspec",
    "orjson",
    "kopf",
    "kubernetes",
    "kubernetes_asyncio",
    "kmock",
    "pydantic",
    "psutil",
)


def clean_exit_on_sigterm() -> None:
    """Make SIGTERM unwind like Ctrl-C, so servers and controllers a run started are stopped."""

    def _exit(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, _exit)


def compile_bytecode() -> None:
    """Write the bytecode caches of kubeforge's source and examples, as installing a wheel does.

    The peers are installed packages whose ``.pyc`` files pip wrote; kubeforge is an
    editable install, and with ``PYTHONDONTWRITEBYTECODE`` set (or a fresh checkout)
    every controller process would compile all of its source again, a cost no
    installed kubeforge pays. ``compileall`` writes the caches whatever that says.
    """
    import compileall

    for tree in (_ROOT / "src" / "kubeforge", _ROOT / "examples"):
        compileall.compile_dir(tree, quiet=1, workers=1)


def machine() -> dict[str, Any]:
    """CPU model, core count, memory and OS: what the numbers depend on most."""
    cpu = platform.processor() or platform.machine()
    memory_gib = 0.0
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                memory_gib = round(int(line.split()[1]) / 1024 / 1024, 1)
                break
    except OSError:
        pass  # not Linux: the platform module's answer stands
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gib": memory_gib,
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
    }


def versions(extra: Iterable[str] = ()) -> dict[str, str]:
    """Installed versions of the compared packages (``"absent"`` if not installed)."""
    found: dict[str, str] = {}
    for name in (*_PACKAGES, *extra):
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "absent"
    return found


def _git_commit() -> str:
    try:
        out = subprocess.run(
            ["git", "-C", str(_ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.stdout.strip() or "unknown"


def environment(module: str, argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Everything needed to judge and reproduce a run of ``python -m <module> <argv>``."""
    args = list(sys.argv[1:] if argv is None else argv)
    return {
        "command": shlex.join(["python", "-m", module, *args]),
        "date": datetime.now(UTC).replace(microsecond=0).isoformat(),
        "git_commit": _git_commit(),
        "machine": machine(),
        # Other work on the machine skews wall times (CPU seconds much less): say how busy.
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
        "versions": versions(),
    }


def results_path(name: str, *, quick: bool = False, suffix: str = ".json") -> Path:
    """``benchmarks/results/<name>[-quick]<suffix>``."""
    return RESULTS / f"{name}{'-quick' if quick else ''}{suffix}"


def write_results(name: str, payload: Mapping[str, Any], *, quick: bool = False) -> Path:
    """Write ``payload`` as indented JSON and return the path.

    A full run is also kept as ``results/history/<name>-<date>-<commit>.json``, so runs
    on different commits can be compared; the report reads only the latest.
    """
    path = results_path(name, quick=quick)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = _without_base_paths(json.dumps(payload, indent=2, sort_keys=False) + "\n")
    path.write_text(text)
    if not quick:
        day = str(payload.get("date", "undated"))[:10]
        kept = RESULTS / "history" / f"{name}-{day}-{payload.get('git_commit', 'unknown')}.json"
        kept.parent.mkdir(parents=True, exist_ok=True)
        kept.write_text(text)
    return path


BASE_CHECKOUT = "BASE_CHECKOUT"
"""What a result file says instead of the local path of the "before" checkout it compared
against (``--base-src`` / ``$KF_BENCH_BASE``): the commit is in the command's context, and
a machine's directories mean nothing to a reader."""


def _without_base_paths(text: str) -> str:
    bases = [os.environ.get("KF_BENCH_BASE", "")]
    args = sys.argv[1:]
    bases += [args[i + 1] for i, arg in enumerate(args[:-1]) if arg == "--base-src"]
    bases += [arg.split("=", 1)[1] for arg in args if arg.startswith("--base-src=")]
    for base in sorted({b.rstrip("/") for b in bases if b}, key=len, reverse=True):
        checkout = base.removesuffix("/src")
        text = text.replace(checkout, BASE_CHECKOUT)
    return text


def print_table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
    """A plain aligned table: numbers right-aligned, text left-aligned."""
    text_rows = [[_cell(value) for value in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in text_rows:
        widths = [max(w, len(cell)) for w, cell in zip(widths, row, strict=True)]
    numeric = [
        all(_is_number(row[i]) for row in text_rows) if text_rows else False
        for i in range(len(headers))
    ]
    print("  ".join(_align(h, w, n) for h, w, n in zip(headers, widths, numeric, strict=True)))
    print("  ".join("-" * w for w in widths))
    for row in text_rows:
        print("  ".join(_align(c, w, n) for c, w, n in zip(row, widths, numeric, strict=True)))


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:,.2f}" if abs(value) < 1000 else f"{value:,.0f}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return "-" if value is None else str(value)


def _is_number(cell: str) -> bool:
    stripped = cell.replace(",", "").rstrip("x").replace(".", "", 1).lstrip("-")
    return stripped.isdigit() or cell == "-"


def _align(cell: str, width: int, right: bool) -> str:
    return cell.rjust(width) if right else cell.ljust(width)


def bar_chart(
    name: str,
    title: str,
    panels: Sequence[str],
    series: Mapping[str, Sequence[float | None]],
    *,
    quick: bool = False,
) -> Path | None:
    """One small bar chart per metric (``panels``, each naming its unit), side by side.

    ``series`` maps a contender to one value per panel; ``None`` is drawn as "n/a".
    Returns the PNG's path, or ``None`` (and says so) when matplotlib is missing.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")  # no display here; and never pop up windows
        import matplotlib.pyplot as plt
    except ImportError:
        print("(no PNG chart: matplotlib is missing; pip install -e '.[bench]')")
        return None
    path = results_path(name, quick=quick, suffix=".png")
    path.parent.mkdir(parents=True, exist_ok=True)
    labels = list(series)
    figure, axes = plt.subplots(
        1, len(panels), figsize=(3.2 * len(panels) + 0.8, 3.6), dpi=110, squeeze=False
    )
    colours = [f"C{i}" for i in range(len(labels))]
    for index, (axis, panel) in enumerate(zip(axes[0], panels, strict=True)):
        values = [series[label][index] for label in labels]
        bars = axis.bar(
            range(len(labels)), [v if v is not None else 0.0 for v in values], color=colours
        )
        axis.bar_label(bars, labels=[_short(v) for v in values], fontsize=8, padding=2)
        axis.set_xticks(range(len(labels)), labels, rotation=20, ha="right", fontsize=8)
        axis.set_title(panel, fontsize=9)
        axis.margins(y=0.18)
    figure.suptitle(title, fontsize=10)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
    return path


def _short(value: float | None) -> str:
    if value is None:
        return "n/a"
    return f"{value:.3g}"
