"""Reading single kubeconfig files: contexts, clusters, users, paths and every error message."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubeforge.config import ClientConfig, load_kubeconfig
from kubeforge.core.errors import ConfigError


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def kubeconfig(
    *,
    clusters: dict[str, dict[str, Any]] | None = None,
    users: dict[str, dict[str, Any]] | None = None,
    contexts: dict[str, dict[str, Any]] | None = None,
    current: str | None = None,
) -> dict[str, Any]:
    doc: dict[str, Any] = {"apiVersion": "v1", "kind": "Config"}
    if clusters is not None:
        doc["clusters"] = [{"name": n, "cluster": c} for n, c in clusters.items()]
    if users is not None:
        doc["users"] = [{"name": n, "user": u} for n, u in users.items()]
    if contexts is not None:
        doc["contexts"] = [{"name": n, "context": c} for n, c in contexts.items()]
    if current is not None:
        doc["current-context"] = current
    return doc


def write(path: Path, doc: dict[str, Any] | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(doc if isinstance(doc, str) else yaml.safe_dump(doc))
    return path


def simple(tmp_path: Path, **user: Any) -> Path:
    return write(
        tmp_path / "config",
        kubeconfig(
            clusters={"c": {"server": "https://127.0.0.1:6443"}},
            users={"u": user},
            contexts={"ctx": {"cluster": "c", "user": "u"}},
            current="ctx",
        ),
    )


def test_the_current_context_picks_server_user_and_default_namespace(tmp_path: Path) -> None:
    config = load_kubeconfig(simple(tmp_path, token="secret-token"))
    assert config.server == "https://127.0.0.1:6443"
    assert config.token == "secret-token"
    assert config.namespace == "default"
    assert config.context == "ctx"
    assert config.verify_tls is True
    assert config.source == str(tmp_path / "config")


def test_a_named_context_overrides_the_current_one_and_brings_its_namespace(
    tmp_path: Path,
) -> None:
    path = write(
        tmp_path / "config",
        kubeconfig(
            clusters={"a": {"server": "https://a:1"}, "b": {"server": "https://b:2"}},
            users={"u": {"token": "t"}},
            contexts={
                "one": {"cluster": "a", "user": "u"},
                "two": {"cluster": "b", "user": "u", "namespace": "team"},
            },
            current="one",
        ),
    )
    config = load_kubeconfig(path, context="two")
    assert (config.server, config.namespace, config.context) == ("https://b:2", "team", "two")


def test_the_token_never_appears_in_the_config_repr(tmp_path: Path) -> None:
    config = load_kubeconfig(simple(tmp_path, token="very-secret"))
    assert "very-secret" not in repr(config)


def test_inline_ca_and_client_cert_data_are_base64_decoded(tmp_path: Path) -> None:
    path = write(
        tmp_path / "config",
        kubeconfig(
            clusters={"c": {"server": "https://x", "certificate-authority-data": b64(b"CA PEM")}},
            users={
                "u": {
                    "client-certificate-data": b64(b"CERT PEM"),
                    "client-key-data": b64(b"KEY PEM"),
                }
            },
            contexts={"ctx": {"cluster": "c", "user": "u"}},
            current="ctx",
        ),
    )
    config = load_kubeconfig(path)
    assert config.ca_data == b"CA PEM"
    assert config.client_cert_data == b"CERT PEM"
    assert config.client_key_data == b"KEY PEM"
    assert config.ca_file is None and config.client_cert_file is None


def test_relative_file_paths_resolve_against_the_kubeconfig_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    conf_dir = tmp_path / "conf"
    for name in ("ca.pem", "certs/client.crt", "certs/client.key", "token"):
        write(conf_dir / name, "x")
    write(
        conf_dir / "config",
        kubeconfig(
            clusters={"c": {"server": "https://x", "certificate-authority": "ca.pem"}},
            users={
                "u": {
                    "client-certificate": "certs/client.crt",
                    "client-key": "certs/client.key",
                    "tokenFile": "token",
                }
            },
            contexts={"ctx": {"cluster": "c", "user": "u"}},
            current="ctx",
        ),
    )
    monkeypatch.chdir(tmp_path)  # elsewhere: paths must not depend on the working directory
    config = load_kubeconfig("conf/config")
    assert config.ca_file == conf_dir / "ca.pem"
    assert config.client_cert_file == conf_dir / "certs/client.crt"
    assert config.client_key_file == conf_dir / "certs/client.key"
    assert config.token_file == conf_dir / "token"


def test_inline_data_wins_over_a_file_of_the_same_setting(tmp_path: Path) -> None:
    path = write(
        tmp_path / "config",
        kubeconfig(
            clusters={
                "c": {
                    "server": "https://x",
                    "certificate-authority": "missing.pem",
                    "certificate-authority-data": b64(b"CA"),
                }
            },
            contexts={"ctx": {"cluster": "c"}},
            current="ctx",
        ),
    )
    config = load_kubeconfig(path)
    assert (config.ca_data, config.ca_file) == (b"CA", None)


def test_insecure_skip_tls_verify_turns_verification_off(tmp_path: Path) -> None:
    path = write(
        tmp_path / "config",
        kubeconfig(
            clusters={"c": {"server": "https://x", "insecure-skip-tls-verify": True}},
            contexts={"ctx": {"cluster": "c"}},
            current="ctx",
        ),
    )
    assert load_kubeconfig(path).verify_tls is False


def test_a_context_without_a_user_is_anonymous(tmp_path: Path) -> None:
    path = write(
        tmp_path / "config",
        kubeconfig(
            clusters={"c": {"server": "http://127.0.0.1:8080"}},
            contexts={"ctx": {"cluster": "c"}},
            current="ctx",
        ),
    )
    config = load_kubeconfig(path)
    assert (config.token, config.token_file, config.client_cert_data) == (None, None, None)


def test_a_server_without_scheme_means_https_and_trailing_slashes_go(tmp_path: Path) -> None:
    path = write(
        tmp_path / "config",
        kubeconfig(
            clusters={"c": {"server": "10.0.0.1:6443/"}},
            contexts={"ctx": {"cluster": "c"}},
            current="ctx",
        ),
    )
    assert load_kubeconfig(path).server == "https://10.0.0.1:6443"


def test_tls_server_name_is_carried_over(tmp_path: Path) -> None:
    path = write(
        tmp_path / "config",
        kubeconfig(
            clusters={"c": {"server": "https://10.0.0.1", "tls-server-name": "api.internal"}},
            contexts={"ctx": {"cluster": "c"}},
            current="ctx",
        ),
    )
    assert load_kubeconfig(path).tls_server_name == "api.internal"


def test_the_config_is_frozen(tmp_path: Path) -> None:
    config = load_kubeconfig(simple(tmp_path, token="t"))
    assert isinstance(config, ClientConfig)
    with pytest.raises(AttributeError):
        config.server = "https://elsewhere"  # type: ignore[misc]


# --- errors: one line, naming the file and the problem ---------------------------------------


def error_of(path: Path, context: str | None = None) -> str:
    with pytest.raises(ConfigError) as info:
        load_kubeconfig(path, context)
    message = str(info.value)
    assert "\n" not in message
    return message


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    assert error_of(tmp_path / "nope.yaml") == f"{tmp_path / 'nope.yaml'}: no such file"


def test_invalid_yaml_names_the_file_and_line(tmp_path: Path) -> None:
    path = write(tmp_path / "k.yaml", "apiVersion: v1\nclusters:\n  - name: [unclosed\n")
    assert error_of(path).startswith(f"{path}: not valid YAML (line ")


def test_invalid_yaml_reports_the_line_of_the_fault(tmp_path: Path) -> None:
    path = write(tmp_path / "k.yaml", "apiVersion: v1\nkind: Config\n\tbad: tab\n")
    assert error_of(path) == f"{path}: not valid YAML (line 3)"


def test_a_top_level_list_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "k.yaml", "- a\n- b\n")
    assert error_of(path) == f"{path}: expected a mapping at the top level, got a list"


def test_an_unknown_context_is_named(tmp_path: Path) -> None:
    path = simple(tmp_path, token="t")
    assert error_of(path, "dev") == f'{path}: context "dev" not found'


def test_no_current_context_asks_for_one(tmp_path: Path) -> None:
    path = write(tmp_path / "k.yaml", "")
    assert error_of(path) == f"{path}: no current-context is set; pass a context name"


def test_a_context_naming_a_missing_cluster_is_an_error(tmp_path: Path) -> None:
    path = write(
        tmp_path / "k.yaml",
        kubeconfig(clusters={}, contexts={"dev": {"cluster": "x"}}, current="dev"),
    )
    assert error_of(path) == f'{path}: context "dev": cluster "x" not found'


def test_a_context_naming_a_missing_user_is_an_error(tmp_path: Path) -> None:
    path = write(
        tmp_path / "k.yaml",
        kubeconfig(
            clusters={"c": {"server": "https://x"}},
            contexts={"dev": {"cluster": "c", "user": "ghost"}},
            current="dev",
        ),
    )
    assert error_of(path) == f'{path}: context "dev": user "ghost" not found'


def test_a_cluster_without_server_is_an_error(tmp_path: Path) -> None:
    path = write(
        tmp_path / "k.yaml",
        kubeconfig(clusters={"c": {}}, contexts={"dev": {"cluster": "c"}}, current="dev"),
    )
    assert error_of(path) == f'{path}: context "dev": cluster "c": no server'


def test_a_missing_ca_file_names_the_resolved_path(tmp_path: Path) -> None:
    path = write(
        tmp_path / "k.yaml",
        kubeconfig(
            clusters={"c": {"server": "https://x", "certificate-authority": "ca.pem"}},
            contexts={"dev": {"cluster": "c"}},
            current="dev",
        ),
    )
    assert error_of(path) == (
        f'{path}: context "dev": cluster "c": certificate-authority {tmp_path / "ca.pem"} not found'
    )


def test_bad_base64_is_named(tmp_path: Path) -> None:
    path = write(
        tmp_path / "k.yaml",
        kubeconfig(
            clusters={"c": {"server": "https://x", "certificate-authority-data": "not base64!"}},
            contexts={"dev": {"cluster": "c"}},
            current="dev",
        ),
    )
    assert error_of(path) == (
        f'{path}: context "dev": cluster "c": certificate-authority-data is not valid base64'
    )


def test_a_client_certificate_needs_a_key(tmp_path: Path) -> None:
    path = simple(tmp_path, **{"client-certificate-data": b64(b"CERT")})
    assert error_of(path) == (
        f'{path}: context "ctx": user "u": client-certificate given without client-key'
    )


def test_ca_and_insecure_together_are_refused(tmp_path: Path) -> None:
    path = write(
        tmp_path / "k.yaml",
        kubeconfig(
            clusters={
                "c": {
                    "server": "https://x",
                    "insecure-skip-tls-verify": True,
                    "certificate-authority-data": b64(b"CA"),
                }
            },
            contexts={"dev": {"cluster": "c"}},
            current="dev",
        ),
    )
    assert "cannot both be set" in error_of(path)


def test_an_auth_provider_is_refused_with_the_way_out(tmp_path: Path) -> None:
    path = simple(tmp_path, **{"auth-provider": {"name": "oidc", "config": {}}})
    assert error_of(path) == (
        f'{path}: context "ctx": user "u": auth-provider "oidc" is not supported; use an exec '
        "credential plugin instead (client-go removed its built-in providers)"
    )


def test_duplicate_names_in_one_file_are_refused(tmp_path: Path) -> None:
    doc = kubeconfig(clusters={"c": {"server": "https://x"}})
    doc["clusters"].append({"name": "c", "cluster": {"server": "https://y"}})
    path = write(tmp_path / "k.yaml", doc)
    assert error_of(path, "any") == f'{path}: duplicate cluster name "c"'


def test_a_section_of_the_wrong_shape_is_named(tmp_path: Path) -> None:
    path = write(tmp_path / "k.yaml", "contexts: {dev: {}}\n")
    assert error_of(path) == f'{path}: "contexts" must be a list, got a mapping'


def test_an_entry_without_a_name_is_named_by_position(tmp_path: Path) -> None:
    path = write(tmp_path / "k.yaml", "users:\n- user: {token: t}\n")
    assert error_of(path) == f"{path}: users[0] has no name"
