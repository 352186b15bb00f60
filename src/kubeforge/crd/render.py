"""Manifests -> YAML text that is byte-identical for identical input: ``render_yaml()``.

Keys keep the order the objects were built in (``generate_crd`` builds them
sorted; hand-built manifests keep the order their author chose), lists are
indented under their key as ``kubectl`` users write them, strings with line
breaks become literal blocks, and every document starts with ``---``. Nothing
depends on the machine, the time, or Python's hash seed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import yaml

__all__ = ["render_yaml"]

_WIDTH = 100


class _Dumper(yaml.SafeDumper):
    """``SafeDumper`` that indents block sequences inside mappings."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)


def _string(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


def _tuple(dumper: yaml.SafeDumper, value: tuple[Any, ...]) -> yaml.SequenceNode:
    return dumper.represent_list(value)


_Dumper.add_representer(str, _string)
_Dumper.add_representer(tuple, _tuple)


def render_yaml(objects: Mapping[str, Any] | Iterable[Mapping[str, Any]]) -> str:
    """One YAML document per object, each introduced by ``---``."""
    documents = [objects] if isinstance(objects, Mapping) else list(objects)
    return "".join(
        "---\n"
        + yaml.dump(
            dict(document),
            Dumper=_Dumper,
            sort_keys=False,
            allow_unicode=True,
            width=_WIDTH,
            default_flow_style=False,
        )
        for document in documents
    )
