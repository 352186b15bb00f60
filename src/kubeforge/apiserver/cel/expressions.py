"""Plain CEL expressions over JSON variables: webhook ``matchConditions``.

``evaluate(expression, variables)`` compiles once per distinct expression and returns
the result as plain Python (``True``/``False``, numbers, strings ...), raising
``CelError`` for a syntax or evaluation error. celpy is imported on first use, so a
server without match conditions never loads it. (CRD validation rules, with their
``self``/``oldSelf`` and ratcheting, are ``cel``'s business.)
"""

from __future__ import annotations

from functools import cache
from typing import Any

__all__ = ["CelError", "compile_error", "evaluate"]


class CelError(Exception):
    """The expression does not compile, or failed while evaluating."""


@cache
def _program(expression: str) -> Any:
    import celpy
    from celpy import celparser

    environment = celpy.Environment()
    try:
        return environment.program(environment.compile(expression))
    except celparser.CELParseError as error:
        raise CelError(_first_line(error)) from None


def _first_line(error: Exception) -> str:
    text = str(error.args[0]) if error.args else str(error)
    return text.split(" (in activation", 1)[0].split("\n", 1)[0].strip()


def compile_error(expression: str) -> str:
    """Why ``expression`` does not compile, or ``""`` when it does."""
    try:
        _program(expression)
    except CelError as error:
        return str(error)
    return ""


def evaluate(expression: str, variables: dict[str, Any]) -> Any:
    """``expression`` evaluated with JSON ``variables``; raises ``CelError``.

    >>> evaluate('object.metadata.name.startsWith("web")',
    ...          {"object": {"metadata": {"name": "web-1"}}})
    True
    """
    from celpy import adapter, celtypes, evaluation

    program = _program(expression)
    activation = {name: adapter.json_to_cel(value) for name, value in variables.items()}
    try:
        result = program.evaluate(activation)
    except (evaluation.CELEvalError, TypeError, ValueError) as error:
        raise CelError(_first_line(error)) from None
    if isinstance(result, evaluation.CELEvalError):  # celpy may return the error
        raise CelError(_first_line(result))
    if isinstance(result, celtypes.BoolType):
        return bool(result)
    return result
