"""Per-resource rules the engine applies around every write: defaults, validation, status
handling, generation, graceful deletion and the field labels a ``fieldSelector`` may use.

They mirror the "strategies" of the real server's registries (``pkg/registry/...``),
reduced to what clients can observe. ``Strategy`` is the generic base and what a
resource without rules of its own gets; each built-in kind's strategy is in its API
group's module under ``builtin``, custom resources' in ``apiextensions``. The engine
gets a resource's strategy from the factory it was given (``Strategy.for_server``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kubeforge.apiserver.authn.authenticator import UserInfo
from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.meta.fields import prune_metadata
from kubeforge.apiserver.meta.validation import (
    NameValidator,
    dns1123_subdomain,
)
from kubeforge.apiserver.registry.served import ServedResource
from kubeforge.apiserver.smd.schema import Atom, builtin_root, prune_unknown

__all__ = ["Strategy", "nested_str", "non_metadata"]


def nested_str(obj: dict[str, Any], path: str) -> str:
    """The value at dotted ``path`` printed the way Go's ``fmt.Sprint`` would, ``""`` if absent."""
    value: Any = obj
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return ""
        value = value[part]
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None or isinstance(value, dict | list):
        return ""
    return str(value)


def non_metadata(obj: dict[str, Any]) -> dict[str, Any]:
    """Everything but ``metadata``: what must change for ``generation`` to move."""
    return {k: v for k, v in obj.items() if k != "metadata"}


