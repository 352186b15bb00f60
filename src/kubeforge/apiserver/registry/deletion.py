"""DELETE: preconditions, finalizers, graceful deletion and the garbage collector's
finalizers; also the namespace ``finalize`` subresource.

Entry point: ``delete(engine, served, namespace, name, options)``. An object with
finalizers (or a grace period, or a namespace with ``spec.finalizers``) is only
marked: ``deletionTimestamp`` set, MODIFIED event; it disappears when the last
finalizer goes (``Engine.update`` handles that). ``Orphan``/``Foreground``
propagation adds the ``orphan``/``foregroundDeletion`` finalizer as the real
server does; removing it is the garbage collector's job (see ``controllers``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from kubeforge.apiserver import failures
from kubeforge.apiserver.failures import StatusError
from kubeforge.apiserver.registry.engine import Engine
from kubeforge.apiserver.registry.served import ServedResource
from kubeforge.apiserver.registry.system_metadata import format_time
from kubeforge.apiserver.storage.sqlite import clone
from kubeforge.core.resource import ResourceInfo
from kubeforge.core.status import failure

__all__ = ["DeleteOptions", "delete", "finalize_namespace"]


@dataclass
class DeleteOptions:
    """The parts of ``DeleteOptions`` the server acts on."""

    grace_period_seconds: int | None = None
    propagation_policy: str | None = None
    orphan_dependents: bool | None = None
    precondition_uid: str | None = None
    precondition_rv: str | None = None
    dry_run: bool = False

    def sent(self) -> dict[str, Any]:
        """The options as a DELETE's admission review shows them (fields set only)."""
        fields: dict[str, Any] = {}
        if self.grace_period_seconds is not None:
            fields["gracePeriodSeconds"] = self.grace_period_seconds
        given = (("uid", self.precondition_uid), ("resourceVersion", self.precondition_rv))
        preconditions = {key: value for key, value in given if value is not None}
        if preconditions:
            fields["preconditions"] = preconditions
        if self.orphan_dependents is not None:
            fields["orphanDependents"] = self.orphan_dependents
        if self.propagation_policy is not None:
            fields["propagationPolicy"] = self.propagation_policy
        if self.dry_run:
            fields["dryRun"] = ["All"]
        return fields


def delete(
    engine: Engine, served: ServedResource, namespace: str, name: str, options: DeleteOptions
) -> tuple[dict[str, Any], bool]:
    """DELETE semantics; returns ``(last state, gone)``. ``gone`` is False while finalizers
    or a grace period keep the object (it then carries a deletionTimestamp)."""
    info = served.info
    strategy = engine.strategy(served)
    key = served.storage_key
    old = engine.storage.get(key, namespace, name)
    if old is None:
        raise failures.not_found(info, name)
    strategy.before_delete(old)
    old_meta = old["metadata"]
    _check_preconditions(info, name, old_meta, options)
    new = clone(old)
    meta = new["metadata"]
    finalizers = _gc_finalizers(list(meta.get("finalizers") or []), options)
    if finalizers:
        meta["finalizers"] = finalizers
    else:
        meta.pop("finalizers", None)
    grace = strategy.grace_period(old, options.grace_period_seconds)
    keep = bool(finalizers) or grace > 0 or strategy.keep_on_delete(old)
    if not keep:
        if options.dry_run:
            return engine.view(served, old), True
        return _commit_delete(engine, served, new, old, gone=True), True
    now = engine.wall_clock()
    if not old_meta.get("deletionTimestamp"):
        meta["deletionTimestamp"] = format_time(now + grace)
        meta["deletionGracePeriodSeconds"] = grace
        if strategy.has_generation and meta.get("generation"):
            meta["generation"] = int(meta["generation"]) + 1
        strategy.mark_deleting(new)
    elif grace < int(old_meta.get("deletionGracePeriodSeconds") or 0):
        # A shorter grace period moves the deadline earlier, never later: by the
        # difference of the two periods, as ``rest.BeforeDelete`` computes it.
        previous = int(old_meta["deletionGracePeriodSeconds"])
        deadline = _parse_time(str(old_meta["deletionTimestamp"]))
        meta["deletionTimestamp"] = format_time(
            (deadline if deadline is not None else now + previous) - previous + grace
        )
        meta["deletionGracePeriodSeconds"] = grace
    if new == old:
        return engine.view(served, old), False
    if options.dry_run:
        return engine.view(served, new), False
    return _commit_delete(engine, served, new, old, gone=False), False


