"""A ``ModulePlan`` -> Python source text, then formatted by ruff.

See ``render_module()`` for the entry point and ``format_source()`` for the ruff
pass. The text is close to ruff's style already; ruff then sorts the imports and
wraps long lines so generated and hand-written code look alike.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from kubeforge.codegen.plan import ClassPlan, FieldPlan, ModulePlan, TypeAlias, first_sentence
from kubeforge.core.resource import ResourceInfo

__all__ = ["docstring", "format_source", "render_module"]

_LINE = 100
_CORE_META = "kubeforge.core.meta"
_CORE_RESOURCE = "kubeforge.core.resource"

# Typographic characters that ruff (RUF001-RUF003) flags as look-alikes of ASCII.
_ASCII = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u2013": "-",
        "\u2014": "-",
        "\u00a0": " ",
    }
)


def docstring(text: str, indent: int) -> list[str]:
    """``text`` as a triple-quoted docstring wrapped to the line length, one line if it fits.

    Paragraphs (split on blank lines) stay apart; whitespace inside one is collapsed.
    """
    paragraphs = [_clean(p) for p in text.strip().split("\n\n") if p.strip()] or [""]
    pad = " " * indent
    if len(paragraphs) == 1 and indent + len(paragraphs[0]) + 6 <= _LINE:
        return [f'{pad}"""{paragraphs[0]}"""']
    out: list[str] = []
    for number, paragraph in enumerate(paragraphs):
        if number:
            out.append("")
        out += textwrap.wrap(
            paragraph,
            # room for the closing quotes too: ruff moves them up onto a lone last line
            width=_LINE - indent - 3,
            initial_indent='"""' if number == 0 else "",
            break_long_words=False,
            break_on_hyphens=False,
        )
    return [*(f"{pad}{line}" if line else "" for line in out), f'{pad}"""']


def _clean(text: str) -> str:
    clean = " ".join(text.translate(_ASCII).split()).replace("\\", "\\\\")
    clean = clean.replace('"""', '\\"""')
    if clean.endswith('"'):
        clean = clean[:-1] + '\\"'  # a quote right before the closing quotes ends the string
    return clean


def render_module(plan: ModulePlan, *, doc: str) -> str:
    """The source of one module (unformatted; see ``format_source``)."""
    own = f"{plan.package}.{plan.name}"
    imports = _imports(plan, own)
    names = sorted([a.name for a in plan.aliases] + [c.name for c in plan.classes])
    _check_collisions(plan, imports)
    out: list[str] = [*docstring(doc, 0), "", "from __future__ import annotations", ""]
    for module in sorted(imports, key=_import_rank):
        imported = sorted(n for n in imports[module] if n)
        if module == "msgspec" and (not imported or "" in imports[module]):
            out.append("import msgspec")
        if imported:
            out.append(f"from {module} import {', '.join(imported)}")
    out += ["", "__all__ = [", *(f"    {json.dumps(n)}," for n in names), "]", ""]
    for alias in plan.aliases:
        out += _alias(alias)
    for cls in plan.classes:
        out += ["", *_class(cls)]
    return "\n".join(out).rstrip() + "\n"


def _import_rank(module: str) -> tuple[int, str]:
    if module in ("typing",):
        return 0, module
    if module == "msgspec":
        return 1, module
    return 2, module


def _imports(plan: ModulePlan, own: str) -> dict[str, set[str]]:
    imports: dict[str, set[str]] = {}

    def add(module: str, name: str) -> None:
        if module != own:
            imports.setdefault(module, set()).add(name)

    if plan.aliases:
        add("typing", "TypeAlias")
    for cls in plan.classes:
        if cls.info is not None:
            add(_CORE_RESOURCE, "Resource")
            add(_CORE_RESOURCE, "ResourceInfo")
        else:
            add(_CORE_META, "Model")
        for module, name in cls.body_refs:
            add(module, name)
        for f in cls.fields:
            for module, name in f.type.refs:
                add(module, name)
            if f.wire_override is not None:
                imports.setdefault("msgspec", set()).add("")
    return imports


