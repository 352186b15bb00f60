"""Label and field selectors: parse the query-string syntax, match objects, print canonically.

The grammar and error wording follow apimachinery's ``labels`` and ``fields``
packages so that the local server rejects exactly what a real server rejects and a
client-side cache filters exactly as the server would. Entry points:
``parse_label_selector`` and ``parse_field_selector``.

>>> sel = parse_label_selector("app in (web, api), tier!=db")
>>> sel.matches({"app": "web"}), sel.matches({"app": "web", "tier": "db"})
(True, False)
>>> str(sel)
'app in (api,web),tier!=db'
>>> parse_field_selector("metadata.name=web-0").matches({"metadata.name": "web-0"})
True
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum

from kubeforge.core.names import label_value, qualified_name

__all__ = [
    "FieldSelector",
    "FieldTerm",
    "LabelSelector",
    "Operator",
    "Requirement",
    "SelectorError",
    "escape_field_value",
    "label_selector_from_spec",
    "parse_field_selector",
    "parse_label_selector",
    "unescape_field_value",
    "validate_label_key",
    "validate_label_value",
]


class SelectorError(ValueError):
    """A selector string (or one of its keys/values) is malformed; the server answers 400."""


class Operator(StrEnum):
    """Requirement operators, with their spelling in a selector string."""

    IN = "in"
    NOT_IN = "notin"
    EQUALS = "="
    DOUBLE_EQUALS = "=="
    NOT_EQUALS = "!="
    EXISTS = "exists"
    DOES_NOT_EXIST = "!"
    GREATER_THAN = ">"
    LESS_THAN = "<"


_SET_OPS = (Operator.IN, Operator.NOT_IN)
_EXACT_OPS = (Operator.EQUALS, Operator.DOUBLE_EQUALS, Operator.NOT_EQUALS)
_NUMERIC_OPS = (Operator.GREATER_THAN, Operator.LESS_THAN)

# A label key is a qualified name and a label value has its own rule; both live in
# kubeforge.core.names, and keep these names here for the selector API's callers.
validate_label_key = qualified_name
validate_label_value = label_value


# --- label selectors ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Requirement:
    """One ``key <op> values`` clause; ``values`` is sorted and de-duplicated."""

    key: str
    operator: Operator
    values: tuple[str, ...] = ()

    @classmethod
    def new(cls, key: str, operator: Operator, values: Iterable[str] = ()) -> Requirement:
        """Validate and build, raising ``SelectorError`` the way ``NewRequirement`` fails."""
        vals = tuple(sorted(set(values)))
        problems = []
        key_problems = validate_label_key(key)
        if key_problems:
            # One field error per key or value, its problems joined as apimachinery's
            # validateLabelKey and validateLabelValue join them.
            problems.append(f"key: Invalid value: {_quote(key)}: {'; '.join(key_problems)}")
        if operator in _SET_OPS and not vals:
            problems.append(
                "values: Required value: for 'in', 'notin' operators, values set can't be empty"
            )
        elif operator in _EXACT_OPS and len(vals) != 1:
            problems.append(
                "values: Invalid value: exact-match compatibility requires one single value"
            )
        elif operator in (Operator.EXISTS, Operator.DOES_NOT_EXIST) and vals:
            problems.append(
                "values: Forbidden: values set must be empty for exists and does not exist"
            )
        elif operator in _NUMERIC_OPS:
            if len(vals) != 1:
                problems.append(
                    "values: Required value: "
                    "for 'Gt', 'Lt' operators, exactly one value is required"
                )
            for i, value in enumerate(vals):
                if _parse_int(value) is None:
                    problems.append(
                        f"values[{i}]: Invalid value: {_quote(value)}: for 'Gt', 'Lt' operators, "
                        "the value must be an integer"
                    )
        for i, value in enumerate(vals):
            value_problems = validate_label_value(value)
            if operator not in _NUMERIC_OPS and value_problems:
                problems.append(
                    f"values[{i}][{key}]: Invalid value: {_quote(value)}: "
                    + "; ".join(value_problems)
                )
        if problems:
            raise SelectorError("; ".join(problems))
        return cls(key, operator, vals)

    def matches(self, labels: Mapping[str, str]) -> bool:
        op = self.operator
        present = self.key in labels
        if op in (Operator.IN, Operator.EQUALS, Operator.DOUBLE_EQUALS):
            return present and labels[self.key] in self.values
        if op in (Operator.NOT_IN, Operator.NOT_EQUALS):
            # A missing key satisfies != and notin, as on the server.
            return not present or labels[self.key] not in self.values
        if op is Operator.EXISTS:
            return present
        if op is Operator.DOES_NOT_EXIST:
            return not present
        if not present or len(self.values) != 1:
            return False
        have, want = _parse_int(labels[self.key]), _parse_int(self.values[0])
        if have is None or want is None:
            return False  # a non-integer label value never satisfies gt/lt
        return have > want if op is Operator.GREATER_THAN else have < want

    def __str__(self) -> str:
        op = self.operator
        if op is Operator.DOES_NOT_EXIST:
            return "!" + self.key
        if op is Operator.EXISTS:
            return self.key
        if op in _SET_OPS:
            return f"{self.key} {op.value} ({','.join(self.values)})"
        return f"{self.key}{op.value}{self.values[0] if self.values else ''}"


def _quote(text: str) -> str:
    """Go's %q for the plain strings that appear in selector errors."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _parse_int(text: str) -> int | None:
    # strconv.ParseInt(s, 10, 64): optional sign, decimal digits only.
    if not re.fullmatch(r"[+-]?[0-9]+", text):
        return None
    value = int(text)
    return value if -(2**63) <= value < 2**63 else None