class Strategy:
    """How one resource is created, updated, deleted and selected (a ConfigMap's rules)."""

    has_generation = False
    """Whether ``metadata.generation`` is kept (bumped on non-metadata changes)."""
    status_subresource = False
    """With ``/status``: the main resource ignores ``.status``; ``/status`` takes only it."""
    return_deleted_object = False
    """Immediate DELETE answers the object (True) or a ``Status`` Success (False)."""
    allow_create_on_update = False
    """PUT on a missing object creates it (Leases, Events)."""
    allow_unconditional_update = True
    """PUT without ``metadata.resourceVersion`` overwrites (False for custom resources)."""
    name_validator: NameValidator = staticmethod(dns1123_subdomain)
    extra_fields: tuple[str, ...] = ()
    """Field labels beyond ``metadata.name``/``metadata.namespace``."""
    top_level_fields: tuple[str, ...] | None = None
    """The kind's fields besides apiVersion/kind/metadata; others are unknown (None: any)."""

    def __init__(self, served: ServedResource) -> None:
        self.served = served

    @classmethod
    def for_server(
        cls, served: ServedResource, stored_services: Callable[[], list[dict[str, Any]]]
    ) -> Strategy:
        """The strategy of ``served`` in a running server; ``stored_services`` gives the
        Services stored, whose cluster IPs and node ports are taken."""
        return cls(served)

    @property
    def kind(self) -> str:
        return self.served.info.kind

    # --- selection -------------------------------------------------------------------------

    def supported_fields(self) -> frozenset[str]:
        return frozenset(("metadata.name", "metadata.namespace", *self.extra_fields))

    def field_set(self, obj: dict[str, Any]) -> dict[str, str]:
        meta = obj.get("metadata") or {}
        fields = {
            "metadata.name": str(meta.get("name") or ""),
            "metadata.namespace": str(meta.get("namespace") or ""),
        }
        for path in self.extra_fields:
            fields[path] = nested_str(obj, path)
        return fields

    # --- writes ----------------------------------------------------------------------------

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        """Defaults and server-owned fields on a new object (status reset, ...)."""
        if self.status_subresource:
            obj.pop("status", None)

    def record_requester(self, obj: dict[str, Any], user: UserInfo) -> None:
        """Fields a create takes from the authenticated user, overriding what was sent
        (a CertificateSigningRequest's requestor); most kinds have none."""

    def prepare_for_status_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        """A ``/status`` (or ``/approval``) write, after ``new`` took what it may change.
        Change only those parts: the rest of ``new`` is shared with the stored ``old``."""

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        """Main-resource update: keep the stored status when it has its own subresource."""
        if self.status_subresource:
            if "status" in old:
                new["status"] = old["status"]
            else:
                new.pop("status", None)

    def on_read(self, obj: dict[str, Any]) -> dict[str, Any]:
        """``obj`` as a read from storage shows it; never changes ``obj`` and returns it
        as is when nothing applies (custom resources fill their CRD's defaults here)."""
        return obj

    def normalize(self, obj: dict[str, Any]) -> list[str]:
        """Drop unknown fields (as decoding into the Go type does); returns their paths.

        Built-ins are checked at every depth against the Kubernetes 1.32 OpenAPI (see
        ``smd.schema``); custom resources override this with their CRD's schema.
        """
        if self.top_level_fields is None:
            return []
        dropped = prune_metadata(obj)
        known = {"apiVersion", "kind", "metadata", *self.top_level_fields}
        for key in [k for k in obj if k not in known]:
            del obj[key]
            dropped.append(key)
        info = self.served.info
        atom = builtin_root(info.group, info.version, info.kind)
        if atom is not None:
            dropped += prune_unknown(obj, atom)
        return dropped

    @property
    def stores_normalized(self) -> bool:
        """Whether every stored object already is as ``normalize`` leaves it (built-ins:
        their schema never changes; a CRD's may, so its kinds re-normalize what they keep)."""
        return type(self).normalize is Strategy.normalize

    def normalize_parts(self, obj: dict[str, Any], paths: tuple[tuple[str, ...], ...]) -> list[str]:
        """``normalize(obj)`` for an ``obj`` that only at ``paths`` differs from a stored
        object (``stores_normalized``): the rest has nothing to drop, so only those parts
        are walked."""
        if self.top_level_fields is None:
            return []
        info = self.served.info
        root = builtin_root(info.group, info.version, info.kind)
        dropped: list[str] = []
        if root is None:
            return self.normalize(obj)
        for path in paths:
            value: Any = obj
            atom: Atom | None = root
            for key in path:
                value = value.get(key) if isinstance(value, dict) else None
                atom = atom.child(key) if atom is not None else None
            if atom is None or path[0] not in ("metadata", *self.top_level_fields):
                return self.normalize(obj)  # an undeclared part: dropped as a whole
            dropped += prune_unknown(value, atom, ".".join(path))
        return dropped

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return []

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return self.validate(new)

    def validate_status_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        """A ``/status`` write's own rules (Go's status strategy ``ValidateUpdate``); kinds
        without any check it as a main-resource update."""
        return self.validate_update(new, old)

    def validate_finalize(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        """A namespace's ``/finalize`` write (``ValidateNamespaceFinalizeUpdate``)."""
        return []

    def validate_subresource_update(
        self, subresource: str, new: dict[str, Any], old: dict[str, Any]
    ) -> list[FieldError]:
        """A status-like write's rules when they differ by subresource (a
        CertificateSigningRequest's ``/approval`` may add conditions its ``/status`` may
        not); most kinds: ``validate_status_update``."""
        return self.validate_status_update(new, old)

    converts_by_webhook = False
    """``convert`` may need a webhook awaited (``registry.conversions``)."""

    def convert(self, objs: list[dict[str, Any]], api_version: str) -> list[dict[str, Any]]:
        """``objs`` at ``api_version``: relabelled, as a CRD's ``None`` conversion does (custom
        resources with a conversion webhook call it instead)."""
        return [
            obj if obj.get("apiVersion") == api_version else {**obj, "apiVersion": api_version}
            for obj in objs
        ]

    def take_warnings(self) -> list[str]:
        """Warnings the last ``prepare_for_*`` made, sent even if validation then fails
        (most kinds: none)."""
        return []

    def warnings_on_create(self, obj: dict[str, Any]) -> list[str]:
        """Go's ``WarningsOnCreate``: asked only of an object that passed validation."""
        return []

    def warnings_on_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[str]:
        """Go's ``WarningsOnUpdate``: asked only of an update that passed validation."""
        return []

    # --- deletion --------------------------------------------------------------------------

    def grace_period(self, obj: dict[str, Any], requested: int | None) -> int:
        """Seconds the object lingers after DELETE before it is removed (0 = at once)."""
        return 0

    def keep_on_delete(self, obj: dict[str, Any]) -> bool:
        """Extra reasons (beyond finalizers) for DELETE to only mark the object."""
        return False

    def mark_deleting(self, obj: dict[str, Any]) -> None:
        """Changes made when DELETE starts a deletion (namespaces turn Terminating)."""

    def before_delete(self, obj: dict[str, Any]) -> None:
        """Raise a ``StatusError`` to refuse a DELETE (protected namespaces)."""

    def committed(self, obj: dict[str, Any], gone: bool) -> None:
        """Called after every durable write of this resource (never inside a storage listener,
        so it may write again: CRD serving and cleanup hang off this)."""

    def may_delete_now(self, obj: dict[str, Any]) -> bool:
        """Whether a deleting object with no finalizers left may disappear."""
        grace = obj["metadata"].get("deletionGracePeriodSeconds")
        return not obj["metadata"].get("finalizers") and (grace is None or grace == 0)
