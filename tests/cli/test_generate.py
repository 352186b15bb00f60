"""``kubeforge generate``: manifests from a project's code, and models from any CRD."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

from .kf_cli import FRIGATE, FRIGATE_API, kubeforge, new_project, one_line_error, tree

CRD_FILE = "config/crd/bases/ship.example.com_frigates.yaml"


def test_regenerating_an_unchanged_project_changes_no_byte(tmp_path: Path) -> None:
    project = new_project(tmp_path, *FRIGATE_API)
    before = tree(project)

    for command in (("generate",), ("generate", "crd"), ("generate", "rbac")):
        assert kubeforge(*command, cwd=project).code == 0

    assert tree(project) == before


def test_the_crd_follows_the_types_and_their_docstrings(tmp_path: Path) -> None:
    project = new_project(tmp_path, *FRIGATE_API)
    types = project / "frigate/api/v1beta1/frigate_types.py"
    types.write_text(
        types.read_text()
        .replace("import msgspec\n", "from typing import Annotated\n\nimport msgspec\n")
        .replace(
            'remove or update it."""\n',
            'remove or update it."""\n'
            "    guns: Annotated[int, msgspec.Meta(ge=0, le=64)] = 8\n"
            '    """How many guns the frigate carries."""\n',
        )
    )

    outcome = kubeforge("generate", "crd", cwd=project)

    assert outcome.code == 0, outcome
    crd = yaml.safe_load((project / CRD_FILE).read_text())
    guns = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"][
        "properties"
    ]["guns"]
    assert guns == {
        "default": 8,
        "description": "How many guns the frigate carries.",
        "maximum": 64,
        "minimum": 0,
        "type": "integer",
    }


def test_a_second_version_joins_the_same_crd(tmp_path: Path) -> None:
    project = new_project(tmp_path, *FRIGATE_API)
    v1 = ("--group", "ship", "--version", "v1", "--kind", "Frigate", "--no-controller")
    created = kubeforge("create", "api", *v1, cwd=project)
    assert created.code == 0, created
    assert "mark the one the server stores with CRDOptions(storage=True)" in created.stdout
    types = project / "frigate/api/v1/frigate_types.py"
    types.write_text(
        types.read_text().replace(
            "CRDOptions(subresources=Subresources(status=True))",
            "CRDOptions(subresources=Subresources(status=True), storage=True)",
        )
    )

    assert kubeforge("generate", cwd=project).code == 0

    crd = yaml.safe_load((project / CRD_FILE).read_text())
    versions = {v["name"]: v["storage"] for v in crd["spec"]["versions"]}
    assert versions == {"v1": True, "v1beta1": False}
    assert sorted(p.name for p in (project / "config/crd/bases").iterdir()) == [
        "ship.example.com_frigates.yaml"
    ]


def test_the_role_unites_the_rules_of_every_controller(tmp_path: Path) -> None:
    project = new_project(tmp_path, *FRIGATE_API)
    pods = ("--group", "core", "--version", "v1", "--kind", "Pod", "--no-resource")
    assert kubeforge("create", "api", *pods, cwd=project).code == 0

    role = yaml.safe_load((project / "config/rbac/role.yaml").read_text())

    assert role["kind"] == "ClusterRole"
    assert role["metadata"]["name"] == "frigate-manager-role"
    covered = {
        (g, r) for rule in role["rules"] for g in rule["apiGroups"] for r in rule["resources"]
    }
    assert {("", "pods"), ("", "pods/status"), ("ship.example.com", "frigates")} <= covered


def test_an_error_in_the_user_s_code_is_one_line_naming_the_module(tmp_path: Path) -> None:
    project = new_project(tmp_path, *FRIGATE_API)
    types = project / "frigate/api/v1beta1/frigate_types.py"
    source = types.read_text()
    types.write_text(source + "\ndef broken(:\n")
    line = source.count("\n") + 2

    outcome = kubeforge("generate", cwd=project)

    one_line_error(outcome, 1, f"frigate/api/v1beta1/frigate_types.py:{line}", "SyntaxError")


def test_an_exception_in_the_user_s_code_names_the_line_that_raised_it(tmp_path: Path) -> None:
    project = new_project(tmp_path, *FRIGATE_API)
    controller = project / "frigate/controllers/frigate_controller.py"
    source = controller.read_text()
    controller.write_text(source + "\nsettings = {}['missing']\n")
    line = source.count("\n") + 2

    outcome = kubeforge("generate", "rbac", cwd=project)

    one_line_error(
        outcome, 1, f"frigate/controllers/frigate_controller.py:{line}", "KeyError: 'missing'"
    )


def test_an_rbac_list_with_something_else_than_rules_is_refused(tmp_path: Path) -> None:
    project = new_project(tmp_path, *FRIGATE_API)
    controller = project / "frigate/controllers/frigate_controller.py"
    controller.write_text(controller.read_text() + '\nrbac.append("get pods")\n')

    outcome = kubeforge("generate", "rbac", cwd=project)

    one_line_error(outcome, 1, "cannot generate manifests", "not a Rule")


def test_models_from_a_crd_file_are_importable_and_typed(tmp_path: Path) -> None:
    crd = FRIGATE / CRD_FILE

    outcome = kubeforge("generate", "models", str(crd), "--package", "fleet.models", cwd=tmp_path)

    assert outcome.code == 0, outcome
    written = sorted(p.name for p in (tmp_path / "fleet/models").iterdir())
    # the example CRD serves v1beta1 and v1 (one module each)
    assert written == ["__init__.py", "frigate_v1.py", "frigate_v1beta1.py"]
    (tmp_path / "fleet/__init__.py").write_text("")
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            "from fleet.models.frigate_v1beta1 import Frigate;"
            "f = Frigate.info; print(f.group, f.version, f.plural, f.namespaced)",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert probe.stdout.split() == ["ship.example.com", "v1beta1", "frigates", "True"], probe
    check = kubeforge(
        "generate", "models", str(crd), "--package", "fleet.models", "--check", cwd=tmp_path
    )
    assert check.code == 0, check


def test_models_check_fails_when_the_files_are_stale(tmp_path: Path) -> None:
    crd = str(FRIGATE / CRD_FILE)
    args = ("generate", "models", crd, "--package", "models", "--output", "out")
    assert kubeforge(*args, cwd=tmp_path).code == 0
    (tmp_path / "out/frigate_v1beta1.py").write_text("# edited\n")

    outcome = kubeforge(*args, "--check", cwd=tmp_path)

    one_line_error(outcome, 1, "out of date", "frigate_v1beta1.py")


def test_models_from_a_file_without_crds_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "pod.yaml").write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n")
    outcome = kubeforge("generate", "models", "pod.yaml", "--package", "m", cwd=tmp_path)
    one_line_error(outcome, 1, "no CustomResourceDefinition")
