"""``examples/frigate`` is exactly what the CLI makes, plus the user's own edits.

The example was made the way a user makes it: ``kubeforge init``, ``kubeforge
create api``, edits to the files listed in ``USER_EDITED`` (the fields of the
seed's Frigate, its reconcile logic, a test of it, the sample, a README section),
then ``kubeforge generate``. Regenerating the same way must give the committed tree byte for byte:
every other file is the CLI's, and the manifests match the edited code.
"""

from __future__ import annotations

import calendar
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from .kf_cli import BIN, FRIGATE, FRIGATE_API, kubeforge_process, tree

USER_EDITED = (
    "frigate/api/v1beta1/frigate_types.py",
    "frigate/controllers/frigate_controller.py",
    "tests/test_frigate_controller.py",
    "config/samples/ship_v1beta1_frigate.yaml",
    "README.md",
    # the webhooks (README: "Then it gained webhooks")
    "frigate/api/v1/frigate_types.py",
    "frigate/api/v1beta1/frigate_conversion.py",
    "frigate/webhooks/frigate_v1beta1_webhook.py",
    "tests/test_frigate_v1beta1_webhook.py",
    "tests/test_frigate_v1_webhook.py",
    "config/samples/ship_v1_frigate.yaml",
)
FRIGATE_V1 = ("--group", "ship", "--version", "v1", "--kind", "Frigate")


def test_regenerating_the_example_with_the_cli_gives_the_committed_tree(tmp_path: Path) -> None:
    year = int(
        re.search(r"Copyright (\d{4})", (FRIGATE / "hack/boilerplate.py.txt").read_text())[1]
    )
    env = {"SOURCE_DATE_EPOCH": str(calendar.timegm((year, 6, 1, 0, 0, 0)))}
    project = tmp_path / "frigate"
    project.mkdir()
    steps = [
        (
            "init",
            "--domain",
            "example.com",
            "--license",
            "apache2",
            "--owner",
            "The kubeforge authors",
        ),
        ("create", "api", *FRIGATE_API),
        (
            "create",
            "webhook",
            *FRIGATE_API,
            "--defaulting",
            "--programmatic-validation",
            "--no-generate",
        ),
        ("create", "api", *FRIGATE_V1, "--no-controller"),
        # generated only at the end, with the user's storage marker in place
        ("create", "webhook", *FRIGATE_V1, "--conversion", "--no-generate"),
    ]
    for step in steps:
        done = kubeforge_process(*step, cwd=project, env=env)
        assert done.returncode == 0, done.stderr
    for edited in USER_EDITED:
        shutil.copyfile(FRIGATE / edited, project / edited)
    done = kubeforge_process("generate", cwd=project, env=env)
    assert done.returncode == 0, done.stderr

    regenerated, committed = tree(project), tree(FRIGATE)

    assert sorted(regenerated) == sorted(committed)
    for path in sorted(committed):
        assert regenerated[path] == committed[path], f"{path} differs from what the CLI writes"


def test_the_frigate_crd_has_the_seed_s_fields_and_a_status_subresource() -> None:
    crd = yaml.safe_load((FRIGATE / "config/crd/bases/ship.example.com_frigates.yaml").read_text())
    versions = {v["name"]: v for v in crd["spec"]["versions"]}
    assert crd["metadata"]["name"] == "frigates.ship.example.com"
    assert sorted(versions) == ["v1", "v1beta1"]
    assert versions["v1beta1"]["storage"] is True and versions["v1"]["storage"] is False
    for name, fields in (("v1beta1", {"foo", "demo"}), ("v1", {"foo", "description", "crew"})):
        version = versions[name]
        schema = version["schema"]["openAPIV3Schema"]["properties"]
        assert set(schema["spec"]["properties"]) == fields
        assert schema["status"]["properties"]["created"]["type"] == "boolean"
        assert version["subresources"] == {"status": {}}


# The project's venv, and kubectl: the webhook tests drive it.
PATH = os.pathsep.join([str(BIN), str(Path(shutil.which("kubectl") or "kubectl").parent)])


def test_the_example_s_own_tests_pass_on_the_local_api_server(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider"],
        cwd=FRIGATE,
        capture_output=True,
        text=True,
        timeout=120,
        env={
            "PYTHONPATH": str(FRIGATE),
            "PATH": PATH,
            "PYTHONDONTWRITEBYTECODE": "1",
            "HOME": str(tmp_path),  # kubectl's cache goes under $HOME/.kube
        },
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "10 passed" in result.stdout
