"""Python model source from OpenAPI v3 / JSON schemas.

``plan_modules()`` turns named schemas into a plan of msgspec ``Model`` and
``Resource`` classes (``plan_crd()`` does it for a CustomResourceDefinition);
``render_module()`` and ``format_source()`` turn a plan into formatted Python.
The built-in kinds in ``kubeforge.models`` are generated this way by
``python -m kubeforge.codegen.builtin``; models for custom resources use the same
core, so both follow one set of rules (see ``kubeforge.codegen.planner``).
"""

from kubeforge.codegen.crd import plan_crd
from kubeforge.codegen.plan import (
    ClassPlan,
    External,
    FieldPlan,
    ModulePlan,
    PyType,
    TypeAlias,
)
from kubeforge.codegen.planner import plan_modules
from kubeforge.codegen.render import format_source, render_module

__all__ = [
    "ClassPlan",
    "External",
    "FieldPlan",
    "ModulePlan",
    "PyType",
    "TypeAlias",
    "format_source",
    "plan_crd",
    "plan_modules",
    "render_module",
]
