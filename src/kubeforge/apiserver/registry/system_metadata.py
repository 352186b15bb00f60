"""The metadata the server owns on every write, and the shape it gives a write's metadata.

The server sets uid, creationTimestamp, generation and (for ``generateName``) the name
of a new object, and carries uid, timestamps, generation and managedFields over from
the stored object on an update: a client cannot set them (``rest.BeforeCreate`` and
``BeforeUpdate`` of Kubernetes 1.32, and ``storage/names`` for generated names). A
write's metadata arrives as Go would decode it: ``null`` fields and empty collections
are absent (``omitempty``), the namespace is the URL's.

Entry points: ``decoded_metadata(served, obj)`` (``checked_metadata`` for a body only
read), ``stamp_created(meta, now, ...)``, ``carry_system_metadata(new, old)``,
``format_time(seconds)``.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from typing import Any

from kubeforge.apiserver import failures
from kubeforge.apiserver.registry.gotypes import OBJECT_META, check_fields
from kubeforge.apiserver.registry.served import ServedResource
from kubeforge.core.resource import ResourceInfo

__all__ = [
    "carry_system_metadata",
    "check_namespace",
    "checked_metadata",
    "decoded_metadata",
    "drop_empty_metadata",
    "format_time",
    "generated_name",
    "new_uid",
    "stamp_created",
]

# Alphabet and length of generateName suffixes (apiserver storage/names): no vowels,
# no look-alike characters, so generated names never spell words.
_NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_NAME_SUFFIX = 5
_MAX_GENERATED_NAME = 63

# Set only by the server: whatever a create sends for them is dropped.
_SET_BY_SERVER = ("deletionTimestamp", "deletionGracePeriodSeconds", "managedFields", "selfLink")
# Kept from the stored object on an update, whatever the new body says.
_CARRIED = (
    "uid",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "generation",
    "managedFields",
)

# ObjectMeta's collections are ``omitempty`` in Go: once decoded into the typed
# ObjectMeta (custom resources' metadata is coerced through it too), an empty or null
# one is simply absent. So removing the last label leaves no ``labels: {}`` behind,
# and owns no field in managedFields.
_OMITTED_WHEN_EMPTY = ("labels", "annotations", "finalizers", "ownerReferences", "managedFields")

_formatted: tuple[int, str] | None = None


def format_time(seconds: float) -> str:
    """RFC 3339 in UTC with whole seconds, as ``metav1.Time`` serialises."""
    global _formatted
    whole = int(seconds)
    if _formatted is None or _formatted[0] != whole:
        # strftime costs several µs, and a busy server stamps each second thousands of times
        _formatted = (whole, datetime.fromtimestamp(whole, UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))
    return _formatted[1]


_RANDOM_BATCH = 4096  # bytes read from the OS at once: 256 uids, one system call
_random = bytearray()


def _forget_random() -> None:
    _random.clear()  # a forked child must never hand out its parent's next uids


os.register_at_fork(after_in_child=_forget_random)


def new_uid() -> str:
    """A random (version 4) UUID as text, like ``str(uuid.uuid4())`` at a fraction of the
    cost (``uuid.UUID`` validates its arguments in Python, and ``os.urandom`` is a system
    call; every create needs one): the same bytes from the OS, read 256 uids at a time."""
    raw = _random_bytes(16)
    raw[6] = (raw[6] & 0x0F) | 0x40  # version 4
    raw[8] = (raw[8] & 0x3F) | 0x80  # RFC 4122 variant
    text = raw.hex()
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


def _random_bytes(count: int) -> bytearray:
    """``count`` bytes from the OS's random source, read ``_RANDOM_BATCH`` at a time."""
    global _random
    if len(_random) < count:
        _random = bytearray(os.urandom(_RANDOM_BATCH))
    taken = _random[-count:]
    del _random[-count:]
    return taken


# Random bytes below this map evenly onto the alphabet (larger ones are drawn again).
_EVEN_LIMIT = 256 - 256 % len(_NAME_ALPHABET)


def generated_name(base: str) -> str:
    """``base`` (cut to fit) plus a random five-character suffix, each character equally
    likely (as ``secrets.choice`` draws them, from the OS's random bytes)."""
    base = base[: _MAX_GENERATED_NAME - _NAME_SUFFIX]
    suffix = ""
    while len(suffix) < _NAME_SUFFIX:
        (byte,) = _random_bytes(1)
        if byte < _EVEN_LIMIT:
            suffix += _NAME_ALPHABET[byte % len(_NAME_ALPHABET)]
    return base + suffix


def decoded_metadata(served: ServedResource, obj: dict[str, Any]) -> dict[str, Any]:
    """``obj``'s metadata, once ``obj`` has the types Go would decode it into (the real 400
    otherwise: the handlers check a built-in kind's whole body, this its metadata for
    every kind and every caller),
    with ``null`` fields dropped: Go decodes ``null`` into a field's zero value (an empty
    map, list or string), which the real server then omits."""
    info = served.info
    check_fields(info.kind, info.version, obj, OBJECT_META)
    meta = obj.get("metadata")
    if meta is None:
        meta = obj["metadata"] = {}
    for key in [key for key, value in meta.items() if value is None]:
        del meta[key]
    return meta


def checked_metadata(served: ServedResource, body: dict[str, Any]) -> dict[str, Any]:
    """``decoded_metadata`` of a body that is read, not kept: the same checks, on a
    shallow copy of its metadata (``body`` is left as it is)."""
    check_fields(served.info.kind, served.info.version, body, OBJECT_META)
    meta = body.get("metadata") or {}
    return {key: value for key, value in meta.items() if value is not None}


def drop_empty_metadata(meta: Any) -> None:
    """Remove the empty and null collections Go's ``omitempty`` would not encode."""
    if not isinstance(meta, dict):
        return
    # null is Go's zero value: omitted, as are the empty collections above
    for key in [
        key
        for key, value in meta.items()
        if value is None or (not value and key in _OMITTED_WHEN_EMPTY and value in ({}, []))
    ]:
        del meta[key]


def check_namespace(info: ResourceInfo, meta: dict[str, Any], namespace: str) -> None:
    """Put the URL's namespace on a namespaced object (400 when the body names another);
    a cluster-scoped object has none."""
    if info.namespaced:
        given = meta.get("namespace")
        if given and given != namespace:
            raise failures.bad_request(
                "the namespace of the provided object does not match the namespace sent on "
                "the request"
            )
        meta["namespace"] = namespace
    else:
        meta.pop("namespace", None)


def stamp_created(meta: dict[str, Any], now: str, *, has_generation: bool) -> None:
    """Drop what only the server sets, then set a new object's uid, creation time and
    (for kinds that have one) generation 1."""
    for system_field in _SET_BY_SERVER:
        meta.pop(system_field, None)
    meta["uid"] = new_uid()
    meta["creationTimestamp"] = now
    if has_generation:
        meta["generation"] = 1
    else:
        meta.pop("generation", None)


def carry_system_metadata(new: dict[str, Any], old: dict[str, Any]) -> None:
    """Give ``new`` the stored object's server-owned metadata (an update cannot set it)."""
    meta, old_meta = new["metadata"], old["metadata"]
    for key in _CARRIED:
        if key == "uid" and meta.get("uid"):
            continue  # a different uid is a validation error, not silently fixed
        if key in old_meta:
            meta[key] = old_meta[key]
        else:
            meta.pop(key, None)
    meta.pop("selfLink", None)
