"""Evaluate a checked CEL tree, counting cost as cel-go does and stopping at a limit.

``evaluate(tree, variables, limit=...)`` returns ``(value, cost)`` or raises
``EvalError`` (cel-go's runtime wording: ``no such key: x``, ``division by zero``, ...)
or ``CostExceeded`` (``operation cancelled: actual cost limit exceeded``) as soon as
the running cost passes ``limit``. The cost of each step follows cel-go's runtime cost
tracker: 1 per variable or field read, 1 per call unless the function's cost depends
on its inputs (strings, regexes, Kubernetes' library: ``runtime_cost``), 10 per list
and 30 per map built, nothing for constants and logical operators.

``&&``, ``||`` and ``?:`` short-circuit and absorb errors the way CEL requires
(``false && error`` is ``false``; ``error || true`` is ``true``); an error in a
comprehension's step stays in its accumulator until something reads it.

A tree is compiled once into Python closures (one per node, remembered with the tree),
which is what makes a comprehension over a thousand items affordable.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from weakref import WeakKeyDictionary

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

_UNLIMITED = 2**63
# int operations (the hot path of comprehensions) without the generic dispatch; floats take
# the generic path, where NaN has its own rules.
_FAST: dict[str, Callable[[int, int], Any]] = {
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


class _Machine:
    __slots__ = ("cost", "limit")

    def __init__(self, limit: int | None) -> None:
        self.cost = 0
        self.limit = _UNLIMITED if limit is None else limit


Env = dict[str, Any]
Run = Callable[[Env, _Machine], Any]
_COMPILED: WeakKeyDictionary[ast.Node, Run] = WeakKeyDictionary()


def evaluate(
    tree: ast.Expr, variables: dict[str, Any], limit: int | None = None
) -> tuple[Any, int]:
    run = _COMPILED.get(tree)
    if run is None:
        run = _COMPILED[tree] = _compile(tree)
    machine = _Machine(limit)
    return run(variables, machine), machine.cost


def _charge(m: _Machine, amount: int) -> None:
    m.cost += amount
    if m.cost > m.limit:
        raise CostExceeded()


def _compile(node: ast.Expr) -> Run:
    if isinstance(node, ast.Literal):
        value = node.value
        return lambda env, m: value
    if isinstance(node, ast.Ident):
        return _ident(node.name)
    if isinstance(node, ast.Select):
        return _select(node)
    if isinstance(node, ast.Call):
        return _call(node)
    if isinstance(node, ast.Comprehension):
        return _comprehension(node)
    if isinstance(node, ast.CreateList):
        return _create_list(node)
    return _create_map(node)


def _ident(name: str) -> Run:
    type_value = TypeValue(_TYPE_NAMES[name]) if name in _TYPE_NAMES else None

    def run(env: Env, m: _Machine) -> Any:
        m.cost += 1
        if m.cost > m.limit:
            raise CostExceeded()
        try:
            value = env[name]
        except KeyError:
            if type_value is not None:
                return type_value
            raise EvalError(f"no such attribute: {name}") from None
        if type(value) is _Failed:
            raise value.error
        return value

    return run


def _select(node: ast.Select) -> Run:
    dotted = dotted_name(node) if _short_chain(node) else None
    root = dotted.split(".", 1)[0] if dotted else ""
    qualified = TypeValue(dotted) if dotted in QUALIFIED_TYPES else None
    operand = _compile(node.operand)
    name, test_only, optional = node.field, node.test_only, node.optional

    def run(env: Env, m: _Machine) -> Any:
        if dotted is not None and dotted in env:
            _charge(m, 1)
            return env[dotted]
        if qualified is not None and root not in env:
            return qualified
        value = operand(env, m)
        if test_only:
            if isinstance(value, dict):
                return name in value
            raise EvalError("no such overload")
        _charge(m, 1)
        if type(value) is dict and not optional:
            try:
                return value[name]
            except KeyError:
                raise EvalError(f"no such key: {name}") from None
        if isinstance(value, Optional):
            return _field(value.value, name, optional=True) if value.present else NONE
        return _field(value, name, optional=optional)

    return run


def _call(node: ast.Call) -> Run:
    name = node.function
    if name in ("_&&_", "_||_"):
        return _logical([_compile(arg) for arg in node.args], name == "_||_")
    if name == "_?_:_":
        return _conditional(*(_compile(arg) for arg in node.args))
    if name == "@not_strictly_false":
        condition = _compile(node.args[0])

        def not_strictly_false(env: Env, m: _Machine) -> Any:
            _charge(m, 1)
            return _holds(condition, env, m)

        return not_strictly_false
    args = [_compile(arg) for arg in node.args]
    if node.target is not None:
        target = _compile(node.target)

        def member(env: Env, m: _Machine) -> Any:
            values = [target(env, m), *(arg(env, m) for arg in args)]
            result = call_function(name, values, True)
            _charge(m, runtime_cost(name, values, result))
            return result

        return member
    fast = _FAST.get(name)

    def call(env: Env, m: _Machine) -> Any:
        values = [arg(env, m) for arg in args]
        if fast is not None and type(values[0]) is int and type(values[1]) is int:
            _charge(m, 1)  # a scalar operation costs 1 (cel-go's default call cost)
            return fast(values[0], values[1])
        result = call_function(name, values, False)
        _charge(m, runtime_cost(name, values, result))
        return result

    return call


def _logical(args: list[Run], is_or: bool) -> Run:
    def run(env: Env, m: _Machine) -> Any:
        error: EvalError | None = None
        for arg in args:
            try:
                value = arg(env, m)
            except CostExceeded:
                raise
            except EvalError as e:
                error = error or e
                continue
            if type(value) is not bool:
                error = error or EvalError("no such overload")
            elif value is is_or:
                return is_or
        if error is not None:
            raise error
        return not is_or

    return run


def _conditional(condition: Run, then: Run, otherwise: Run) -> Run:
    def run(env: Env, m: _Machine) -> Any:
        chosen = condition(env, m)
        if type(chosen) is not bool:
            raise EvalError("no such overload")
        return then(env, m) if chosen else otherwise(env, m)

    return run


def _comprehension(node: ast.Comprehension) -> Run:
    iter_range, accu_init = _compile(node.iter_range), _compile(node.accu_init)
    condition, step, result = (
        _compile(node.loop_condition),
        _compile(node.loop_step),
        _compile(node.result),
    )
    iter_var, accu_var = node.iter_var, node.accu_var

    def run(env: Env, m: _Machine) -> Any:
        items = iter_range(env, m)
        if isinstance(items, dict):
            items = list(items)
        elif not isinstance(items, list):
            raise EvalError("no such overload")
        scope = dict(env)
        scope[accu_var] = accu_init(env, m)
        for item in items:
            scope[iter_var] = item
            if not _holds(condition, scope, m):
                break
            try:
                scope[accu_var] = step(scope, m)
            except CostExceeded:
                raise
            except EvalError as error:
                # cel-go keeps an error in the accumulator: a later `true || error` absorbs it
                scope[accu_var] = _Failed(error)
        scope.pop(iter_var, None)
        return result(scope, m)

    return run


def _create_list(node: ast.CreateList) -> Run:
    elements = [_compile(e) for e in node.elements]
    optional = node.optional_indices

    def run(env: Env, m: _Machine) -> Any:
        _charge(m, 10)
        out = []
        for i, element in enumerate(elements):
            value = element(env, m)
            if i in optional:
                if not isinstance(value, Optional):
                    raise EvalError("no such overload")
                if value.present:
                    out.append(value.value)
                continue
            out.append(value)
        return out

    return run


def _create_map(node: ast.CreateMap) -> Run:
    entries = [(_compile(e.key), _compile(e.value), e.optional) for e in node.entries]

    def run(env: Env, m: _Machine) -> Any:
        _charge(m, 30)
        out: dict[Any, Any] = {}
        for key_of, value_of, optional in entries:
            key = key_of(env, m)
            value = value_of(env, m)
            if optional:
                if not isinstance(value, Optional):
                    raise EvalError("no such overload")
                if not value.present:
                    continue
                value = value.value
            if any(cel_equal(key, k) for k in out):
                raise EvalError(f"Failed with repeated key: {_show(key)}")
            out[key] = value
        return out

    return run


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


def _holds(condition: Run, env: Env, m: _Machine) -> bool:
    """CEL's ``@not_strictly_false``: true unless the condition is false (errors count true)."""
    try:
        value = condition(env, m)
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
