"""Evaluate a checked CEL tree, counting cost as cel-go does and stopping at a limit.

``evaluate(tree, variables, limit=...)`` returns ``(value, cost)`` or raises
``EvalError`` (cel-go's runtime wording: ``no such key: x``, ``division by zero``, ...)
or ``CostExceeded`` (``operation cancelled: actual cost limit exceeded``) as soon as
the running cost passes ``limit``. The cost of each step follows cel-go's runtime cost
tracker: 1 per variable or field read, 1 per call unless the function's cost depends
on its inputs (strings, regexes, Kubernetes' library: ``runtime_cost``), 10 per list
and 30 per map built, nothing for constants and logical operators.

``&&``, ``||`` and ``?:`` short-circuit and absorb errors the way CEL requires
(``false && error`` is ``false``; ``error || true`` is ``true``).
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.cel import ast
from kubeforge.apiserver.cel.checker import QUALIFIED_TYPES, dotted_name
from kubeforge.apiserver.cel.functions import call_function, runtime_cost
from kubeforge.apiserver.cel.operators import cel_equal
from kubeforge.apiserver.cel.values import (
    NONE,
    CostExceeded,
    EvalError,
    Optional,
    TypeValue,
    check_int,
)

__all__ = ["evaluate"]

_SPECIAL = frozenset({"_&&_", "_||_", "_?_:_", "@not_strictly_false"})
# int operations (the hot path of comprehensions) without the generic dispatch; floats take
# the generic path, where NaN has its own rules.
_NUMBERS = frozenset({int})
_FAST: dict[str, Any] = {
    "_+_": lambda a, b: check_int(a + b),
    "_-_": lambda a, b: check_int(a - b),
    "_<_": lambda a, b: a < b,
    "_<=_": lambda a, b: a <= b,
    "_>_": lambda a, b: a > b,
    "_>=_": lambda a, b: a >= b,
    "_==_": lambda a, b: a == b,
    "_!=_": lambda a, b: a != b,
}
_TYPE_NAMES = {
    "int": "int", "uint": "uint", "double": "double", "bool": "bool", "string": "string",
    "bytes": "bytes", "list": "list", "map": "map", "null_type": "null_type", "type": "type",
    "dyn": "dyn",
}  # fmt: skip


def evaluate(
    tree: ast.Expr, variables: dict[str, Any], limit: int | None = None
) -> tuple[Any, int]:
    machine = _Machine(limit)
    value = machine.eval(tree, variables)
    return value, machine.cost


class _Machine:
    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self.cost = 0

    def charge(self, amount: int) -> None:
        self.cost += amount
        if self.limit is not None and self.cost > self.limit:
            raise CostExceeded()

    def eval(self, node: ast.Expr, env: dict[str, Any]) -> Any:
        kind = type(node)
        if kind is ast.Literal:
            return node.value  # type: ignore[union-attr]
        if kind is ast.Ident:
            return self.ident(node, env)  # type: ignore[arg-type]
        if kind is ast.Select:
            return self.select(node, env)  # type: ignore[arg-type]
        if kind is ast.Call:
            return self.call(node, env)  # type: ignore[arg-type]
        if kind is ast.Comprehension:
            return self.comprehension(node, env)  # type: ignore[arg-type]
        if kind is ast.CreateList:
            return self.create_list(node, env)  # type: ignore[arg-type]
        return self.create_map(node, env)  # type: ignore[arg-type]

    def ident(self, node: ast.Ident, env: dict[str, Any]) -> Any:
        self.charge(1)
        if node.name in env:
            value = env[node.name]
            if type(value) is _Failed:
                raise value.error
            return value
        if node.name in _TYPE_NAMES:
            return TypeValue(_TYPE_NAMES[node.name])
        raise EvalError(f"no such attribute: {node.name}")

    def select(self, node: ast.Select, env: dict[str, Any]) -> Any:
        name = dotted_name(node) if _short_chain(node) else None
        if name is not None and name in env:
            self.charge(1)
            return env[name]
        if name is not None and name.split(".", 1)[0] not in env and name in QUALIFIED_TYPES:
            return TypeValue(name)
        operand = self.eval(node.operand, env)
        if node.test_only:
            if isinstance(operand, dict):
                return node.field in operand
            raise EvalError("no such overload")
        self.charge(1)
        if isinstance(operand, Optional):
            if not operand.present:
                return NONE
            return _field(operand.value, node.field, optional=True)
        return _field(operand, node.field, optional=node.optional)

    def call(self, node: ast.Call, env: dict[str, Any]) -> Any:
        name = node.function
        if name in _SPECIAL:
            return self.special(node, env)
        evaluate = self.eval
        if node.target is not None:
            args = [evaluate(node.target, env), *(evaluate(arg, env) for arg in node.args)]
            result = call_function(name, args, True)
        else:
            args = [evaluate(arg, env) for arg in node.args]
            fast = _FAST.get(name)
            if fast is not None and type(args[0]) is type(args[1]) and type(args[0]) in _NUMBERS:
                result = fast(args[0], args[1])
                self.charge(1)  # a scalar operation costs 1 (cel-go's default call cost)
                return result
            result = call_function(name, args, False)
        self.charge(runtime_cost(name, args, result))
        return result

    def special(self, node: ast.Call, env: dict[str, Any]) -> Any:
        name = node.function
        if name == "_&&_" or name == "_||_":
            return self.logical(node, env, name == "_||_")
        if name == "_?_:_":
            condition = self.eval(node.args[0], env)
            if not isinstance(condition, bool):
                raise EvalError("no such overload")
            return self.eval(node.args[1] if condition else node.args[2], env)
        self.charge(1)  # @not_strictly_false
        return _not_strictly_false(self, node.args[0], env)

    def logical(self, node: ast.Call, env: dict[str, Any], is_or: bool) -> Any:
        error: EvalError | None = None
        for arg in node.args:
            try:
                value = self.eval(arg, env)
            except CostExceeded:
                raise
            except EvalError as e:
                error = error or e
                continue
            if not isinstance(value, bool):
                error = error or EvalError("no such overload")
            elif value is is_or:
                return is_or
        if error is not None:
            raise error
        return not is_or

    def comprehension(self, node: ast.Comprehension, env: dict[str, Any]) -> Any:
        items = self.eval(node.iter_range, env)
        if isinstance(items, dict):
            items = list(items)
        elif not isinstance(items, list):
            raise EvalError("no such overload")
        scope = dict(env)
        scope[node.accu_var] = self.eval(node.accu_init, env)
        for item in items:
            scope[node.iter_var] = item
            if not _not_strictly_false(self, node.loop_condition, scope):
                break
            try:
                scope[node.accu_var] = self.eval(node.loop_step, scope)
            except CostExceeded:
                raise
            except EvalError as error:
                # cel-go keeps an error in the accumulator: a later `true || error` absorbs it
                scope[node.accu_var] = _Failed(error)
        scope.pop(node.iter_var, None)
        return self.eval(node.result, scope)

    def create_list(self, node: ast.CreateList, env: dict[str, Any]) -> Any:
        self.charge(10)
        out = []
        for i, element in enumerate(node.elements):
            value = self.eval(element, env)
            if i in node.optional_indices:
                if not isinstance(value, Optional):
                    raise EvalError("no such overload")
                if value.present:
                    out.append(value.value)
                continue
            out.append(value)
        return out

    def create_map(self, node: ast.CreateMap, env: dict[str, Any]) -> Any:
        self.charge(30)
        out: dict[Any, Any] = {}
        for entry in node.entries:
            key = self.eval(entry.key, env)
            value = self.eval(entry.value, env)
            if entry.optional:
                if not isinstance(value, Optional):
                    raise EvalError("no such overload")
                if not value.present:
                    continue
                value = value.value
            if any(cel_equal(key, k) is True for k in out):
                raise EvalError(f"Failed with repeated key: {_show(key)}")
            out[key] = value
        return out


class _Failed:
    """An error held as a value (by a comprehension's accumulator), raised when read."""

    __slots__ = ("error",)

    def __init__(self, error: EvalError) -> None:
        self.error = error


def _short_chain(node: ast.Select) -> bool:
    """Whether ``node`` may be a qualified name (``net.IP``, ``authorizer.requestResource``)."""
    operand = node.operand
    if isinstance(operand, ast.Select):
        operand = operand.operand
    return isinstance(operand, ast.Ident)


def _not_strictly_false(machine: _Machine, condition: ast.Expr, scope: dict[str, Any]) -> bool:
    try:
        value = machine.eval(condition, scope)
    except CostExceeded:
        raise
    except EvalError:
        return True
    return value is not False


def _field(operand: Any, name: str, optional: bool) -> Any:
    if isinstance(operand, dict):
        if name in operand:
            value = operand[name]
            return Optional(value, True) if optional else value
        if optional:
            return NONE
        raise EvalError(f"no such key: {name}")
    select = getattr(operand, "cel_field", None)
    if select is not None:
        return select(name)
    raise EvalError("no such overload")


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
