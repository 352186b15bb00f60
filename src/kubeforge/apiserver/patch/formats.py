"""The three patch formats the server accepts: JSON patch, JSON merge patch, strategic merge.

Entry point: ``apply_patch(kind, document, patch)``; it never mutates its inputs.

Hand-written rather than taken from a library on purpose: the real server's JSON
patch (evanphx/json-patch) differs from RFC 6902 in ways clients depend on (a
``test`` of a missing path against ``null`` succeeds — kube-rs' finalizer helper
relies on it) and its failures must come back as 422 with the library's wording;
strategic merge (``strategic``) needs Kubernetes' merge keys and strategies, which no
generic library knows (they come from the 1.32 OpenAPI: ``smd.schema``).

Errors: ``PatchDecodeError`` (the patch is not valid for its format: 400) and
``PatchApplyError`` (a well-formed patch that cannot be applied: 422 Invalid, the text
as its one cause);
strategic merge raises the real server's ``StatusError`` codes itself (400, 422 or 500).
"""

from __future__ import annotations

from typing import Any

import orjson

from kubeforge.apiserver.patch.strategic import strategic_merge
from kubeforge.apiserver.smd.schema import ANY, Atom, builtin_root
from kubeforge.apiserver.smd.value import json_equal

__all__ = [
    "JSON_PATCH",
    "MERGE_PATCH",
    "STRATEGIC_MERGE_PATCH",
    "PatchApplyError",
    "PatchDecodeError",
    "apply_json_patch",
    "apply_merge_patch",
    "apply_patch",
    "apply_strategic_merge_patch",
]

JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json"

MAX_OPERATIONS = 10000


class PatchDecodeError(ValueError):
    """The patch body does not have the shape its content type requires."""


class PatchApplyError(ValueError):
    """The patch is well-formed but cannot be applied to the document."""


def _copy(value: Any) -> Any:
    return orjson.loads(orjson.dumps(value))


# --- JSON patch (RFC 6902, evanphx flavour) -----------------------------------------------


def _pointer(path: Any, op: str) -> list[str]:
    if not isinstance(path, str):
        raise PatchApplyError(f"{op} operation: invalid path: {path!r}")
    if path == "":
        return []
    if not path.startswith("/"):
        raise PatchApplyError(f"{op} operation: JSON pointer must start with '/': {path}")
    return [part.replace("~1", "/").replace("~0", "~") for part in path[1:].split("/")]


def _index(token: str, length: int, *, allow_end: bool, path: str) -> int:
    if allow_end and token == "-":
        return length
    # Decimal, no sign, no leading zeros, no exponent.
    if not token.isdigit() or (len(token) > 1 and token[0] == "0") or not token.isascii():
        raise PatchApplyError(f"invalid array index {token!r} in path {path!r}")
    index = int(token)
    limit = length if allow_end else length - 1
    if index > limit:
        raise PatchApplyError(f"unable to access invalid index: {index} in path {path!r}")
    return index


def _parent(doc: Any, parts: list[str], op: str, path: str) -> Any:
    node = doc
    for token in parts[:-1]:
        if isinstance(node, dict):
            if token not in node:
                raise PatchApplyError(f"{op} operation does not apply: doc is missing path: {path}")
            node = node[token]
        elif isinstance(node, list):
            node = node[_index(token, len(node), allow_end=False, path=path)]
        else:
            raise PatchApplyError(f"{op} operation does not apply: doc is missing path: {path}")
    return node


def _get(doc: Any, path: str, op: str) -> tuple[bool, Any]:
    parts = _pointer(path, op)
    if not parts:
        return True, doc
    parent = _parent(doc, parts, op, path)
    token = parts[-1]
    if isinstance(parent, dict):
        return (token in parent), parent.get(token)
    if isinstance(parent, list):
        return True, parent[_index(token, len(parent), allow_end=False, path=path)]
    raise PatchApplyError(f"{op} operation does not apply: doc is missing path: {path}")


def _add(doc: Any, path: str, value: Any, op: str = "add") -> Any:
    parts = _pointer(path, op)
    if not parts:
        return value
    parent = _parent(doc, parts, op, path)
    token = parts[-1]
    if isinstance(parent, dict):
        parent[token] = value
    elif isinstance(parent, list):
        parent.insert(_index(token, len(parent), allow_end=True, path=path), value)
    else:
        raise PatchApplyError(f"{op} operation does not apply: doc is missing path: {path}")
    return doc