@dataclass(frozen=True, slots=True)
class LabelSelector:
    """AND of requirements, sorted by key; the empty selector matches everything."""

    requirements: tuple[Requirement, ...] = ()

    def matches(self, labels: Mapping[str, str] | None) -> bool:
        labels = labels or {}
        return all(req.matches(labels) for req in self.requirements)

    def empty(self) -> bool:
        return not self.requirements

    def requires_exact_match(self, key: str) -> str | None:
        """The single value ``key`` must have (``=``, ``==`` or a one-value ``in``), if any."""
        for req in self.requirements:
            exact = req.operator in (Operator.EQUALS, Operator.DOUBLE_EQUALS, Operator.IN)
            if req.key == key and exact and len(req.values) == 1:
                return req.values[0]
        return None

    def __str__(self) -> str:
        return ",".join(str(req) for req in self.requirements)


# Lexer: tokens are special-symbol runs, identifiers, or the end of input.
_SPECIAL = frozenset("=!(),<>")
_SYMBOLS = frozenset({"=", "==", "!", "!=", "(", ")", ",", "<", ">"})
_WHITESPACE = frozenset(" \t\r\n")
_END = ""  # the end-of-string token's kind
_IDENT = "ident"
_KEYWORDS = frozenset({"in", "notin"})


def _lex(text: str) -> list[tuple[str, str]]:
    """``[(kind, literal)]``; kind is a symbol, ``"in"``/``"notin"``, ``_IDENT`` or ``_END``."""
    tokens: list[tuple[str, str]] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in _WHITESPACE:
            i += 1
        elif ch in _SPECIAL:
            j = i + 1
            # Longest run of special characters that still forms a known symbol.
            while j < n and text[j] in _SPECIAL and text[i : j + 1] in _SYMBOLS:
                j += 1
            tokens.append((text[i:j], text[i:j]))
            i = j
        else:
            j = i
            while j < n and text[j] not in _SPECIAL and text[j] not in _WHITESPACE:
                j += 1
            word = text[i:j]
            tokens.append((word if word in _KEYWORDS else _IDENT, word))
            i = j
    tokens.append((_END, ""))
    return tokens