def _check_collisions(plan: ModulePlan, imports: dict[str, set[str]]) -> None:
    local = {c.name for c in plan.classes} | {a.name for a in plan.aliases}
    seen: dict[str, str] = {}
    for module, names in imports.items():
        for name in names - {""}:
            if name in local or seen.get(name, module) != module:
                raise ValueError(f"{plan.name}: the name {name!r} is defined twice (from {module})")
            seen[name] = module


def _alias(alias: TypeAlias) -> list[str]:
    return ["", f"{alias.name}: TypeAlias = {alias.expr}", *docstring(alias.doc, 0)]


def _class(cls: ClassPlan) -> list[str]:
    out = [f"class {cls.name}({cls.base}):"]
    if cls.full_doc:
        # Whole, and only when there is one: the docstring is a schema description
        # that kubeforge.crd reads back.
        out += docstring(cls.doc, 4) if cls.doc else []
    else:
        out += docstring(_summary_first(cls.doc or cls.name), 4)
    if cls.info is not None:
        out += ["", f"    info = {_info(cls.info)}"]
    out += [f"    {line}" for line in cls.body]
    if len(out) == 1 and not cls.fields:
        out.append("    pass")
    if cls.fields and len(out) > 1:
        out.append("")
    for f in cls.fields:
        default = _default(f)
        tail = "" if default is None else f" = {default}"
        out.append(f"    {f.attribute}: {f.annotation}{tail}")
        if f.doc:
            out += docstring(f.doc, 4)
    out.append("")
    return out


def _summary_first(text: str) -> str:
    """The first sentence as the summary line, the rest of the paragraph below it."""
    collapsed = " ".join(text.split())
    summary = first_sentence(collapsed)
    rest = collapsed[len(summary) :].strip()
    return f"{summary}\n\n{rest}" if rest else summary


def _default(f: FieldPlan) -> str | None:
    """The right-hand side of the field's line; ``None`` for a required field."""
    name = f", name={json.dumps(f.wire_override)}" if f.wire_override is not None else ""
    if f.default is None:
        return f"msgspec.field({name[2:]})" if name else None
    if name:
        return f"msgspec.field(default={f.default}{name})"
    return f.default


def _info(info: ResourceInfo) -> str:
    args = [
        f"group={json.dumps(info.group)}",
        f"version={json.dumps(info.version)}",
        f"kind={json.dumps(info.kind)}",
        f"plural={json.dumps(info.plural)}",
    ]
    if not info.namespaced:
        args.append("namespaced=False")
    if info.short_names:
        names = ", ".join(json.dumps(n) for n in info.short_names)
        args.append(f"short_names=({names},)")
    if info.singular:
        args.append(f"singular={json.dumps(info.singular)}")
    return f"ResourceInfo({', '.join(args)})"


def format_source(source: str, filename: Path) -> str:
    """Sort imports and format ``source`` with ruff, as if it were saved at ``filename``.

    ``filename`` picks the ruff settings (the nearest ``pyproject.toml``), so output
    written elsewhere (a check in a temporary directory) still formats identically.
    """
    cwd = filename.parent if filename.parent.is_dir() else Path.cwd()
    # Generated modules import each other; naming the package first-party keeps the
    # import sections the same whether or not the files exist yet.
    isort = ["--config", "lint.isort.known-first-party = ['kubeforge']"]
    for args in (["check", "--select", "I", "--fix", "--quiet", *isort], ["format"]):
        result = subprocess.run(
            [sys.executable, "-m", "ruff", *args, "--stdin-filename", str(filename), "-"],
            input=source,
            capture_output=True,
            text=True,
            cwd=cwd,
            check=False,
        )
        if result.returncode != 0:
            raise RuntimeError(f"ruff {args[0]} failed on {filename}: {result.stderr.strip()}")
        source = result.stdout
    return source