def _remove(doc: Any, path: str, op: str = "remove") -> tuple[Any, Any]:
    parts = _pointer(path, op)
    if not parts:
        raise PatchApplyError(f"{op} operation does not apply: cannot remove the whole document")
    parent = _parent(doc, parts, op, path)
    token = parts[-1]
    if isinstance(parent, dict):
        if token not in parent:
            raise PatchApplyError(f"{op} operation does not apply: doc is missing path: {path}")
        return doc, parent.pop(token)
    if isinstance(parent, list):
        return doc, parent.pop(_index(token, len(parent), allow_end=False, path=path))
    raise PatchApplyError(f"{op} operation does not apply: doc is missing path: {path}")


def _require(operation: dict[str, Any], key: str, op: str) -> Any:
    if key not in operation:
        raise PatchApplyError(f"{op} operation: missing '{key}' parameter")
    return operation[key]


def apply_json_patch(document: Any, patch: Any) -> Any:
    """Apply an RFC 6902 operation list; returns a new document."""
    if not isinstance(patch, list) or not all(isinstance(o, dict) for o in patch):
        raise PatchDecodeError(
            "json: cannot unmarshal object into Go value of type jsonpatch.Patch"
        )
    if len(patch) > MAX_OPERATIONS:
        raise PatchApplyError(
            f"The allowed maximum operations in a JSON patch is {MAX_OPERATIONS}, got {len(patch)}"
        )
    doc = _copy(document)
    for operation in patch:
        op = operation.get("op")
        path = _require(operation, "path", str(op))
        if op == "add":
            doc = _add(doc, path, _copy(_require(operation, "value", op)))
        elif op == "remove":
            doc, _ = _remove(doc, path)
        elif op == "replace":
            doc = _replace(doc, path, _copy(_require(operation, "value", op)))
        elif op in ("move", "copy"):
            source = _require(operation, "from", op)
            found, value = _get(doc, source, op)
            if not found:
                raise PatchApplyError(
                    f"{op} operation does not apply: doc is missing from path: {source}"
                )
            if op == "move":
                if path != source and path.startswith(source + "/"):
                    raise PatchApplyError(
                        "move operation: cannot move a value into one of its children"
                    )
                doc, value = _remove(doc, source, op)
            doc = _add(doc, path, _copy(value), op)
        elif op == "test":
            expected = _require(operation, "value", op)
            found, actual = _get(doc, path, op)
            # evanphx quirk the apiserver inherits: a missing path "equals" null.
            if not found and expected is None:
                continue
            if not found or not json_equal(actual, expected):
                raise PatchApplyError(f"testing value {path} failed: test failed")
        else:
            raise PatchApplyError(f"Unexpected kind: {op}")
    return doc


def _replace(doc: Any, path: str, value: Any) -> Any:
    parts = _pointer(path, "replace")
    if not parts:
        return value
    parent = _parent(doc, parts, "replace", path)
    token = parts[-1]
    if isinstance(parent, dict):
        if token not in parent:
            raise PatchApplyError(f"replace operation does not apply: doc is missing key: {path}")
        parent[token] = value
    elif isinstance(parent, list):
        parent[_index(token, len(parent), allow_end=False, path=path)] = value
    else:
        raise PatchApplyError(f"replace operation does not apply: doc is missing path: {path}")
    return doc


# --- JSON merge patch (RFC 7396) ----------------------------------------------------------


def apply_merge_patch(document: Any, patch: Any) -> Any:
    """RFC 7396: objects merge recursively, ``null`` deletes, everything else replaces."""
    if not isinstance(patch, dict):
        return _copy(patch)
    result = _copy(document) if isinstance(document, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = apply_merge_patch(result.get(key), value)
    return result


# --- strategic merge patch (built-in types only) -------------------------------------------


def apply_strategic_merge_patch(document: Any, patch: Any, atom: Atom | None = None) -> Any:
    """Strategic merge with the merge keys and strategies of ``document``'s kind (or
    ``atom``); see ``strategic``. Kinds without a known type merge maps and replace lists."""
    if atom is None:
        atom = _kind_atom(document)
    return strategic_merge(document if isinstance(document, dict) else {}, patch, atom)


def _kind_atom(document: Any) -> Atom:
    if isinstance(document, dict):
        group, _, version = str(document.get("apiVersion") or "").rpartition("/")
        found = builtin_root(group, version, str(document.get("kind") or ""))
        if found is not None:
            return found
    return ANY


def apply_patch(content_type: str, document: dict[str, Any], patch: Any) -> Any:
    """Dispatch on the request's patch content type (one of the three constants)."""
    if content_type == JSON_PATCH:
        return apply_json_patch(document, patch)
    if content_type == MERGE_PATCH:
        if not isinstance(patch, dict):
            raise PatchDecodeError(
                "json: cannot unmarshal array into Go value of type map[string]interface {}"
            )
        return apply_merge_patch(document, patch)
    if content_type == STRATEGIC_MERGE_PATCH:
        return apply_strategic_merge_patch(document, patch)
    raise ValueError(f"not a patch content type: {content_type}")
