"""Fenced code blocks of the docs, and how each one is exercised.

A block's info string says what the test does with it (``lang key=value ...``):

- ``sh`` / ``python``: run, in page order, in one shell session per page.
- ``LANG file=PATH``: not run; written to PATH (relative to the page's working
  directory) at that point of the page, as a user saves a file they were shown.
- ``text output``: what the block before it prints; each line must appear in that
  output (``...`` lines stand for anything).
- ``LANG norun=CHECK``: not run (it needs the network, say); the check named
  ``CHECK`` in ``test_docs.NORUN_CHECKS`` tests it another way.

Any other block fails the test: every code block is exercised.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Block", "blocks", "shell_script"]

_FENCE = re.compile(r"^(?P<indent> *)```(?P<info>[^`]*)$")


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    lang: str
    options: dict[str, str] = field(default_factory=dict)
    text: str = ""

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"

    @property
    def runs(self) -> bool:
        return self.lang in {"sh", "python"} and not ({"file", "norun"} & set(self.options))


def blocks(path: Path) -> list[Block]:
    """Every fenced block of the Markdown file ``path``, in order."""
    found: list[Block] = []
    lines = path.read_text().splitlines()
    index = 0
    while index < len(lines):
        opened = _FENCE.match(lines[index])
        if opened is None:
            index += 1
            continue
        indent = len(opened["indent"])
        words = shlex.split(opened["info"].strip())
        lang, options = (words[0] if words else ""), {}
        for word in words[1:]:
            key, _, value = word.partition("=")
            options[key] = value
        body: list[str] = []
        index += 1
        while index < len(lines) and lines[index].strip() != "```":
            body.append(lines[index][indent:])
            index += 1
        found.append(Block(path.name, index - len(body), lang, options, "\n".join(body) + "\n"))
        index += 1
    return found


def shell_script(page: list[Block], outputs: Path) -> str:
    """One bash script doing what ``page``'s blocks say, each block's output kept in ``outputs``.

    ``set -e`` stops at the first failing command; the EXIT trap then names the
    block and prints its output, and stops whatever the page left running.
    """
    out = [
        "set -euo pipefail",
        f"KFDOCS_OUT={shlex.quote(str(outputs))}",
        "KFDOCS_BLOCK=none",
        "kfdocs_exit() {",
        "  code=$?",
        "  jobs -p | xargs -r kill 2>/dev/null || true",
        '  if [ "$code" != 0 ]; then',
        '    echo "### failed in block $KFDOCS_BLOCK"',
        '    cat "$KFDOCS_OUT/$KFDOCS_BLOCK.out" 2>/dev/null',
        "  fi",
        "  wait 2>/dev/null || true",
        '  exit "$code"',
        "}",
        "trap kfdocs_exit EXIT",
    ]
    for number, block in enumerate(page):
        tag = f"{number}"
        if "file" in block.options:
            target = shlex.quote(block.options["file"])
            out += [
                f'mkdir -p "$(dirname {target})"',
                f"cat > {target} <<'KFDOCS_EOF'",
                block.text.rstrip("\n"),
                "KFDOCS_EOF",
            ]
        elif block.runs:
            out.append(f"KFDOCS_BLOCK={tag}")
            if block.lang == "python":
                code = ["python - <<'KFDOCS_EOF'", block.text.rstrip("\n"), "KFDOCS_EOF"]
            else:
                code = [block.text.rstrip("\n")]
            out += ["{", *code, f'}} > "$KFDOCS_OUT/{tag}.out" 2>&1']
    return "\n".join(out) + "\n"
