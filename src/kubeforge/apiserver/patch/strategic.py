"""Strategic merge patch for built-in kinds, as the real server applies it.

Entry point: ``strategic_merge(original, patch, atom)`` with ``atom`` the kind's type
(``smd.schema.builtin_root``); it never mutates its inputs. The rules, per field, come
from the Kubernetes OpenAPI (``x-kubernetes-patch-strategy`` and ``-merge-key``):

* maps merge recursively, ``null`` deletes a key; ``{"$patch": "replace"}`` replaces a
  map, ``{"$patch": "delete"}`` empties it; ``$retainKeys`` clears the keys it omits;
* lists whose strategy is ``merge`` merge by their merge key (lists of scalars as
  sets); ``{"<key>": v, "$patch": "delete"}`` deletes items, ``[{"$patch": "replace"},
  ...]`` replaces the list; other lists are replaced whole;
* ``$deleteFromPrimitiveList/<field>`` removes scalars; ``$setElementOrder/<field>``
  fixes the order (server-only items keep their place relative to their neighbours);
  without it, the patch's items come in the patch's order.

Failures are ``StatusError``\\ s with the real server's codes: 400 for malformed
directives, 422 for lists of lists, 500 (no reason) for the rest (a missing merge key
among them), which is what the real apiserver answers.
"""

from __future__ import annotations

from typing import Any

import orjson

from kubeforge.apiserver.failures import StatusError
from kubeforge.apiserver.smd.schema import ANY, Atom
from kubeforge.core.status import failure

__all__ = ["strategic_merge"]

_DIRECTIVE = "$patch"
_DELETE_FROM = "$deleteFromPrimitiveList"
_ORDER = "$setElementOrder"
_RETAIN = "$retainKeys"


def _bad_request(message: str) -> StatusError:
    return StatusError(failure(400, "BadRequest", message))


def _error(message: str) -> StatusError:
    return StatusError(failure(500, "", message))


def _go(value: Any) -> str:
    """``value`` printed like Go's ``%v`` of decoded JSON (``map[a:1 b:[x y]]``)."""
    if isinstance(value, dict):
        return "map[" + " ".join(f"{k}:{_go(value[k])}" for k in sorted(value)) + "]"
    if isinstance(value, list):
        return "[" + " ".join(_go(v) for v in value) + "]"
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _no_merge_key(item: Any, key: str) -> StatusError:
    return _error(f"map: {_go(item)} does not contain declared merge key: {key}")


def _copy(value: Any) -> Any:
    return orjson.loads(orjson.dumps(value))


def _same(a: Any, b: Any) -> bool:
    """Go's ``==`` on decoded JSON scalars (numbers are all float64; bool is not 1)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    return type(a) is type(b) and a == b


def _child(atom: Atom, key: str) -> Atom:
    found = atom.child(key)
    return found if found is not None else ANY


def _clean(value: Any) -> Any:
    """A value the patch adds wholesale: nulls discarded, stray directives dropped (the
    real server's decoding into Go types does not keep ``$`` keys either)."""
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items() if v is not None and not k.startswith("$")}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


def strategic_merge(original: dict[str, Any], patch: Any, atom: Atom) -> dict[str, Any]:
    """``patch`` applied to ``original`` (both JSON objects)."""
    if not isinstance(patch, dict):
        raise _bad_request(
            "json: cannot unmarshal array into Go value of type map[string]interface {}"
        )
    merged = _merge_map(_copy(original), _copy(patch), atom)
    return merged if isinstance(merged, dict) else {}


def _merge_map(original: dict[str, Any] | None, patch: dict[str, Any], atom: Atom) -> Any:
    if _DIRECTIVE in patch:
        directive = patch.pop(_DIRECTIVE)
        if directive == "replace":
            return _clean(patch)
        if directive == "delete":
            return {}
        raise _error(f"unknown patch type: {directive} in map: {_go(patch)}")
    result: dict[str, Any] = original if isinstance(original, dict) else {}
    _retain_keys(result, patch)
    _set_element_orders(result, patch, atom)
    for key, value in patch.items():
        delete_list = key.startswith(_DELETE_FROM + "/")
        if key.startswith(_DELETE_FROM):
            key = _directive_key(key, _DELETE_FROM, "invalid patch format of primitive list")
        if value is None:
            result.pop(key, None)
            continue
        if key not in result or _kind(result[key]) != _kind(value):
            if not delete_list:
                result[key] = _clean(value)
            continue
        child = _child(atom, key)
        if isinstance(value, dict):
            if "replace" in child.strategy.split(","):
                result[key] = _clean(value)
            else:
                result[key] = _merge_map(result[key], value, child)
        elif isinstance(value, list):
            result[key] = _merge_list(result[key], value, child, delete_list=delete_list)
        else:
            result[key] = value
    return result


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "map"
    if isinstance(value, list):
        return "list"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    return "string" if isinstance(value, str) else "null"


