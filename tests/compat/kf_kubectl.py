"""Helpers for driving the real kubectl: one-shot commands and streamed output."""

from __future__ import annotations

import json
import os
import selectors
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["COMMAND_TIMEOUT", "CRD_MANIFEST", "Kubectl", "LineStream", "until"]

HERE = Path(__file__).parent
CRD_MANIFEST = HERE / "manifests" / "podtoip-crd.yaml"

# Generous upper bounds so a hung client fails the test instead of the whole run;
# nothing is asserted about how long anything takes.
COMMAND_TIMEOUT = 60.0


class Kubectl:
    """Runs the kubectl on PATH against one server, with a private cache directory."""

    def __init__(self, kubeconfig: Path, cache_dir: Path, namespace: str) -> None:
        executable = shutil.which("kubectl")
        assert executable, "kubectl must be on PATH for the compatibility suite"
        self.base = [
            executable,
            f"--kubeconfig={kubeconfig}",
            f"--cache-dir={cache_dir}",
        ]
        self.namespace = namespace
        self.env = {**os.environ, "KUBECONFIG": str(kubeconfig)}

    def _argv(self, args: tuple[str, ...], namespaced: bool) -> list[str]:
        scope = [f"--namespace={self.namespace}"] if namespaced else []
        return [*self.base, *scope, *args]

    def complete(
        self, *args: str, stdin: str | None = None, namespaced: bool = True
    ) -> subprocess.CompletedProcess[str]:
        """Run one command to completion, whatever its exit code."""
        return subprocess.run(
            self._argv(args, namespaced),
            input=stdin,
            capture_output=True,
            text=True,
            timeout=COMMAND_TIMEOUT,
            env=self.env,
            check=False,
        )

    def run(self, *args: str, stdin: str | None = None, namespaced: bool = True) -> str:
        """Run one command that must succeed; return its stdout."""
        done = self.complete(*args, stdin=stdin, namespaced=namespaced)
        assert done.returncode == 0, f"kubectl {' '.join(args)} failed:\n{done.stderr}"
        return done.stdout

    def fails(self, *args: str, stdin: str | None = None, namespaced: bool = True) -> str:
        """Run one command that must fail; return its stderr."""
        done = self.complete(*args, stdin=stdin, namespaced=namespaced)
        assert done.returncode != 0, f"kubectl {' '.join(args)} unexpectedly succeeded"
        return done.stderr

    def json(self, *args: str) -> Any:
        """``kubectl get ARGS -o json``, decoded."""
        return json.loads(self.run("get", *args, "-o", "json"))

    def until(self, args: tuple[str, ...], check: Callable[[Any], Any]) -> Any:
        """``json(*args)`` again until ``check`` holds; the ceiling turns a hang into a
        failure (no timing is asserted)."""
        deadline = time.monotonic() + COMMAND_TIMEOUT
        while True:
            body = self.json(*args)
            if check(body):
                return body
            assert time.monotonic() < deadline, f"never satisfied: {json.dumps(body)[:2000]}"
            time.sleep(0.1)

    def events(self, kind: str, name: str) -> list[dict[str, Any]]:
        """The Events about one object, oldest first."""
        selector = f"involvedObject.kind={kind},involvedObject.name={name}"
        items: list[dict[str, Any]] = self.json("events", "--field-selector", selector)["items"]
        return sorted(items, key=lambda e: int(e["metadata"]["resourceVersion"]))

    def stream(self, *args: str) -> LineStream:
        """Start a long-running command (``get -w``) whose stdout is read line by line."""
        process = subprocess.Popen(
            self._argv(args, True),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=self.env,
        )
        return LineStream(process)


class LineStream:
    """Lines of a running process's stdout, each read with an upper bound on waiting.

    Reads the pipe's file descriptor directly into a private buffer: a buffered
    ``readline`` could swallow several lines at once and leave ``select`` waiting for
    data that already arrived.
    """

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        assert process.stdout is not None
        self._fd = process.stdout.fileno()
        self._buffer = b""
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._fd, selectors.EVENT_READ)

    def next_line(self) -> str:
        deadline = time.monotonic() + COMMAND_TIMEOUT
        while b"\n" not in self._buffer:
            assert time.monotonic() < deadline, "no output line from the streaming command"
            if not self._selector.select(timeout=0.5):
                assert self.process.poll() is None, f"command exited: {self._stderr()}"
                continue
            chunk = os.read(self._fd, 65536)
            assert chunk, f"stream ended early: {self._stderr()}"
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode()

    def _stderr(self) -> str:
        if self.process.poll() is None or self.process.stderr is None:
            return ""
        return self.process.stderr.read().decode(errors="replace")

    def close(self) -> None:
        self._selector.close()
        if self.process.poll() is None:
            self.process.terminate()
        self.process.wait(timeout=COMMAND_TIMEOUT)
        for pipe in (self.process.stdout, self.process.stderr):
            if pipe is not None:
                pipe.close()


def until(read: Callable[[], Any], check: Callable[[Any], bool]) -> Any:
    """Call ``read`` until ``check`` accepts its value (which is returned); fail the test
    once ``COMMAND_TIMEOUT`` has passed without that."""
    deadline = time.monotonic() + COMMAND_TIMEOUT
    while True:
        value = read()
        if check(value):
            return value
        assert time.monotonic() < deadline, f"never satisfied: {value}"
        time.sleep(0.1)
