"""The docs harness itself: blocks are found with their options, and a failing block is named."""

from __future__ import annotations

import subprocess
from pathlib import Path

from .kf_markdown_blocks import blocks, shell_script

PAGE = """\
# A page

```sh
echo one
```

```text output
one
```

   ```python file=pkg/mod.py
   VALUE = 1
   ```

```sh norun=pip-install
pip install kubeforge
```
"""


def test_blocks_carry_their_language_options_and_dedented_text(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(PAGE)

    found = blocks(page)

    assert [(b.lang, b.options) for b in found] == [
        ("sh", {}),
        ("text", {"output": ""}),
        ("python", {"file": "pkg/mod.py"}),
        ("sh", {"norun": "pip-install"}),
    ]
    assert found[2].text == "VALUE = 1\n"
    assert [b.runs for b in found] == [True, False, False, False]
    assert found[0].where == "page.md:3"


def test_the_script_writes_files_runs_blocks_and_names_the_one_that_failed(
    tmp_path: Path,
) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "```python file=data.txt\nhello\n```\n"
        "```sh\ncat data.txt\n```\n"
        "```sh\necho before; false; echo never\n```\n"
    )
    outputs = tmp_path / "out"
    outputs.mkdir()

    result = subprocess.run(
        ["bash", "-c", shell_script(blocks(page), outputs)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )

    assert result.returncode == 1
    assert (outputs / "1.out").read_text() == "hello\n"
    assert "### failed in block 2" in result.stdout
    assert "before" in result.stdout and "never" not in result.stdout
