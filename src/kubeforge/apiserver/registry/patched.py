"""A patched built-in object must still decode into its kind's Go struct, as the real
patchers' ``DecodeInto`` requires (``k8s.io/apiserver/pkg/endpoints/handlers/patch.go``).

Entry point: ``check_patched(info, patched)``. A result Go cannot decode (a merge patch
that turns ``spec`` into a list) is the real 422 on ``patch``, with the patched document
as the value and ``encoding/json``'s words (``smd.strict``), before any rule of the kind
meets it.
"""

from __future__ import annotations

from typing import Any

import orjson

from kubeforge.apiserver import failures
from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.smd.schema import builtin_root
from kubeforge.apiserver.smd.strict import decode_error
from kubeforge.core.resource import ResourceInfo

__all__ = ["check_patched"]


def check_patched(info: ResourceInfo, patched: dict[str, Any]) -> None:
    """Raise the real 422 when ``patched`` cannot be decoded as ``info``'s kind."""
    root = builtin_root(info.group, info.version, info.kind)
    problem = decode_error(patched, root, info.kind) if root is not None else None
    if problem is not None:
        document = orjson.dumps(patched).decode()
        raise failures.invalid("", "", "", [FieldError("Invalid", "patch", problem, document)])
