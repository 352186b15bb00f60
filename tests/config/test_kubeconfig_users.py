"""The user and cluster fields beyond tokens: exec plugins, impersonation, basic auth, proxies."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from kubeforge.config import ExecConfig, load_kubeconfig
from kubeforge.core.errors import ConfigError


def write_config(
    tmp_path: Path, user: dict[str, Any], cluster: dict[str, Any] | None = None
) -> Path:
    doc = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {"name": "c", "cluster": {"server": "https://10.0.0.1:6443", **(cluster or {})}}
        ],
        "users": [{"name": "u", "user": user}],
        "contexts": [{"name": "dev", "context": {"cluster": "c", "user": "u"}}],
        "current-context": "dev",
    }
    path = tmp_path / "kubeconfig"
    path.write_text(yaml.safe_dump(doc))
    return path


def error_of(path: Path) -> str:
    with pytest.raises(ConfigError) as info:
        load_kubeconfig(path)
    return str(info.value)


EXEC_V1 = {
    "apiVersion": "client.authentication.k8s.io/v1",
    "command": "get-token",
    "args": ["--cluster", "dev"],
    "env": [{"name": "REGION", "value": "eu"}, {"name": "EMPTY"}],
    "installHint": "brew install get-token",
    "provideClusterInfo": True,
    "interactiveMode": "Never",
}


def test_an_exec_plugin_is_read_with_every_field(tmp_path: Path) -> None:
    extension = {"name": "client.authentication.k8s.io/exec", "extension": {"audience": "k8s"}}
    path = write_config(tmp_path, {"exec": EXEC_V1}, {"extensions": [extension]})
    plugin = load_kubeconfig(path).exec_plugin
    assert plugin == ExecConfig(
        command="get-token",
        api_version="client.authentication.k8s.io/v1",
        args=("--cluster", "dev"),
        env=(("REGION", "eu"), ("EMPTY", "")),
        install_hint="brew install get-token",
        provide_cluster_info=True,
        interactive_mode="Never",
        cluster_config={"audience": "k8s"},
        source=f'{path}: context "dev": user "u"',
    )


def test_a_relative_exec_command_is_relative_to_the_kubeconfig(tmp_path: Path) -> None:
    path = write_config(tmp_path, {"exec": {**EXEC_V1, "command": "./bin/token"}})
    plugin = load_kubeconfig(path).exec_plugin
    assert plugin is not None and plugin.command == str(tmp_path / "bin" / "token")


def test_v1beta1_exec_plugins_default_to_interactive_if_available(tmp_path: Path) -> None:
    spec = {"apiVersion": "client.authentication.k8s.io/v1beta1", "command": "aws"}
    plugin = load_kubeconfig(write_config(tmp_path, {"exec": spec})).exec_plugin
    assert plugin is not None and plugin.interactive_mode == "IfAvailable"


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ({"apiVersion": "client.authentication.k8s.io/v1"}, "exec: command is required"),
        (
            {"command": "x", "apiVersion": "client.authentication.k8s.io/v1alpha1"},
            'exec: apiVersion "client.authentication.k8s.io/v1alpha1" is not '
            "client.authentication.k8s.io/v1 or client.authentication.k8s.io/v1beta1",
        ),
        (
            {"command": "x", "apiVersion": "client.authentication.k8s.io/v1"},
            "exec: interactiveMode is required for client.authentication.k8s.io/v1",
        ),
        (
            {**EXEC_V1, "interactiveMode": "Sometimes"},
            'exec: interactiveMode "Sometimes" is not one of Never, IfAvailable, Always',
        ),
        ({**EXEC_V1, "args": "--one"}, "exec: args must be a list of strings"),
        ({**EXEC_V1, "env": [{"value": "v"}]}, "exec: env[0] needs a name"),
    ],
)
def test_exec_mistakes_name_file_context_user_and_field(
    tmp_path: Path, spec: dict[str, Any], problem: str
) -> None:
    path = write_config(tmp_path, {"exec": spec})
    assert error_of(path) == f'{path}: context "dev": user "u": {problem}'


def test_impersonation_fields_are_read(tmp_path: Path) -> None:
    user = {
        "token": "t",
        "as": "jane",
        "as-uid": "1234",
        "as-groups": ["devs", "ops"],
        "as-user-extra": {"scopes": ["view", "edit"]},
    }
    config = load_kubeconfig(write_config(tmp_path, user))
    assert config.impersonate_user == "jane"
    assert config.impersonate_uid == "1234"
    assert config.impersonate_groups == ("devs", "ops")
    assert config.impersonate_extra == {"scopes": ("view", "edit")}


def test_bad_impersonation_groups_are_named(tmp_path: Path) -> None:
    path = write_config(tmp_path, {"as-groups": "devs"})
    assert error_of(path) == f'{path}: context "dev": user "u": as-groups must be a list of strings'


def test_basic_auth_is_read_and_the_password_never_shown(tmp_path: Path) -> None:
    config = load_kubeconfig(write_config(tmp_path, {"username": "admin", "password": "s3cret"}))
    assert (config.username, config.password) == ("admin", "s3cret")
    assert "s3cret" not in repr(config)


def test_a_password_without_a_username_is_refused(tmp_path: Path) -> None:
    path = write_config(tmp_path, {"password": "p"})
    assert error_of(path) == f'{path}: context "dev": user "u": password given without username'


def test_a_proxy_url_is_read(tmp_path: Path) -> None:
    config = load_kubeconfig(write_config(tmp_path, {}, {"proxy-url": "http://proxy:3128"}))
    assert config.proxy_url == "http://proxy:3128"


def test_a_socks_proxy_is_refused_naming_the_cluster(tmp_path: Path) -> None:
    path = write_config(tmp_path, {}, {"proxy-url": "socks5://proxy:1080"})
    assert error_of(path) == (
        f'{path}: context "dev": cluster "c": proxy-url "socks5://proxy:1080": only http:// and '
        "https:// proxies are supported (got 'socks5')"
    )


def test_a_non_boolean_insecure_flag_is_named(tmp_path: Path) -> None:
    path = write_config(tmp_path, {}, {"insecure-skip-tls-verify": "yes"})
    assert error_of(path) == (
        f'{path}: context "dev": cluster "c": insecure-skip-tls-verify must be true or false'
    )