class _LabelParser:
    """Recursive descent over the token list, mirroring apimachinery's parser states."""

    def __init__(self, text: str) -> None:
        self._tokens = _lex(text)
        self._pos = 0

    def _peek(self, *, values: bool = True) -> tuple[str, str]:
        kind, lit = self._tokens[self._pos]
        # Outside operator position, the keywords in/notin are ordinary identifiers.
        return (_IDENT, lit) if values and kind in _KEYWORDS else (kind, lit)

    def _next(self, *, values: bool = True) -> tuple[str, str]:
        token = self._peek(values=values)
        self._pos = min(self._pos + 1, len(self._tokens) - 1)
        return token

    def parse(self) -> LabelSelector:
        requirements: list[Requirement] = []
        while True:
            kind, lit = self._peek()
            if kind == _END:
                break
            if kind not in (_IDENT, "!"):
                raise SelectorError(f"found '{lit}', expected: !, identifier, or 'end of string'")
            try:
                requirements.append(self._requirement())
            except SelectorError as error:
                raise SelectorError(f"unable to parse requirement: {error}") from None
            kind, lit = self._next()
            if kind == _END:
                break
            if kind != ",":
                raise SelectorError(f"found '{lit}', expected: ',' or 'end of string'")
            kind, lit = self._peek()
            if kind not in (_IDENT, "!"):
                raise SelectorError(f"found '{lit}', expected: identifier after ','")
        requirements.sort(key=lambda req: req.key)  # stable: same-key order is kept
        return LabelSelector(tuple(requirements))

    def _requirement(self) -> Requirement:
        negated = False
        kind, lit = self._next()
        if kind == "!":
            negated = True
            kind, lit = self._next()
        if kind != _IDENT:
            raise SelectorError(f"found '{lit}', expected: identifier")
        key = lit
        problems = validate_label_key(key)
        if problems:
            raise SelectorError(f"key: Invalid value: {_quote(key)}: {'; '.join(problems)}")
        following, _ = self._peek()
        if negated:
            return Requirement.new(key, Operator.DOES_NOT_EXIST)
        if following in (_END, ","):
            return Requirement.new(key, Operator.EXISTS)
        kind, lit = self._next(values=False)
        ops = {op.value: op for op in Operator if op not in (Operator.EXISTS,)}
        if kind not in ops or kind == "!":
            raise SelectorError(f"found '{lit}', expected: in, notin, =, ==, !=, gt, lt")
        op = ops[kind]
        values = self._set_values() if op in _SET_OPS else self._exact_value()
        return Requirement.new(key, op, values)

    def _exact_value(self) -> tuple[str, ...]:
        kind, lit = self._peek()
        if kind in (_END, ","):
            return ("",)
        kind, lit = self._next()
        if kind != _IDENT:
            raise SelectorError(f"found '{lit}', expected: identifier")
        return (lit,)

    def _set_values(self) -> tuple[str, ...]:
        kind, lit = self._next()
        if kind != "(":
            raise SelectorError(f"found '{lit}' expected: '('")
        kind, lit = self._peek()
        if kind == ")":
            self._next()
            return ("",)
        if kind not in (_IDENT, ","):
            raise SelectorError(f"found '{lit}', expected: ',', ')' or identifier")
        values = self._identifier_list()
        kind, lit = self._next()
        if kind != ")":
            raise SelectorError(f"found '{lit}', expected: ')'")
        return values

    def _identifier_list(self) -> tuple[str, ...]:
        values: set[str] = set()
        while True:
            kind, lit = self._next()
            if kind == _IDENT:
                values.add(lit)
                following, lit2 = self._peek()
                if following == ")":
                    return tuple(values)
                if following != ",":
                    raise SelectorError(f"found '{lit2}', expected: ',' or ')'")
            elif kind == ",":
                if not values:
                    values.add("")  # "(," starts with an empty value
                following, _ = self._peek()
                if following == ")":
                    values.add("")  # ",)" ends with an empty value
                    return tuple(values)
                if following == ",":
                    self._next()
                    values.add("")  # ",," holds an empty value
            else:
                raise SelectorError(f"found '{lit}', expected: ',', or identifier")


def parse_label_selector(text: str | None) -> LabelSelector:
    """Parse ``labelSelector`` syntax; ``""`` and ``None`` select everything."""
    if not text:
        return LabelSelector()
    return _LabelParser(text).parse()


