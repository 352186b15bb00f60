"""``kubeforge check rbac`` and ``generate rbac``: RBAC derived from the controller itself.

A controller that ``owns(ConfigMap)`` without declaring anything about ConfigMaps
must get list/watch on them from ``kubeforge generate``, and ``check rbac`` must say
what is missing until it does.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from .kf_cli import FRIGATE, FRIGATE_API, kubeforge, new_project, one_line_error


def own_config_maps(project: Path) -> None:
    """The user's edit: the Frigate controller now owns ConfigMaps (and says nothing else)."""
    controller = project / "frigate/controllers/frigate_controller.py"
    controller.write_text(
        controller.read_text()
        .replace(
            "from kubeforge.crd import Rule\n",
            "from kubeforge.crd import Rule\nfrom kubeforge.models.core_v1 import ConfigMap\n",
        )
        .replace(".for_(Frigate).complete(", ".for_(Frigate).owns(ConfigMap).complete(")
    )


def test_check_names_the_missing_permission_and_generate_adds_it(tmp_path: Path) -> None:
    project = new_project(tmp_path, *FRIGATE_API)
    assert kubeforge("check", "rbac", cwd=project).code == 0
    own_config_maps(project)

    outcome = kubeforge("check", "rbac", cwd=project)

    one_line_error(outcome, 1, "config/rbac lacks 1 permission(s)", "kubeforge generate rbac")
    assert outcome.stdout.strip() == (
        "missing: get, list, watch on configmaps (core) cluster-wide: "
        "watched by controller frigate (owns ConfigMap)"
    )

    assert kubeforge("generate", "rbac", cwd=project).code == 0
    role = yaml.safe_load((project / "config/rbac/role.yaml").read_text())
    assert {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list", "watch"]} in (
        role["rules"]
    )
    assert kubeforge("check", "rbac", cwd=project).code == 0


def test_a_removed_leader_election_role_is_reported(tmp_path: Path) -> None:
    project = new_project(tmp_path, *FRIGATE_API)
    (project / "config/rbac/leader_election_role.yaml").unlink()

    outcome = kubeforge("check", "rbac", cwd=project)

    assert outcome.code == 1
    assert "leases (coordination.k8s.io) in namespace frigate-system" in outcome.stdout


def test_a_setup_that_raises_is_one_line_naming_the_file(tmp_path: Path) -> None:
    project = new_project(tmp_path, *FRIGATE_API)
    manager = project / "frigate/manager.py"
    manager.write_text(manager.read_text().replace(
        '    """Register every controller of the project with ``mgr``."""\n',
        '    """Register every controller of the project with ``mgr``."""\n'
        '    raise RuntimeError("no")\n',
    ))  # fmt: skip

    outcome = kubeforge("generate", "rbac", cwd=project)

    one_line_error(outcome, 1, "frigate/manager.py", "setup(mgr) failed", "RuntimeError: no")


def test_the_metrics_auth_role_is_checked_because_the_manager_serves_metrics_securely(
    tmp_path: Path,
) -> None:
    project = new_project(tmp_path, *FRIGATE_API)
    (project / "config/rbac/metrics_auth_role_binding.yaml").unlink()

    outcome = kubeforge("check", "rbac", cwd=project)

    assert outcome.code == 1
    assert "create on tokenreviews (authentication.k8s.io) cluster-wide" in outcome.stdout
    assert "create on subjectaccessreviews (authorization.k8s.io) cluster-wide" in outcome.stdout


def test_the_frigate_example_s_manifests_grant_what_its_code_needs() -> None:
    outcome = kubeforge("check", "rbac", cwd=FRIGATE)

    assert outcome.code == 0, outcome
    assert outcome.stdout == "config/rbac grants everything the manager needs\n"
