"""Server-side apply requests and managedFields bookkeeping for every write.

Entry points:

* ``server_side_apply(engine, served, namespace, name, raw, options, subresource)`` -- a PATCH with
  ``application/apply-patch+yaml``: decode the configuration (YAML or JSON), check it,
  merge it with ``managed.apply`` and store it through the ``Engine`` (create when
  the object is missing: 201). Returns ``(object, created)``.
* ``tracker(engine, served, manager)`` -- what the ``Engine`` calls on create, update
  and non-apply patch to record the manager's ``Update`` entry in managedFields.
* ``field_manager(request, operation)`` -- the manager of a request: ``fieldManager``
  or the User-Agent up to its first ``/``; 422 when apply has none.

Failures follow the real server: a configuration that does not fit the schema is a 500
without reason (``failed to create typed patch object ...``), conflicts are 409 with
``FieldManagerConflict`` causes, a wrong apiVersion or a managedFields in the body 400.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import yaml
from aiohttp import web

from kubeforge.apiserver import failures
from kubeforge.apiserver.failures import FieldError, StatusError
from kubeforge.apiserver.fieldmanager import managed
from kubeforge.apiserver.fieldmanager.conflicts import ApplyConflict
from kubeforge.apiserver.meta.fieldvalidation import yaml_duplicates
from kubeforge.apiserver.registry.engine import Engine
from kubeforge.apiserver.registry.options import WriteOptions
from kubeforge.apiserver.registry.served import ServedResource
from kubeforge.apiserver.smd.fieldpath import FieldSet, field_element
from kubeforge.apiserver.smd.schema import Atom, builtin_root, crd_root
from kubeforge.apiserver.smd.typed import TypedError
from kubeforge.apiserver.storage.sqlite import clone
from kubeforge.core.status import failure

__all__ = [
    "ManagedFieldsTracker",
    "field_manager",
    "root_atom",
    "server_side_apply",
    "tracker",
]

_MAX_MANAGER = 128
_META_GROUP = "meta.k8s.io"


def field_manager(request: web.Request, operation: str) -> str:
    """The manager recorded for this request (``operation``: Create, Update or Patch)."""
    value = request.query.get("fieldManager", "")
    options = f"{operation}Options"
    if len(value) > _MAX_MANAGER:
        raise failures.invalid(
            options,
            _META_GROUP,
            "",
            [FieldError("TooLong", "fieldManager", f"may not be more than {_MAX_MANAGER} bytes")],
        )
    if value:
        return value
    return request.headers.get("User-Agent", "").split("/", 1)[0]


def root_atom(served: ServedResource) -> Atom:
    """The merge type of ``served``'s objects (an open map for kinds nothing is known of)."""
    info = served.info
    if served.builtin:
        found = builtin_root(info.group, info.version, info.kind)
        if found is not None:
            return found
        return crd_root(None)
    return crd_root(served.schema)


def _ignored(status_subresource: bool, subresource: str, *objects: dict[str, Any]) -> FieldSet:
    """Fields a write through this endpoint does not own: ``.status`` on the main resource
    when it has its own subresource; everything but ``.status`` (and metadata) on ``/status``."""
    result = FieldSet()
    if subresource == "status":
        keys = {k for obj in objects for k in obj}
        for key in keys - {"apiVersion", "kind", "metadata", "status"}:
            result.insert((field_element(key),))
    elif status_subresource and not subresource:
        result.insert((field_element("status"),))
    return result


@dataclass
class ManagedFieldsTracker:
    """Records one write's ``Update`` entry; ``precomputed`` carries an apply's result."""

    manager: str
    api_version: str
    atom: Atom
    status_subresource: bool
    now: str
    precomputed: list[dict[str, Any]] | None = None

    def track(
        self, old: dict[str, Any] | None, new: dict[str, Any], sent: Any, subresource: str
    ) -> None:
        meta = new["metadata"]
        if self.precomputed is not None:
            entries: list[dict[str, Any]] | None = self.precomputed
        else:
            entries = managed.update(
                old=old,
                new=new,
                sent=sent,
                manager=self.manager,
                subresource=subresource,
                api_version=self.api_version,
                atom=self.atom,
                ignored=_ignored(self.status_subresource, subresource, old or {}, new),
                now=self.now,
            )
        if entries:
            meta["managedFields"] = entries
        else:
            meta.pop("managedFields", None)
        if old is not None:
            managed.keep_timestamps(old, new)


def tracker(engine: Engine, served: ServedResource, manager: str) -> ManagedFieldsTracker:
    return ManagedFieldsTracker(
        manager,
        served.info.api_version,
        root_atom(served),
        engine.strategy(served).status_subresource,
        engine.now(),
    )


def _decode(raw: bytes) -> dict[str, Any]:
    try:
        config = yaml.safe_load(raw) if raw.strip() else None
    except yaml.YAMLError as error:
        raise failures.bad_request(f"error decoding YAML: {error}") from None
    if not isinstance(config, dict):
        kind = "array" if isinstance(config, list) else "string" if config else "null"
        raise failures.bad_request(
            "error decoding YAML: error unmarshaling JSON: json: cannot unmarshal "
            f"{kind} into Go value of type map[string]interface {{}}"
        )
    return config


