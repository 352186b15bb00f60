"""Type-check a CEL syntax tree against declared variables, as cel-go's checker does.

``check(tree, variables)`` returns a ``Checked``: the type of every node, the overloads
each call may resolve to (the cost model needs them), the variables referenced, and
the issues, each a ``(offset, message)`` with cel-go's wording: ``undefined field
'x'``, ``undeclared reference to 'x' (in container '')``, ``found no matching
overload for '_+_' applied to '(int, string)'``, ``expected type 'int' but found
'string'``, ``type 'int' does not support field selection``, ``expression of type
'bool' cannot be range of a comprehension (must be list, map, or dynamic)``.

Type parameters are unified the way cel-go does it (``unify``: a substitution map
shared by the whole expression, the most general type kept), so ``dyn`` arguments
resolve to every matching overload and a call's type is ``dyn`` when those disagree.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from kubeforge.apiserver.cel import ast
from kubeforge.apiserver.cel.decls import FUNCTIONS, Overload
from kubeforge.apiserver.cel.types import (
    BOOL,
    BYTES,
    DOUBLE,
    DURATION,
    DYN,
    ERROR,
    INT,
    LIBRARY_TYPES,
    NULL,
    STRING,
    TIMESTAMP,
    UINT,
    Type,
    format_type,
    is_optional,
    list_of,
    map_of,
    optional_of,
    parse_type,
    type_of,
)  # fmt: skip
from kubeforge.apiserver.cel.unify import assignable, most_general, rename_params
from kubeforge.apiserver.cel.values import Duration, Timestamp, UInt

__all__ = ["Checked", "check"]

_TYPE_IDENTS = {
    name: type_of(parse_type(name))
    for name in ("int", "uint", "double", "bool", "string", "bytes", "dyn", "null")
} | {"list": type_of(list_of(DYN)), "map": type_of(map_of(DYN, DYN)), "type": type_of(DYN)}
_TYPE_IDENTS["null_type"] = type_of(NULL)
QUALIFIED_TYPES: dict[str, Type] = {
    **LIBRARY_TYPES,
    "google.protobuf.Duration": DURATION,
    "google.protobuf.Timestamp": TIMESTAMP,
}
_TYPE_IDENTS["null"] = type_of(NULL)


@dataclass
class Checked:
    tree: ast.Expr
    types: dict[int, Type] = field(default_factory=dict)
    overloads: dict[int, list[Overload]] = field(default_factory=dict)
    references: set[str] = field(default_factory=set)
    issues: list[tuple[int, str]] = field(default_factory=list)

    @property
    def result(self) -> Type:
        return self.types[self.tree.id]


def check(tree: ast.Expr, variables: dict[str, Type]) -> Checked:
    checker = _Checker(variables)
    checker.visit(tree)
    out = checker.out
    out.tree = tree
    out.types = {k: checker.substitute(v, False) for k, v in out.types.items()}
    out.issues.sort(key=lambda issue: issue[0])
    return out


class _Checker:
    def __init__(self, variables: dict[str, Type]) -> None:
        self.scopes: list[dict[str, Type]] = [dict(variables)]
        self.mapping: dict[str, Type] = {}
        self.fresh = 0
        self.out = Checked(ast.Literal(0, 0, None))

    # -- helpers --
    def error(self, node: ast.Node, message: str) -> Type:
        self.out.issues.append((node.offset, message))
        return ERROR

    def new_var(self) -> Type:
        self.fresh += 1
        return Type("param", f"_var{self.fresh}")

    def lookup(self, name: str) -> Type | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def substitute(self, t: Type, params_to_dyn: bool) -> Type:
        if t.kind == "param":
            if t.name in self.mapping:
                return self.substitute(self.mapping[t.name], params_to_dyn)
            return DYN if params_to_dyn else t
        if t.params:
            return Type(t.kind, t.name, tuple(self.substitute(p, params_to_dyn) for p in t.params))
        return t

    def visit(self, node: ast.Expr) -> Type:
        method = getattr(self, f"visit_{type(node).__name__}")
        t: Type = method(node)
        self.out.types[node.id] = t
        return t

    # -- nodes --
    def visit_Literal(self, node: ast.Literal) -> Type:
        value = node.value
        if value is None:
            return NULL
        if isinstance(value, bool):
            return BOOL
        if isinstance(value, UInt):
            return UINT
        if isinstance(value, int):
            return INT
        if isinstance(value, float):
            return DOUBLE
        if isinstance(value, str):
            return STRING
        if isinstance(value, bytes):
            return BYTES
        if isinstance(value, Duration | Timestamp):
            return parse_type("duration" if isinstance(value, Duration) else "timestamp")
        raise TypeError(value)

    def visit_Ident(self, node: ast.Ident) -> Type:
        found = self.lookup(node.name)
        if found is not None:
            self.out.references.add(node.name)
            return found
        if node.name in _TYPE_IDENTS:
            return _TYPE_IDENTS[node.name]
        return self.error(node, f"undeclared reference to '{node.name}' (in container '')")

    def visit_Select(self, node: ast.Select) -> Type:
        dotted = dotted_name(node)
        if dotted is not None and "." in dotted and self.lookup(dotted) is not None:
            self.out.references.add(
                dotted
            )  # a variable with a dotted name (authorizer.requestResource)
            return self.lookup(dotted)  # type: ignore[return-value]
        qualified = qualified_type(node, self.lookup)
        if qualified is not None:
            return type_of(qualified)
        operand = self.substitute(self.visit(node.operand), False)
        target, was_optional = operand, False
        if is_optional(operand):
            target, was_optional = operand.params[0], True
        result = self.field_type(node, target)
        if node.test_only:
            return BOOL
        if was_optional or node.optional:
            return optional_of(result)
        return result

    def field_type(self, node: ast.Select, target: Type) -> Type:
        if target.kind == "map":
            return target.params[1]
        if target.kind == "struct":
            fields = target.fields or {}
            if node.field not in fields:
                return self.error(node, f"undefined field '{node.field}'")
            return fields[node.field]
        if target.kind == "param":
            return DYN
        if not target.is_dyn_or_error():
            self.error(node, f"type '{format_type(target)}' does not support field selection")
        return DYN

    def visit_CreateList(self, node: ast.CreateList) -> Type:
        elem: Type | None = None
        for i, element in enumerate(node.elements):
            t = self.visit(element)
            if i in node.optional_indices:
                t = self.unwrap_optional(element, t)
            elem = self.join(element, elem, t)
        return list_of(elem if elem is not None else self.new_var())

    def unwrap_optional(self, node: ast.Node, t: Type) -> Type:
        if is_optional(t):
            return t.params[0]
        if t.is_dyn_or_error():
            return DYN
        return self.error(node, f"expected type 'optional_type' but found '{format_type(t)}'")

    def visit_CreateMap(self, node: ast.CreateMap) -> Type:
        key: Type | None = None
        value: Type | None = None
        for entry in node.entries:
            key = self.join(entry.key, key, self.visit(entry.key))
            t = self.visit(entry.value)
            if entry.optional:
                t = self.unwrap_optional(entry.value, t)
            value = self.join(entry.value, value, t)
        if key is None or value is None:
            return map_of(self.new_var(), self.new_var())
        return map_of(key, value)

    def join(self, node: ast.Node, previous: Type | None, current: Type) -> Type:
        if previous is None:
            return current
        trial = dict(self.mapping)
        if assignable(trial, current, previous):
            self.mapping = trial
            return most_general(previous, current)
        return self.error(
            node, f"expected type '{format_type(previous)}' but found '{format_type(current)}'"
        )

    def visit_Comprehension(self, node: ast.Comprehension) -> Type:
        range_type = self.substitute(self.visit(node.iter_range), False)
        accu = self.visit(node.accu_init)
        if range_type.kind in ("list", "map"):
            var = range_type.params[0]
        elif range_type.kind in ("dyn", "error", "param"):
            assignable(self.mapping, DYN, range_type)
            var = DYN
        else:
            self.error(
                node.iter_range,
                f"expression of type '{format_type(range_type)}' cannot be range of a "
                "comprehension (must be list, map, or dynamic)",
            )
            var = ERROR
        self.scopes.append({node.accu_var: accu})
        self.scopes.append({node.iter_var: var})
        self.assert_type(node.loop_condition, self.visit(node.loop_condition), BOOL)
        self.assert_type(node.loop_step, self.visit(node.loop_step), accu)
        self.scopes.pop()
        result = self.visit(node.result)
        self.scopes.pop()
        return self.substitute(result, False)

    def assert_type(self, node: ast.Node, actual: Type, expected: Type) -> None:
        trial = dict(self.mapping)
        if assignable(trial, actual, expected):
            self.mapping = trial
            return
        shown = self.substitute(actual, True)
        self.error(
            node, f"expected type '{format_type(expected)}' but found '{format_type(shown)}'"
        )

    def visit_Call(self, node: ast.Call) -> Type:
        if node.function == "format" and node.args and isinstance(node.args[0], ast.CreateList):
            # format()'s argument list is exempt from homogeneous literals (cel-go ext.Strings)
            literal = node.args[0]
            for element in literal.elements:
                self.visit(element)
            self.out.types[literal.id] = list_of(DYN)
            args = [list_of(DYN)]
        else:
            args = [self.visit(arg) for arg in node.args]
        if node.target is not None:
            args.insert(0, self.visit(node.target))
        overloads = FUNCTIONS.get(node.function)
        if overloads is None:
            return self.error(node, f"undeclared reference to '{node.function}' (in container '')")
        return self.resolve(node, overloads, args)

    def resolve(self, node: ast.Call, overloads: list[Overload], args: list[Type]) -> Type:
        member = node.target is not None
        result: Type | None = None
        matched: list[Overload] = []
        for overload in overloads:
            if overload.member != member or len(overload.params) != len(args):
                continue
            fresh = self.instantiate(overload)
            trial = dict(self.mapping)
            if all(assignable(trial, a, p) for a, p in zip(args, fresh[:-1], strict=True)):
                self.mapping = trial
                matched.append(overload)
                found = self.substitute(fresh[-1], False)
                if result is None:
                    result = found
                elif result.kind != "dyn" and result != found:
                    result = DYN
        if result is None:
            shown = [format_type(self.substitute(a, True)) for a in args]
            signature = f"({', '.join(shown)})"
            if member:
                signature = f"{shown[0]}.({', '.join(shown[1:])})"
            return self.error(
                node, f"found no matching overload for '{node.function}' applied to '{signature}'"
            )
        self.out.overloads[node.id] = matched
        return result

    def instantiate(self, overload: Overload) -> list[Type]:
        names: dict[str, Type] = {}
        return [rename_params(t, names, self.new_var) for t in (*overload.params, overload.result)]


def dotted_name(node: ast.Expr) -> str | None:
    """``a.b.c`` for a chain of plain selects on an identifier, else None."""
    if isinstance(node, ast.Ident):
        return node.name
    if isinstance(node, ast.Select) and not node.test_only and not node.optional:
        base = dotted_name(node.operand)
        return None if base is None else f"{base}.{node.field}"
    return None


def qualified_type(node: ast.Select, lookup: Callable[[str], Type | None]) -> Type | None:
    """The type a qualified name such as ``net.IP`` denotes, unless its root is a variable."""
    name = dotted_name(node)
    if name is None or lookup(name.split(".", 1)[0]) is not None:
        return None
    return QUALIFIED_TYPES.get(name)