def _parse_time(text: str) -> float | None:
    try:
        return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC).timestamp()
    except ValueError:
        return None


def _precondition_failed(info: ResourceInfo, name: str, detail: str) -> StatusError:
    """409 as ``rest.BeforeDelete`` words it: the *Kind* stands where the resource would."""
    qualified = f"{info.kind}.{info.group}" if info.group else info.kind
    details: dict[str, Any] = {"name": name}
    if info.group:
        details["group"] = info.group
    details["kind"] = info.kind
    message = f'Operation cannot be fulfilled on {qualified} "{name}": {detail}'
    return StatusError(failure(409, "Conflict", message, details))


def _check_preconditions(
    info: ResourceInfo, name: str, old_meta: dict[str, Any], options: DeleteOptions
) -> None:
    """A uid or resourceVersion precondition must match the stored object (409 if not)."""
    if options.precondition_uid and options.precondition_uid != old_meta.get("uid"):
        raise _precondition_failed(
            info,
            name,
            f"the UID in the precondition ({options.precondition_uid}) does not match the UID "
            f"in record ({old_meta.get('uid')}). The object might have been deleted and then "
            "recreated",
        )
    if options.precondition_rv and options.precondition_rv != old_meta.get("resourceVersion"):
        raise _precondition_failed(
            info,
            name,
            f"the ResourceVersion in the precondition ({options.precondition_rv}) does not match "
            f"the ResourceVersion in record ({old_meta.get('resourceVersion')}). The object "
            "might have been modified",
        )


def _commit_delete(
    engine: Engine, served: ServedResource, new: dict[str, Any], old: dict[str, Any], *, gone: bool
) -> dict[str, Any]:
    """Store a deletion step: the final DELETE (``gone``) or the marked object."""
    write = engine.storage.delete if gone else engine.storage.update
    stored = write(served.storage_key, new, old)
    engine.strategy(served).committed(stored, gone)
    return engine.committed_view(served, stored)


def finalize_namespace(
    engine: Engine, name: str, body: dict[str, Any], *, dry_run: bool = False
) -> dict[str, Any]:
    """``PUT /api/v1/namespaces/{name}/finalize``: only ``spec.finalizers`` changes."""
    served = engine.registry.lookup("", "v1", "namespaces")
    assert served is not None  # built-in
    old = engine.storage.get(("", "namespaces"), "", name)
    if old is None:
        raise failures.not_found(served.info, name)
    given_rv = (body.get("metadata") or {}).get("resourceVersion")
    if given_rv and given_rv != old["metadata"].get("resourceVersion"):
        raise failures.conflict(served.info, name)
    finalizers = (body.get("spec") or {}).get("finalizers") or []
    if not isinstance(finalizers, list) or not all(isinstance(f, str) for f in finalizers):
        raise failures.bad_request("spec.finalizers must be a list of strings")
    new = clone(old)
    if finalizers:
        new["spec"] = {**(new.get("spec") or {}), "finalizers": finalizers}
    else:
        new.setdefault("spec", {}).pop("finalizers", None)
    strategy = engine.strategy(served)
    errors = strategy.validate_finalize(new, old)
    if errors:
        raise engine.invalid(strategy, name, errors)
    return engine.commit_update(served, strategy, new, old, dry_run=dry_run)


def _gc_finalizers(finalizers: list[str], options: DeleteOptions) -> list[str]:
    """The garbage collector's finalizers the server adds for Orphan/Foreground deletes."""
    policy = options.propagation_policy
    if policy is None and options.orphan_dependents is not None:
        policy = "Orphan" if options.orphan_dependents else "Background"
    if policy is None:
        return finalizers
    kept = [f for f in finalizers if f not in ("orphan", "foregroundDeletion")]
    if policy == "Orphan":
        kept.append("orphan")
    elif policy == "Foreground":
        kept.append("foregroundDeletion")
    return kept
