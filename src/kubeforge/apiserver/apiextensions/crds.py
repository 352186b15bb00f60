"""CustomResourceDefinitions: validation, serving their resources, and cleanup on delete.

What the real server spreads over several controllers (naming, establishing,
finalizing) happens synchronously here (names: ``names``; custom resources'
strategy: ``custom_resources``), so a CRD is ``Established`` and served in
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

from kubeforge.apiserver.apiextensions.conversion_webhook import WebhookConverter
from kubeforge.apiserver.apiextensions.custom_resources import CustomResourceStrategy, read_defaults
from kubeforge.apiserver.apiextensions.names import (
    group_names,
    negotiate,
    requested_names,
    same_names,
)
from kubeforge.apiserver.apiextensions.validation import validate_crd
from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.registry import deletion
from kubeforge.apiserver.registry.deletion import DeleteOptions
from kubeforge.apiserver.registry.engine import Engine
from kubeforge.apiserver.registry.options import TRUSTED
from kubeforge.apiserver.registry.served import (
    ALL_VERBS,
    Registry,
    ServedResource,
    deprecation_warning,
)
from kubeforge.apiserver.registry.strategy import Strategy, nested_str
from kubeforge.apiserver.storage.sqlite import clone
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


def _set_condition(conditions: dict[Any, dict[str, Any]], new: dict[str, Any], now: str) -> None:
    """Replace a condition; its transition time moves only when its status changes."""
    old = conditions.get(new["type"])
    since = old.get("lastTransitionTime") if old and old.get("status") == new["status"] else None
    conditions[new["type"]] = _condition(
        new["type"], new["status"], new["reason"], new["message"], since or now
    )


def _is_true(status: dict[str, Any], type_: str) -> bool:
    return any(
        c.get("type") == type_ and c.get("status") == "True" for c in status.get("conditions") or []
    )


class CRDStrategy(Strategy):
    """Rules for CustomResourceDefinition objects themselves."""

    has_generation = True
    status_subresource = True
    top_level_fields = ("spec", "status")

    def __init__(self, served: ServedResource, controller: CRDController) -> None:
        super().__init__(served)
        self._controller = controller

    @staticmethod
    def _default(obj: dict[str, Any]) -> None:
        """The v1 defaults, applied on every write as the real server's decoding does."""
        spec = obj.get("spec")
        if isinstance(spec, dict):
            spec.setdefault("conversion", {"strategy": "None"})
            names = spec.get("names")
            if isinstance(names, dict) and names.get("kind"):
                names.setdefault("singular", str(names["kind"]).lower())
                names.setdefault("listKind", f"{names['kind']}List")

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        self._default(obj)
        meta = obj["metadata"]
        finalizers = list(meta.get("finalizers") or [])
        if CLEANUP_FINALIZER not in finalizers:
            finalizers.append(CLEANUP_FINALIZER)
        meta["finalizers"] = finalizers
        obj["status"] = self.status(obj, {})

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        super().prepare_for_update(new, old)
        self._default(new)
        if isinstance(new.get("spec"), dict) and not new.get("metadata", {}).get(
            "deletionTimestamp"
        ):
            new["status"] = self.status(new, old.get("status") or {})

    def status(self, obj: dict[str, Any], old_status: dict[str, Any]) -> dict[str, Any]:
        """The status the naming controller and the version bookkeeping give ``obj``."""
        spec = obj.get("spec") or {}
        conditions = {c.get("type"): c for c in old_status.get("conditions") or []}
        names = requested_names(spec)
        accepted = old_status.get("acceptedNames") or {}
        # Names equal to the accepted ones leave names and conditions alone (the
        # controller's early return), so an established CRD keeps its timestamps.
        if not same_names(names, accepted):
            in_group = self._controller.crds_in_group(str(spec.get("group") or ""))
            accepted, names_ok, established = negotiate(names, old_status, group_names(in_group))
            now = self._controller.engine.now()
            _set_condition(conditions, names_ok, now)
            _set_condition(conditions, established, now)
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
            "acceptedNames": accepted,
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
        group = str((obj.get("spec") or {}).get("group") or "")
        if gone:
            self._controller.unserve(name)
            self._controller.renegotiate(group)  # its names are free now
        elif obj["metadata"].get("deletionTimestamp"):
            self._controller.cleanup(obj)
        else:
            self._controller.serve(obj)
            self._controller.renegotiate(group)  # a rename may have freed names


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
        self._negotiating: set[str] = set()
        self._renegotiate_again: set[str] = set()

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

    def crds_in_group(self, group: str) -> list[dict[str, Any]]:
        """The stored CRDs of ``group``."""
        return [
            crd
            for crd in self.engine.storage.objects(_CRD_KEY)
            if (crd.get("spec") or {}).get("group") == group
        ]

    def renegotiate(self, group: str) -> None:
        """Give the group's CRDs whose names are not all accepted another chance (a
        name was released); each change is a status write, as the controller's."""
        if group in self._negotiating:
            self._renegotiate_again.add(group)  # the running pass goes round once more
            return
        self._negotiating.add(group)
        try:
            again = True
            while again:
                self._renegotiate_again.discard(group)
                for crd in self.crds_in_group(group):
                    self._renegotiate_one(crd)
                again = group in self._renegotiate_again
        finally:
            self._negotiating.discard(group)
            self._renegotiate_again.discard(group)

    def _renegotiate_one(self, crd: dict[str, Any]) -> None:
        status = crd.get("status") or {}
        if crd["metadata"].get("deletionTimestamp") or same_names(
            requested_names(crd.get("spec") or {}), status.get("acceptedNames") or {}
        ):
            return
        served = self.registry.lookup("apiextensions.k8s.io", "v1", "customresourcedefinitions")
        assert served is not None  # a built-in: always registered
        strategy = self.engine.strategy(served)
        assert isinstance(strategy, CRDStrategy)
        body = clone(crd)
        body["status"] = strategy.status(crd, status)
        self.engine.update(served, "", crd["metadata"]["name"], body, TRUSTED, subresource="status")

    def serve(self, crd: dict[str, Any]) -> None:
        name = crd["metadata"]["name"]
        spec = crd.get("spec") or {}
        status = crd.get("status") or {}
        names = status.get("acceptedNames") or {}
        # The real handler serves a CRD that is Established or has its names accepted;
        # one whose names clash from the start is neither, and answers 404.
        if not (_is_true(status, "Established") or _is_true(status, "NamesAccepted")) or not (
            names.get("kind") and names.get("plural")
        ):
            self.unserve(name)
            return
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
                singular=str(names.get("singular") or ""),
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
        defaults = read_defaults(str(spec.get("group")), spec.get("versions") or [])
        conversion = (spec.get("conversion") or {}).get("strategy")
        storage = self.engine.storage
        converter = WebhookConverter(crd, storage.get) if conversion == "Webhook" else None
        for old in self._served_of(name):
            self.engine.forget_strategy(old.info)
        self.registry.add_crd(name, [s for s, _ in served_list])
        for served, version in served_list:
            self.engine.set_strategy(
                served, CustomResourceStrategy(served, version, self, defaults, converter)
            )

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
            self.engine.update(crd_served, "", crd_name, body, TRUSTED)
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
