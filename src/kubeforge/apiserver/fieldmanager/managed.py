"""``metadata.managedFields``: who owns which field, updated on every write, and the
server-side apply algorithm built on it.

Entry points:

* ``update(...)`` -- a create/update/patch by ``manager`` (operation ``Update``): the
  fields it added or changed become its own and leave other managers; removed fields
  leave everyone. Returns the ``managedFields`` list to store.
* ``apply(...)`` -- server-side apply: merge the configuration into the live object,
  take ownership of what it sets, remove what the manager applied last time and no
  longer does (unless someone else owns it), and refuse with ``ApplyConflict`` when
  it would change a value another manager owns (unless ``force``).
* ``keep_timestamps(old, new)`` (from ``entries``) -- a write that changes nothing but
  managedFields timestamps keeps the stored ones, so it stays a no-op.

The behaviours mirror the real server's field manager (apimachinery
``util/managedfields``): at most ten ``Update`` entries are kept (older ones fold into
``ancient-changes``); an object whose managedFields were cleared is not tracked again
until its next apply, which first records ``before-first-apply`` as owner of what is
already there; ``kubectl``'s apply keeps the ``last-applied-configuration`` annotation
in step and may take over fields from its client-side predecessor without conflicts
(``last_applied``). A refused apply is ``conflicts.ApplyConflict``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from kubeforge.apiserver.fieldmanager.conflicts import ApplyConflict
from kubeforge.apiserver.fieldmanager.entries import (
    STRIP,
    Entry,
    ManagerId,
    Managers,
    decode,
    decode_or_empty,
    encode,
    is_reset,
    keep_timestamps,
    without_managed,
)
from kubeforge.apiserver.fieldmanager.last_applied import (
    allowed_by_last_applied,
    has_last_applied,
    sync_last_applied,
)
from kubeforge.apiserver.smd.fieldpath import FieldSet, Path
from kubeforge.apiserver.smd.schema import Atom
from kubeforge.apiserver.smd.typed import (
    compare,
    merge,
    remove_items,
    to_field_set,
)
from kubeforge.apiserver.smd.value import json_equal

__all__ = [
    "Entry",
    "ManagerId",
    "apply",
    "decode",
    "encode",
    "keep_timestamps",
    "update",
]

_MAX_UPDATE_MANAGERS = 10
_ANCIENT = "ancient-changes"
_BEFORE_FIRST_APPLY = "before-first-apply"
_CURRENT = "current-operation"  # placeholder owner of one update's changes


# --- Update ---------------------------------------------------------------------------


def _record_update(
    managers: Managers,
    old: dict[str, Any],
    new: dict[str, Any],
    identity: ManagerId,
    atom: Atom,
    ignored: FieldSet,
    now: str,
) -> Managers:
    """Give ``identity`` what changed from ``old`` to ``new``; take it from everyone else."""
    comparison = compare(old, new, atom).excluding(ignored)
    result: Managers = {}
    changed = comparison.changed()
    for other, entry in managers.items():
        rest = entry.fields.difference(changed).difference(comparison.removed)
        if not rest.empty():
            result[other] = Entry(rest, entry.api_version, entry.time)
    taken = changed.recursive_difference(ignored).difference(STRIP)
    if not taken.empty():
        previous = result.get(identity)
        fields = taken if previous is None else taken.union(previous.fields)
        result[identity] = Entry(fields, identity.api_version, now)
    return _cap_updates(result)


def _cap_updates(managers: Managers) -> Managers:
    updaters = [m for m in managers if m.operation == "Update"]
    if len(updaters) <= _MAX_UPDATE_MANAGERS:
        return managers
    updaters.sort(key=lambda m: (managers[m].time or "", m))
    result = dict(managers)
    first_of_version: dict[str, ManagerId] = {}
    remaining = len(updaters)
    for identity in updaters:
        if remaining <= _MAX_UPDATE_MANAGERS:
            break
        entry = result[identity]
        bucket = ManagerId("Update", _ANCIENT, entry.api_version, "")
        first = first_of_version.get(entry.api_version)
        if first is None:
            first_of_version[entry.api_version] = identity
            continue
        if bucket not in result:
            result[bucket] = result.pop(first)
        merged = entry.fields.union(result[bucket].fields)
        result[bucket] = Entry(merged, entry.api_version, entry.time)
        del result[identity]
        remaining -= 1
    return result


def update(
    *,
    old: dict[str, Any] | None,
    new: dict[str, Any],
    sent: Any,
    manager: str,
    subresource: str,
    api_version: str,
    atom: Atom,
    ignored: FieldSet,
    now: str,
) -> list[dict[str, Any]] | None:
    """The managedFields to store after a non-apply write (None: store none).

    ``sent`` is what the request body carried in ``metadata.managedFields``: a valid
    list replaces the stored one (so clients can rewrite ownership), ``[]``/``[{}]``
    clears it; subresource writes always start from the stored list.
    """
    stored = (old or {}).get("metadata", {}).get("managedFields")
    if subresource:
        managers = decode_or_empty(stored)
    elif is_reset(sent):
        managers = {}
    else:
        try:
            managers = decode(sent) if sent is not None else {}
        except ValueError:
            managers = {}
        if not managers:
            managers = decode_or_empty(stored)
    if not managers and old is not None:
        return None  # cleared: tracking resumes with the next apply
    identity = ManagerId("Update", manager, api_version, subresource)
    after = without_managed(new)
    memo_key = None
    if old is None and not managers:  # a create: no owners yet
        memo_key = _creation_key(identity, atom, ignored, after)
    if memo_key is not None:
        known = _created.get(memo_key)
        if known is not None:
            return _stamped(known, now)
    before = without_managed(old) if old is not None else {}
    encoded = encode(_record_update(managers, before, after, identity, atom, ignored, now)) or None
    if memo_key is not None:
        if len(_created) >= _CREATED_MEMO:
            _created.clear()
        _created[memo_key] = orjson.dumps(encoded or [])
    return encoded


# A create's entry depends only on who writes and on the object's shape: which keys it
# has, at every depth, and which values are maps, scalars or null. Objects without
# lists (whose items would be keyed by their values) are common (ConfigMaps, Secrets,
# many custom resources), and working the entry out again costs ~20 µs per create.
_CREATED_MEMO = 512
_created: dict[tuple[Any, ...], bytes] = {}


class _NoShape(Exception):
    """The object holds a list: its paths depend on values, not only on keys."""


def _shape(value: Any) -> Any:
    if isinstance(value, dict):
        # Scalars inline: most values of an object are, and a call each is most of the cost.
        return tuple(
            [
                (key, _shape(child) if isinstance(child, dict | list) else type(child))
                for key, child in value.items()
            ]
        )
    if isinstance(value, list):
        raise _NoShape
    return type(value)


def _creation_key(
    identity: ManagerId, atom: Atom, ignored: FieldSet, obj: dict[str, Any]
) -> tuple[Any, ...] | None:
    try:
        shape = _shape(obj)
    except _NoShape:
        return None
    if ignored.members or ignored.children:
        ignoring = orjson.dumps(ignored.to_fields_v1(), option=orjson.OPT_SORT_KEYS)
    else:
        ignoring = b"{}"  # what an empty set encodes to, without encoding it
    return (identity, atom, ignoring, shape)


def _stamped(known: bytes, now: str) -> list[dict[str, Any]] | None:
    entries: list[dict[str, Any]] = orjson.loads(known)  # a copy the caller may own
    for entry in entries:
        if "time" in entry:
            entry["time"] = now  # the only entry of a create is this write's own
    return entries or None


# --- Apply ----------------------------------------------------------------------------


@dataclass
class Applied:
    """The outcome of an apply: the object to store (without managedFields) and its owners."""

    object: dict[str, Any]
    managed_fields: list[dict[str, Any]]
    changed: bool


def apply(
    *,
    live: dict[str, Any],
    config: dict[str, Any],
    empty: dict[str, Any],
    manager: str,
    force: bool,
    subresource: str,
    api_version: str,
    atom: Atom,
    ignored: FieldSet,
    now: str,
) -> Applied:
    """Server-side apply of ``config`` onto ``live`` (``empty`` when creating).

    ``empty`` is the object as it would be with no fields set (identity only): what
    ``before-first-apply`` is compared against. Raises ``TypedError`` when ``config``
    does not fit ``atom`` and ``ApplyConflict`` on conflicts.
    """
    config_fields = to_field_set(config, atom)  # validates the configuration first
    stored = live.get("metadata", {}).get("managedFields")
    managers = decode_or_empty(stored)
    live_obj = without_managed(live)
    if not managers:
        first = ManagerId("Update", _BEFORE_FIRST_APPLY, api_version, subresource)
        managers = _record_update({}, empty, live_obj, first, atom, ignored, now)
    identity = ManagerId("Apply", manager, "", subresource)
    try:
        return _apply(
            managers, live_obj, config, config_fields, identity, force, atom, ignored, now
        )
    except ApplyConflict as conflict:
        if manager != "kubectl" or force:
            raise
        allowed = allowed_by_last_applied(live_obj, atom, api_version)
        remaining = [(m, p) for m, p in conflict.conflicts if not allowed.has(p)]
        if remaining:
            raise ApplyConflict(remaining) from None
        return _apply(managers, live_obj, config, config_fields, identity, True, atom, ignored, now)


def _apply(
    managers: Managers,
    live: dict[str, Any],
    config: dict[str, Any],
    config_fields: FieldSet,
    identity: ManagerId,
    force: bool,
    atom: Atom,
    ignored: FieldSet,
    now: str,
) -> Applied:
    merged = merge(live, config, atom)
    last = managers.get(identity)
    applied = config_fields.recursive_difference(ignored)
    owners: Managers = dict(managers)
    owners[identity] = Entry(applied, last.api_version if last else "", now)
    if last is not None:
        merged = _prune(merged, owners, last.fields.difference(applied), atom)
    comparison = compare(live, merged, atom).excluding(ignored)
    changed = comparison.changed()
    conflicts: list[tuple[ManagerId, Path]] = []
    result: Managers = {}
    for other, entry in managers.items():
        if other == identity:
            continue
        clash = entry.fields.intersection(changed)
        if not clash.empty() and not force:
            conflicts += [(other, path) for path in clash.paths()]
        rest = entry.fields.difference(changed).difference(comparison.removed)
        if not rest.empty():
            result[other] = Entry(rest, entry.api_version, entry.time)
    if conflicts:
        raise ApplyConflict(conflicts)
    mine = applied.difference(STRIP)
    is_changed = not json_equal(live, merged)
    if not mine.empty():
        # the time moves only when the object changes (an unchanged apply is a no-op)
        time = now if is_changed else (last.time if last is not None else None)
        result[identity] = Entry(mine, _version_of(config), time)
    if identity.manager == "kubectl" and has_last_applied(live):
        merged = sync_last_applied(merged, config)
        is_changed = not json_equal(live, merged)
    return Applied(merged if is_changed else live, encode(result), is_changed)


def _version_of(config: dict[str, Any]) -> str:
    return str(config.get("apiVersion") or "")


def _prune(
    merged: dict[str, Any], owners: Managers, dropped: FieldSet, atom: Atom
) -> dict[str, Any]:
    """Remove the ``dropped`` paths (applied last time, not this time) unless a manager --
    the applier's new configuration included -- owns the path or something below it."""
    owned = FieldSet()
    for entry in owners.values():
        owned = owned.union(entry.fields)
    removable = FieldSet()
    for path in dropped.paths():
        if not owned.has_prefix(path):
            removable.insert(path)
    if removable.empty():
        return merged
    result: dict[str, Any] = remove_items(merged, removable, atom)
    return result
