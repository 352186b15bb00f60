"""A create or update body is decodable into its kind's Go type, or the request is a 400.

A real server decodes a body in two steps, and so does this module: first ``apiVersion``
and ``kind`` alone (``SimpleMetaFactory.Interpret``; a body that is not an object, or whose
``kind`` is not a string, fails here with ``couldn't get version/kind``), then the whole
object into the kind's Go struct (built-ins; custom resources are free-form JSON until
their schema validates them). Both failures are worded as the handlers' decode errors are
(``transformDecodeError`` in k8s.io/apiserver's handlers).

Entry point: ``check_decodable(served, body, raw)``.
"""

from __future__ import annotations

from typing import Any

import orjson

from kubeforge.apiserver import failures
from kubeforge.apiserver.registry.served import ServedResource
from kubeforge.apiserver.smd.schema import builtin_root
from kubeforge.apiserver.smd.strict import decode_error, json_kind

__all__ = ["check_decodable"]

_TYPE_META = (
    'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; '
    'Kind string "json:\\"kind,omitempty\\"" }'
)


def check_decodable(served: ServedResource, body: Any, raw: bytes | None) -> None:
    """Raise the real server's 400 when ``body`` cannot be decoded as ``served``'s kind.

    ``body`` is the parsed body (JSON ``null`` decodes as an empty object, as in Go);
    ``raw`` is the JSON text of the body when it arrived as JSON (quoted in the message as
    the server quotes it); None for bodies that were not JSON.
    """
    info = served.info
    problem = _type_meta_error(body)
    if problem is not None:
        data = raw if raw is not None else orjson.dumps(body)
        raise failures.bad_request(
            f"the object provided is unrecognized (must be of type {info.kind}): "
            f"couldn't get version/kind; json parse error: {problem} ({_summary(data)})"
        )
    if not served.builtin:
        return
    root = builtin_root(info.group, info.version, info.kind)
    if root is None:
        return
    problem = decode_error(body, root, info.kind)
    if problem is not None:
        raise failures.bad_request(
            f'{info.kind} in version "{info.version}" cannot be handled as a {info.kind}: {problem}'
        )


def _type_meta_error(body: Any) -> str | None:
    if not isinstance(body, dict):
        return f"json: cannot unmarshal {json_kind(body)} into Go value of type {_TYPE_META}"
    for field in ("apiVersion", "kind"):
        value = body.get(field)
        if value is not None and not isinstance(value, str):
            return (
                f"json: cannot unmarshal {json_kind(value)} into Go struct field .{field} "
                "of type string"
            )
    return None


def _summary(data: bytes, limit: int = 30) -> str:
    """``summarizeData``: the body's start, as text when it is an object, else in hex."""
    if not data:
        return "<empty>"
    shown = data[:limit]
    text = shown.decode("utf-8", "replace") if data[:1] == b"{" else shown.hex()
    return text + " ..." if len(data) > limit else text
