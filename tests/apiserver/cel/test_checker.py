"""Type checking and error display, as cel-go words them."""

from __future__ import annotations

import pytest

from kubeforge.apiserver.cel.program import CompileError, compile_expression
from kubeforge.apiserver.cel.types import DYN, INT, STRING, list_of, map_of, optional_of


def _error(source: str, **variables: object) -> str:
    with pytest.raises(CompileError) as refused:
        compile_expression(source, variables)  # type: ignore[arg-type]
    return str(refused.value)


def test_types_print_as_cel_go_prints_them() -> None:
    assert str(list_of(INT)) == "list(int)"
    assert str(map_of(STRING, list_of(INT))) == "map(string, list(int))"
    assert str(optional_of(STRING)) == "optional_type(string)"


def test_the_caret_points_at_the_column_of_the_error() -> None:
    assert _error("1 + 'a'") == (
        "ERROR: <input>:1:3: found no matching overload for '_+_' applied to '(int, string)'\n"
        " | 1 + 'a'\n"
        " | ..^"
    )


def test_errors_on_later_lines_show_that_line() -> None:
    message = _error("true &&\n  x")
    assert message.startswith("ERROR: <input>:2:3: undeclared reference to 'x' (in container '')")
    assert message.endswith(" |   x\n | ..^")


def test_a_dyn_argument_takes_the_overload_that_fits() -> None:
    program = compile_expression("self + 1", {"self": DYN})
    assert str(program.result_type) == "int"


def test_member_overload_errors_show_the_receiver() -> None:
    assert "applied to 'int.(string)'" in _error("1.contains('a')")


def test_macros_check_their_variable() -> None:
    assert "argument must be a simple name" in _error("[1].all(1, true)")
