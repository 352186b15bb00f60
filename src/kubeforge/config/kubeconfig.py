"""Read kubeconfig files, merge them the way clientcmd does, and pick one context.

See ``load_kubeconfig()`` for the entry point. Merging rules (clientcmd's):
the first file to define a cluster, user or context name wins that name as a
whole entry; ``current-context`` comes from the first file that sets one.
Relative paths inside an entry are resolved against the directory of the file
that entry came from, before merging, so a merged config never loses track of
where ``ca.pem`` lives.

Every error is one ``ConfigError`` line naming the file, the context and the
field at fault. The user section (tokens, certificates, basic auth, exec plugins,
impersonation) is read by ``kubeforge.config._users``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from kubeforge.config._fields import Entry as _Entry
from kubeforge.config._fields import data as _data
from kubeforge.config._fields import file_path as _file
from kubeforge.config._fields import flag, string
from kubeforge.config._fields import type_name as _type_name
from kubeforge.config._users import user_settings
from kubeforge.config.settings import ClientConfig
from kubeforge.core.errors import ConfigError

__all__ = ["load_kubeconfig"]

# The C loader is several times faster; PyYAML builds without libyaml lack it.
_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(slots=True)
class _Merged:
    files: list[Path]
    clusters: dict[str, _Entry] = field(default_factory=dict)
    users: dict[str, _Entry] = field(default_factory=dict)
    contexts: dict[str, _Entry] = field(default_factory=dict)
    current_context: str = ""

    @property
    def where(self) -> str:
        return os.pathsep.join(str(p) for p in self.files)


def load_kubeconfig(
    paths: str | Path | Sequence[str | Path], context: str | None = None
) -> ClientConfig:
    """Merge the kubeconfig file(s) at ``paths`` and build the config of ``context``.

    ``context=None`` means the merged ``current-context``. Every file must exist;
    ``$KUBECONFIG``'s skip-missing-files rule lives in the loader, not here.

    Raises ``ConfigError`` with one line naming the file and the problem.
    """
    if isinstance(paths, str | Path):
        paths = [paths]
    merged = _Merged(files=[Path(p).absolute() for p in paths])
    for path in merged.files:
        _merge(merged, path, _read(path))
    return _build(merged, context)


def _read(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ConfigError(f"{path}: is a directory, not a kubeconfig file") from None
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"{path}: cannot read ({err})") from err
    try:
        doc = yaml.load(text, Loader=_Loader)  # _Loader is a SafeLoader
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise ConfigError(f"{path}: not valid YAML{where}") from err
    except yaml.YAMLError as err:
        raise ConfigError(f"{path}: not valid YAML") from err
    if doc is None:  # an empty file is an empty config, as in clientcmd
        return {}
    if not isinstance(doc, dict):
        raise ConfigError(f"{path}: expected a mapping at the top level, got {_type_name(doc)}")
    return doc


def _merge(merged: _Merged, path: Path, doc: dict[str, Any]) -> None:
    for section, singular, target in (
        ("clusters", "cluster", merged.clusters),
        ("users", "user", merged.users),
        ("contexts", "context", merged.contexts),
    ):
        seen: set[str] = set()
        for name, body in _named_list(path, doc, section, singular):
            if name in seen:
                raise ConfigError(f'{path}: duplicate {singular} name "{name}"')
            seen.add(name)
            # First file to define a name wins the whole entry (clientcmd's merge order).
            target.setdefault(name, _Entry(body, path))
    current = doc.get("current-context")
    if current is not None and not isinstance(current, str):
        raise ConfigError(f"{path}: current-context must be a string")
    if current and not merged.current_context:
        merged.current_context = current


def _named_list(
    path: Path, doc: dict[str, Any], section: str, singular: str
) -> list[tuple[str, dict[str, Any]]]:
    items = doc.get(section)
    if items is None:
        return []
    if not isinstance(items, list):
        raise ConfigError(f'{path}: "{section}" must be a list, got {_type_name(items)}')
    out: list[tuple[str, dict[str, Any]]] = []
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise ConfigError(f"{path}: {section}[{index}] must be a mapping")
        name = item.get("name")
        if not isinstance(name, str) or not name:
            raise ConfigError(f"{path}: {section}[{index}] has no name")
        body = item.get(singular)
        if body is None:
            body = {}
        if not isinstance(body, dict):
            raise ConfigError(f'{path}: {singular} "{name}": "{singular}" must be a mapping')
        out.append((name, body))
    return out


def _build(merged: _Merged, context: str | None) -> ClientConfig:
    name = context or merged.current_context
    if not name:
        raise ConfigError(f"{merged.where}: no current-context is set; pass a context name")
    ctx = merged.contexts.get(name)
    if ctx is None:
        raise ConfigError(f'{merged.where}: context "{name}" not found')
    where = f'{ctx.path}: context "{name}"'
    cluster_name = ctx.body.get("cluster")
    if not isinstance(cluster_name, str) or not cluster_name:
        raise ConfigError(f"{where}: no cluster named")
    cluster = merged.clusters.get(cluster_name)
    if cluster is None:
        raise ConfigError(f'{where}: cluster "{cluster_name}" not found')
    settings = _cluster_settings(
        f'{cluster.path}: context "{name}": cluster "{cluster_name}"', cluster
    )
    user_name = ctx.body.get("user")
    if user_name:  # a context without a user connects anonymously, as with kubectl
        if not isinstance(user_name, str):
            raise ConfigError(f"{where}: user must be a string")
        user = merged.users.get(user_name)
        if user is None:
            raise ConfigError(f'{where}: user "{user_name}" not found')
        user_where = f'{user.path}: context "{name}": user "{user_name}"'
        settings.update(user_settings(user_where, user, cluster.body))
    namespace = ctx.body.get("namespace") or "default"
    if not isinstance(namespace, str):
        raise ConfigError(f"{where}: namespace must be a string")
    return ClientConfig(namespace=namespace, context=name, source=merged.where, **settings)


def _cluster_settings(where: str, entry: _Entry) -> dict[str, Any]:
    body = entry.body
    server = body.get("server")
    if not isinstance(server, str) or not server.strip():
        raise ConfigError(f"{where}: no server")
    server = server.strip().rstrip("/")
    if "://" not in server:  # clientcmd accepts host:port and assumes https
        server = f"https://{server}"
    if not server.startswith(("https://", "http://")):
        raise ConfigError(f'{where}: server "{server}" is not an http(s) URL')
    insecure = flag(where, body, "insecure-skip-tls-verify")
    ca_data = _data(where, body, "certificate-authority-data")
    ca_file = None if ca_data is not None else _file(where, entry, body, "certificate-authority")
    if insecure and (ca_data is not None or ca_file is not None):
        # client-go refuses this pair: trusting a CA and trusting anything contradict each other.
        raise ConfigError(
            f"{where}: certificate-authority and insecure-skip-tls-verify cannot both be set"
        )
    proxy_url = string(where, body, "proxy-url")
    if proxy_url is not None and not proxy_url.startswith(("http://", "https://")):
        scheme = proxy_url.partition("://")[0] if "://" in proxy_url else proxy_url
        raise ConfigError(
            f'{where}: proxy-url "{proxy_url}": only http:// and https:// proxies are supported'
            f" (got {scheme!r})"
        )
    return {
        "server": server,
        "ca_data": ca_data,
        "ca_file": ca_file,
        "verify_tls": not insecure,
        "tls_server_name": string(where, body, "tls-server-name"),
        "proxy_url": proxy_url,
    }
