"""Where settings come from: explicit path, $KUBECONFIG (merged), ~/.kube/config, in-cluster."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubeforge.config import incluster, load_config, load_incluster_config
from kubeforge.core.errors import ConfigError


def write(path: Path, doc: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(doc))
    return path


def one_cluster(server: str, *, current: str | None = "main", token: str = "t") -> dict[str, Any]:
    doc: dict[str, Any] = {
        "clusters": [{"name": "main", "cluster": {"server": server}}],
        "users": [{"name": "main", "user": {"token": token}}],
        "contexts": [{"name": "main", "context": {"cluster": "main", "user": "main"}}],
    }
    if current:
        doc["current-context"] = current
    return doc


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No ambient kubeconfig or cluster: each test states its own sources."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("KUBECONFIG", "KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT"):
        monkeypatch.delenv(name, raising=False)
    return home


def test_an_explicit_path_wins_over_kubeconfig_env(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    explicit = write(tmp_path / "explicit", one_cluster("https://explicit"))
    monkeypatch.setenv("KUBECONFIG", str(write(tmp_path / "env", one_cluster("https://env"))))
    assert load_config(explicit).server == "https://explicit"


def test_kubeconfig_env_wins_over_the_home_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clean_environment: Path
) -> None:
    write(clean_environment / ".kube" / "config", one_cluster("https://home"))
    monkeypatch.setenv("KUBECONFIG", str(write(tmp_path / "env", one_cluster("https://env"))))
    assert load_config().server == "https://env"


def test_the_home_file_is_used_when_nothing_else_is_set(clean_environment: Path) -> None:
    write(clean_environment / ".kube" / "config", one_cluster("https://home"))
    assert load_config().server == "https://home"


def test_merged_files_let_the_first_definition_of_a_name_win(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = write(tmp_path / "first", one_cluster("https://first", current=None, token="first"))
    second = write(tmp_path / "second", one_cluster("https://second", token="second"))
    monkeypatch.setenv("KUBECONFIG", os.pathsep.join([str(first), str(second)]))
    config = load_config()
    # current-context only set in the second file; the "main" entries come from the first.
    assert (config.server, config.token, config.context) == ("https://first", "first", "main")


def test_merged_files_take_current_context_from_the_first_file_that_sets_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = write(
        tmp_path / "first",
        {
            "current-context": "b",
            "clusters": [{"name": "b", "cluster": {"server": "https://b"}}],
        },
    )
    second = write(
        tmp_path / "second",
        {
            "current-context": "a",
            "clusters": [{"name": "a", "cluster": {"server": "https://a"}}],
            "contexts": [
                {"name": "a", "context": {"cluster": "a"}},
                {"name": "b", "context": {"cluster": "b"}},
            ],
        },
    )
    monkeypatch.setenv("KUBECONFIG", os.pathsep.join([str(first), str(second)]))
    assert load_config().server == "https://b"


def test_entries_from_each_file_resolve_paths_against_their_own_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "ca.pem").write_text("CA")
    clusters = write(
        tmp_path / "a" / "clusters",
        {
            "clusters": [
                {"name": "c", "cluster": {"server": "https://x", "certificate-authority": "ca.pem"}}
            ]
        },
    )
    contexts = write(
        tmp_path / "b" / "contexts",
        {"current-context": "c", "contexts": [{"name": "c", "context": {"cluster": "c"}}]},
    )
    monkeypatch.setenv("KUBECONFIG", os.pathsep.join([str(contexts), str(clusters)]))
    assert load_config().ca_file == tmp_path / "a" / "ca.pem"


def test_missing_kubeconfig_env_entries_are_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = write(tmp_path / "real", one_cluster("https://real"))
    monkeypatch.setenv("KUBECONFIG", os.pathsep.join([str(tmp_path / "gone"), "", str(real)]))
    assert load_config().server == "https://real"


def test_kubeconfig_env_naming_only_missing_files_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "gone"))
    with pytest.raises(ConfigError, match="none of these files exists"):
        load_config()


def test_an_unknown_context_across_merged_files_names_every_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a = write(tmp_path / "a", one_cluster("https://a"))
    b = write(tmp_path / "b", one_cluster("https://b"))
    monkeypatch.setenv("KUBECONFIG", os.pathsep.join([str(a), str(b)]))
    with pytest.raises(ConfigError) as info:
        load_config(context="dev")
    assert str(info.value) == f'{a}{os.pathsep}{b}: context "dev" not found'


def test_nothing_anywhere_says_what_to_do() -> None:
    with pytest.raises(ConfigError) as info:
        load_config()
    assert str(info.value) == (
        "no kubeconfig found: set KUBECONFIG, create ~/.kube/config, or run in a cluster"
    )


# --- in-cluster -------------------------------------------------------------------------------


@pytest.fixture
def service_account(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "serviceaccount"
    directory.mkdir()
    (directory / "token").write_text("sa-token\n")
    (directory / "ca.crt").write_text("CA")
    (directory / "namespace").write_text("operators")
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1")
    monkeypatch.setenv("KUBERNETES_SERVICE_PORT", "443")
    return directory


def test_in_cluster_reads_the_service_account_directory(service_account: Path) -> None:
    config = load_incluster_config(service_account)
    assert config.server == "https://10.96.0.1:443"
    assert config.token_file == service_account / "token"
    assert config.ca_file == service_account / "ca.crt"
    assert config.namespace == "operators"
    assert config.source == str(service_account)


def test_in_cluster_without_a_namespace_file_means_default(service_account: Path) -> None:
    (service_account / "namespace").unlink()
    assert load_incluster_config(service_account).namespace == "default"


def test_in_cluster_brackets_an_ipv6_service_host(
    service_account: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "fd00::1")
    assert load_incluster_config(service_account).server == "https://[fd00::1]:443"


def test_in_cluster_without_a_token_names_the_file(service_account: Path) -> None:
    (service_account / "token").unlink()
    with pytest.raises(ConfigError) as info:
        load_incluster_config(service_account)
    assert str(info.value).startswith(f"{service_account / 'token'}: no such file")


def test_in_cluster_with_an_empty_token_is_an_error(service_account: Path) -> None:
    (service_account / "token").write_text("\n")
    with pytest.raises(ConfigError, match="token is empty"):
        load_incluster_config(service_account)


def test_in_cluster_without_a_ca_names_the_file(service_account: Path) -> None:
    (service_account / "ca.crt").unlink()
    with pytest.raises(ConfigError) as info:
        load_incluster_config(service_account)
    assert str(info.value).startswith(f"{service_account / 'ca.crt'}: no such file")


def test_in_cluster_outside_a_pod_says_which_variables_are_missing(
    service_account: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("KUBERNETES_SERVICE_PORT")
    with pytest.raises(ConfigError, match="KUBERNETES_SERVICE_PORT"):
        load_incluster_config(service_account)


def test_load_config_falls_back_to_in_cluster_last(
    service_account: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(incluster, "SERVICE_ACCOUNT_DIR", service_account)
    config = load_config()
    assert (config.server, config.namespace) == ("https://10.96.0.1:443", "operators")