def label_selector_from_spec(spec: Mapping[str, object] | None) -> LabelSelector:
    """Build from a ``metav1.LabelSelector`` dict (``matchLabels`` + ``matchExpressions``).

    ``None`` selects everything, as a nil selector does for most Kubernetes consumers.
    """
    if not spec:
        return LabelSelector()
    reqs: list[Requirement] = []
    match_labels = spec.get("matchLabels") or {}
    if not isinstance(match_labels, Mapping):
        raise SelectorError("matchLabels must be an object")
    for key, value in match_labels.items():
        reqs.append(Requirement.new(str(key), Operator.EQUALS, (str(value),)))
    expressions = spec.get("matchExpressions") or []
    if not isinstance(expressions, list):
        raise SelectorError("matchExpressions must be a list")
    names = {
        "In": Operator.IN,
        "NotIn": Operator.NOT_IN,
        "Exists": Operator.EXISTS,
        "DoesNotExist": Operator.DOES_NOT_EXIST,
    }
    for expr in expressions:
        if not isinstance(expr, Mapping) or expr.get("operator") not in names:
            raise SelectorError(f"{expr!r} is not a valid label selector operator")
        values = tuple(str(v) for v in expr.get("values") or ())
        reqs.append(Requirement.new(str(expr.get("key", "")), names[str(expr["operator"])], values))
    reqs.sort(key=lambda req: req.key)
    return LabelSelector(tuple(reqs))


# --- field selectors ------------------------------------------------------------------------


def escape_field_value(value: str) -> str:
    """Escape ``\\``, ``,`` and ``=`` so ``value`` can sit on the right of a field term."""
    return value.replace("\\", "\\\\").replace(",", "\\,").replace("=", "\\=")


def unescape_field_value(text: str) -> str:
    """Reverse ``escape_field_value``; unknown escapes and bare ``=``/``,`` are errors."""
    out: list[str] = []
    escaped = False
    for ch in text:
        if escaped:
            if ch not in "\\,=":
                raise SelectorError(f"invalid field selector: invalid escape sequence: \\{ch}")
            out.append(ch)
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch in ",=":
            raise SelectorError(f"invalid field selector: unescaped character: {ch}")
        else:
            out.append(ch)
    if escaped:
        raise SelectorError("invalid field selector: invalid escape sequence: trailing \\")
    return "".join(out)


def _split_terms(text: str) -> list[str]:
    """Split on commas that are not escaped by a backslash."""
    terms: list[str] = []
    start, i = 0, 0
    while i < len(text):
        if text[i] == "\\":
            i += 2  # the escaped character can never be a separator
            continue
        if text[i] == ",":
            terms.append(text[start:i])
            start = i + 1
        i += 1
    terms.append(text[start:])
    return terms if text else []


def _split_term(term: str) -> tuple[str, str, str] | None:
    for i in range(len(term)):
        for op in ("!=", "==", "="):
            if term.startswith(op, i):
                return term[:i], op, term[i + len(op) :]
    return None


@dataclass(frozen=True, slots=True)
class FieldTerm:
    """``field = value`` (``negated``: ``field != value``); ``value`` is unescaped."""

    field: str
    value: str
    negated: bool = False

    def matches(self, fields: Mapping[str, str]) -> bool:
        # A field the object does not have compares as the empty string.
        return (fields.get(self.field, "") == self.value) != self.negated

    def __str__(self) -> str:
        return f"{self.field}{'!=' if self.negated else '='}{escape_field_value(self.value)}"


@dataclass(frozen=True, slots=True)
class FieldSelector:
    """AND of field terms; only equality and inequality exist for fields."""

    terms: tuple[FieldTerm, ...] = ()

    def matches(self, fields: Mapping[str, str]) -> bool:
        return all(term.matches(fields) for term in self.terms)

    def empty(self) -> bool:
        return not self.terms

    def fields(self) -> list[str]:
        return [term.field for term in self.terms]

    def requires_exact_match(self, field: str) -> str | None:
        for term in self.terms:
            if term.field == field and not term.negated:
                return term.value
        return None

    def __str__(self) -> str:
        return ",".join(str(term) for term in self.terms)


def parse_field_selector(text: str | None) -> FieldSelector:
    """Parse ``fieldSelector`` syntax (``a=b,c!=d``, backslash escapes in values)."""
    if not text:
        return FieldSelector()
    terms: list[FieldTerm] = []
    for part in sorted(_split_terms(text)):
        if not part:
            continue
        split = _split_term(part)
        if split is None:
            raise SelectorError(f"invalid selector: '{text}'; can't understand '{part}'")
        lhs, op, rhs = split
        terms.append(FieldTerm(lhs, unescape_field_value(rhs), negated=op == "!="))
    return FieldSelector(tuple(terms))
