"""The files of src/kubeforge import each other without cycles, and never through importlib.

The graph is grimp's (import-linter's library) and counts every import statement,
those under ``TYPE_CHECKING`` and inside functions too: each one is a dependency a
reader has to follow, and a cycle hides which of two files is the lower layer. An
import through ``importlib`` of a kubeforge module is an edge no contract can see.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

import grimp
import pytest

import kubeforge

SRC = Path(kubeforge.__file__).parent

# The local server's remaining cycles (issue 11 removes them). This list must only
# shrink and end empty: a cycle not listed fails, and so does a listed one that is
# gone, so whoever breaks one deletes its entry.
KNOWN_APISERVER_CYCLES: list[frozenset[str]] = []

# importlib calls as (module, enclosing function). The apiserver has none left; the
# others stay, for the reason given.
KNOWN_APISERVER_IMPORTLIB: set[tuple[str, str]] = set()
ALLOWED_IMPORTLIB = {
    # The user's own code, by the module name, file or project the user gave.
    ("kubeforge.cli._targets", "load_module"),
    ("kubeforge.cli._targets", "_import_project"),
    ("kubeforge.cli._generate", "_import"),
    # The package's own generated modules, loaded on first use so that
    # ``import kubeforge.models`` stays cheap; the name comes from its generated index.
    ("kubeforge.models", "__getattr__"),
    ("kubeforge.models", "resource_class"),
    # The top-level names and the CLI's subcommands, imported on first use so that
    # ``import kubeforge`` and ``kubeforge --help`` stay cheap; both files also import
    # what they name under TYPE_CHECKING, so the graph keeps every edge.
    ("kubeforge", "__getattr__"),
    ("kubeforge.cli._lazy", "load"),
    # The webhook package's names, the same way: the manager imports ``webhook.options``
    # in every process, and only one that serves webhooks needs the rest.
    ("kubeforge.webhook", "__getattr__"),
}


def _file_cycles(graph: grimp.ImportGraph) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(edges[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(edges[child])))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(frozenset(component))
    return found


def _describe(cycle: frozenset[str], graph: grimp.ImportGraph) -> str:
    lines = [f"  cycle of {len(cycle)} files:"]
    for module in sorted(cycle):
        for imported in sorted(graph.find_modules_directly_imported_by(module) & cycle):
            details = graph.get_import_details(importer=module, imported=imported)
            where = ", ".join(f"line {d['line_number']}" for d in details)
            lines.append(f"    {module} -> {imported} ({where})")
    return "\n".join(lines)


def test_no_import_cycle_between_files() -> None:
    graph = grimp.build_graph("kubeforge", cache_dir=None)
    cycles = _file_cycles(graph)
    new = [c for c in cycles if c not in KNOWN_APISERVER_CYCLES]
    gone = [c for c in KNOWN_APISERVER_CYCLES if c not in cycles]
    report = [_describe(c, graph) for c in new]
    report += [f"  no longer a cycle, delete it from the list: {sorted(c)}" for c in gone]
    assert not report, "import cycles between files of src/kubeforge:\n" + "\n".join(report)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _target(call: ast.Call) -> str | None:
    """What a call imports: a module name, ``"kubeforge..."`` for a name built in kubeforge,
    ``None`` when the name is computed elsewhere."""
    if not call.args:
        return None
    arg = call.args[0]
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return arg.value
    if isinstance(arg, ast.JoinedStr) and arg.values:
        first = arg.values[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            return first.value + "..."
        if (
            isinstance(first, ast.FormattedValue)
            and isinstance(first.value, ast.Name)
            and first.value.id in ("__name__", "__package__")
        ):
            return "kubeforge..."  # the module's own name: always a kubeforge module
    return None


def _is_import_call(call: ast.Call) -> bool:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr == "import_module"
    return isinstance(func, ast.Name) and func.id in ("import_module", "__import__")


def _importlib_calls(tree: ast.AST) -> Iterator[tuple[str, ast.Call]]:
    """Every import call, with the name of the function it is in (``""``: module level)."""

    def walk(node: ast.AST, function: str) -> Iterator[tuple[str, ast.Call]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                yield from walk(child, child.name)
                continue
            if isinstance(child, ast.Call) and _is_import_call(child):
                yield function, child
            yield from walk(child, function)

    yield from walk(tree, "")


def _importlib_sites() -> Mapping[tuple[str, str], list[str]]:
    sites: dict[tuple[str, str], list[str]] = {}
    for path in sorted(SRC.rglob("*.py")):
        module = _module_name(path)
        for function, call in _importlib_calls(ast.parse(path.read_text(), str(path))):
            target = _target(call)
            if target is not None and not target.startswith("kubeforge"):
                continue  # a module outside kubeforge, named in the code
            shown = target or f"a name computed elsewhere ({ast.unparse(call.args[0])})"
            sites.setdefault((module, function), []).append(f"line {call.lineno}: {shown}")
    return sites


def test_no_kubeforge_module_is_imported_through_importlib() -> None:
    sites = _importlib_sites()
    allowed = KNOWN_APISERVER_IMPORTLIB | ALLOWED_IMPORTLIB
    report = [
        f"  {module}.{function or '<module>'}: {'; '.join(found)}"
        for (module, function), found in sorted(sites.items())
        if (module, function) not in allowed
    ]
    report += [
        f"  no importlib call left in {module}.{function}: delete it from the list"
        for module, function in sorted(allowed - set(sites))
    ]
    assert not report, "imports through importlib that the import graph cannot see:\n" + (
        "\n".join(report)
    )


def test_imports_under_type_checking_and_inside_functions_make_cycles(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "cyclic"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "low.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from cyclic import high\n"
    )
    (package / "high.py").write_text("def f():\n    from cyclic import low\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    graph = grimp.build_graph("cyclic", cache_dir=None)
    assert _file_cycles(graph) == [frozenset({"cyclic.low", "cyclic.high"})]


def test_importlib_calls_are_told_apart_by_what_they_import() -> None:
    source = """
import importlib
def f(name):
    importlib.import_module("kubeforge.apiserver.tables")
    importlib.import_module(f"{__name__}.x")
    importlib.import_module(name)
    importlib.import_module("yaml")
"""
    found = [(function, _target(call)) for function, call in _importlib_calls(ast.parse(source))]
    assert found == [
        ("f", "kubeforge.apiserver.tables"),
        ("f", "kubeforge..."),
        ("f", None),
        ("f", "yaml"),
    ]
