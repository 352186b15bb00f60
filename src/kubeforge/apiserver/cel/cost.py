"""Static cost estimate of a checked CEL expression: cel-go's ``checker.Cost`` with
Kubernetes' ``library.CostEstimator`` and schema-driven size estimates.

``estimate(checked, root)`` returns ``(min, max)`` in cel-go cost units. Sizes of
strings, lists and maps come from the schema by path (``self.spec.items.@items``):
``maxLength``, ``maxItems``, ``maxProperties`` or the bound a 3 MiB request implies,
which is why an unbounded list makes nested ``all`` rules expensive. The arithmetic
saturates at 2^64-1 as cel-go's does.

Written from cel-go v0.22.0 ``checker/cost.go`` and Kubernetes v1.32
``staging/src/k8s.io/apiserver/pkg/cel/library/cost.go``.
"""

from __future__ import annotations

from kubeforge.apiserver.cel import ast
from kubeforge.apiserver.cel.checker import Checked
from kubeforge.apiserver.cel.cost_calls import call_estimate
from kubeforge.apiserver.cel.cost_model import ONE, UNKNOWN, ZERO, Estimate, Node
from kubeforge.apiserver.cel.schema_types import Decl
from kubeforge.apiserver.cel.types import SCALAR_KINDS

__all__ = ["Estimate", "estimate"]


def estimate(checked: Checked, root: Decl | None) -> Estimate:
    return _Coster(checked, root).cost(checked.tree)


class _Coster:
    def __init__(self, checked: Checked, root: Decl | None) -> None:
        self.checked = checked
        self.root = root
        self.paths: dict[int, list[str]] = {}
        self.ranges: dict[str, list[ast.Expr]] = {}
        self.sizes: dict[int, Estimate] = {}

    # -- sizes --
    def node(self, expr: ast.Expr) -> Node:
        path = self.paths.get(expr.id)
        if path and path[0] == ast.ACCUMULATOR:
            path = None
        return Node(path, self.checked.types[expr.id], expr, self.sizes.get(expr.id))

    def computed(self, node: Node) -> Estimate | None:
        if node.computed is not None:
            return node.computed
        expr = node.expr
        if isinstance(expr, ast.Literal):
            value = expr.value
            size = len(value) if isinstance(value, str | bytes) else 1
            return Estimate(size, size)
        if isinstance(expr, ast.CreateList):
            return Estimate(len(expr.elements), len(expr.elements))
        if isinstance(expr, ast.CreateMap):
            return Estimate(len(expr.entries), len(expr.entries))
        return None

    def by_path(self, node: Node) -> Estimate | None:
        if not node.path or self.root is None:
            return None
        decl: Decl | None = self.root
        for name in node.path[1:]:
            if decl is None:
                return None
            if name in ("@items", "@values"):
                decl = decl.elem
            elif name == "@keys":
                return ZERO if decl.elem is not None else None
            else:
                decl = decl.fields.get(name)
        return None if decl is None else Estimate(0, decl.max_elements)

    def size(self, node: Node) -> Estimate:
        """cel-go's sizeEstimate: computed, then the schema, then 1 for scalars."""
        found = self.computed(node) or self.by_path(node)
        if found is not None:
            return found
        return ONE if node.type.kind in SCALAR_KINDS else UNKNOWN

    def k8s_size(self, node: Node) -> Estimate:
        """Kubernetes' sizeEstimate: as cel-go's but with no scalar fallback."""
        return self.computed(node) or self.by_path(node) or UNKNOWN

    # -- costs --
    def cost(self, expr: ast.Expr) -> Estimate:
        if isinstance(expr, ast.Literal):
            return ZERO
        if isinstance(expr, ast.Ident):
            return self.ident(expr)
        if isinstance(expr, ast.Select):
            return self.select(expr)
        if isinstance(expr, ast.Call):
            return self.call(expr)
        if isinstance(expr, ast.CreateList):
            total = Estimate(10, 10)
            for element in expr.elements:
                total = total + self.cost(element)
            return total
        if isinstance(expr, ast.CreateMap):
            total = Estimate(30, 30)
            for entry in expr.entries:
                total = total + self.cost(entry.key) + self.cost(entry.value)
            return total
        return self.comprehension(expr)

    def ident(self, expr: ast.Ident) -> Estimate:
        stack = self.ranges.get(expr.name)
        if stack:
            source = stack[-1]
            kind = self.checked.types[source.id].kind
            base = self.paths.get(source.id, [])
            if kind == "list":
                self.paths[expr.id] = [*base, "@items"]
            elif kind == "map":
                self.paths[expr.id] = [*base, "@keys"]
        else:
            self.paths[expr.id] = [expr.name]
        return ONE

    def select(self, expr: ast.Select) -> Estimate:
        if expr.operand.id not in self.checked.types:
            return ONE  # a qualified name (net.IP): cel-go resolves it to one identifier
        if expr.test_only:
            return self.cost(expr.operand)  # Kubernetes: presence tests cost nothing
        total = self.cost(expr.operand)
        if self.checked.types[expr.operand.id].kind in ("map", "struct", "param"):
            total = total + ONE
        self.paths[expr.id] = [*self.paths.get(expr.operand.id, []), expr.field]
        return total

    def comprehension(self, expr: ast.Comprehension) -> Estimate:
        total = self.cost(expr.iter_range) + self.cost(expr.accu_init)
        self.ranges.setdefault(expr.iter_var, []).append(expr.iter_range)
        loop = self.cost(expr.loop_condition)
        step = self.cost(expr.loop_step)
        self.ranges[expr.iter_var].pop()
        total = total + self.cost(expr.result)
        count = self.size(self.node(expr.iter_range))
        self.sizes[expr.id] = count
        return total + count.times(step + loop)

    def call(self, expr: ast.Call) -> Estimate:
        arg_costs = [self.cost(arg) for arg in expr.args]
        args = [self.node(arg) for arg in expr.args]
        total = ZERO
        target: Node | None = None
        if expr.target is not None:
            total = self.cost(expr.target)
            target = self.node(expr.target)
        overloads = self.checked.overloads.get(expr.id)
        if not overloads:
            return ZERO
        fn: Estimate | None = None
        result: Estimate | None = None
        for overload in overloads:
            cost, size = call_estimate(self, expr.function, overload.id, target, args, arg_costs)
            fn = cost if fn is None else fn.union(cost)
            if size is not None:
                result = size if result is None else result.union(size)
            if overload.id == "index_list" and args:
                self.paths[expr.id] = [*self.paths.get(expr.args[0].id, []), "@items"]
            elif overload.id == "index_map" and args:
                self.paths[expr.id] = [*self.paths.get(expr.args[0].id, []), "@values"]
        if result is not None:
            self.sizes[expr.id] = result
        assert fn is not None
        return total + fn
