"""``kubeforge run``: bad targets and bad kubeconfigs give one readable line, no traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def kubeforge(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kubeforge.cli", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
    )


def assert_one_line_error(result: subprocess.CompletedProcess[str], *fragments: str) -> None:
    assert result.returncode == 1, result
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in lines[0]


def test_a_missing_python_file_is_named(tmp_path: Path) -> None:
    assert_one_line_error(kubeforge("run", str(tmp_path / "nope.py")), "nope.py", "no such file")


def test_a_target_without_setup_is_rejected(tmp_path: Path) -> None:
    target = tmp_path / "controllers.py"
    target.write_text("X = 1\n")
    assert_one_line_error(kubeforge("run", str(target)), "controllers.py", "setup(manager)")


def test_an_unimportable_module_is_named() -> None:
    assert_one_line_error(
        kubeforge("run", "no_such_module_xyz"), "no_such_module_xyz", "cannot import"
    )


def test_a_broken_kubeconfig_names_the_file(tmp_path: Path) -> None:
    target = tmp_path / "controllers.py"
    target.write_text("def setup(manager):\n    pass\n")
    config = tmp_path / "kubeconfig"
    config.write_text("apiVersion: v1\nkind: Config\nclusters: [\n")
    assert_one_line_error(kubeforge("run", str(target), "--kubeconfig", str(config)), str(config))


def test_a_kubeconfig_without_the_named_context_says_so(tmp_path: Path) -> None:
    target = tmp_path / "controllers.py"
    target.write_text("def setup(manager):\n    pass\n")
    config = tmp_path / "kubeconfig"
    config.write_text("apiVersion: v1\nkind: Config\ncontexts: []\nclusters: []\nusers: []\n")
    result = kubeforge("run", str(target), "--kubeconfig", str(config), "--context", "dev")
    assert_one_line_error(result, str(config), "dev")


def test_an_unreachable_cluster_fails_at_once_with_one_line(tmp_path: Path) -> None:
    target = tmp_path / "controllers.py"
    target.write_text("def setup(manager):\n    pass\n")
    config = _unreachable_kubeconfig(tmp_path)
    result = kubeforge(
        "run", str(target), "--kubeconfig", str(config),
        "--metrics-bind-address", "0", "--health-probe-bind-address", "0",
    )  # fmt: skip
    assert_one_line_error(result, "https://127.0.0.1:1/version")
    assert "abc" not in result.stderr  # the token is never printed


def _unreachable_kubeconfig(tmp_path: Path) -> Path:
    config = tmp_path / "kubeconfig"
    config.write_text(
        "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
        "clusters: [{name: c, cluster: {server: 'https://127.0.0.1:1',"
        " insecure-skip-tls-verify: true}}]\n"
        "contexts: [{name: c, context: {cluster: c, user: u}}]\n"
        "users: [{name: u, user: {token: abc}}]\n"
    )
    return config


def test_a_project_directory_runs_from_anywhere(tmp_path: Path) -> None:
    frigate = Path(__file__).resolve().parents[2] / "examples" / "frigate"
    result = kubeforge(
        "run", str(frigate), "--kubeconfig", str(_unreachable_kubeconfig(tmp_path)),
        "--metrics-bind-address", "0", "--health-probe-bind-address", "0",
        cwd=tmp_path,
    )  # fmt: skip
    # The project's package imported (with its absolute imports) and registered its
    # controller; only then does the manager look for the cluster.
    assert_one_line_error(result, "https://127.0.0.1:1/version")


def test_a_project_naming_a_missing_package_says_so(tmp_path: Path) -> None:
    (tmp_path / "PROJECT").write_text("layout: kubeforge.io/v1\nprojectName: x\npackage: nope\n")
    assert_one_line_error(kubeforge("run", str(tmp_path)), "PROJECT", "'nope'", "not a package")


def test_a_plain_directory_is_neither_package_nor_project(tmp_path: Path) -> None:
    assert_one_line_error(kubeforge("run", str(tmp_path)), "no __init__.py", "no PROJECT file")