def _strict_yaml(raw: bytes, options: WriteOptions) -> None:
    """Repeated keys in the configuration: refused under Strict, warned about under Warn."""
    directive = options.field_validation
    if directive not in ("Strict", "Warn"):
        return
    duplicates = yaml_duplicates(raw)
    if not duplicates:
        return
    if directive == "Strict":
        lines = "\n".join(f"  {d}" for d in duplicates)
        raise failures.bad_request(
            "error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal "
            f"errors:\n{lines}"
        )
    options.warn(duplicates)


def _check(served: ServedResource, config: dict[str, Any], namespace: str, name: str) -> None:
    info = served.info
    if config.get("apiVersion") != info.api_version:
        raise failures.bad_request(
            "Incorrect version specified in apply patch. Specified patch version: "
            f"{config.get('apiVersion') or ''}, expected: {info.api_version}"
        )
    if config.get("kind") != info.kind:
        raise failures.bad_request(
            f"the kind in the data ({config.get('kind') or ''}) does not match the expected "
            f"kind ({info.kind})"
        )
    meta = config.get("metadata")
    if meta is None:
        config["metadata"] = meta = {}
    if not isinstance(meta, dict):
        raise failures.bad_request("metadata must be an object")
    if meta.get("managedFields") is not None:
        raise failures.bad_request("metadata.managedFields must be nil")
    if meta.get("name") not in (None, "", name):
        raise failures.bad_request(
            f"the name of the object ({meta['name']}) does not match the name on the URL ({name})"
        )
    if info.namespaced and meta.get("namespace") not in (None, "", namespace):
        raise failures.bad_request(
            "the namespace of the provided object does not match the namespace sent on the request"
        )


def _identity(served: ServedResource, namespace: str, name: str) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if served.info.namespaced:
        meta["namespace"] = namespace
    return {"apiVersion": served.info.api_version, "kind": served.info.kind, "metadata": meta}


def _gvk(served: ServedResource) -> str:
    info = served.info
    return f"{info.group}/{info.version}, Kind={info.kind}"


def server_side_apply(
    engine: Engine,
    served: ServedResource,
    namespace: str,
    name: str,
    raw: bytes,
    options: WriteOptions,
    subresource: str = "",
) -> tuple[dict[str, Any], bool]:
    """Apply the configuration in ``raw`` as ``options.field_manager`` (taking fields other
    managers own when ``options.force``); returns ``(stored object, created)``."""

    info = served.info
    config = _decode(raw)
    _check(served, config, namespace, name)
    old = engine.storage.get(served.storage_key, namespace, name)
    if old is None and subresource:
        raise failures.not_found(info, name)
    live = (
        clone(engine.view(served, old)) if old is not None else _identity(served, namespace, name)
    )
    wanted_rv = config["metadata"].get("resourceVersion")
    if wanted_rv and old is not None and wanted_rv != old["metadata"].get("resourceVersion"):
        raise failures.conflict(info, name)
    atom = root_atom(served)
    strategy = engine.strategy(served)
    ignored = _ignored(strategy.status_subresource, subresource, live, config)
    result = _applied(
        served, namespace, name, live, config, options, subresource, atom, ignored, engine.now()
    )
    _strict_yaml(raw, options)
    body = result.object
    fields = ManagedFieldsTracker(
        options.field_manager,
        info.api_version,
        atom,
        strategy.status_subresource,
        engine.now(),
        precomputed=result.managed_fields,
    )
    if old is None:
        body["metadata"].pop("resourceVersion", None)
        created = engine.create(served, namespace, body, replace(options, fields=fields))
        return created, True
    body["metadata"]["resourceVersion"] = old["metadata"].get("resourceVersion")
    obj, _ = engine.update(
        served, namespace, name, body, replace(options, fields=fields), subresource=subresource
    )
    return obj, False


def _applied(
    served: ServedResource,
    namespace: str,
    name: str,
    live: dict[str, Any],
    config: dict[str, Any],
    options: WriteOptions,
    subresource: str,
    atom: Atom,
    ignored: FieldSet,
    now: str,
) -> managed.Applied:
    """``managed.apply`` with its failures as the real server answers them: a
    configuration that does not fit the type is a 500, a conflict a 409 with causes."""
    info = served.info
    try:
        return managed.apply(
            live=live,
            config=config,
            empty={"apiVersion": info.api_version, "kind": info.kind},
            manager=options.field_manager,
            force=options.force,
            subresource=subresource,
            api_version=info.api_version,
            atom=atom,
            ignored=ignored,
            now=now,
        )
    except TypedError as error:
        where = f"{namespace}/{name}" if info.namespaced else f"/{name}"
        message = f"failed to create typed patch object ({where}; {_gvk(served)}): {error}"
        raise StatusError(failure(500, "", message)) from None
    except ApplyConflict as conflict:
        status = failure(409, "Conflict", conflict.message, {"causes": conflict.causes()})
        raise StatusError(status) from None
