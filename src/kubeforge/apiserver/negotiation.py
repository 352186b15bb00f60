"""Parse an HTTP ``Accept`` header into media ranges, in the order the client listed them.

Kubernetes clients do not use q-values to state preferences; they list what they
want first (``Table`` before plain JSON, aggregated discovery before legacy). So the
server walks the list in order and serves the first entry it can produce, the way
apimachinery's content negotiation does. Entry point: ``media_ranges(header)``.

>>> [r.kind() for r in media_ranges("application/json;as=Table;v=v1;g=meta.k8s.io, */*")]
[('meta.k8s.io', 'v1', 'Table'), None]
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["MediaRange", "media_ranges"]

_JSON_LIKE = frozenset({"application/json", "application/*", "*/*"})


@dataclass(frozen=True, slots=True)
class MediaRange:
    """One entry of an ``Accept`` header: ``type/subtype`` (lower-cased) and its parameters."""

    type: str
    params: dict[str, str] = field(default_factory=dict)

    @property
    def is_json(self) -> bool:
        """True when a JSON body satisfies this entry (``application/json``, ``*/*``, ...)."""
        return self.type in _JSON_LIKE

    def kind(self) -> tuple[str, str, str] | None:
        """``(group, version, as)`` when the entry names a kind (``as=Table``), else ``None``."""
        as_kind = self.params.get("as")
        if not as_kind:
            return None
        return (self.params.get("g", ""), self.params.get("v", ""), as_kind)


# Clients send the same few Accept headers over and over, and one request may ask
# several times (partial metadata? a Table? protobuf?): parse each text once.
_PARSED_LIMIT = 256
_parsed: dict[str, tuple[MediaRange, ...]] = {}


def media_ranges(header: str | None) -> list[MediaRange]:
    """Split ``header`` into media ranges; ``q`` parameters are dropped, order is kept."""
    if not header:
        return []
    known = _parsed.get(header)
    if known is None:
        if len(_parsed) >= _PARSED_LIMIT:
            _parsed.clear()
        known = _parsed[header] = tuple(_parse(header))
    return list(known)


def _parse(header: str) -> list[MediaRange]:
    ranges: list[MediaRange] = []
    for entry in header.split(","):
        parts = [part.strip() for part in entry.split(";")]
        if not parts[0]:
            continue
        params: dict[str, str] = {}
        for part in parts[1:]:
            key, sep, value = part.partition("=")
            key = key.strip().lower()
            if not sep or not key or key == "q":
                continue
            params[key] = value.strip().strip('"')
        ranges.append(MediaRange(parts[0].lower(), params))
    return ranges
