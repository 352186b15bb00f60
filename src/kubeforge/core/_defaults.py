"""Python defaults that read as the default but are not sent: the metaclass of ``Model``.

msgspec leaves a field out of the JSON when it holds its default (``omit_defaults``),
so with ``replicas: int = 1`` a user's ``replicas=1`` would never reach the server:
server-side apply would give up the field instead of setting it. Kubernetes' own
clients send what was set and only that (client-go's apply configurations: every
field a pointer, nil meaning "not set"). ``ModelMeta`` gives a model the same:

- A field declared with a default other than ``None`` (``= 1``, ``= ""``,
  ``msgspec.field(default_factory=Spec)``) is stored as ``msgspec.UNSET`` until the
  user sets it or a decoded document has it; msgspec never encodes ``UNSET``, and
  encodes every value that was set, whatever it is.
- Reading such a field while it is unset gives the declared default
  (``WidgetSpec().replicas == 1``); a ``default_factory`` value is built on the
  first read and kept (so ``obj.spec.items.append(x)`` works on a fresh object),
  which makes it set from then on.
- ``python_defaults(cls)`` gives the declared defaults back (``kubeforge.crd``
  writes them into the CRD as the server-side ``default:``).

Every model is ``kw_only`` (msgspec does not inherit it), so a required field may
follow fields with defaults. Fields defaulting to ``None`` need none of this:
``None`` means "not set" and is left out, any other value is sent. A field
declared ``= NULLABLE`` (a schema's ``nullable`` field) reads ``None`` until set,
and ``None`` set or decoded is sent as ``null``: there, null is a value. Classes of
``kubeforge.core`` (``ObjectMeta``, ``Resource``) keep their defaults as declared:
they are read on every hot path, and an attribute read through a descriptor costs
~10x a plain slot read (190 ns against 10 ns).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

__all__ = ["NULLABLE", "Declared", "ModelMeta", "UnsetReads", "python_defaults", "slot_of"]

_EXEMPT_PREFIX = "kubeforge.core."


class _Nullable:
    __slots__ = ()

    def __repr__(self) -> str:
        return "NULLABLE"


NULLABLE: Any = _Nullable()
"""The default of an optional field whose ``null`` means something: reads ``None``
while unset (and is then left out), sends ``null`` once set to ``None``."""


class Declared:
    """A field's declared default: a ``value``, or a ``factory`` that builds one."""

    __slots__ = ("factory", "value")

    def __init__(self, value: Any = msgspec.NODEFAULT, factory: Any = msgspec.NODEFAULT) -> None:
        self.value = value
        self.factory = factory

    def build(self) -> Any:
        return self.factory() if self.factory is not msgspec.NODEFAULT else self.value


class UnsetReads:
    """Data descriptor over a field's slot: an ``UNSET`` value reads as ``unset(obj)``."""

    __slots__ = ("_slot", "_unset")

    def __init__(self, slot: Any, unset: Callable[[Any], Any]) -> None:
        self._slot = slot
        self._unset = unset

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        value = self._slot.__get__(obj, owner)
        return self._unset(obj) if value is msgspec.UNSET else value

    def __set__(self, obj: Any, value: Any) -> None:
        self._slot.__set__(obj, value)

    def __delete__(self, obj: Any) -> None:
        self._slot.__set__(obj, msgspec.UNSET)


def _reads_declared(slot: Any, declared: Declared) -> UnsetReads:
    if declared.factory is msgspec.NODEFAULT:
        value = declared.value
        return UnsetReads(slot, lambda obj: value)

    def build(obj: Any) -> Any:
        built = declared.factory()
        slot.__set__(obj, built)  # kept, so that changes made through it are not lost
        return built

    return UnsetReads(slot, build)


def slot_of(cls: type, name: str) -> Any:
    """The member descriptor msgspec made for field ``name`` (under any descriptor of ours)."""
    for klass in cls.__mro__:
        found = klass.__dict__.get(name)
        if found is None:
            continue
        return getattr(found, "_slot", found)
    raise AttributeError(name)


def _declared(value: Any) -> tuple[Declared, Any] | None:
    """(the declared default, what msgspec gets instead), or ``None`` to keep ``value``."""
    if isinstance(value, msgspec._core.Field):
        if value.default is not msgspec.NODEFAULT:
            if value.default is None or value.default is msgspec.UNSET:
                return None
            declared = Declared(value=value.default)
        elif value.default_factory is not msgspec.NODEFAULT:
            declared = Declared(factory=value.default_factory)
        else:
            return None
        return declared, msgspec.field(default=msgspec.UNSET, name=value.name)
    if value is None or value is msgspec.UNSET:
        return None
    if value is NULLABLE:
        return Declared(value=None), msgspec.UNSET
    return Declared(value=value), msgspec.UNSET


def _is_class_var(annotation: Any) -> bool:
    return "ClassVar" in (annotation if isinstance(annotation, str) else repr(annotation))


class ModelMeta(msgspec.StructMeta):
    """``StructMeta`` that turns non-``None`` defaults into "unset, reads as the default"."""

    def __new__(
        mcls, name: str, bases: tuple[type, ...], namespace: dict[str, Any], **kwargs: Any
    ) -> ModelMeta:
        # msgspec's kw_only holds only for the fields of the class that says it; every
        # model says it, so required fields may follow optional ones in any subclass.
        kwargs.setdefault("kw_only", True)
        declared: dict[str, Declared] = {}
        annotations = namespace.get("__annotations__") or {}
        if not str(namespace.get("__module__", "")).startswith(_EXEMPT_PREFIX):
            for field, annotation in annotations.items():
                if field not in namespace or _is_class_var(annotation):
                    continue
                found = _declared(namespace[field])
                if found is not None:
                    declared[field], namespace[field] = found
        cls = super().__new__(mcls, name, bases, namespace, **kwargs)
        inherited: dict[str, Declared] = {}
        for base in reversed(cls.__mro__[1:]):
            inherited.update(base.__dict__.get("__kubeforge_defaults__", {}))
        for field in annotations:  # redeclared here: this class's declaration wins
            inherited.pop(field, None)
        for field, default in declared.items():
            setattr(cls, field, _reads_declared(slot_of(cls, field), default))
        type.__setattr__(cls, "__kubeforge_defaults__", {**inherited, **declared})
        return cls


def python_defaults(cls: type) -> dict[str, Declared]:
    """Attribute name -> declared default of the fields ``ModelMeta`` stores as unset."""
    found: dict[str, Declared] = getattr(cls, "__kubeforge_defaults__", {})
    return found
