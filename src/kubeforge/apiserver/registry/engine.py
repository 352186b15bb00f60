"""The verbs without HTTP: create, update, patch and delete with the real server's rules.

``Engine`` is shared by the REST handlers and by the built-in controllers (simulated
node, namespace finalizer, CRD cleanup), so a controller's change looks exactly like
a client's: same metadata rules, same resourceVersion bump, same watch events.
Everything here is synchronous and runs on the event-loop thread (see ``storage``).

Metadata rules (``rest.BeforeCreate``/``BeforeUpdate``, ``store.go``): the server
owns uid, creationTimestamp, resourceVersion, generation, deletionTimestamp and
deletionGracePeriodSeconds; a no-op update neither bumps the resourceVersion nor
emits an event; removing the last finalizer of a deleting object deletes it.
``managedFields`` are recorded by the ``FieldTracker`` a request passes in (``options``);
writes without one (the built-in controllers') keep the stored entries. The metadata rules
themselves are ``system_metadata``'s; what a ``/status`` write may change,
``status_writes``'; unknown fields, ``unknown_fields``'; a patch's own checks,
``patched``'s; DELETE, ``deletion``'s.

Entry point: ``Engine(storage, registry, strategy_for)``, then its verbs.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kubeforge.apiserver import failures
from kubeforge.apiserver.failures import FieldError, GoValue, StatusError
from kubeforge.apiserver.meta.validation import validate_meta_update, validate_object_meta
from kubeforge.apiserver.registry import conversions
from kubeforge.apiserver.registry.admit import Attempt, BuiltinAdmission
from kubeforge.apiserver.registry.go_zero import drop_omitted_zeros
from kubeforge.apiserver.registry.namespace_lifecycle import check_namespace_open
from kubeforge.apiserver.registry.options import PLAIN, WriteOptions
from kubeforge.apiserver.registry.patched import patched_object
from kubeforge.apiserver.registry.served import Registry, ServedResource
from kubeforge.apiserver.registry.status_writes import (
    STATUS_LIKE,
    TAKEN,
    status_write,
    taken_copy,
)
from kubeforge.apiserver.registry.strategy import Strategy, non_metadata
from kubeforge.apiserver.registry.system_metadata import (
    carry_system_metadata,
    check_namespace,
    checked_metadata,
    decoded_metadata,
    format_time,
    generated_name,
    stamp_created,
)
from kubeforge.apiserver.registry.unknown_fields import check_patch_fields, drop_unknown_fields
from kubeforge.apiserver.storage.sqlite import Storage, clone
from kubeforge.core.resource import ResourceInfo

__all__ = ["Engine", "StrategyFactory"]

_GENERATE_ATTEMPTS = 8

StrategyFactory = Callable[[ServedResource, Callable[[], list[dict[str, Any]]]], Strategy]
"""``(served, stored_services) -> Strategy``: how the kinds are registered into the store."""


@dataclass
class Engine:
    """Applies the verbs to ``storage`` using each resource's ``Strategy``."""

    storage: Storage
    registry: Registry
    strategy_for: StrategyFactory
    """The strategy of a resource met for the first time (CRDs set theirs: ``set_strategy``)."""
    wall_clock: Callable[[], float] = time.time
    builtin_admission: BuiltinAdmission | None = None
    """The compiled-in admission plugins every create and update passes (None: none)."""
    _strategies: dict[ResourceInfo, Strategy] = field(default_factory=dict)
    _rules_versions: dict[ResourceInfo, int] = field(default_factory=dict)
    _by_served: dict[int, tuple[ServedResource, Strategy]] = field(default_factory=dict)

    # --- strategies and views ---------------------------------------------------------------

    def strategy(self, served: ServedResource) -> Strategy:
        # By identity first: a write asks often, and a ResourceInfo hashes all its fields.
        known = self._by_served.get(id(served))
        if known is not None and known[0] is served:
            return known[1]
        strategy = self._strategies.get(served.info)
        if strategy is None:
            strategy = self.strategy_for(served, self._stored_services)
            self._strategies[served.info] = strategy
        self._by_served[id(served)] = (served, strategy)
        return strategy

    def set_strategy(self, served: ServedResource, strategy: Strategy) -> None:
        self._strategies[served.info] = strategy
        self._rules_changed(served.info)

    def forget_strategy(self, info: ResourceInfo) -> None:
        self._strategies.pop(info, None)
        self._rules_changed(info)

    def rules_version(self, served: ServedResource) -> int:
        """Grows whenever ``served``'s strategy is replaced (its CRD changed), so what was
        rendered under the old rules (watch lines) is never reused under the new ones."""
        return self._rules_versions.get(served.info, 0)

    def _rules_changed(self, info: ResourceInfo) -> None:
        self._rules_versions[info] = self._rules_versions.get(info, 0) + 1
        self._by_served.clear()  # CRDs change together with their served resources

    def _stored_services(self) -> list[dict[str, Any]]:
        return self.storage.objects(("", "services"))

    def view(self, served: ServedResource, obj: dict[str, Any]) -> dict[str, Any]:
        """``obj`` as served at ``served``'s version (CRDs store one version, serve several),
        read as from storage: a custom resource gets the defaults its CRD declares now,
        even if it was stored before they were added. ``obj`` itself is never changed."""
        read = self.strategy(served).on_read(obj)
        if read.get("apiVersion") == served.info.api_version:
            return read  # the usual case: stored at the version served
        return self.view_many(served, [obj])[0]

    def view_many(self, served: ServedResource, objs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``view`` of several objects; those at another version are converted together (one
        ConversionReview for a list, as the real server sends)."""
        strategy = self.strategy(served)
        info = served.info
        read = [strategy.on_read(obj) for obj in objs]
        if all(obj.get("apiVersion") == info.api_version for obj in read):
            return read
        converted = served.representation
        if converted is not None:  # stored as another resource (events.k8s.io Events)
            return [converted.to_served(obj) for obj in read]
        return [strategy.on_read(obj) for obj in strategy.convert(read, info.api_version)]

    def committed_view(self, served: ServedResource, stored: dict[str, Any]) -> dict[str, Any]:
        """``view`` of what a write just stored, or the stored object itself when that needs
        a conversion still to be awaited (``registry.conversions``): the write is done, so
        the caller converts what it answers with, as the real server's response encoder."""
        try:
            return self.view(served, stored)
        except conversions.ConversionNeeded:
            return self.strategy(served).on_read(stored)

    def now(self) -> str:
        return format_time(self.wall_clock())

    # --- reads ----------------------------------------------------------------------------

    def get(self, served: ServedResource, namespace: str, name: str) -> dict[str, Any]:
        obj = self.storage.get(served.storage_key, namespace, name)
        if obj is None:
            raise failures.not_found(served.info, name)
        return self.view(served, obj)

    # --- create ---------------------------------------------------------------------------

    def create(
        self,
        served: ServedResource,
        namespace: str,
        body: dict[str, Any],
        options: WriteOptions = PLAIN,
    ) -> dict[str, Any]:
        info = served.info
        strategy = self.strategy(served)
        obj = clone(body)
        meta = decoded_metadata(served, obj)
        sent_fields = meta.get("managedFields")
        check_namespace(info, meta, namespace)
        obj["apiVersion"], obj["kind"] = info.api_version, info.kind
        if meta.get("resourceVersion"):
            error = FieldError(
                "Invalid", "metadata.resourceVersion", "must be empty", meta["resourceVersion"]
            )
            raise self.invalid(strategy, _given_name(meta), [error])
        if info.namespaced:
            check_namespace_open(self.storage, namespace, info, str(meta.get("name") or ""))
        stamp_created(meta, self.now(), has_generation=strategy.has_generation)
        strategy.prepare_for_create(obj)
        drop_unknown_fields(strategy, obj, options)
        attempt = Attempt("CREATE", served, namespace, obj, None, options)
        if self.builtin_admission is not None:
            self.builtin_admission.mutate(attempt)
        if options.fields is not None:
            options.fields.track(None, obj, sent_fields, "")
        self._name_and_validate(served, strategy, namespace, obj, options)
        if self.builtin_admission is not None:
            self.builtin_admission.validate(attempt)
        if options.dry_run:
            return self.view(served, obj)
        stored = self.storage.create(served.storage_key, self._to_storage(served, obj))
        strategy.committed(stored, False)
        return self.committed_view(served, stored)

    def _name_and_validate(
        self,
        served: ServedResource,
        strategy: Strategy,
        namespace: str,
        obj: dict[str, Any],
        options: WriteOptions,
    ) -> None:
        """Validate the new object under its name, generating one from ``generateName``
        (a few tries, then a 409 with ``retryAfterSeconds``) until it is free."""
        meta = obj["metadata"]
        attempts = _GENERATE_ATTEMPTS if not meta.get("name") and meta.get("generateName") else 1
        for _ in range(attempts):
            if not meta.get("name") and meta.get("generateName"):
                meta["name"] = generated_name(str(meta["generateName"]))
            self._validate_create(strategy, obj, options)
            if self.storage.get(served.storage_key, namespace, meta["name"]) is None:
                return
            if attempts == 1:
                raise failures.already_exists(served.info, meta["name"])
            meta["name"] = ""
        error = failures.already_exists(served.info, str(meta.get("generateName")))
        error.status.setdefault("details", {})["retryAfterSeconds"] = 1
        raise error

    def _to_storage(self, served: ServedResource, obj: dict[str, Any]) -> dict[str, Any]:
        if served.representation is None:
            drop_omitted_zeros(obj)
        converted = served.representation
        if converted is not None:
            return converted.to_stored(obj)
        target = self.registry.storage_version_of(served.info.group, served.info.plural)
        if target is None:
            return obj
        strategy = self.strategy(served)
        if type(strategy).convert is Strategy.convert and obj.get("apiVersion") == (
            target.info.api_version
        ):
            return obj  # what the plain relabelling gives an object already at that version
        return strategy.convert([obj], target.info.api_version)[0]

    def _validate_create(
        self, strategy: Strategy, obj: dict[str, Any], options: WriteOptions
    ) -> None:
        meta = obj["metadata"]
        errors = validate_object_meta(
            meta, namespaced=strategy.served.info.namespaced, name_validator=strategy.name_validator
        )
        errors += strategy.validate(obj)
        options.warn(strategy.take_warnings())
        if errors:
            raise self.invalid(strategy, _given_name(meta), errors)
        options.warn(strategy.warnings_on_create(obj))  # rest.BeforeCreate: once valid

    @staticmethod
    def invalid(strategy: Strategy, name: str, errors: list[FieldError]) -> StatusError:
        return failures.invalid(strategy.served.info.kind, strategy.served.info.group, name, errors)

    # --- update ---------------------------------------------------------------------------

    def update(
        self,
        served: ServedResource,
        namespace: str,
        name: str,
        body: dict[str, Any],
        options: WriteOptions = PLAIN,
        *,
        subresource: str = "",
        require_rv: bool = True,
    ) -> tuple[dict[str, Any], bool]:
        """PUT semantics; returns ``(object, created)``."""
        info = served.info
        strategy = self.strategy(served)
        # A status-like write keeps only its parts of the body; where stored objects need
        # no normalizing again, only those parts are copied (see ``status_writes``).
        shared = subresource in STATUS_LIKE and strategy.stores_normalized
        if shared:
            new = taken_copy(subresource, body)
            meta = checked_metadata(served, body)
        else:
            new = clone(body)
            meta = decoded_metadata(served, new)
        if meta.get("name") and meta["name"] != name:
            raise failures.bad_request(
                f"the name of the object ({meta['name']}) does not match the name on the URL "
                f"({name})"
            )
        check_namespace(info, meta, namespace)
        meta["name"] = name
        sent_fields = meta.get("managedFields")
        old = self.storage.get(served.storage_key, namespace, name)
        if old is None:
            if strategy.allow_create_on_update and not subresource:
                meta.pop("resourceVersion", None)
                return self.create(served, namespace, new, options), True
            raise failures.not_found(info, name)
        # As read from storage: defaults a CRD gained since ``old`` was stored are on it,
        # so the new object (defaulted too) is compared like for like.
        old = strategy.on_read(old)
        self._check_resource_version(strategy, name, meta, old, require_rv=require_rv)
        new["apiVersion"], new["kind"] = info.api_version, info.kind
        new = self._prepare_update(strategy, new, old, subresource, options, shared=shared)
        attempt = Attempt("UPDATE", served, namespace, new, old, options, subresource)
        if self.builtin_admission is not None:
            self.builtin_admission.mutate(attempt)
        if options.fields is not None:
            options.fields.track(old, new, sent_fields, subresource)
        self._validate_update(strategy, name, new, old, options, subresource)
        if self.builtin_admission is not None:
            self.builtin_admission.validate(attempt)
        return self.commit_update(served, strategy, new, old, dry_run=options.dry_run), False

    def _check_resource_version(
        self,
        strategy: Strategy,
        name: str,
        meta: dict[str, Any],
        old: dict[str, Any],
        *,
        require_rv: bool,
    ) -> None:
        """An update names the stored resourceVersion (409 when stale); most kinds
        require one (422 without)."""
        given_rv = meta.get("resourceVersion")
        if not given_rv and require_rv and not strategy.allow_unconditional_update:
            # Go's store shows the uint64 0 with %#v and names the resource, not the kind.
            error = FieldError.invalid(
                "metadata.resourceVersion", GoValue("0x0"), "must be specified for an update"
            )
            info = strategy.served.info
            raise failures.invalid(info.plural, info.group, name, [error])
        if given_rv and given_rv != old["metadata"].get("resourceVersion"):
            raise failures.conflict(strategy.served.info, name)

    def _prepare_update(
        self,
        strategy: Strategy,
        new: dict[str, Any],
        old: dict[str, Any],
        subresource: str,
        options: WriteOptions,
        *,
        shared: bool = False,
    ) -> dict[str, Any]:
        """``new`` as the kind's strategy makes it ready to store: a status-like write keeps
        all but its part of ``old`` (``shared``: sharing the rest with ``old``, whose
        unknown fields were all dropped when it was stored); a main-resource write keeps
        the server-owned metadata and moves ``generation`` on when anything but metadata
        changed."""
        if subresource in STATUS_LIKE:
            new = status_write(subresource, new, old if shared else clone(old))
            strategy.prepare_for_status_update(new, old)
            drop_unknown_fields(strategy, new, options, TAKEN[subresource] if shared else None)
            return new
        carry_system_metadata(new, old)
        strategy.prepare_for_update(new, old)
        drop_unknown_fields(strategy, new, options)
        if strategy.has_generation and non_metadata(new) != non_metadata(
            {**old, "apiVersion": new["apiVersion"]}
        ):
            new["metadata"]["generation"] = int(old["metadata"].get("generation") or 0) + 1
        return new

    def _validate_update(
        self,
        strategy: Strategy,
        name: str,
        new: dict[str, Any],
        old: dict[str, Any],
        options: WriteOptions,
        subresource: str = "",
    ) -> None:
        errors = validate_meta_update(new["metadata"], old["metadata"])
        if not options.trusted:
            errors += validate_object_meta(
                new["metadata"],
                namespaced=strategy.served.info.namespaced,
                name_validator=lambda _: [],
            )
            if subresource in STATUS_LIKE:
                errors += strategy.validate_subresource_update(subresource, new, old)
            else:
                errors += strategy.validate_update(new, old)
            options.warn(strategy.take_warnings())
        if errors:
            raise self.invalid(strategy, name, errors)
        if not options.trusted and not subresource:
            # rest.BeforeUpdate, once valid; a subresource's own strategy warns of nothing.
            options.warn(strategy.warnings_on_update(new, old))

    def commit_update(
        self,
        served: ServedResource,
        strategy: Strategy,
        new: dict[str, Any],
        old: dict[str, Any],
        *,
        dry_run: bool,
    ) -> dict[str, Any]:
        key = served.storage_key
        new = self._to_storage(served, new)
        new["metadata"]["resourceVersion"] = old["metadata"].get("resourceVersion")
        if new == old:
            return self.view(served, old)  # no-op: same RV, no event
        if dry_run:
            return self.view(served, new)
        gone = bool(new["metadata"].get("deletionTimestamp")) and strategy.may_delete_now(new)
        write = self.storage.delete if gone else self.storage.update
        stored = write(key, new, old)
        strategy.committed(stored, gone)
        return self.committed_view(served, stored)

    # --- patch ----------------------------------------------------------------------------

    def patch(
        self,
        served: ServedResource,
        namespace: str,
        name: str,
        content_type: str,
        patch: Any,
        options: WriteOptions = PLAIN,
        *,
        subresource: str = "",
    ) -> dict[str, Any]:
        old = self.storage.get(served.storage_key, namespace, name)
        if old is None:
            raise failures.not_found(served.info, name)
        current = self.view(served, old)
        stored_rv = old["metadata"].get("resourceVersion")
        patched = patched_object(served, name, current, stored_rv, content_type, patch)
        check_patch_fields(self.strategy(served), patched, options)
        obj, _ = self.update(served, namespace, name, patched, options, subresource=subresource)
        return obj


def _given_name(meta: dict[str, Any]) -> str:
    """The name a create's errors carry: its name, else its ``generateName``."""
    return str(meta.get("name") or meta.get("generateName") or "")
