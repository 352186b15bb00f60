"""The ``users[].user`` section of a kubeconfig: tokens, certificates, basic auth, exec
plugins and impersonation, as ``ClientConfig`` keyword arguments.

Entry point: ``user_settings(where, entry, cluster)``. Auth providers (the removed
gcp/azure ones and oidc) are refused with a clear ``ConfigError`` rather than
silently connecting anonymously.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kubeforge.config._fields import Entry, data, file_path, flag, string, string_list, type_name
from kubeforge.config.settings import ExecConfig
from kubeforge.core.errors import ConfigError

__all__ = ["EXEC_API_VERSIONS", "user_settings"]

EXEC_API_VERSIONS = (
    "client.authentication.k8s.io/v1",
    "client.authentication.k8s.io/v1beta1",
)
_INTERACTIVE_MODES = ("Never", "IfAvailable", "Always")
_EXEC_EXTENSION = "client.authentication.k8s.io/exec"


def user_settings(where: str, entry: Entry, cluster: dict[str, Any]) -> dict[str, Any]:
    """``ClientConfig`` fields from one user entry; ``cluster`` is the context's cluster
    body (an exec plugin may be given its ``extensions``)."""
    body = entry.body
    if body.get("auth-provider"):
        provider = body["auth-provider"]
        name = provider.get("name") if isinstance(provider, dict) else None
        named = f' "{name}"' if name else ""
        raise ConfigError(
            f"{where}: auth-provider{named} is not supported; use an exec credential plugin "
            "instead (client-go removed its built-in providers)"
        )
    cert_data = data(where, body, "client-certificate-data")
    key_data = data(where, body, "client-key-data")
    cert_file = (
        None if cert_data is not None else file_path(where, entry, body, "client-certificate")
    )
    key_file = None if key_data is not None else file_path(where, entry, body, "client-key")
    has_cert, has_key = cert_file or cert_data, key_file or key_data
    if has_cert and not has_key:
        raise ConfigError(f"{where}: client-certificate given without client-key")
    if has_key and not has_cert:
        raise ConfigError(f"{where}: client-key given without client-certificate")
    username, password = string(where, body, "username"), string(where, body, "password")
    if password and not username:
        raise ConfigError(f"{where}: password given without username")
    token = string(where, body, "token")
    exec_plugin = _exec(where, entry, cluster) if body.get("exec") else None
    return {
        "token": token,
        "token_file": file_path(where, entry, body, "tokenFile"),
        "client_cert_data": cert_data,
        "client_cert_file": cert_file,
        "client_key_data": key_data,
        "client_key_file": key_file,
        "username": username,
        "password": password,
        "exec_plugin": exec_plugin,
        "impersonate_user": string(where, body, "as"),
        "impersonate_uid": string(where, body, "as-uid"),
        "impersonate_groups": string_list(where, body, "as-groups"),
        "impersonate_extra": _user_extra(where, body),
    }


def _user_extra(where: str, body: dict[str, Any]) -> dict[str, tuple[str, ...]]:
    extra = body.get("as-user-extra")
    if extra is None:
        return {}
    if not isinstance(extra, dict):
        raise ConfigError(f"{where}: as-user-extra must be a mapping of lists of strings")
    return {str(key): string_list(where, extra, key) for key in extra}


def _exec(where: str, entry: Entry, cluster: dict[str, Any]) -> ExecConfig:
    spec = entry.body["exec"]
    where = f"{where}: exec"
    if not isinstance(spec, dict):
        raise ConfigError(f"{where} must be a mapping, got {type_name(spec)}")
    command = string(where, spec, "command")
    if not command:
        raise ConfigError(f"{where}: command is required")
    api_version = string(where, spec, "apiVersion")
    if api_version not in EXEC_API_VERSIONS:
        supported = " or ".join(EXEC_API_VERSIONS)
        raise ConfigError(f'{where}: apiVersion "{api_version or ""}" is not {supported}')
    mode = string(where, spec, "interactiveMode")
    if mode is None:
        if api_version.endswith("/v1"):  # required from v1 on (client-go's validation)
            raise ConfigError(f"{where}: interactiveMode is required for {api_version}")
        mode = "IfAvailable"
    if mode not in _INTERACTIVE_MODES:
        raise ConfigError(
            f'{where}: interactiveMode "{mode}" is not one of Never, IfAvailable, Always'
        )
    if "/" in command and not Path(command).expanduser().is_absolute():
        # ./bin/get-token is relative to the kubeconfig's directory, as in client-go.
        command = str(entry.path.parent / command)
    extension = None
    extensions = cluster.get("extensions")
    if isinstance(extensions, list):
        for item in extensions:
            if isinstance(item, dict) and item.get("name") == _EXEC_EXTENSION:
                extension = item.get("extension")
    return ExecConfig(
        command=command,
        api_version=api_version,
        args=string_list(where, spec, "args"),
        env=_env(where, spec),
        install_hint=string(where, spec, "installHint") or "",
        provide_cluster_info=flag(where, spec, "provideClusterInfo"),
        interactive_mode=mode,  # type: ignore[arg-type]
        cluster_config=extension,
        source=where.removesuffix(": exec"),
    )


def _env(where: str, spec: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    env = spec.get("env")
    if env is None:
        return ()
    if not isinstance(env, list):
        raise ConfigError(f"{where}: env must be a list of name/value pairs")
    pairs = []
    for index, item in enumerate(env):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise ConfigError(f"{where}: env[{index}] needs a name")
        value = item.get("value", "")
        pairs.append((item["name"], "" if value is None else str(value)))
    return tuple(pairs)
