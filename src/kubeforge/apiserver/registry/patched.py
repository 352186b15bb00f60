"""A patch applied to the stored object, with the checks the real patcher makes before the
result is handed to the update path (``k8s.io/apiserver/pkg/endpoints/handlers/patch.go``).

The result must be an object with object metadata; a ``resourceVersion`` it carries is
an optimistic-lock precondition (409 when stale); it may not change ``apiVersion`` or
``kind``; and a built-in object must still decode into its kind's Go struct, as the
real patchers' ``DecodeInto`` requires: a result Go cannot decode (a merge patch that
turns ``spec`` into a list) is the real 422 on ``patch``, with the patched document as
the value and ``encoding/json``'s words (``smd.strict``), before any rule of the kind
meets it.

Entry points: ``patched_object(served, name, current, stored_rv, content_type, patch)``,
``check_patched(info, patched)``.
"""

from __future__ import annotations

from typing import Any

import orjson

from kubeforge.apiserver import failures
from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.patch.formats import PatchApplyError, PatchDecodeError, apply_patch
from kubeforge.apiserver.registry.served import ServedResource
from kubeforge.apiserver.smd.schema import builtin_root
from kubeforge.apiserver.smd.strict import decode_error
from kubeforge.core.resource import ResourceInfo

__all__ = ["check_patched", "patched_object"]


def patched_object(
    served: ServedResource,
    name: str,
    current: dict[str, Any],
    stored_rv: Any,
    content_type: str,
    patch: Any,
) -> dict[str, Any]:
    """``patch`` applied to ``current`` (the stored object as served), checked as above;
    ``stored_rv`` is the stored object's resourceVersion, which the result gets unless it
    names one itself."""
    try:
        patched = apply_patch(content_type, current, patch)
    except PatchDecodeError as error:
        raise failures.bad_request(str(error)) from None
    except PatchApplyError as error:
        raise failures.patch_not_applicable(str(error)) from None
    if not isinstance(patched, dict):
        raise failures.bad_request("the patch must produce a JSON object")
    meta = patched.get("metadata")
    if not isinstance(meta, dict):
        raise failures.bad_request("metadata must be an object")
    if meta.get("resourceVersion") != stored_rv:
        if meta.get("resourceVersion"):
            raise failures.conflict(served.info, name)
        meta["resourceVersion"] = stored_rv
    for key, label in (("apiVersion", "API version"), ("kind", "kind")):
        if patched.get(key) != current.get(key):
            raise failures.bad_request(
                f"the {label} in the data ({patched.get(key)}) does not match the expected "
                f"{label} ({current.get(key)})"
            )
    if served.builtin:
        check_patched(served.info, patched)
    return patched


def check_patched(info: ResourceInfo, patched: dict[str, Any]) -> None:
    """Raise the real 422 when ``patched`` cannot be decoded as ``info``'s kind."""
    root = builtin_root(info.group, info.version, info.kind)
    problem = decode_error(patched, root, info.kind) if root is not None else None
    if problem is not None:
        document = orjson.dumps(patched).decode()
        raise failures.invalid("", "", "", [FieldError("Invalid", "patch", problem, document)])
