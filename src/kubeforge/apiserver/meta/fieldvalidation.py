"""``fieldValidation`` beyond unknown fields: duplicate fields in request bodies, and unknown
fields that a patch introduces.

Entry points:

* ``check_duplicates(raw, info, directive, warnings)`` -- a JSON body naming one field twice
  is refused (``Strict``: 400 ``strict decoding error: duplicate field "spec.x"``) or
  warned about (``Warn``). Checked only when the request asks for Strict or Warn
  explicitly: a duplicate-aware parse costs several times orjson's, and the default
  (Warn) would otherwise tax every write for a mistake JSON encoders do not make.
* ``yaml_duplicates(raw)`` -- the same for YAML (server-side apply bodies), worded like
  the real server's YAML decoder (``line 3: key "a" already set in map``).
* ``strict_patch_failure(obj, unknown)`` -- a patch whose result has unknown fields under
  ``Strict`` is a 422 on field ``patch``, as the real server answers patches (creates and
  updates get a 400 instead, see ``Engine``).
"""

from __future__ import annotations

import json
from typing import Any

import orjson
import yaml

from kubeforge.apiserver import failures
from kubeforge.apiserver.failures import FieldError, StatusError
from kubeforge.core.resource import ResourceInfo

__all__ = ["check_duplicates", "duplicate_fields", "strict_patch_failure", "yaml_duplicates"]


class _Object(dict[str, Any]):
    """A decoded JSON object that remembers the keys it saw twice."""

    duplicates: list[str]


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = _Object(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        result.duplicates = []
        for key, _ in pairs:
            if key in seen and key not in result.duplicates:
                result.duplicates.append(key)
            seen.add(key)
    return result


def duplicate_fields(raw: bytes) -> list[str]:
    """Dotted paths (``spec.containers[0].name``) of fields a JSON document repeats."""
    try:
        document = json.loads(raw, object_pairs_hook=_pairs)
    except ValueError:
        return []  # not JSON: the regular decoder reports it
    found: list[str] = []
    _walk(document, "", found)
    return found


def _walk(value: Any, path: str, found: list[str]) -> None:
    if isinstance(value, dict):
        for key in getattr(value, "duplicates", ()):
            found.append(f"{path}.{key}" if path else key)
        for key, child in value.items():
            _walk(child, f"{path}.{key}" if path else key, found)
    elif isinstance(value, list):
        for i, child in enumerate(value):
            _walk(child, f"{path}[{i}]", found)


def check_duplicates(
    raw: bytes, info: ResourceInfo, directive: str, warnings: list[str] | None
) -> None:
    """Refuse (Strict) or warn about (Warn) duplicate fields in a create/update body."""
    if directive not in ("Strict", "Warn"):
        return
    duplicates = [f'duplicate field "{path}"' for path in duplicate_fields(raw)]
    if not duplicates:
        return
    if directive == "Strict":
        raise failures.bad_request(
            f'{info.kind} in version "{info.version}" cannot be handled as a {info.kind}: '
            f"strict decoding error: {', '.join(duplicates)}"
        )
    if warnings is not None:
        warnings.extend(duplicates)


class _DuplicateLoader(yaml.SafeLoader):
    """A YAML loader that records repeated mapping keys instead of keeping the last."""

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        self.duplicates: list[str] = []


def _construct_mapping(loader: _DuplicateLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=True)
        if isinstance(key, str | int | float | bool) and key in seen:
            line = key_node.start_mark.line + 1
            loader.duplicates.append(f'line {line}: key "{key}" already set in map')
        seen.add(key)
    return loader.construct_mapping(node, deep=True)


_DuplicateLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG,
    _construct_mapping,
)


def yaml_duplicates(raw: bytes) -> list[str]:
    """``line N: key "k" already set in map`` for each repeated key of a YAML (or JSON) body."""
    loader = _DuplicateLoader(raw)
    try:
        loader.get_single_data()
    except yaml.YAMLError:
        return []  # the regular decoder reports malformed YAML
    finally:
        loader.dispose()
    return loader.duplicates


def strict_patch_failure(obj: dict[str, Any], unknown: list[str]) -> StatusError:
    """The real server's answer to a Strict patch whose result has unknown fields."""
    fields = ", ".join(f'unknown field "{path}"' for path in unknown)
    document = orjson.dumps(obj).decode()
    return failures.invalid(
        "",
        "",
        "",
        [FieldError("Invalid", "patch", f"strict decoding error: {fields}", document)],
    )
