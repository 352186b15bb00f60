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
writes without one (the built-in controllers') keep the stored entries.
"""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from kubeforge.apiserver import failures
from kubeforge.apiserver.failures import FieldError, StatusError
from kubeforge.apiserver.meta.fieldvalidation import strict_patch_failure
from kubeforge.apiserver.meta.validation import validate_meta_update, validate_object_meta
from kubeforge.apiserver.patch.formats import PatchApplyError, PatchDecodeError, apply_patch
from kubeforge.apiserver.registry import conversions
from kubeforge.apiserver.registry.admit import Attempt, BuiltinAdmission
from kubeforge.apiserver.registry.gotypes import OBJECT_META, check_fields
from kubeforge.apiserver.registry.options import PLAIN, WriteOptions
from kubeforge.apiserver.registry.patched import check_patched
from kubeforge.apiserver.registry.served import Registry, ServedResource
from kubeforge.apiserver.registry.strategy import Strategy, non_metadata
from kubeforge.apiserver.storage.sqlite import Storage, clone
from kubeforge.core.resource import ResourceInfo

__all__ = ["Engine", "StrategyFactory", "format_time"]

# Alphabet and length of generateName suffixes (apiserver storage/names): no vowels,
# no look-alike characters, so generated names never spell words.
_NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_NAME_SUFFIX = 5
_MAX_GENERATED_NAME = 63
_GENERATE_ATTEMPTS = 8

_NAMESPACES = ResourceInfo("", "v1", "Namespace", "namespaces", namespaced=False)


def format_time(seconds: float) -> str:
    """RFC 3339 in UTC with whole seconds, as ``metav1.Time`` serialises."""
    global _formatted
    whole = int(seconds)
    if _formatted is None or _formatted[0] != whole:
        # strftime costs several µs, and a busy server stamps each second thousands of times
        _formatted = (whole, datetime.fromtimestamp(whole, UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))
    return _formatted[1]


_formatted: tuple[int, str] | None = None


StrategyFactory = Callable[[ServedResource, Callable[[], set[str]]], Strategy]
"""``(served, used_service_ips) -> Strategy``: how the kinds are registered into the store."""


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

    # --- strategies and views ---------------------------------------------------------------

    def strategy(self, served: ServedResource) -> Strategy:
        strategy = self._strategies.get(served.info)
        if strategy is None:
            strategy = self.strategy_for(served, self._service_ips)
            self._strategies[served.info] = strategy
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

    def _service_ips(self) -> set[str]:
        return {
            str((obj.get("spec") or {}).get("clusterIP"))
            for obj in self.storage.objects(("", "services"))
        }

    def view(self, served: ServedResource, obj: dict[str, Any]) -> dict[str, Any]:
        """``obj`` as served at ``served``'s version (CRDs store one version, serve several),
        read as from storage: a custom resource gets the defaults its CRD declares now,
        even if it was stored before they were added. ``obj`` itself is never changed."""
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

    def namespace_state(self, namespace: str, info: ResourceInfo, name: str) -> None:
        """NamespaceLifecycle admission: the namespace must exist and not be terminating."""
        ns = self.storage.get(("", "namespaces"), "", namespace)
        if ns is None:
            raise failures.not_found(_NAMESPACES, namespace)
        if (ns.get("metadata") or {}).get("deletionTimestamp"):
            message = (
                f"unable to create new content in namespace {namespace} because it is being "
                "terminated"
            )
            raise failures.forbidden(
                info,
                name,
                message,
                causes=[
                    {
                        "reason": "NamespaceTerminating",
                        "message": message,
                        "field": "metadata.namespace",
                    }
                ],
            )

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
        meta = _decoded(served, obj)
        sent_fields = meta.get("managedFields")
        self._check_namespace(info, meta, namespace)
        obj["apiVersion"], obj["kind"] = info.api_version, info.kind
        if meta.get("resourceVersion"):
            raise self.invalid(
                strategy,
                str(meta.get("name") or meta.get("generateName") or ""),
                [
                    FieldError(
                        "Invalid",
                        "metadata.resourceVersion",
                        "must be empty",
                        meta["resourceVersion"],
                    )
                ],
            )
        if info.namespaced:
            self.namespace_state(namespace, info, str(meta.get("name") or ""))
        for system_field in (
            "deletionTimestamp",
            "deletionGracePeriodSeconds",
            "managedFields",
            "selfLink",
        ):
            meta.pop(system_field, None)
        meta["uid"] = _uid()
        meta["creationTimestamp"] = self.now()
        if strategy.has_generation:
            meta["generation"] = 1
        else:
            meta.pop("generation", None)
        strategy.prepare_for_create(obj)
        self._normalize(strategy, obj, options)
        attempt = Attempt("CREATE", served, namespace, obj, None, options)
        if self.builtin_admission is not None:
            self.builtin_admission.mutate(attempt)
        if options.fields is not None:
            options.fields.track(None, obj, sent_fields, "")
        attempts = _GENERATE_ATTEMPTS if not meta.get("name") and meta.get("generateName") else 1
        key = served.storage_key
        for _ in range(attempts):
            if not meta.get("name") and meta.get("generateName"):
                meta["name"] = _generated_name(str(meta["generateName"]))
            self._validate_create(strategy, obj, options)
            if self.storage.get(key, namespace, meta["name"]) is None:
                break
            if attempts == 1:
                raise failures.already_exists(info, meta["name"])
            meta["name"] = ""
        else:
            error = failures.already_exists(info, str(meta.get("generateName")))
            error.status.setdefault("details", {})["retryAfterSeconds"] = 1
            raise error
        if self.builtin_admission is not None:
            self.builtin_admission.validate(attempt)
        if options.dry_run:
            return self.view(served, obj)
        stored = self.storage.create(key, self._to_storage(served, obj))
        strategy.committed(stored, False)
        return self.committed_view(served, stored)

    @staticmethod
    def _normalize(strategy: Strategy, obj: dict[str, Any], options: WriteOptions) -> None:
        """Drop unknown fields: silently (Ignore), with warnings (Warn, the default), or
        refuse the request with 400 (Strict), as the real server's field validation does.
        Empty metadata collections go too (see ``_drop_empty_metadata``)."""
        _drop_empty_metadata(obj.get("metadata"))
        dropped = strategy.normalize(obj)
        if dropped and options.field_validation in ("", "Warn"):
            options.warn(f'unknown field "{path}"' for path in dropped)
        if dropped and options.field_validation == "Strict":
            info = strategy.served.info
            unknown = ", ".join(f'unknown field "{path}"' for path in dropped)
            raise failures.bad_request(
                f'{info.kind} in version "{info.version}" cannot be handled as a {info.kind}: '
                f"strict decoding error: {unknown}"
            )

    def _to_storage(self, served: ServedResource, obj: dict[str, Any]) -> dict[str, Any]:
        converted = served.representation
        if converted is not None:
            return converted.to_stored(obj)
        target = self.registry.storage_version_of(served.info.group, served.info.plural)
        if target is None:
            return obj
        return self.strategy(served).convert([obj], target.info.api_version)[0]

    @staticmethod
    def _check_namespace(info: ResourceInfo, meta: dict[str, Any], namespace: str) -> None:
        if info.namespaced:
            given = meta.get("namespace")
            if given and given != namespace:
                raise failures.bad_request(
                    "the namespace of the provided object does not match the namespace sent on "
                    "the request"
                )
            meta["namespace"] = namespace
        else:
            meta.pop("namespace", None)

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
            raise self.invalid(
                strategy, str(meta.get("name") or meta.get("generateName") or ""), errors
            )

    @staticmethod
    def invalid(strategy: Strategy, name: str, errors: list[FieldError]) -> StatusError:
        info = strategy.served.info
        return failures.invalid(info.kind, info.group, name, errors)

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
        key = served.storage_key
        new = clone(body)
        meta = _decoded(served, new)
        if meta.get("name") and meta["name"] != name:
            raise failures.bad_request(
                f"the name of the object ({meta['name']}) does not match the name on the URL "
                f"({name})"
            )
        self._check_namespace(info, meta, namespace)
        meta["name"] = name
        sent_fields = meta.get("managedFields")
        old = self.storage.get(key, namespace, name)
        if old is None:
            if strategy.allow_create_on_update and not subresource:
                meta.pop("resourceVersion", None)
                created = self.create(served, namespace, new, options)
                return created, True
            raise failures.not_found(info, name)
        # As read from storage: defaults a CRD gained since ``old`` was stored are on it,
        # so the new object (defaulted too) is compared like for like.
        old = strategy.on_read(old)
        given_rv = meta.get("resourceVersion")
        if not given_rv and require_rv and not strategy.allow_unconditional_update:
            raise self.invalid(
                strategy,
                name,
                [
                    FieldError(
                        "Invalid", "metadata.resourceVersion", "must be specified for an update", 0
                    )
                ],
            )
        if given_rv and given_rv != old["metadata"].get("resourceVersion"):
            raise failures.conflict(info, name)
        new["apiVersion"], new["kind"] = info.api_version, info.kind
        if subresource in ("status", "approval", "ephemeralcontainers"):
            new = _status_write(subresource, new, old)
            strategy.prepare_for_status_update(new, old)
            self._normalize(strategy, new, options)
        else:
            self._carry_system_metadata(new, old)
            strategy.prepare_for_update(new, old)
            self._normalize(strategy, new, options)
            if strategy.has_generation and non_metadata(new) != non_metadata(
                {**old, "apiVersion": new["apiVersion"]}
            ):
                new["metadata"]["generation"] = int(old["metadata"].get("generation") or 0) + 1
        attempt = Attempt("UPDATE", served, namespace, new, old, options, subresource)
        if self.builtin_admission is not None:
            self.builtin_admission.mutate(attempt)
        if options.fields is not None:
            options.fields.track(old, new, sent_fields, subresource)
        errors = validate_meta_update(new["metadata"], old["metadata"])
        if not options.trusted:
            errors += validate_object_meta(
                new["metadata"], namespaced=info.namespaced, name_validator=lambda _: []
            )
            errors += strategy.validate_update(new, old)
            options.warn(strategy.take_warnings())
        if errors:
            raise self.invalid(strategy, name, errors)
        if self.builtin_admission is not None:
            self.builtin_admission.validate(attempt)
        return self.commit_update(served, strategy, new, old, dry_run=options.dry_run), False

    @staticmethod
    def _carry_system_metadata(new: dict[str, Any], old: dict[str, Any]) -> None:
        meta, old_meta = new["metadata"], old["metadata"]
        for key in (
            "uid",
            "creationTimestamp",
            "deletionTimestamp",
            "deletionGracePeriodSeconds",
            "generation",
            "managedFields",
        ):
            if key == "uid" and meta.get("uid"):
                continue  # a different uid is a validation error, not silently fixed
            if key in old_meta:
                meta[key] = old_meta[key]
            else:
                meta.pop(key, None)
        meta.pop("selfLink", None)

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
        # A resourceVersion in the patch is an optimistic-lock precondition.
        if meta.get("resourceVersion") != old["metadata"].get("resourceVersion"):
            if meta.get("resourceVersion"):
                raise failures.conflict(served.info, name)
            meta["resourceVersion"] = old["metadata"].get("resourceVersion")
        for key, label in (("apiVersion", "API version"), ("kind", "kind")):
            if patched.get(key) != current.get(key):
                raise failures.bad_request(
                    f"the {label} in the data ({patched.get(key)}) does not match the expected "
                    f"{label} ({current.get(key)})"
                )
        if served.builtin:
            check_patched(served.info, patched)
        if options.field_validation == "Strict":
            # a patch's unknown fields are a 422 on "patch" (a PUT's are a 400)
            unknown = self.strategy(served).normalize(clone(patched))
            if unknown:
                raise strict_patch_failure(patched, unknown)
        obj, _ = self.update(served, namespace, name, patched, options, subresource=subresource)
        return obj

    # --- delete ---------------------------------------------------------------------------

    def commit_delete(
        self,
        served: ServedResource,
        strategy: Strategy,
        new: dict[str, Any],
        old: dict[str, Any],
        *,
        gone: bool,
    ) -> dict[str, Any]:
        """Store a deletion step: the final DELETE (``gone``) or the marked object."""
        key = served.storage_key
        write = self.storage.delete if gone else self.storage.update
        stored = write(key, new, old)
        strategy.committed(stored, gone)
        return self.committed_view(served, stored)


def _uid() -> str:
    """A random (version 4) UUID as text, like ``str(uuid.uuid4())`` at less than half the
    cost (``uuid.UUID`` validates its arguments in Python; every create needs one)."""
    raw = bytearray(os.urandom(16))
    raw[6] = (raw[6] & 0x0F) | 0x40  # version 4
    raw[8] = (raw[8] & 0x3F) | 0x80  # RFC 4122 variant
    text = raw.hex()
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


def _status_write(subresource: str, new: dict[str, Any], old: dict[str, Any]) -> dict[str, Any]:
    """``old`` with what a ``/status`` write may change taken from ``new``: the whole
    status, for a CertificateSigningRequest's ``/approval`` only its conditions, for a
    pod's ``/ephemeralcontainers`` only ``spec.ephemeralContainers``."""
    result = clone(old)
    status = new.get("status")
    if subresource == "ephemeralcontainers":
        ephemeral = (new.get("spec") or {}).get("ephemeralContainers")
        result["spec"].pop("ephemeralContainers", None)
        if ephemeral is not None:
            result["spec"]["ephemeralContainers"] = ephemeral
    elif subresource == "approval":
        conditions = status.get("conditions") if isinstance(status, dict) else None
        kept = dict(result.get("status") or {})
        if conditions:
            kept["conditions"] = conditions
        else:
            kept.pop("conditions", None)
        result["status"] = kept
    elif "status" in new:
        result["status"] = status
    else:
        result.pop("status", None)
    return result


# ObjectMeta's collections are ``omitempty`` in Go: once decoded into the typed
# ObjectMeta (custom resources' metadata is coerced through it too), an empty or null
# one is simply absent. So removing the last label leaves no ``labels: {}`` behind,
# and owns no field in managedFields.
_OMITTED_WHEN_EMPTY = ("labels", "annotations", "finalizers", "ownerReferences", "managedFields")


def _drop_empty_metadata(meta: Any) -> None:
    if not isinstance(meta, dict):
        return
    for key in _OMITTED_WHEN_EMPTY:
        value = meta.get(key, 0)
        if value is None or value == {} or value == []:
            del meta[key]
    for key in [key for key, value in meta.items() if value is None]:
        del meta[key]  # null is Go's zero value: omitted


def _generated_name(base: str) -> str:
    base = base[: _MAX_GENERATED_NAME - _NAME_SUFFIX]
    return base + "".join(secrets.choice(_NAME_ALPHABET) for _ in range(_NAME_SUFFIX))


def _decoded(served: ServedResource, obj: dict[str, Any]) -> dict[str, Any]:
    """``obj``'s metadata, once ``obj`` has the types Go would decode it into (the real 400
    otherwise: the handlers check a built-in kind's whole body, this its metadata for
    every kind and every caller),
    with ``null`` fields dropped: Go decodes ``null`` into a field's zero value (an empty
    map, list or string), which the real server then omits."""
    info = served.info
    check_fields(info.kind, info.version, obj, OBJECT_META)
    meta = obj.get("metadata")
    if meta is None:
        meta = obj["metadata"] = {}
    for key in [key for key, value in meta.items() if value is None]:
        del meta[key]
    return meta
