"""CustomResourceDefinitions: validation, serving their resources, and cleanup on delete.

What the real server spreads over several controllers (naming, establishing,
finalizing) happens synchronously here, so a CRD is ``Established`` and served in
the response to its create — what tools such as ``kubectl wait`` and envtest poll
for. Entry point: ``CRDController``, created once per server; ``restore()`` serves
the CRDs found in storage after a restart.

Deleting a CRD: it gets a deletionTimestamp and a ``Terminating`` condition, every
custom resource is deleted (DELETED events; finalizers on them hold the CRD in
Terminating until removed), then its watches close, it stops being served and the
CRD itself disappears.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kubeforge.apiserver import cel, deletion, failures, schema
from kubeforge.apiserver.crd_validation import validate_crd
from kubeforge.apiserver.deletion import DeleteOptions
from kubeforge.apiserver.engine import Engine
from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.registry import (
    ALL_VERBS,
    Registry,
    ServedResource,
    deprecation_warning,
)
from kubeforge.apiserver.scale import ScalePaths
from kubeforge.apiserver.storage import clone
from kubeforge.apiserver.strategies import Strategy, nested_str
from kubeforge.core.resource import ResourceInfo

__all__ = ["CLEANUP_FINALIZER", "CRDController", "CRDStrategy", "CustomResourceStrategy"]

CLEANUP_FINALIZER = "customresourcecleanup.apiextensions.k8s.io"
_CRD_KEY = ("apiextensions.k8s.io", "customresourcedefinitions")


def _condition(type_: str, status: str, reason: str, message: str, now: str) -> dict[str, Any]:
    return {
        "type": type_,
        "status": status,
        "lastTransitionTime": now,
        "reason": reason,
        "message": message,
    }


def _accepted_names(spec: dict[str, Any]) -> dict[str, Any]:
    names = dict(spec.get("names") or {})
    kind = str(names.get("kind") or "")
    names.setdefault("singular", kind.lower())
    names.setdefault("listKind", f"{kind}List")
    return names


class CustomResourceStrategy(Strategy):
    """Rules for objects of one served version of a CRD (``apiext`` customresource strategy)."""

    has_generation = True
    allow_unconditional_update = False

    def __init__(
        self, served: ServedResource, version: dict[str, Any], controller: CRDController
    ) -> None:
        super().__init__(served)
        self.status_subresource = "status" in (version.get("subresources") or {})
        self.scale_paths = ScalePaths.from_version(version)
        self._controller = controller
        self._selectable = tuple(
            str(f.get("jsonPath", "")).lstrip(".")
            for f in version.get("selectableFields") or []
            if isinstance(f, dict)
        )
        self._rules = cel.RuleSet.of(served.schema)

    def supported_fields(self) -> frozenset[str]:
        base = (
            ("metadata.name", "metadata.namespace")
            if self.served.info.namespaced
            else ("metadata.name",)
        )
        return frozenset((*base, *self._selectable))

    def field_set(self, obj: dict[str, Any]) -> dict[str, str]:
        fields = super().field_set(obj)
        for path in self._selectable:
            fields[path] = nested_str(obj, path)
        return fields

    def normalize(self, obj: dict[str, Any]) -> list[str]:
        if self.served.schema is None:
            return []
        dropped = schema.prune(obj, self.served.schema)
        schema.apply_defaults(obj, self.served.schema)
        return dropped

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        if self.served.schema is None:
            return []
        errors = schema.validate(obj, self.served.schema)
        if self._rules is not None and not errors:
            errors = self._rules.validate(obj, None)
        return errors

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        if self.served.schema is None:
            return []
        errors = schema.validate(new, self.served.schema)
        if self._rules is not None and not errors:
            # Rules see the stored object as ``oldSelf`` (transition rules need it).
            errors = self._rules.validate(new, old)
        return errors

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        if self._controller.terminating(self.served.crd_name):
            raise failures.method_not_allowed(
                self.served.info,
                "create not allowed while custom resource definition is terminating",
            )
        super().prepare_for_create(obj)

    def committed(self, obj: dict[str, Any], gone: bool) -> None:
        if gone:
            self._controller.maybe_finish(self.served.crd_name)


class CRDStrategy(Strategy):
    """Rules for CustomResourceDefinition objects themselves."""

    has_generation = True
    status_subresource = True
    top_level_fields = ("spec", "status")

    def __init__(self, served: ServedResource, controller: CRDController) -> None:
        super().__init__(served)
        self._controller = controller

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        spec = obj.get("spec")
        if isinstance(spec, dict):
            spec.setdefault("conversion", {"strategy": "None"})
            names = spec.get("names")
            if isinstance(names, dict) and names.get("kind"):
                names.setdefault("singular", str(names["kind"]).lower())
                names.setdefault("listKind", f"{names['kind']}List")
        meta = obj["metadata"]
        finalizers = list(meta.get("finalizers") or [])
        if CLEANUP_FINALIZER not in finalizers:
            finalizers.append(CLEANUP_FINALIZER)
        meta["finalizers"] = finalizers
        obj["status"] = self._status(obj, {})

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        super().prepare_for_update(new, old)
        if isinstance(new.get("spec"), dict) and not new.get("metadata", {}).get(
            "deletionTimestamp"
        ):
            new["status"] = self._status(new, old.get("status") or {})

    def _status(self, obj: dict[str, Any], old_status: dict[str, Any]) -> dict[str, Any]:
        spec = obj.get("spec") or {}
        now = self._controller.engine.now()
        conditions = {c.get("type"): c for c in old_status.get("conditions") or []}
        for type_, reason, message in (
            ("NamesAccepted", "NoConflicts", "no conflicts found"),
            ("Established", "InitialNamesAccepted", "the initial names have been accepted"),
        ):
            if type_ not in conditions:
                conditions[type_] = _condition(type_, "True", reason, message, now)
        stored = list(old_status.get("storedVersions") or [])
        for version in spec.get("versions") or []:
            if (
                isinstance(version, dict)
                and version.get("storage")
                and version.get("name") not in stored
            ):
                stored.append(version.get("name"))
        return {
            "conditions": list(conditions.values()),
            "acceptedNames": _accepted_names(spec),
            "storedVersions": stored,
        }

    def mark_deleting(self, obj: dict[str, Any]) -> None:
        status = obj.setdefault("status", {})
        conditions = [c for c in status.get("conditions") or [] if c.get("type") != "Terminating"]
        conditions.append(
            _condition(
                "Terminating",
                "True",
                "InstanceDeletionInProgress",
                "CustomResource deletion is in progress",
                self._controller.engine.now(),
            )
        )
        status["conditions"] = conditions

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return validate_crd(obj)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        errors = validate_crd(new)
        for path in ("spec.group", "spec.names.plural", "spec.scope"):
            if nested_str(new, path) != nested_str(old, path):
                errors.append(
                    FieldError("Invalid", path, "field is immutable", nested_str(new, path))
                )
        # A version objects were ever stored at may not disappear from spec.versions.
        names = {v.get("name") for v in (new.get("spec") or {}).get("versions") or []}
        stored = ((new.get("status") or old.get("status") or {}).get("storedVersions")) or []
        for i, version in enumerate(stored):
            if version not in names:
                errors.append(
                    FieldError(
                        "Invalid",
                        f"status.storedVersions[{i}]",
                        "must appear in spec.versions",
                        version,
                    )
                )
        return errors

    def committed(self, obj: dict[str, Any], gone: bool) -> None:
        name = obj["metadata"]["name"]
        if gone:
            self._controller.unserve(name)
        elif obj["metadata"].get("deletionTimestamp"):
            self._controller.cleanup(obj)
        else:
            self._controller.serve(obj)


class CRDController:
    """Keeps the registry and the engine's strategies in step with stored CRDs."""

    def __init__(
        self, engine: Engine, registry: Registry, close_watches: Callable[[tuple[str, str]], None]
    ) -> None:
        self.engine = engine
        self.registry = registry
        self._close_watches = close_watches
        self._terminating: set[str] = set()
        self._finishing: set[str] = set()

    def install(self) -> None:
        """Give the CRD resource its real strategy."""
        served = self.registry.lookup("apiextensions.k8s.io", "v1", "customresourcedefinitions")
        assert served is not None  # a built-in: always registered
        self.engine.set_strategy(served, CRDStrategy(served, self))

    def restore(self) -> None:
        """Serve every stored CRD again (after a restart) and finish interrupted deletions."""
        for crd in self.engine.storage.objects(_CRD_KEY):
            if crd["metadata"].get("deletionTimestamp"):
                self.serve(crd)
                self.cleanup(crd)
            else:
                self.serve(crd)

    def terminating(self, crd_name: str) -> bool:
        return crd_name in self._terminating

    def serve(self, crd: dict[str, Any]) -> None:
        name = crd["metadata"]["name"]
        spec = crd.get("spec") or {}
        names = _accepted_names(spec)
        served_list: list[tuple[ServedResource, dict[str, Any]]] = []
        for version in spec.get("versions") or []:
            if not version.get("served"):
                continue
            info = ResourceInfo(
                group=str(spec["group"]),
                version=str(version["name"]),
                kind=str(names["kind"]),
                plural=str(names["plural"]),
                namespaced=spec.get("scope") == "Namespaced",
                short_names=tuple(names.get("shortNames") or ()),
                singular=str(names["singular"]),
            )
            subresources = tuple(
                s for s in ("status", "scale") if s in (version.get("subresources") or {})
            )
            served = ServedResource(
                info=info,
                verbs=ALL_VERBS,
                subresources=subresources,
                categories=tuple(names.get("categories") or ()),
                schema=(version.get("schema") or {}).get("openAPIV3Schema"),
                printer_columns=tuple(version.get("additionalPrinterColumns") or ()),
                storage=bool(version.get("storage")),
                builtin=False,
                crd_name=name,
                deprecation_warning=deprecation_warning(
                    info.group, info.kind, version, spec.get("versions") or []
                ),
            )
            served_list.append((served, version))
        for old in self._served_of(name):
            self.engine.forget_strategy(old.info)
        self.registry.add_crd(name, [s for s, _ in served_list])
        for served, version in served_list:
            self.engine.set_strategy(served, CustomResourceStrategy(served, version, self))

    def _served_of(self, crd_name: str) -> list[ServedResource]:
        return [r for r in self.registry.resources() if r.crd_name == crd_name]

    def cleanup(self, crd: dict[str, Any]) -> None:
        """Delete every custom resource of a deleting CRD, then finish if none is left."""
        name = crd["metadata"]["name"]
        self._terminating.add(name)
        spec = crd.get("spec") or {}
        key = (str(spec.get("group")), str((spec.get("names") or {}).get("plural")))
        served = self.registry.storage_version_of(*key) or next(iter(self._served_of(name)), None)
        if served is not None:
            for obj in list(self.engine.storage.objects(key)):
                if obj["metadata"].get("deletionTimestamp"):
                    continue
                meta = obj["metadata"]
                deletion.delete(
                    self.engine, served, meta.get("namespace") or "", meta["name"], DeleteOptions()
                )
        self.maybe_finish(name)

    def maybe_finish(self, crd_name: str) -> None:
        if crd_name not in self._terminating or crd_name in self._finishing:
            return
        crd = self.engine.storage.get(_CRD_KEY, "", crd_name)
        if crd is None:
            return
        spec = crd.get("spec") or {}
        key = (str(spec.get("group")), str((spec.get("names") or {}).get("plural")))
        if self.engine.storage.count(key):
            return  # finalizers on custom resources still hold the CRD
        self._finishing.add(crd_name)
        try:
            self.unserve(crd_name)
            crd_served = self.registry.lookup(
                "apiextensions.k8s.io", "v1", "customresourcedefinitions"
            )
            assert crd_served is not None
            body = clone(crd)
            body["metadata"]["finalizers"] = [
                f for f in body["metadata"].get("finalizers") or [] if f != CLEANUP_FINALIZER
            ]
            self.engine.update(crd_served, "", crd_name, body, trusted=True)
        finally:
            self._finishing.discard(crd_name)

    def unserve(self, crd_name: str) -> None:
        served = self._served_of(crd_name)
        for resource in served:
            self.engine.forget_strategy(resource.info)
        self.registry.remove_crd(crd_name)
        for key in {(r.info.group, r.info.plural) for r in served}:
            self._close_watches(key)
        crd = self.engine.storage.get(_CRD_KEY, "", crd_name)
        if crd is None:
            self._terminating.discard(crd_name)
