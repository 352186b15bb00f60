"""OpenAPI v3 / JSON Schema -> a plan of msgspec model modules (no source text yet).

See ``plan_modules()`` for the entry point; the plan's types are in
``kubeforge.codegen.plan`` and ``kubeforge.codegen.render`` turns them into
Python source. Both the built-in kinds (``kubeforge.codegen.builtin``)
and models for custom resources go through here, so the rules are the same for
both:

- An object schema with ``properties`` becomes a class: ``Resource`` for a kind
  given a ``ResourceInfo``, ``Model`` otherwise. Inline object schemas (usual in
  CRDs) become classes named after their path (``WidgetSpec``, ``WidgetSpecPortsItem``).
- A named schema without properties is inlined as a type (``Time`` -> ``str``).
- ``string``/``integer``/``number``/``boolean`` -> ``str``/``int``/``float``/``bool``
  (byte and date-time formats stay ``str``, as on the wire); ``array`` -> ``list``;
  an object with only ``additionalProperties`` -> ``dict[str, T]``; an untyped or
  free-form schema -> ``Any`` or ``dict[str, Any]``; int-or-string -> the
  configured type (``int | str`` unless told otherwise).
- Optional fields are ``T | None = None``: ``None`` is "not set" and is left out of
  the JSON, every other value is sent. Required fields have no default: they
  must be passed, and whatever they hold is sent (``replicas=0`` too). A required
  ``nullable`` field is ``T | None`` without a default. A document that lacks a
  required field (a watch BOOKMARK's empty object) still decodes: the slow path
  of ``kubeforge.core.meta.decode`` gives it Go's zero value, as Go does.
- Unknown JSON properties are ignored when decoding (msgspec's default).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from kubeforge.codegen.naming import attribute_name, class_name, wire_name_override
from kubeforge.codegen.plan import (
    ANY,
    ClassPlan,
    External,
    FieldPlan,
    ModulePlan,
    PyType,
    Schema,
    TypeAlias,
    container_type,
    first_paragraph,
    first_sentence,
    optional,
)
from kubeforge.core.resource import ResourceInfo

__all__ = ["RESERVED", "RESOURCE_FIELDS", "Planner", "json_types", "plan_modules"]

# Names a class body's annotations and defaults may use; a field by the same name
# would shadow them when msgspec and mypy resolve the annotations in class scope.
RESERVED = frozenset({"str", "int", "float", "bool", "list", "dict", "msgspec", "info"})

# Properties every ``Resource`` already has.
RESOURCE_FIELDS = frozenset({"apiVersion", "kind", "metadata"})

_STR = PyType("str")
_INT = PyType("int")
_FLOAT = PyType("float")
_BOOL = PyType("bool")
_SCALARS = {"string": _STR, "integer": _INT, "number": _FLOAT, "boolean": _BOOL}


def plan_modules(
    schemas: Mapping[str, Schema],
    *,
    package: str,
    place: Callable[[str], tuple[str, str]],
    include: Iterable[str] | None = None,
    externals: Mapping[str, External] | None = None,
    resources: Mapping[str, ResourceInfo] | None = None,
    aliases: Mapping[str, Iterable[TypeAlias]] | None = None,
    int_or_string: External | None = None,
) -> dict[str, ModulePlan]:
    """Plan the modules for the named ``schemas``.

    ``place(schema_name)`` says which module (a name inside ``package``) and class
    name a named schema gets; ``include`` limits which names are generated (by
    default all; a class they reference is generated too). ``$ref`` values resolve
    by their last path segment, so ``#/definitions/X``, ``#/$defs/X`` and
    ``#/components/schemas/X`` all work.
    """
    planner = Planner(
        schemas=schemas,
        package=package,
        place=place,
        externals=externals or {},
        resources=resources or {},
        int_or_string=int_or_string or External("int | str"),
    )
    for module, module_aliases in (aliases or {}).items():
        planner.module(module).aliases.extend(module_aliases)
    for name in sorted(include if include is not None else schemas):
        if name not in planner.externals and _is_class(schemas[name]):
            planner.named(name)
    return planner.finish()


def _is_class(schema: Schema) -> bool:
    return bool(schema.get("properties"))


def json_types(schema: Schema) -> tuple[list[str], bool]:
    """The schema's JSON types without "null", and whether it is nullable."""
    raw = schema.get("type")
    names = [raw] if isinstance(raw, str) else list(raw or [])
    nullable = "null" in names or bool(schema.get("nullable"))
    return [n for n in names if n != "null"], nullable