def _directive_key(key: str, prefix: str, message: str) -> str:
    head, sep, tail = key.partition("/")
    if head != prefix or not sep:
        raise _bad_request(message)
    return tail


def _retain_keys(original: dict[str, Any], patch: dict[str, Any]) -> None:
    if _RETAIN not in patch:
        return
    keep = patch.pop(_RETAIN)
    if not isinstance(keep, list):
        raise _bad_request("invalid patch format of retainKeys")
    for key, value in patch.items():
        if value is None or key.startswith((_DELETE_FROM, _ORDER)):
            continue
        if key not in keep:
            raise _bad_request("invalid patch format of retainKeys")
    for key in [k for k in original if k not in keep]:
        del original[key]


def _set_element_orders(original: dict[str, Any], patch: dict[str, Any], atom: Atom) -> None:
    for directive in [k for k in patch if k.startswith(_ORDER)]:
        order = patch.pop(directive)
        if not isinstance(order, list):
            raise _bad_request("invalid patch format of setElementOrder list")
        key = _directive_key(directive, _ORDER, "invalid patch format of setElementOrder list")
        child = _child(atom, key)
        merge_key = child.merge_key
        live, in_patch = original.get(key), patch.get(key)
        for value in (live, in_patch):
            if value is not None and not isinstance(value, list):
                raise _error(f"expected a []interface {{}}, but received a {_go_type(value)}")
        if isinstance(in_patch, list):
            _check_order(in_patch, order, merge_key)
        if live is not None and in_patch is not None:
            merged = _merge_list(live, in_patch, child, delete_list=False)
        elif live is not None:
            merged = live
        elif in_patch is not None:
            merged = _clean(in_patch)
        else:
            continue
        patch.pop(key, None)
        if not merged and not order:
            original[key] = merged
            continue
        listed, server_only = _partition(merged, order, merge_key)
        original[key] = _normalize(listed, server_only, order, live or [], merge_key)


def _go_type(value: Any) -> str:
    return "map[string]interface {}" if isinstance(value, dict) else type(value).__name__


def _check_order(patch_list: list[Any], order: list[Any], merge_key: str) -> None:
    """Items of the patch list must appear in ``$setElementOrder`` in the same order."""
    if not order or not patch_list:
        return
    items = [
        i
        for i in patch_list
        if not (merge_key and isinstance(i, dict) and i.get(_DIRECTIVE) == "delete")
    ]
    p = o = 0
    while p < len(items) and o < len(order):
        if isinstance(items[p], dict) and _DIRECTIVE in items[p]:
            p += 1
            continue
        if _same(_merge_value(items[p], merge_key), _merge_value(order[o], merge_key)):
            p += 1
        o += 1
    if p < len(items):
        raise _error(
            f"The order in patch list:\n{_go(patch_list)}\n doesn't match {_ORDER} list:\n"
            f"{_go(order)}\n"
        )


def _merge_value(item: Any, merge_key: str) -> Any:
    if not merge_key:
        return item
    if not isinstance(item, dict) or merge_key not in item:
        raise _no_merge_key(item, merge_key)
    return item[merge_key]


def _element_kind(*lists: list[Any]) -> str:
    kinds = {_kind(v) for values in lists for v in values}
    if "list" in kinds:
        raise StatusError(failure(422, "", "lists of lists are not supported"))
    if len(kinds) > 1:
        raise _error(f"list element types are not identical: {_go(list(lists))}")
    return kinds.pop() if kinds else ""


