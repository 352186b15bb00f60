"""Time zones as Go's ``time.LoadLocation`` finds them, over the same IANA database.

``""`` and ``UTC`` are UTC, ``Local`` is the process's local zone (``None`` here: times
stay in the zone they are given in), a name with ``..`` or a leading slash is refused
before any lookup (``time: invalid location name``), and a name the database lacks is
``unknown time zone <name>``. Python's ``zoneinfo`` reads the same database Go embeds.

Entry point: ``load_location(name)``.

>>> load_location("Europe/Paris")
zoneinfo.ZoneInfo(key='Europe/Paris')
>>> load_location("Mars/Olympus")
Traceback (most recent call last):
...
ValueError: unknown time zone Mars/Olympus
"""

from __future__ import annotations

from datetime import UTC, tzinfo
from functools import lru_cache
from zoneinfo import ZoneInfo

__all__ = ["load_location"]


@lru_cache(maxsize=256)
def load_location(name: str) -> tzinfo | None:
    """Go's ``time.LoadLocation``: the zone, ``None`` for ``Local``; ``ValueError`` with
    Go's message when there is none."""
    if name in ("", "UTC"):
        return UTC
    if name == "Local":
        return None
    if ".." in name or name[0] in "/\\":
        raise ValueError("time: invalid location name")
    try:
        return ZoneInfo(name)
    except (KeyError, ValueError, OSError):  # not found, a directory, not a zone file
        raise ValueError(f"unknown time zone {name}") from None
