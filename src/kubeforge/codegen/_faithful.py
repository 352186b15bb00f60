"""The faithful planner: models that keep every keyword of a CRD schema, for ``plan_crd``.

Entry point: ``FaithfulPlanner`` (used by ``kubeforge.codegen.crd.plan_crd``). It
plans the same classes as ``kubeforge.codegen.planner`` and adds what the built-in
models leave out, in the vocabulary ``kubeforge.crd.generate_crd`` reads back, so
CRD -> models -> CRD gives the schema again:

- ``enum`` -> ``Literal[...]``; bounds, lengths, ``pattern``, ``title``,
  ``example`` -> ``msgspec.Meta``; ``format``, list and map types, CEL rules,
  embedded resources, ``x-kubernetes-preserve-unknown-fields`` on a typed object,
  and a ``default`` that is no plain Python default -> the markers of
  ``kubeforge.crd``; whatever else the schema says -> ``Meta(extra_json_schema=...)``.
- Descriptions are kept whole: field docstrings, class docstrings, or
  ``Meta(description=...)`` on list items and map values.
- A required field has no default: it is a required argument (a ``nullable`` one
  is ``T | None``). A schema ``default`` becomes ``Default(value)``: documentation
  in the annotation and the CRD's server-side default, never a Python default,
  which would keep a value equal to it from being sent. Optional fields are
  ``T | None = None``; ``nullable`` ones ``T | None = NULLABLE``, so that a ``null``
  decodes and is sent again, while an unset field is left out.
- An object schema without properties is an empty class (it holds nothing), not
  a free-form dict. Fields come in alphabetical order, as ``generate_crd`` writes
  properties.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubeforge.codegen.naming import attribute_name, wire_name_override
from kubeforge.codegen.plan import ANY, ClassPlan, FieldPlan, PyType, container_type, optional
from kubeforge.codegen.planner import RESERVED, RESOURCE_FIELDS, Planner, json_types
from kubeforge.core.resource import ResourceInfo

__all__ = ["MARKERS", "FaithfulPlanner", "cel_args", "normalise", "py_literal"]

MARKERS = "kubeforge.crd"
_META = ("msgspec", "Meta")
_ANNOTATED = ("typing", "Annotated")
_NULLABLE = ("kubeforge.core.meta", "NULLABLE")
_INT_OR_STRING_ANY_OF = [{"type": "integer"}, {"type": "string"}]

# Keywords that become msgspec.Meta arguments, by name.
_META_LENGTHS = {
    "minLength": "min_length",
    "maxLength": "max_length",
    "minItems": "min_length",
    "maxItems": "max_length",
    "minProperties": "min_length",
    "maxProperties": "max_length",
}
_STRING_ONLY = frozenset({"pattern", "minLength", "maxLength"})
_NUMERIC = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"})
# Keywords that become msgspec.Meta arguments (``description`` too, off a field).
_META_KEYWORDS = frozenset(
    {
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "pattern",
        "title",
        "example",
        *_META_LENGTHS,
    }
)
# Keywords the planned structure itself expresses.
_STRUCTURE = frozenset({"type", "properties", "items", "additionalProperties", "required"})


def normalise(text: str) -> str:
    """Paragraphs joined by one blank line, whitespace inside each collapsed (as the CRD side)."""
    paragraphs = [" ".join(p.split()) for p in text.strip().split("\n\n")]
    return "\n\n".join(p for p in paragraphs if p)


def py_literal(value: Any) -> str:
    """Python source for a JSON value."""
    return repr(value)


def _literal_type(schema: Mapping[str, Any]) -> PyType | None:
    values = schema.get("enum")
    kind = schema.get("type")
    if not isinstance(values, list) or not values:
        return None
    strings = kind == "string" and all(isinstance(v, str) for v in values)
    integers = kind == "integer" and all(
        isinstance(v, int) and not isinstance(v, bool) for v in values
    )
    if not (strings or integers):
        return None
    return PyType(
        f"Literal[{', '.join(py_literal(v) for v in values)}]", frozenset({("typing", "Literal")})
    )


class _Annotations:
    """The ``Annotated`` extras one schema node needs, collected keyword by keyword."""

    def __init__(self) -> None:
        self.items: list[str] = []
        self.refs: set[tuple[str, str]] = set()

    def marker(self, name: str, args: str = "") -> None:
        self.items.append(f"{name}({args})")
        self.refs.add((MARKERS, name))

    def meta(self, kwargs: dict[str, Any]) -> None:
        if kwargs:
            args = ", ".join(f"{key}={py_literal(value)}" for key, value in kwargs.items())
            self.items.append(f"Meta({args})")
            self.refs.add(_META)

    def wrap(self, py: PyType) -> PyType:
        if not self.items:
            return py
        expr = f"Annotated[{py.expr}, {', '.join(self.items)}]"
        return PyType(expr, py.refs | self.refs | {_ANNOTATED})


def _meta_kwargs(schema: Mapping[str, Any], keys: frozenset[str] | None = None) -> dict[str, Any]:
    """``msgspec.Meta`` arguments for the constraints of ``schema`` (only ``keys``, if given)."""

    def wanted(key: str) -> bool:
        return key in schema and (keys is None or key in keys)

    kwargs: dict[str, Any] = {}
    for bound, exclusive, inclusive_name, exclusive_name in (
        ("minimum", "exclusiveMinimum", "ge", "gt"),
        ("maximum", "exclusiveMaximum", "le", "lt"),
    ):
        if wanted(bound):
            kwargs[exclusive_name if schema.get(exclusive) else inclusive_name] = schema[bound]
    if wanted("multipleOf"):
        kwargs["multiple_of"] = schema["multipleOf"]
    for key, name in _META_LENGTHS.items():
        if wanted(key):
            kwargs[name] = schema[key]
    if wanted("pattern"):
        kwargs["pattern"] = schema["pattern"]
    return kwargs


class FaithfulPlanner(Planner):
    """``Planner`` that keeps every schema keyword (see the module docstring)."""

    def resource(self, key: str, module: str, kind: str) -> ClassPlan:
        """Plan the kind's ``Resource`` class for schema ``key``, even one without properties."""
        name = self._claim(module, kind)
        self.by_schema[key] = self._class_type(module, name)
        self._plan_class(module, name, self.schemas[key], self.resources[key])
        return next(c for c in self.module(module).classes if c.name == name)

    def _is_empty_object(self, schema: Mapping[str, Any]) -> bool:
        return (
            schema.get("type") == "object"
            and not schema.get("properties")
            and "additionalProperties" not in schema
            and not schema.get("x-kubernetes-preserve-unknown-fields")
        )

    def _bare(
        self, schema: Mapping[str, Any], owner: tuple[str, str], hint: str
    ) -> tuple[PyType, set[str], bool]:
        """The type without annotations, the keywords it consumed, and whether it is a class."""
        consumed = set(_STRUCTURE)
        if schema.get("x-kubernetes-int-or-string"):
            consumed |= {"x-kubernetes-int-or-string"}
            if schema.get("anyOf") == _INT_OR_STRING_ANY_OF:
                consumed.add("anyOf")
            numbers, strings = _Annotations(), _Annotations()
            numbers.meta(_meta_kwargs(schema, _NUMERIC))
            strings.meta(_meta_kwargs(schema, _STRING_ONLY))
            consumed |= (_NUMERIC | _STRING_ONLY) & set(schema)
            member_int = numbers.wrap(PyType("int"))
            member_str = strings.wrap(PyType("str"))
            return (
                PyType(f"{member_int.expr} | {member_str.expr}", member_int.refs | member_str.refs),
                consumed,
                False,
            )
        literal = _literal_type(schema)
        if literal is not None:
            return literal, consumed | {"enum"}, False
        kind = json_types(schema)[0]
        if schema.get("properties") or self._is_empty_object(schema):
            consumed.add("description")
            return self._inline_class(schema, owner, hint), consumed, True
        if kind == ["object"] and not isinstance(schema.get("additionalProperties"), dict):
            consumed.add("x-kubernetes-preserve-unknown-fields")
            return container_type("dict[str, Any]", ANY), consumed, False
        if not kind and schema.get("x-kubernetes-preserve-unknown-fields"):
            consumed.add("x-kubernetes-preserve-unknown-fields")
            return ANY, consumed, False
        if kind == ["array"] and isinstance(schema.get("items"), dict):
            inner = self.type_of(schema["items"], owner, f"{hint}Item")
            return container_type(f"list[{inner.expr}]", inner), consumed, False
        if kind == ["object"]:
            inner = self.type_of(schema["additionalProperties"], owner, f"{hint}Value")
            return container_type(f"dict[str, {inner.expr}]", inner), consumed, False
        bare = {k: v for k, v in schema.items() if k in _STRUCTURE}
        return super().type_of(bare, owner, hint), consumed, False

    def _annotations(
        self, schema: Mapping[str, Any], consumed: set[str], *, field: bool
    ) -> _Annotations:
        """Markers and ``Meta`` for every keyword the bare type did not consume.

        On a field, ``description`` (the docstring) and ``default`` (the Python
        default) are the caller's.
        """
        out = _Annotations()
        left = {k: v for k, v in schema.items() if k not in consumed}
        handled = set(_META_KEYWORDS)
        if field:
            handled |= {"description", "default"}
        meta = _meta_kwargs(left)
        if "title" in left:
            meta["title"] = left["title"]
        if "example" in left:
            meta["examples"] = [left["example"]]
        if not field and "description" in left:
            meta["description"] = left["description"]
            handled.add("description")
        if "format" in left:
            out.marker("Format", py_literal(left["format"]))
            handled.add("format")
        if "x-kubernetes-list-type" in left:
            args = py_literal(left["x-kubernetes-list-type"])
            keys = left.get("x-kubernetes-list-map-keys")
            if keys:
                args += f", keys={py_literal(tuple(keys))}"
            out.marker("ListType", args)
            handled |= {"x-kubernetes-list-type", "x-kubernetes-list-map-keys"}
        if "x-kubernetes-map-type" in left:
            out.marker("MapType", py_literal(left["x-kubernetes-map-type"]))
            handled.add("x-kubernetes-map-type")
        for rule in left.get("x-kubernetes-validations") or []:
            out.marker("CEL", cel_args(rule))
            handled.add("x-kubernetes-validations")
        if left.get("x-kubernetes-preserve-unknown-fields") is True:
            out.marker("PreserveUnknownFields")
            handled.add("x-kubernetes-preserve-unknown-fields")
        if left.get("x-kubernetes-embedded-resource") is True:
            out.marker("EmbeddedResource")
            handled.add("x-kubernetes-embedded-resource")
        if not field and "default" in left:
            out.marker("Default", py_literal(left["default"]))
            handled.add("default")
        extra = {k: v for k, v in left.items() if k not in handled}
        if extra:
            meta["extra_json_schema"] = extra
        out.meta(meta)
        return out

    def type_of(self, schema: Mapping[str, Any], owner: tuple[str, str], hint: str = "") -> PyType:
        py, consumed, _ = self._bare(schema, owner, hint)
        return self._annotations(schema, consumed, field=False).wrap(py)

    def _plan_class(
        self, module: str, name: str, schema: Mapping[str, Any], info: ResourceInfo | None
    ) -> None:
        doc = normalise(str(schema.get("description") or ""))
        plan = ClassPlan(name, doc, [], info, full_doc=True)
        self.module(module).classes.append(plan)
        required = set(schema.get("required") or ())
        seen: dict[str, str] = {}
        properties = schema.get("properties") or {}
        # Alphabetical, as kubeforge.crd writes them: the same schema gives the same
        # source whatever order its author chose.
        for wire, prop in sorted(properties.items()):
            if info is not None and wire in RESOURCE_FIELDS:
                continue
            attribute = attribute_name(wire, reserved=RESERVED | {"crd"})
            if attribute in seen:
                raise ValueError(
                    f"{name}: {wire!r} and {seen[attribute]!r} both map to {attribute}"
                )
            seen[attribute] = wire
            plan.fields.append(
                self._faithful_field(module, name, attribute, wire, prop, wire in required)
            )

    def _faithful_field(
        self,
        module: str,
        owner: str,
        attribute: str,
        wire: str,
        prop: Mapping[str, Any],
        required: bool,
    ) -> FieldPlan:
        py, consumed, is_class = self._bare(prop, (module, owner), wire)
        extras = self._annotations(prop, consumed, field=True)
        doc = normalise(str(prop.get("description") or ""))
        if is_class:
            doc = ""  # the class docstring holds it (and it is the same text)
        if "default" in prop:
            # The server fills it in; a Python default would only keep the value from being sent.
            extras.marker("Default", py_literal(prop["default"]))
        typed = extras.wrap(py)
        override = wire_name_override(attribute, wire)
        nullable = json_types(prop)[1]
        if required:
            annotation = optional(typed) if nullable else typed.expr
            return FieldPlan(attribute, override, typed, annotation, None, doc)
        if nullable:  # null is a value here: unset is left out, None is sent as null
            typed = PyType(typed.expr, typed.refs | {_NULLABLE})
            return FieldPlan(attribute, override, typed, optional(typed), "NULLABLE", doc)
        return FieldPlan(attribute, override, typed, optional(typed), "None", doc)


def cel_args(rule: Mapping[str, Any]) -> str:
    args = [py_literal(rule.get("rule", ""))]
    for key, name in (
        ("message", "message"),
        ("messageExpression", "message_expression"),
        ("reason", "reason"),
        ("fieldPath", "field_path"),
        ("optionalOldSelf", "optional_old_self"),
    ):
        if key in rule:
            args.append(f"{name}={py_literal(rule[key])}")
    return ", ".join(args)
