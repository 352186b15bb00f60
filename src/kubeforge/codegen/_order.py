"""Class order and default-factory cycles: the last step of ``kubeforge.codegen.planner``.

See ``finish_modules()``. A required field of a model type defaults to an empty
instance (``default_factory=PodSpec``), which needs two guarantees: no class builds
itself by default, directly or through others (``_break_factory_cycles``), and each
class is defined after the local classes its defaults name (``_definition_order``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from kubeforge.codegen.plan import ClassPlan, FieldPlan, ModulePlan

__all__ = ["finish_modules"]


def finish_modules(modules: Mapping[str, ModulePlan]) -> None:
    """Break default-factory cycles, then put each module's classes in definition order."""
    _break_factory_cycles(modules)
    for plan in modules.values():
        plan.classes = _definition_order(plan.classes, f"{plan.package}.{plan.name}")


_Key = tuple[str, str]  # (module path, class name)


def _factory_target(f: FieldPlan) -> _Key | None:
    """The generated or imported class a required field builds by default, if any."""
    if f.factory is None:
        return None
    return next((ref for ref in sorted(f.type.refs) if ref[1] == f.factory), None)


def _break_factory_cycles(modules: Mapping[str, ModulePlan]) -> None:
    """Turn required fields whose default would recurse forever into ``T | None = None``."""
    classes = {(f"{m.package}.{m.name}", c.name): c for m in modules.values() for c in m.classes}
    while True:
        edges = {
            key: [(t, i) for i, f in enumerate(cls.fields) if (t := _factory_target(f)) in classes]
            for key, cls in classes.items()
        }
        cycle = _find_cycle(edges)
        if cycle is None:
            return
        owner, index = cycle
        cls = classes[owner]
        old = cls.fields[index]
        cls.fields[index] = replace(
            old, annotation=f"{old.type.expr} | None", default="None", factory=None
        )


def _find_cycle(edges: Mapping[_Key, list[tuple[_Key, int]]]) -> tuple[_Key, int] | None:
    state: dict[_Key, int] = {}  # 1: on the current path, 2: done

    def visit(node: _Key) -> tuple[_Key, int] | None:
        state[node] = 1
        for target, index in edges.get(node, []):
            if state.get(target) == 1:
                return node, index
            if target not in state:
                found = visit(target)
                if found is not None:
                    return found
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state:
            found = visit(node)
            if found is not None:
                return found
    return None


def _definition_order(classes: list[ClassPlan], module_path: str) -> list[ClassPlan]:
    """Sort by name, then move each class after the local classes its defaults build.

    A ``default_factory`` names its class when the class body executes, so that class
    must already exist; annotations are strings and need no order.
    """
    by_name = {c.name: c for c in classes}
    done: set[str] = set()
    out: list[ClassPlan] = []

    def emit(cls: ClassPlan) -> None:
        if cls.name in done:
            return
        done.add(cls.name)
        for f in cls.fields:
            target = _factory_target(f)
            if target is not None and target[0] == module_path:
                emit(by_name[target[1]])
        out.append(cls)

    for cls in sorted(classes, key=lambda c: c.name):
        emit(cls)
    return out
