"""The PodToIp controller as a Python user could write it today, and how each is run.

Entry points: ``CONTENDERS`` (kubeforge's ``kubeforge run examples/podtoip``, the
kopf version in ``kopf_podtoip.py`` and the official-client version in
``official_podtoip.py``), ``available()`` (those whose packages are installed)
and ``ControllerProcess`` (one controller as a subprocess, with its CPU seconds
and peak RSS read from the kernel while it still runs).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import psutil

__all__ = [
    "CONTENDERS",
    "Contender",
    "ControllerProcess",
    "available",
    "base_source",
    "py_spy",
]

_HERE = Path(__file__).resolve().parent
_ROOT = _HERE.parent.parent


@dataclass(frozen=True)
class Contender:
    name: str
    label: str
    needs: str  # the module that must be importable

    def command(self, kubeconfig: Path) -> list[str]:
        python = sys.executable
        if self.name.startswith("kubeforge"):
            target = _ROOT / "examples" / "podtoip"
            if self.name == "kubeforge-8w":
                target = _HERE / "kubeforge_podtoip_workers.py"
            return [
                python, "-m", "kubeforge.cli", "run", str(target),
                "--kubeconfig", str(kubeconfig),
                "--metrics-bind-address", "0", "--health-probe-bind-address", "0",
            ]  # fmt: skip
        if self.name == "kopf":
            return [
                python, "-m", "kopf", "run", "--standalone", "--all-namespaces", "--quiet",
                str(_HERE / "kopf_podtoip.py"),
            ]  # fmt: skip
        return [python, str(_HERE / "official_podtoip.py"), "--kubeconfig", str(kubeconfig)]

    def environment(self, kubeconfig: Path) -> dict[str, str]:
        # kopf logs in through the official client's kubeconfig loading: $KUBECONFIG.
        env = {**os.environ, "KUBECONFIG": str(kubeconfig), "PYTHONUNBUFFERED": "1"}
        if self.name == "kubeforge-base":
            # Another checkout's kubeforge ahead of this one on the path: a change and
            # what it changed measured side by side, against the same example.
            env["PYTHONPATH"] = base_source()
        return env


CONTENDERS = (
    Contender("kubeforge", "kubeforge (kubeforge run examples/podtoip)", "kubeforge"),
    Contender("kopf", "kopf + official client", "kopf"),
    Contender("official", "official client SharedInformer", "kubernetes.informer"),
    # Only when asked for (--only kubeforge-8w): the example with 8 workers instead of 2.
    Contender("kubeforge-8w", "kubeforge, the example with 8 workers", "kubeforge"),
    # Only when asked for (--only kubeforge-base): the same example on the kubeforge whose
    # src/ directory KF_BENCH_BASE names (e.g. `git archive main src | tar -x -C DIR`).
    Contender("kubeforge-base", "kubeforge from $KF_BENCH_BASE (a baseline)", "kubeforge"),
)
_DEFAULT = ("kubeforge", "kopf", "official")


def available(names: list[str] | None = None) -> list[Contender]:
    """The contenders asked for (the three peers by default) whose packages are installed."""
    chosen = [c for c in CONTENDERS if (c.name in names if names else c.name in _DEFAULT)]
    return [c for c in chosen if importlib.util.find_spec(c.needs.split(".")[0]) is not None]


def base_source() -> str:
    """The ``src`` directory of the baseline checkout ``KF_BENCH_BASE`` names."""
    base = os.environ.get("KF_BENCH_BASE")
    if not base:
        raise SystemExit("--only kubeforge-base needs KF_BENCH_BASE=<a checkout with src/>")
    return str(Path(base).resolve() / "src")


def py_spy() -> str | None:
    """py-spy from the running environment's scripts, else from ``PATH``."""
    beside = Path(sys.executable).with_name("py-spy")
    return str(beside) if beside.exists() else shutil.which("py-spy")


class ControllerProcess:
    """A controller subprocess whose resource use is read before it is stopped."""

    def __init__(
        self, contender: Contender, kubeconfig: Path, log: Path, *, profile: Path | None = None
    ) -> None:
        self.contender = contender
        self.log = log
        self._spy: subprocess.Popen[bytes] | None = None
        with log.open("wb") as out:
            self.popen = subprocess.Popen(
                contender.command(kubeconfig),
                env=contender.environment(kubeconfig),
                cwd=_ROOT,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        self.process = psutil.Process(self.popen.pid)
        spy = py_spy()
        if profile is not None and spy is not None:
            # Sampling from outside (--nonblocking: the target is never paused), so the
            # controller's own CPU time stays what it would be.
            self._spy = subprocess.Popen(
                [spy, "record", "--pid", str(self.popen.pid), "--format", "raw",
                 "--rate", "500", "--nonblocking", "--output", str(profile)],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )  # fmt: skip

    def alive(self) -> bool:
        return self.popen.poll() is None

    def cpu_seconds(self) -> float:
        """User + system CPU time of the process and any children it started."""
        times = self.process.cpu_times()
        return float(times.user + times.system + times.children_user + times.children_system)

    def peak_rss_mib(self) -> float:
        """The kernel's high-water mark of resident memory (``VmHWM``), in MiB."""
        try:
            for line in Path(f"/proc/{self.popen.pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        except OSError:
            pass  # not Linux: the current RSS is the best psutil can say
        return float(self.process.memory_info().rss) / 1024 / 1024

    def stop(self) -> int:
        """SIGTERM, then SIGKILL after 10 s; returns the exit code."""
        if self.alive():
            self.popen.send_signal(signal.SIGTERM)
            try:
                self.popen.wait(10)
            except subprocess.TimeoutExpired:
                self.popen.kill()
        code = self.popen.wait()
        if self._spy is not None:
            self._spy.wait(30)  # py-spy writes its file once the target is gone
        return code

    def output(self) -> str:
        return self.log.read_text(errors="replace")
