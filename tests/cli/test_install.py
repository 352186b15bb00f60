"""``kubeforge install`` / ``uninstall`` against the local API server (a real server process).

Every test gives its project a domain of its own, so the CRDs it installs on the
shared server never meet another test's.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from kubeforge.testing import LocalApiServer

from .kf_cli import kubeforge, one_line_error

CRD = "customresourcedefinition.apiextensions.k8s.io/"


def project_with_domain(tmp_path: Path, domain: str) -> Path:
    project = tmp_path / "fleet"
    project.mkdir()
    assert kubeforge("init", "--domain", domain, cwd=project).code == 0
    for kind in ("Frigate", "Harbor"):
        args = ("--group", "ship", "--version", "v1beta1", "--kind", kind)
        assert kubeforge("create", "api", *args, cwd=project).code == 0
    return project


def kubectl(server: LocalApiServer, *args: str, stdin: str | None = None) -> str:
    result = subprocess.run(
        [
            "kubectl",
            "--kubeconfig",
            str(server.kubeconfig),
            *args,
        ],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def crd_conditions(server: LocalApiServer, name: str) -> dict[str, str]:
    crd = json.loads(kubectl(server, "get", "crd", name, "-o", "json"))
    return {c["type"]: c["status"] for c in crd["status"]["conditions"]}


def test_install_applies_every_crd_and_returns_once_they_are_established(
    tmp_path: Path, kube_apiserver: LocalApiServer
) -> None:
    project = project_with_domain(tmp_path, "install.g2.example.com")
    config = str(kube_apiserver.kubeconfig)

    first = kubeforge("install", "--kubeconfig", config, cwd=project)
    again = kubeforge("install", "--kubeconfig", config, cwd=project)

    assert first.code == 0, first
    assert first.stdout.splitlines() == [
        CRD + "frigates.ship.install.g2.example.com created",
        CRD + "harbors.ship.install.g2.example.com created",
        "frigates.ship.install.g2.example.com established",
        "harbors.ship.install.g2.example.com established",
    ]
    assert crd_conditions(kube_apiserver, "frigates.ship.install.g2.example.com")[
        "Established"
    ] == ("True")
    assert again.code == 0
    assert "harbors.ship.install.g2.example.com unchanged" in again.stdout


def test_install_regenerates_the_crds_from_the_code_first(
    tmp_path: Path, kube_apiserver: LocalApiServer
) -> None:
    project = project_with_domain(tmp_path, "regen.g2.example.com")
    types = project / "fleet/api/v1beta1/frigate_types.py"
    types.write_text(
        types.read_text().replace(
            '    foo: str = ""\n', '    foo: str = ""\n    hull: int = 0\n    """Hull number."""\n'
        )
    )

    outcome = kubeforge("install", "--kubeconfig", str(kube_apiserver.kubeconfig), cwd=project)

    assert outcome.code == 0, outcome
    explained = kubectl(
        kube_apiserver,
        "explain",
        "frigates.spec.hull",
        "--api-version",
        "ship.regen.g2.example.com/v1beta1",
    )
    assert "Hull number." in explained


def test_uninstall_deletes_the_crds_and_waits_until_they_are_gone(
    tmp_path: Path, kube_apiserver: LocalApiServer
) -> None:
    project = project_with_domain(tmp_path, "uninstall.g2.example.com")
    config = str(kube_apiserver.kubeconfig)
    assert kubeforge("install", "--kubeconfig", config, cwd=project).code == 0
    kubectl(
        kube_apiserver,
        "apply",
        "-f",
        "-",
        stdin=(
            "apiVersion: ship.uninstall.g2.example.com/v1beta1\nkind: Frigate\n"
            "metadata: {name: doomed, namespace: default}\nspec: {foo: bar}\n"
        ),
    )

    outcome = kubeforge("uninstall", "--kubeconfig", config, cwd=project)

    assert outcome.code == 0, outcome
    assert sorted(outcome.stdout.splitlines()) == [
        CRD + "frigates.ship.uninstall.g2.example.com deleted",
        CRD + "harbors.ship.uninstall.g2.example.com deleted",
    ]
    listed = kubectl(kube_apiserver, "get", "crd", "-o", "name")
    assert "uninstall.g2.example.com" not in listed


def test_uninstalling_what_is_not_installed_fails_unless_told_to_ignore_it(
    tmp_path: Path, kube_apiserver: LocalApiServer
) -> None:
    project = project_with_domain(tmp_path, "absent.g2.example.com")
    config = str(kube_apiserver.kubeconfig)

    strict = kubeforge("uninstall", "--kubeconfig", config, cwd=project)
    lenient = kubeforge("uninstall", "--kubeconfig", config, "--ignore-not-found", cwd=project)

    one_line_error(strict, 1, "harbors.ship.absent.g2.example.com", "not found")
    assert lenient.code == 0, lenient
    assert "frigates.ship.absent.g2.example.com not found" in lenient.stdout


def test_a_crd_held_by_a_finalizer_times_out_with_exit_code_4(
    tmp_path: Path, kube_apiserver: LocalApiServer
) -> None:
    project = project_with_domain(tmp_path, "held.g2.example.com")
    config = str(kube_apiserver.kubeconfig)
    assert kubeforge("install", "--kubeconfig", config, cwd=project).code == 0
    kubectl(
        kube_apiserver,
        "apply",
        "-f",
        "-",
        stdin=(
            "apiVersion: ship.held.g2.example.com/v1beta1\nkind: Frigate\n"
            "metadata: {name: anchored, namespace: default, finalizers: [example.com/hold]}\n"
        ),
    )

    outcome = kubeforge("uninstall", "--kubeconfig", config, "--timeout", "0.5", cwd=project)

    one_line_error(outcome, 4, "timed out", "frigates.ship.held.g2.example.com", "not gone")
    kubectl(
        kube_apiserver,
        "patch",
        "frigates.ship.held.g2.example.com",
        "anchored",
        "-n",
        "default",
        "--type",
        "merge",
        "-p",
        '{"metadata":{"finalizers":null}}',
    )


def test_a_missing_kubeconfig_or_context_is_one_line(tmp_path: Path) -> None:
    project = project_with_domain(tmp_path, "noconfig.g2.example.com")
    missing = kubeforge("install", "--kubeconfig", str(tmp_path / "nope"), cwd=project)
    one_line_error(missing, 1, "nope")

    config = tmp_path / "kubeconfig"
    config.write_text("apiVersion: v1\nkind: Config\ncontexts: []\nclusters: []\nusers: []\n")
    no_context = kubeforge(
        "uninstall", "--kubeconfig", str(config), "--context", "dev", cwd=project
    )
    one_line_error(no_context, 1, "dev")


def test_install_without_any_kind_says_what_to_do(tmp_path: Path) -> None:
    project = tmp_path / "empty"
    project.mkdir()
    assert kubeforge("init", cwd=project).code == 0
    outcome = kubeforge("install", "--kubeconfig", str(tmp_path / "unused"), cwd=project)
    one_line_error(outcome, 1, "no CRDs", "kubeforge create api")
