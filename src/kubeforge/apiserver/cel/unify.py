"""Type unification for the CEL checker, as cel-go's ``checker/types.go`` does it.

A substitution map (type parameter name -> type) is shared by a whole expression; a
value type is assignable to a declared type when the two agree once parameters are
substituted, ``dyn`` and ``error`` fit anything, and ``null`` fits the nullable kinds.
When a parameter meets two types, the most general one is kept, and a parameter never
comes to contain itself (the occurs check).

Entry points: ``assignable(mapping, value_type, declared)``, ``most_general(a, b)``,
``rename_params(t, names, new_var)``.
"""

from __future__ import annotations

from kubeforge.apiserver.cel.types import Type

__all__ = ["assignable", "most_general", "rename_params"]


def rename_params(t: Type, names: dict[str, Type], new_var: object) -> Type:
    """``t`` with each type parameter replaced by a fresh variable (``new_var()``), the same
    one for each name (``names`` keeps them): an overload instantiated for one call."""
    if t.kind == "param":
        if t.name not in names:
            names[t.name] = new_var()  # type: ignore[operator]
        return names[t.name]
    if t.params:
        return Type(t.kind, t.name, tuple(rename_params(p, names, new_var) for p in t.params))
    return t


def most_general(a: Type, b: Type) -> Type:
    """The less specific of two types that unify (``dyn`` over ``int``, ``list(dyn)`` over
    ``list(int)``)."""
    return a if _less_specific(a, b) else b


def _less_specific(a: Type, b: Type) -> bool:
    if a.kind == "dyn" or a.kind == "param":
        return True
    if a.kind != b.kind or a.name != b.name or len(a.params) != len(b.params):
        return False
    return all(_less_specific(x, y) for x, y in zip(a.params, b.params, strict=True))


def assignable(m: dict[str, Type], t1: Type, t2: Type) -> bool:
    """Whether a ``t1`` value fits where ``t2`` is declared, extending the substitutions ``m``."""
    if t2.kind == "param":
        valid, has_sub = _substitution(m, t1, t2)
        if valid:
            return True
        if has_sub:
            return False
    if t1.kind == "param":
        return _substitution(m, t2, t1)[0]
    if t1.is_dyn_or_error() or t2.is_dyn_or_error():
        return True
    if t1.kind == "null":
        return _nullable(t2)
    if t2.kind == "null":
        return _nullable(t1)
    if t1.kind in ("opaque", "list", "map"):
        return (
            t1.kind == t2.kind
            and t1.name == t2.name
            and len(t1.params) == len(t2.params)
            and all(assignable(m, a, b) for a, b in zip(t1.params, t2.params, strict=True))
        )
    if t1.kind == "type":
        return t2.kind == "type"
    return t1.kind == t2.kind and t1.name == t2.name


def _nullable(t: Type) -> bool:
    return t.kind in ("opaque", "struct", "duration", "timestamp", "null")


def _substitution(m: dict[str, Type], t1: Type, t2: Type) -> tuple[bool, bool]:
    if t2.name in m:
        sub = m[t2.name]
        if t1 == sub:
            return True, True
        if assignable(m, t1, sub):
            general = most_general(t1, sub)
            if not _occurs(m, t2.name, general):
                m[t2.name] = general
            return True, True
        return False, True
    if not _occurs(m, t2.name, t1):
        m[t2.name] = t1
        return True, False
    return False, False


def _occurs(m: dict[str, Type], name: str, t: Type) -> bool:
    if t.kind == "param":
        if t.name == name:
            return True
        return t.name in m and _occurs(m, name, m[t.name])
    return any(_occurs(m, name, p) for p in t.params)