def _merge_list(original: list[Any], patch: list[Any], atom: Atom, *, delete_list: bool) -> Any:
    if delete_list:
        return [v for v in original if not any(_same(v, d) for d in patch)]
    if not atom.merging_list:
        return _clean(patch)
    if not original and not patch:
        return original
    kind = _element_kind(original, patch)
    if kind != "map":
        merged: list[Any] = []
        for value in (*original, *patch):  # a merge also collapses duplicates already there
            if not any(_same(value, v) for v in merged):
                merged.append(value)
        listed, server_only = _partition(merged, patch, "")
        return _normalize(listed, server_only, patch, original, "")
    merge_key = atom.merge_key
    if not merge_key:
        raise _error("cannot merge lists without merge key")
    item_atom = atom.element or ANY
    original, patch, replaced = _special_items(original, patch, merge_key)
    if replaced:
        return _clean(original)
    before = list(original)  # the order server-only items keep (new items are not in it)
    for item in patch:
        value = _merge_value(item, merge_key)
        position = next(
            (
                i
                for i, live in enumerate(original)
                if isinstance(live, dict) and merge_key in live and _same(live[merge_key], value)
            ),
            None,
        )
        if position is None:
            original.append(_clean(item))
        else:
            original[position] = _merge_map(original[position], item, item_atom)
    listed, server_only = _partition(original, patch, merge_key)
    return _normalize(listed, server_only, patch, before, merge_key)


def _special_items(
    original: list[Any], patch: list[Any], merge_key: str
) -> tuple[list[Any], list[Any], bool]:
    """Apply ``$patch`` items: deletions by merge key, or a whole-list replace."""
    plain: list[Any] = []
    replace = False
    for item in patch:
        if not isinstance(item, dict) or _DIRECTIVE not in item:
            plain.append(item)
            continue
        directive = item[_DIRECTIVE]
        if directive == "delete":
            if merge_key not in item:
                raise _no_merge_key(item, merge_key)
            original = [
                live
                for live in original
                if not (
                    isinstance(live, dict)
                    and merge_key in live
                    and _same(live[merge_key], item[merge_key])
                )
            ]
        elif directive == "replace":
            replace = True
        elif directive == "merge":
            raise _error("merging lists cannot yet be specified in the patch")
        else:
            raise _error(f"unknown patch type: {directive} in map: {_go(item)}")
    if replace:
        return plain, [], True
    return original, plain, False


def _partition(items: list[Any], by: list[Any], merge_key: str) -> tuple[list[Any], list[Any]]:
    """Split ``items`` into those named in ``by`` and the server-only rest."""
    named = [_merge_value(v, merge_key) for v in by if not (merge_key and _is_directive(v))]
    listed: list[Any] = []
    rest: list[Any] = []
    for item in items:
        value = _merge_value(item, merge_key)
        (listed if any(_same(value, n) for n in named) else rest).append(item)
    return listed, rest


def _is_directive(item: Any) -> bool:
    return isinstance(item, dict) and _DIRECTIVE in item


def _index(items: list[Any], item: Any, merge_key: str) -> int:
    value = _merge_value(item, merge_key)
    for i, candidate in enumerate(items):
        if merge_key and not isinstance(candidate, dict):
            continue
        if _same(_merge_value(candidate, merge_key) if merge_key else candidate, value):
            return i
    return -1


def _normalize(
    listed: list[Any], server_only: list[Any], order: list[Any], live: list[Any], merge_key: str
) -> list[Any]:
    """Order patch items by ``order``, server-only items by ``live``, then interleave so
    each server-only item stays before the first patch item that followed it live."""
    usable = [o for o in order if not (merge_key and _is_directive(o))]
    listed = sorted(listed, key=lambda i: _position(usable, i, merge_key))
    server_only = sorted(server_only, key=lambda i: _position(live, i, merge_key))
    result: list[Any] = []
    i = j = 0
    while i < len(server_only) or j < len(listed):
        if i >= len(server_only):
            result.append(listed[j])
            j += 1
        elif j >= len(listed):
            result.append(server_only[i])
            i += 1
        else:
            left = _index(live, server_only[i], merge_key)
            right = _index(live, listed[j], merge_key)
            if left >= 0 and right >= 0 and left < right:
                result.append(server_only[i])
                i += 1
            else:
                result.append(listed[j])
                j += 1
    return result


def _position(order: list[Any], item: Any, merge_key: str) -> int:
    found = _index(order, item, merge_key)
    return found if found >= 0 else len(order)
