"""``kubeforge init`` and ``kubeforge create api``: the files a new project starts from."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

from .kf_cli import BIN, FRIGATE_API, kubeforge, new_project, one_line_error


def test_init_lays_out_a_project_named_after_its_directory(tmp_path: Path) -> None:
    project = new_project(tmp_path, name="ship-operator")

    names = {str(p.relative_to(project)) for p in project.rglob("*") if p.is_file()}
    assert {
        "PROJECT",
        "pyproject.toml",
        "Dockerfile",
        "ship_operator/__init__.py",
        "ship_operator/manager.py",
        "tests/conftest.py",
        "config/crd/kustomization.yaml",
        "config/rbac/role.yaml",
        "config/rbac/service_account.yaml",
        "config/rbac/leader_election_role.yaml",
        "config/rbac/leader_election_role_binding.yaml",
        "config/manager/manager.yaml",
        "config/default/metrics_service.yaml",
        "config/default/kustomization.yaml",
    } <= names
    recorded = yaml.safe_load((project / "PROJECT").read_text())
    assert recorded["projectName"] == "ship-operator"
    assert recorded["package"] == "ship_operator"
    assert recorded["domain"] == "example.com"


def test_every_deployed_object_carries_the_project_prefix_and_namespace(tmp_path: Path) -> None:
    project = new_project(tmp_path)
    manager = list(yaml.safe_load_all((project / "config/manager/manager.yaml").read_text()))
    namespace, deployment = manager
    assert namespace["metadata"]["name"] == "frigate-system"
    assert deployment["metadata"] == {
        "name": "frigate-controller-manager",
        "namespace": "frigate-system",
        "labels": {
            "app.kubernetes.io/name": "frigate",
            "app.kubernetes.io/managed-by": "kubeforge",
            "control-plane": "controller-manager",
        },
    }
    pod = deployment["spec"]["template"]["spec"]
    assert pod["serviceAccountName"] == "frigate-controller-manager"
    assert "--leader-elect" in pod["containers"][0]["args"]
    assert "--leader-election-id=frigate.example.com" in pod["containers"][0]["args"]
    binding = yaml.safe_load(
        (project / "config/rbac/leader_election_role_binding.yaml").read_text()
    )
    assert binding["roleRef"]["name"] == "frigate-leader-election-role"
    assert binding["subjects"] == [
        {
            "kind": "ServiceAccount",
            "name": "frigate-controller-manager",
            "namespace": "frigate-system",
        }
    ]


def test_the_apache2_licence_header_opens_every_python_file(tmp_path: Path) -> None:
    project = tmp_path / "frigate"
    project.mkdir()
    args = ("init", "--domain", "example.com", "--license", "apache2", "--owner", "Jane Roe")
    assert kubeforge(*args, cwd=project).code == 0
    assert kubeforge("create", "api", *FRIGATE_API, cwd=project).code == 0

    header = (project / "hack/boilerplate.py.txt").read_text()
    assert header.startswith("# Copyright ") and "Jane Roe" in header
    assert "Apache License, Version 2.0" in header
    for source in project.rglob("*.py"):
        assert source.read_text().startswith(header), source
    assert 'license = "Apache-2.0"' in (project / "pyproject.toml").read_text()


def test_init_refuses_to_initialise_a_project_twice(tmp_path: Path) -> None:
    project = new_project(tmp_path)
    one_line_error(kubeforge("init", cwd=project), 1, "already a kubeforge project")


def test_invalid_names_are_usage_errors_on_one_line(tmp_path: Path) -> None:
    (tmp_path / "x").mkdir()
    bad_domain = kubeforge("init", "--domain", "Example_COM", cwd=tmp_path / "x")
    one_line_error(bad_domain, 2, "--domain", "DNS", "kubeforge init --help")
    bad_name = kubeforge("init", "--project-name", "Not Valid", cwd=tmp_path / "x")
    one_line_error(bad_name, 2, "--project-name")
    bad_package = kubeforge("init", "--package", "json", cwd=tmp_path / "x")
    one_line_error(bad_package, 2, "shadow")

    project = new_project(tmp_path)
    for flag, value, fragment in [
        ("--kind", "frigate", "PascalCase"),
        ("--version", "beta1", "API version"),
        ("--group", "Ship", "DNS subdomain"),
    ]:
        args = dict(zip(FRIGATE_API[::2], FRIGATE_API[1::2], strict=True)) | {flag: value}
        outcome = kubeforge("create", "api", *[x for kv in args.items() for x in kv], cwd=project)
        one_line_error(outcome, 2, flag, fragment)


def test_create_api_outside_a_project_says_to_run_init(tmp_path: Path) -> None:
    outcome = kubeforge("create", "api", *FRIGATE_API, cwd=tmp_path)
    one_line_error(outcome, 1, "not inside a kubeforge project", "kubeforge init")


def test_create_api_writes_types_controller_test_and_sample_and_registers_it(
    tmp_path: Path,
) -> None:
    project = new_project(tmp_path, *FRIGATE_API)

    types = (project / "frigate/api/v1beta1/frigate_types.py").read_text()
    assert "class FrigateSpec(Model):" in types and "class FrigateStatus(Model):" in types
    assert 'group="ship.example.com"' in types and 'plural="frigates"' in types
    controller = (project / "frigate/controllers/frigate_controller.py").read_text()
    assert "class FrigateReconciler:" in controller and "def setup(mgr: Manager)" in controller
    assert (project / "tests/test_frigate_controller.py").is_file()
    sample = yaml.safe_load((project / "config/samples/ship_v1beta1_frigate.yaml").read_text())
    assert sample["apiVersion"] == "ship.example.com/v1beta1"
    manager = (project / "frigate/manager.py").read_text()
    assert "from .controllers import frigate_controller\n" in manager
    assert "    frigate_controller.setup(mgr)\n" in manager
    resources = yaml.safe_load((project / "PROJECT").read_text())["resources"]
    assert resources == [
        {
            "group": "ship",
            "version": "v1beta1",
            "kind": "Frigate",
            "plural": "frigates",
            "domain": "example.com",
            "namespaced": True,
            "resource": True,
            "controller": True,
        }
    ]
    # and, as kubebuilder runs make afterwards, the manifests are there at once
    assert (project / "config/crd/bases/ship.example.com_frigates.yaml").is_file()
    assert "frigates/status" in (project / "config/rbac/role.yaml").read_text()


def test_each_kind_is_registered_once_in_one_sorted_import(tmp_path: Path) -> None:
    project = new_project(tmp_path, *FRIGATE_API)
    for kind in ("Harbor", "Destroyer"):
        args = ("--group", "ship", "--version", "v1", "--kind", kind)
        assert kubeforge("create", "api", *args, cwd=project).code == 0
    again = kubeforge("create", "api", *FRIGATE_API, "--force", cwd=project)
    assert again.code == 0

    manager = (project / "frigate/manager.py").read_text()
    assert (
        "from .controllers import destroyer_controller, frigate_controller, harbor_controller\n"
        in manager
    )
    assert manager.count("frigate_controller.setup(mgr)") == 1
    assert len(yaml.safe_load((project / "PROJECT").read_text())["resources"]) == 3


def test_create_api_never_overwrites_a_file_without_force(tmp_path: Path) -> None:
    project = new_project(tmp_path, *FRIGATE_API)
    types = project / "frigate/api/v1beta1/frigate_types.py"
    types.write_text(types.read_text() + "\n# mine\n")

    outcome = kubeforge("create", "api", *FRIGATE_API, cwd=project)

    one_line_error(outcome, 1, "would overwrite", "frigate_types.py", "--force")
    assert types.read_text().endswith("# mine\n")


def test_no_controller_writes_only_the_types(tmp_path: Path) -> None:
    project = new_project(tmp_path, *FRIGATE_API, "--no-controller")

    assert (project / "frigate/api/v1beta1/frigate_types.py").is_file()
    assert not (project / "frigate/controllers/frigate_controller.py").exists()
    assert "frigate_controller" not in (project / "frigate/manager.py").read_text()


def test_a_controller_for_a_built_in_kind_imports_the_generated_model(tmp_path: Path) -> None:
    project = new_project(
        tmp_path, "--group", "apps", "--version", "v1", "--kind", "Deployment", "--no-resource"
    )

    controller = (project / "frigate/controllers/deployment_controller.py").read_text()
    assert "from kubeforge.models.apps_v1 import Deployment" in controller
    assert 'groups=["apps"]' in controller
    assert not (project / "frigate/api/v1").exists()


def test_no_resource_for_an_unknown_kind_is_refused(tmp_path: Path) -> None:
    project = new_project(tmp_path)
    outcome = kubeforge("create", "api", *FRIGATE_API, "--no-resource", cwd=project)
    one_line_error(outcome, 1, "neither a kind of this project nor a built-in one")


def test_missing_scaffold_markers_are_reported_before_anything_is_written(tmp_path: Path) -> None:
    project = new_project(tmp_path)
    manager = project / "frigate/manager.py"
    manager.write_text(manager.read_text().replace("# kubeforge:scaffold:controllers", ""))

    outcome = kubeforge("create", "api", *FRIGATE_API, cwd=project)

    one_line_error(outcome, 1, "kubeforge:scaffold:controllers", "by hand")
    assert not (project / "frigate/api/v1beta1").exists()


def test_scaffolded_code_is_clean_for_ruff_check_and_ruff_format(tmp_path: Path) -> None:
    project = new_project(tmp_path, *FRIGATE_API)
    more = [
        ("--group", "batch", "--version", "v1", "--kind", "CronTab", "--cluster-scoped"),
        ("--group", "core", "--version", "v1", "--kind", "Pod", "--no-resource"),
    ]
    for args in more:
        assert kubeforge("create", "api", *args, cwd=project).code == 0

    ruff = str(BIN / "ruff")
    checked = subprocess.run(
        [ruff, "check", "--no-cache", "."], cwd=project, capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stdout
    formatted = subprocess.run(
        [ruff, "format", "--check", "--no-cache", "."], cwd=project, capture_output=True, text=True
    )
    assert formatted.returncode == 0, formatted.stdout


def test_the_scaffolded_tests_pass_on_the_local_api_server(tmp_path: Path) -> None:
    project = new_project(tmp_path, *FRIGATE_API)
    cluster_scoped = ("--group", "ship", "--version", "v1", "--kind", "Harbor", "--cluster-scoped")
    assert kubeforge("create", "api", *cluster_scoped, cwd=project).code == 0

    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": str(project), "PATH": str(BIN)},
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    # with test_manager.py and, per kind, a reconcile by the manager under its RBAC
    assert "7 passed" in result.stdout
