"""``LocalApiServer``: start, stop, kill and restart the local API server as a subprocess.

Entry point: ``LocalApiServer`` (also a context manager). ``start()`` returns once
the kubeconfig exists and ``/readyz`` answers over TLS; on failure or timeout it
raises ``ServerStartError`` carrying the server's log. Only the standard library and
PyYAML are imported, so loading the pytest plugin stays cheap.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

import yaml

__all__ = ["LocalApiServer", "ServerStartError"]

_STOP_TIMEOUT = 10.0


class ServerStartError(RuntimeError):
    """The server process did not become ready; the message ends with its log."""


class LocalApiServer:
    """One ``kubeforge apiserver`` process on 127.0.0.1 with its own kubeconfig.

    ``data_dir=None`` runs ``--in-memory`` (restarts lose everything); give a
    directory to keep objects across ``stop``/``kill`` and ``restart``. The port is
    picked on the first start and reused by every restart, so a kubeconfig stays
    valid (same CA and token too, when ``data_dir`` is set). ``authorization="RBAC"``
    enforces RBAC for every identity but the admin kubeconfig's; ``kubeconfig_for``
    and ``service_account_kubeconfig`` make the restricted ones. ``nodes`` and
    ``controllers`` are the server's ``--nodes`` and ``--controllers`` (``"-*"`` runs no
    kube-controller-manager controller, as under envtest; ``"*,-deployment"`` all but one).
    """

    def __init__(
        self,
        *,
        data_dir: Path | None = None,
        simulate_node: bool = True,
        authorization: str = "AlwaysAllow",
        nodes: int = 1,
        controllers: str = "*",
        extra_args: Sequence[str] = (),
        startup_timeout: float = 30.0,
    ) -> None:
        self.data_dir = Path(data_dir) if data_dir is not None else None
        self.simulate_node = simulate_node
        self.nodes = nodes
        self.controllers = controllers
        self.authorization = authorization
        self.extra_args = tuple(extra_args)
        self.startup_timeout = startup_timeout
        self._workdir = Path(tempfile.mkdtemp(prefix="kubeforge-server-"))
        self.kubeconfig = self._workdir / "kubeconfig"
        self.ca_file = self._workdir / "ca.crt"
        self.log_file = self._workdir / "server.log"
        self.url = ""
        self.token = ""
        self.port = 0
        self._process: subprocess.Popen[bytes] | None = None

    # --- lifecycle -------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def _command(self) -> list[str]:
        command = [sys.executable, "-m", "kubeforge.apiserver", "--port", str(self.port)]
        command += ["--kubeconfig", str(self.kubeconfig)]
        if self.data_dir is not None:
            command += ["--data-dir", str(self.data_dir)]
        else:
            command.append("--in-memory")
        if not self.simulate_node:
            command.append("--no-simulate-node")
        if self.nodes != 1:
            command += ["--nodes", str(self.nodes)]
        if self.controllers != "*":
            command += ["--controllers", self.controllers]
        if self.authorization != "AlwaysAllow":
            command += ["--authorization", self.authorization]
        return [*command, *self.extra_args]

    def start(self) -> None:
        """Start the process and wait until it serves; raises ``ServerStartError``."""
        if self.running:
            raise RuntimeError("the server is already running")
        self.kubeconfig.unlink(missing_ok=True)
        with self.log_file.open("ab") as log:
            # A session of its own: a terminal's Ctrl-C reaches only the program that owns
            # this server, which then stops its clients first and the server last.
            self._process = subprocess.Popen(
                self._command(),
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise ServerStartError(
                    f"the server exited with code {self._process.returncode}\n{self.log()}"
                )
            if self.kubeconfig.exists() and self._load_kubeconfig() and self._ready():
                return
            time.sleep(0.05)
        self.kill()
        raise ServerStartError(
            f"the server was not ready after {self.startup_timeout:g}s\n{self.log()}"
        )

    def stop(self) -> None:
        """SIGTERM, then wait for a clean exit (SIGKILL if it hangs)."""
        process = self._process
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(_STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def kill(self) -> None:
        """SIGKILL: the process gets no chance to flush or clean up."""
        process = self._process
        if process is None or process.poll() is not None:
            return
        process.kill()
        process.wait()

    def restart(self) -> None:
        """Stop (if running) and start again on the same port and data directory."""
        self.stop()
        self.start()

    def close(self) -> None:
        """Stop and remove the scratch directory (never ``data_dir``)."""
        self.stop()
        shutil.rmtree(self._workdir, ignore_errors=True)

    def __enter__(self) -> LocalApiServer:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # --- introspection ---------------------------------------------------------------------

    def process_id(self) -> int | None:
        """The server process's pid while it runs."""
        return self._process.pid if self.running and self._process is not None else None

    def log(self) -> str:
        """The server's output so far (it never contains the token)."""
        try:
            return self.log_file.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def ssl_context(self) -> ssl.SSLContext:
        """A client context trusting this server's CA."""
        return ssl.create_default_context(cafile=str(self.ca_file))

    # --- more identities (for servers run with ``--authorization RBAC``) ---------------------

    def kubeconfig_for(self, user: str, groups: Sequence[str] = ()) -> Path:
        """A kubeconfig authenticating as ``user`` in ``groups`` (plus
        ``system:authenticated``); under RBAC it may do only what bindings grant."""
        from kubeforge.apiserver.authn.usertokens import user_token  # stdlib-only; on demand

        return self._kubeconfig_with(user, user_token(self.token, user, tuple(groups)))

    def service_account_kubeconfig(
        self, namespace: str, name: str, *, expiration_seconds: int = 3600
    ) -> Path:
        """A kubeconfig with a TokenRequest token of ServiceAccount ``namespace/name``
        (which must exist), as a pod running under that account would use."""
        body = json.dumps(
            {
                "apiVersion": "authentication.k8s.io/v1",
                "kind": "TokenRequest",
                "spec": {"expirationSeconds": expiration_seconds},
            }
        ).encode()
        request = urllib.request.Request(
            f"{self.url}/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token",
            data=body,
            method="POST",
            headers={"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, context=self.ssl_context(), timeout=10) as response:
            token = json.loads(response.read())["status"]["token"]
        return self._kubeconfig_with(f"system:serviceaccount:{namespace}:{name}", token)

    def _kubeconfig_with(self, user: str, token: str) -> Path:
        config: Any = yaml.safe_load(self.kubeconfig.read_text())
        config["users"][0]["user"] = {"token": token}
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in user)
        path = self._workdir / f"kubeconfig-{safe}"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # it holds a token
        with os.fdopen(fd, "w") as handle:
            handle.write(yaml.safe_dump(config, sort_keys=False))
        return path

    def _load_kubeconfig(self) -> bool:
        try:
            config: Any = yaml.safe_load(self.kubeconfig.read_text())
            cluster = config["clusters"][0]["cluster"]
            user = config["users"][0]["user"]
            url, token = str(cluster["server"]), str(user["token"])
            ca = base64.b64decode(cluster["certificate-authority-data"])
        except (OSError, yaml.YAMLError, KeyError, IndexError, TypeError, ValueError):
            return False  # half-written: try again
        self.url, self.token = url, token
        self.port = int(url.rsplit(":", 1)[1])
        tmp = self.ca_file.with_suffix(".tmp")
        tmp.write_bytes(ca)
        os.replace(tmp, self.ca_file)
        return True

    def _ready(self) -> bool:
        try:
            with urllib.request.urlopen(
                f"{self.url}/readyz", context=self.ssl_context(), timeout=2
            ) as response:
                return bool(response.status == 200)
        except (urllib.error.URLError, OSError):
            return False

    def __repr__(self) -> str:
        return f"LocalApiServer(url={self.url!r}, data_dir={self.data_dir!r})"
