"""Typed reads of kubeconfig fields, each failing with one line naming where and what.

``where`` is always the prefix of the message: the file, then the context and the
entry (``/home/me/.kube/config: context "dev": user "me"``), so every error names
the file, the context and the field at fault.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kubeforge.core.errors import ConfigError

__all__ = ["Entry", "data", "file_path", "flag", "string", "string_list", "type_name"]


@dataclass(frozen=True, slots=True)
class Entry:
    """One named cluster/user/context body, with the file it came from."""

    body: dict[str, Any]
    path: Path


def string(where: str, body: dict[str, Any], key: str) -> str | None:
    value = body.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ConfigError(f"{where}: {key} must be a string, got {type_name(value)}")
    return value


def flag(where: str, body: dict[str, Any], key: str) -> bool:
    value = body.get(key, False)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise ConfigError(f"{where}: {key} must be true or false")
    return value


def string_list(where: str, body: dict[str, Any], key: str) -> tuple[str, ...]:
    value = body.get(key)
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: {key} must be a list of strings")
    return tuple(value)


def data(where: str, body: dict[str, Any], key: str) -> bytes | None:
    value = body.get(key)
    if not value:
        return None
    if not isinstance(value, str):
        raise ConfigError(f"{where}: {key} must be a base64 string")
    try:
        return base64.b64decode("".join(value.split()), validate=True)
    except (binascii.Error, ValueError):
        raise ConfigError(f"{where}: {key} is not valid base64") from None


def file_path(where: str, entry: Entry, body: dict[str, Any], key: str) -> Path | None:
    value = body.get(key)
    if not value:
        return None
    if not isinstance(value, str):
        raise ConfigError(f"{where}: {key} must be a path")
    path = Path(value).expanduser()
    if not path.is_absolute():
        # Relative to the kubeconfig that named it, not to the working directory (clientcmd).
        path = entry.path.parent / path
    if not path.is_file():
        raise ConfigError(f"{where}: {key} {path} not found")
    return path


def type_name(value: object) -> str:
    return {
        dict: "a mapping",
        list: "a list",
        str: "a string",
        int: "a number",
        float: "a number",
        bool: "a boolean",
    }.get(type(value), type(value).__name__)
