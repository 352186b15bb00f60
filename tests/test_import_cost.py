"""What ``import kubeforge`` and ``kubeforge --help`` load: only what they need.

A structural check, not a timing: each case imports in a fresh interpreter and
lists the heavy modules that ended up in ``sys.modules``. Those modules cost
tens to hundreds of milliseconds each (aiohttp builds two SSL contexts when
imported, the local server is hundreds of files), and a process that never
serves HTTPS or runs the local server should not pay for them.
"""

from __future__ import annotations

import json
import subprocess
import sys

import click
import pytest

from kubeforge.cli.main import COMMANDS, cli
from kubeforge.testing import LocalApiServer

# Modules nothing but a running client, a served endpoint or one subcommand needs.
HEAVY = (
    "aiohttp",
    "aiohttp.web",
    "click",
    "cryptography",
    "kubeforge.apiserver",
    "kubeforge.codegen",
    "kubeforge.crd",
    "kubeforge.runtime",
    "kubeforge.webhook",
    "prometheus_client",
    "rich",
    "yaml",
)


def _loaded_after(statement: str) -> set[str]:
    probe = f"import json, sys; {statement}; print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    loaded = set(json.loads(done.stdout))
    return {name for name in HEAVY if name in loaded}


@pytest.mark.parametrize(
    ("statement", "allowed"),
    [
        ("import kubeforge", set()),
        ("import kubeforge.models.core_v1", set()),
        ("import kubeforge.cli.main", {"click"}),
        ("from kubeforge.core import errors, meta", set()),
        # `kubeforge run` needs the runtime, not the CRD machinery (only --as-generated-rbac),
        # nor aiohttp's server side or certificates until it serves something, nor aiohttp's
        # client at all (requests and watches travel on Http1Pool's connections).
        (
            "import kubeforge.cli.run",
            {"click", "kubeforge.runtime", "kubeforge.webhook", "prometheus_client", "yaml"},
        ),
        (
            "import kubeforge.runtime",
            {"kubeforge.runtime", "kubeforge.webhook", "prometheus_client", "yaml"},
        ),
    ],
)
def test_importing_loads_no_heavy_module_it_does_not_use(statement: str, allowed: set[str]) -> None:
    assert _loaded_after(statement) - allowed == set()


def test_a_name_of_the_package_loads_its_layer_on_first_use() -> None:
    loaded = _loaded_after("import kubeforge; kubeforge.Manager")
    assert "kubeforge.runtime" in loaded
    assert "aiohttp" not in loaded


def test_the_top_level_help_loads_no_subcommand() -> None:
    loaded = _loaded_after(
        "from click.testing import CliRunner; from kubeforge.cli.main import cli;"
        " assert CliRunner().invoke(cli, ['--help']).exit_code == 0"
    )
    assert loaded - {"click"} == set()


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_the_help_line_of_a_lazy_command_is_its_own(name: str) -> None:
    command = COMMANDS[name].load()
    ctx = click.Context(cli)
    assert cli.get_command(ctx, name) is command
    assert command.get_short_help_str(limit=500) == COMMANDS[name].short_help


_REQUESTS_THEN_WATCH = """
import asyncio, sys
from kubeforge.client import Client
from kubeforge.config import load_config
from kubeforge.models.core_v1 import Namespace

async def main():
    async with Client(load_config(kubeconfig=sys.argv[1])) as client:
        namespaces = client.api(Namespace)
        page = await namespaces.list()
        await namespaces.get("default")
        print("aiohttp" in sys.modules)
        async for _ in namespaces.watch(resource_version=page.resource_version, timeout_seconds=1):
            break
        print("aiohttp" in sys.modules)
    print("aiohttp" in sys.modules)  # the watch abandoned, the connections closed

asyncio.run(main())
"""


@pytest.mark.live
def test_requests_and_watches_leave_aiohttp_unimported(
    kube_apiserver: LocalApiServer,
) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _REQUESTS_THEN_WATCH, str(kube_apiserver.kubeconfig)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.split() == ["False", "False", "False"]
