"""Python source the scaffolds write, in the exact shape ruff's formatter and isort give it.

Entry points: ``from_import``, ``import_blocks`` and ``register_controller`` (the
edit ``create api`` makes to ``manager.py``). Generated projects should pass
``ruff check`` and ``ruff format --check`` untouched, without running ruff here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

__all__ = [
    "CONTROLLERS_MARKER",
    "IMPORTS_MARKER",
    "from_import",
    "import_blocks",
    "register_controller",
]

IMPORTS_MARKER = "# kubeforge:scaffold:imports"
CONTROLLERS_MARKER = "# kubeforge:scaffold:controllers"
_LINE = 100
_CONTROLLERS_IMPORT = re.compile(
    r"^from \.controllers import (\(\n(?:    \w+,\n)+\)|[\w, ]+)$", re.M
)


def from_import(module: str, names: Iterable[str]) -> str:
    """``from module import a, b``, wrapped one name per line when it would pass 100 columns.

    Names are sorted the way isort sorts them (case-sensitive: constants, classes, then
    functions and modules).

    >>> from_import("kubeforge", ["errors", "Result", "Builder"])
    'from kubeforge import Builder, Result, errors'
    """
    ordered = sorted(set(names), key=_isort_key)
    line = f"from {module} import {', '.join(ordered)}"
    if len(line) <= _LINE:
        return line
    return f"from {module} import (\n" + "".join(f"    {n},\n" for n in ordered) + ")"


def import_blocks(blocks: Sequence[Sequence[str]]) -> str:
    """Import sections (stdlib, third party, first party, local), one blank line apart."""
    return "\n\n".join("\n".join(sorted(block, key=_statement_key)) for block in blocks if block)


def register_controller(source: str, module: str) -> str:
    """``manager.py`` source that imports ``.controllers.<module>`` and calls its ``setup``.

    Idempotent. Raises ``ValueError`` naming a missing ``kubeforge:scaffold`` marker.
    """
    for marker in (IMPORTS_MARKER, CONTROLLERS_MARKER):
        if marker not in source:
            raise ValueError(f"the marker `{marker}` is missing")
    found = _CONTROLLERS_IMPORT.search(source)
    if found is None:
        source = source.replace(
            IMPORTS_MARKER, f"{from_import('.controllers', [module])}\n\n{IMPORTS_MARKER}", 1
        )
    else:
        names = re.findall(r"\w+", found.group(1))
        statement = from_import(".controllers", [*names, module])
        source = source[: found.start()] + statement + source[found.end() :]
    call = f"    {module}.setup(mgr)"
    if call not in source.splitlines():
        source = source.replace(f"    {CONTROLLERS_MARKER}", f"{call}\n    {CONTROLLERS_MARKER}", 1)
    return source


def _isort_key(name: str) -> tuple[int, str]:
    # isort's default order_by_type: CONSTANTS, then Classes, then everything else.
    if name.isupper() and len(name) > 1:
        return (0, name)
    if name[:1].isupper():
        return (1, name)
    return (2, name)


def _statement_key(statement: str) -> tuple[int, str]:
    # Plain `import x` lines come before `from x import y` lines within a section.
    return (0 if statement.startswith("import ") else 1, statement.split(" import ")[0])