class Planner:
    """Plans classes for named schemas on demand; ``FaithfulPlanner`` extends it.

    ``named()`` plans a ``$ref`` target on first use, ``type_of()`` any schema node,
    ``finish()`` returns the modules, each with its classes in name order.
    """

    def __init__(
        self,
        *,
        schemas: Mapping[str, Schema],
        package: str,
        place: Callable[[str], tuple[str, str]],
        externals: Mapping[str, External],
        resources: Mapping[str, ResourceInfo],
        int_or_string: External,
    ) -> None:
        self.schemas = schemas
        self.package = package
        self.place = place
        self.externals = externals
        self.resources = resources
        self.int_or_string = int_or_string.as_type()
        self.modules: dict[str, ModulePlan] = {}
        self.by_schema: dict[str, PyType] = {}
        self.taken: dict[str, set[str]] = {}

    def module(self, name: str) -> ModulePlan:
        if name not in self.modules:
            self.modules[name] = ModulePlan(name, self.package)
            self.taken[name] = set()
        return self.modules[name]

    def _claim(self, module: str, wanted: str) -> str:
        self.module(module)
        name, n = wanted, 1
        while name in self.taken[module]:
            n += 1
            name = f"{wanted}{n}"
        self.taken[module].add(name)
        return name

    def _class_type(self, module: str, name: str) -> PyType:
        return PyType(name, frozenset({(f"{self.package}.{module}", name)}))

    def named(self, schema_name: str) -> PyType:
        """The type for ``$ref`` to ``schema_name``, planning its class on first use."""
        if schema_name in self.externals:
            return self.externals[schema_name].as_type()
        if schema_name in self.by_schema:
            return self.by_schema[schema_name]
        if schema_name not in self.schemas:
            raise KeyError(f"$ref to unknown schema {schema_name!r}")
        schema = self.schemas[schema_name]
        if not _is_class(schema):
            resolved = self.type_of(schema, ("", schema_name))
            self.by_schema[schema_name] = resolved
            return resolved
        module, wanted = self.place(schema_name)
        name = self._claim(module, wanted)
        resolved = self._class_type(module, name)
        # Registered before the fields are planned, so recursive schemas terminate.
        self.by_schema[schema_name] = resolved
        self._plan_class(module, name, schema, self.resources.get(schema_name))
        return resolved

    def _plan_class(
        self, module: str, name: str, schema: Schema, info: ResourceInfo | None
    ) -> None:
        plan = ClassPlan(name, first_paragraph(str(schema.get("description") or "")), [], info)
        self.module(module).classes.append(plan)
        required = set(schema.get("required") or ())
        reserved = RESERVED
        seen: dict[str, str] = {}
        for wire, prop in (schema.get("properties") or {}).items():
            if info is not None and wire in RESOURCE_FIELDS:
                continue
            attribute = attribute_name(wire, reserved=reserved)
            if attribute in seen:
                raise ValueError(
                    f"{name}: {wire!r} and {seen[attribute]!r} both map to {attribute}"
                )
            seen[attribute] = wire
            py = self.type_of(prop, (module, name), wire)
            plan.fields.append(self._field(attribute, wire, py, prop, wire in required))

    def _field(
        self, attribute: str, wire: str, py: PyType, prop: Schema, required: bool
    ) -> FieldPlan:
        doc = first_sentence(str(prop.get("description") or ""))
        override = wire_name_override(attribute, wire)
        _, nullable = json_types(prop)
        if required:
            annotation = optional(py) if nullable else py.expr
            return FieldPlan(attribute, override, py, annotation, None, doc)
        return FieldPlan(attribute, override, py, optional(py), "None", doc)

    def type_of(self, schema: Schema, owner: tuple[str, str], hint: str = "") -> PyType:
        """The Python type for ``schema``; ``owner`` and ``hint`` name inline classes."""
        ref = schema.get("$ref")
        if isinstance(ref, str):
            return self.named(ref.rsplit("/", 1)[-1])
        all_of = schema.get("allOf")
        if isinstance(all_of, list) and len(all_of) == 1:
            return self.type_of(all_of[0], owner, hint)
        if schema.get("x-kubernetes-int-or-string"):
            return self.int_or_string
        choices = schema.get("oneOf") or schema.get("anyOf")
        if isinstance(choices, list) and choices and not schema.get("properties"):
            return self._union([self.type_of(c, owner, hint) for c in choices])
        types, _ = json_types(schema)
        if len(types) > 1:
            return self._union([self.type_of({**schema, "type": t}, owner, hint) for t in types])
        kind = types[0] if types else None
        if kind in _SCALARS:
            return _SCALARS[kind]
        if kind == "array":
            items = schema.get("items")
            inner = self.type_of(items, owner, f"{hint}Item") if isinstance(items, dict) else ANY
            return container_type(f"list[{inner.expr}]", inner)
        if schema.get("properties"):
            return self._inline_class(schema, owner, hint)
        if kind == "object":
            extra = schema.get("additionalProperties")
            inner = self.type_of(extra, owner, f"{hint}Value") if isinstance(extra, dict) else ANY
            return container_type(f"dict[str, {inner.expr}]", inner)
        return ANY

    def _inline_class(self, schema: Schema, owner: tuple[str, str], hint: str) -> PyType:
        module, parent = owner
        if not module:
            raise ValueError(f"inline object schema in the unplaced schema {parent!r}")
        name = self._claim(module, class_name(parent, hint))
        self._plan_class(module, name, schema, None)
        return self._class_type(module, name)

    def _union(self, members: list[PyType]) -> PyType:
        exprs = [m.expr for m in members]
        if "Any" in exprs:
            return ANY
        if sorted(exprs) == ["int", "str"]:
            return self.int_or_string
        unique = list(dict.fromkeys(exprs))
        refs = frozenset().union(*(m.refs for m in members))
        return PyType(" | ".join(unique), refs) if len(unique) > 1 else members[0]

    def finish(self) -> dict[str, ModulePlan]:
        # No default names a class (required fields have none), so any order defines
        # them; by name, the output does not depend on the order schemas were met.
        for plan in self.modules.values():
            plan.classes.sort(key=lambda c: c.name)
        return dict(sorted(self.modules.items()))
