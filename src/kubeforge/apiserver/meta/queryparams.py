"""Boolean query parameters read as a real server reads them.

``watch``, ``allowWatchBookmarks``, ``sendInitialEvents``, ``orphanDependents``, ``force``
... go through apimachinery's ``runtime.Convert_Slice_string_To_bool`` (and its
``Pointer_bool`` twin): the first value decides, ``0`` and ``false`` in any case are
false, and anything else is true -- ``True``, ``yes``, even an empty value
(``?watch``). Entry points: ``query_bool`` and ``query_optional_bool``; every place
in the server that reads a boolean parameter uses them.

Example::

    >>> query_bool({"watch": "True"}, "watch"), query_bool({"watch": "0"}, "watch")
    (True, False)
    >>> query_optional_bool({}, "sendInitialEvents") is None
    True
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["parse_bool", "query_bool", "query_optional_bool"]


def parse_bool(value: str) -> bool:
    """One parameter value: false only for ``0`` and ``false`` (any case)."""
    return value != "0" and value.lower() != "false"


def query_optional_bool(query: Mapping[str, str], name: str) -> bool | None:
    """The parameter as a ``*bool``: ``None`` when absent."""
    value = query.get(name)
    return None if value is None else parse_bool(value)


def query_bool(query: Mapping[str, str], name: str) -> bool:
    """The parameter as a ``bool``: false when absent."""
    return bool(query_optional_bool(query, name))
