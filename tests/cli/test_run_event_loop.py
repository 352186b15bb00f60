"""``kubeforge run --event-loop``: uvloop when installed (``auto``), or asyncio's own loop."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import click
import pytest
import uvloop  # a test extra

from kubeforge.cli.run import event_loop_factory

# Reconciles each Namespace with a GET through the client (a whole-body TLS exchange on
# the chosen loop), then says which loop it ran on.
CONTROLLER = """
import asyncio
import logging

from kubeforge import Builder
from kubeforge.models.core_v1 import Namespace

log = logging.getLogger("loopcheck")


def setup(mgr):
    async def reconcile(request):
        namespace = await mgr.client.api(Namespace).get(request.name)
        loop = type(asyncio.get_running_loop()).__module__.split(".")[0]
        log.warning("got %s on %s", namespace.metadata.name, loop)

    Builder(mgr).named("loopcheck").for_(Namespace).complete(reconcile)
"""


def test_auto_picks_uvloop_when_installed_and_asyncio_declines_it() -> None:
    assert event_loop_factory("auto") is uvloop.new_event_loop
    assert event_loop_factory("uvloop") is uvloop.new_event_loop
    assert event_loop_factory("asyncio") is None


def test_without_uvloop_auto_falls_back_and_insisting_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "uvloop", None)  # what an uninstalled module looks like
    assert event_loop_factory("auto") is None
    with pytest.raises(click.UsageError, match="uvloop is not installed"):
        event_loop_factory("uvloop")


@pytest.mark.parametrize(("choice", "loop"), [("auto", "uvloop"), ("asyncio", "asyncio")])
def test_the_manager_reconciles_on_the_chosen_loop(
    tmp_path: Path, kube_apiserver: Any, choice: str, loop: str
) -> None:
    target = tmp_path / "loopcheck.py"
    target.write_text(CONTROLLER)
    output = tmp_path / "run.out"
    command = [
        sys.executable, "-m", "kubeforge.cli", "run", str(target),
        "--kubeconfig", str(kube_apiserver.kubeconfig),
        "--metrics-bind-address", "0", "--health-probe-bind-address", "0",
        "--event-loop", choice,
    ]  # fmt: skip
    with output.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    try:
        for _ in range(1200):
            if "got default on" in output.read_text() or process.poll() is not None:
                break
            time.sleep(0.05)
        process.terminate()
        assert process.wait(30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    text = output.read_text()
    assert f"got default on {loop}" in text, text[-2000:]
    assert "Traceback" not in text
