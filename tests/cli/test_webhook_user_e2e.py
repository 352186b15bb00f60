"""The issue's promise, as a user lives it: ``create webhook --defaulting
--programmatic-validation --conversion``, three functions filled in, and ``python -m
pytest`` in the project shows kubectl's create denied with the user's message and the
user's default applied, on the local API server; the conversion round-trips."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from .kf_cli import BIN, FRIGATE_API, kubeforge, new_project

V1 = ("--group", "ship", "--version", "v1", "--kind", "Frigate")

USER_TEST = """
import json
import subprocess

from kubeforge import Client

from frigate.api.v1.frigate_types import Frigate
from frigate.webhooks.frigate_v1_webhook import setup


def kubectl(server, *args, stdin=None):
    command = ["kubectl", f"--kubeconfig={server.kubeconfig}", *args]
    return subprocess.run(command, input=stdin, capture_output=True, text=True, check=False)


def frigate(name, namespace, **spec):
    metadata = {"name": name, "namespace": namespace}
    body = {"apiVersion": "ship.example.com/v1", "kind": "Frigate", "metadata": metadata}
    return json.dumps({**body, "spec": spec})


async def test_my_webhooks(client: Client, namespace, kube_rbac_apiserver, kube_webhooks):
    kube_webhooks(setup)
    bad = frigate("bad", namespace, foo="forbidden")
    done = kubectl(kube_rbac_apiserver, "create", "-f", "-", stdin=bad)
    assert 'The Frigate "bad" is invalid: spec.foo: Invalid value: "forbidden": not allowed' in (
        done.stderr
    )
    done = kubectl(kube_rbac_apiserver, "create", "-f", "-", stdin=frigate("good", namespace))
    assert done.returncode == 0, done.stderr
    assert (await client.api(Frigate, namespace=namespace).get("good")).spec.foo == "default"
"""


def fill_in(module: Path) -> None:
    """The user's three functions: a default, a refusal, and (kept) the conversions."""
    text = module.read_text()
    text = text.replace(
        '        # if not obj.spec.foo:\n        #     obj.spec.foo = "default"',
        '        if not obj.spec.foo:\n            obj.spec.foo = "default"',
    )
    text = text.replace(
        '        # if obj.spec.foo == "forbidden":\n'
        '        #     raise Invalid(obj, [FieldError.invalid("spec.foo", obj.spec.foo, '
        '"not allowed")])',
        '        if obj.spec.foo == "forbidden":\n'
        '            raise Invalid(obj, [FieldError.invalid("spec.foo", obj.spec.foo, '
        '"not allowed")])',
    )
    text = text.replace(
        "from kubeforge.webhook import AdmissionRequest,",
        "from kubeforge.webhook import AdmissionRequest, FieldError, Invalid,",
    )
    assert '            obj.spec.foo = "default"' in text and "        if obj.spec.foo ==" in text
    module.write_text(text)


def test_three_functions_and_pytest_show_the_webhooks_at_work(tmp_path: Path) -> None:
    project = new_project(tmp_path, *FRIGATE_API)
    assert kubeforge("create", "api", *V1, "--no-controller", cwd=project).code == 0
    types = project / "frigate/api/v1/frigate_types.py"
    types.write_text(types.read_text().replace("status=True))", "status=True), storage=True)"))
    flags = ("--defaulting", "--programmatic-validation", "--conversion")
    created = kubeforge("create", "webhook", *V1, *flags, cwd=project)
    assert created.code == 0, created
    fill_in(project / "frigate/webhooks/frigate_v1_webhook.py")
    (project / "tests/test_my_webhooks.py").write_text(USER_TEST.lstrip())
    assert kubeforge("generate", cwd=project).code == 0
    kubectl_dir = str(Path(shutil.which("kubectl") or "kubectl").parent)
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=300,
        env={
            "PATH": os.pathsep.join([str(BIN), kubectl_dir]),
            "PYTHONDONTWRITEBYTECODE": "1",
            "HOME": str(tmp_path),
        },
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    for test in (
        "tests/test_my_webhooks.py::test_my_webhooks",
        "tests/test_frigate_v1_webhook.py::test_a_frigate_is_admitted_through_the_webhooks",
        "tests/test_frigate_v1_webhook.py::test_a_frigate_converts_to_every_version_and_back",
        "tests/test_manager.py::test_the_manager_runs_under_its_generated_rbac",
    ):
        assert f"PASSED {test}" in result.stdout, result.stdout[-4000:]
