"""Index lists of Indexed Jobs (``1,3-5,7``) as 1.32's batch validation reads them.

``status.completedIndexes``, ``status.failedIndexes`` and a success policy rule's
``succeededIndexes`` are ``,``-separated intervals ``x`` or ``x-y`` (x < y), each below
``spec.completions`` and in increasing order; the errors are Go's words.

Entry points: ``indexes_total(text, completions)`` (how many indexes; ``ValueError``),
``overlap_error(completed, failed, completions)``.
"""

from __future__ import annotations

from kubeforge.apiserver.builtin.batch.cronfields import go_atoi, go_strconv_quote

__all__ = ["indexes_total", "overlap_error"]


def _interval(text: str, completions: int) -> tuple[int, int]:
    """``parseIndexInterval``: one ``x`` or ``x-y``."""
    limits = text.split("-")
    if len(limits) > 2:
        raise ValueError(
            f"the fragment {go_strconv_quote(text)} violates the requirement that an index "
            "interval can have at most two parts separated by '-'"
        )
    values = []
    for limit in limits:
        try:
            value = go_atoi(limit)
        except ValueError:
            raise ValueError(
                f"cannot convert string to integer for index: {go_strconv_quote(limit)}"
            ) from None
        if value >= completions:
            raise ValueError(f"too large index: {go_strconv_quote(limit)}")
        values.append(value)
    if len(values) == 2 and values[0] >= values[1]:
        raise ValueError(f"non-increasing order, previous: {values[0]}, current: {values[1]}")
    return values[0], values[-1]


def indexes_total(text: str, completions: int) -> int:
    """``validateIndexesFormat``: the number of indexes ``text`` names."""
    if not text:
        return 0
    last: int | None = None
    total = 0
    for piece in text.split(","):
        first, end = _interval(piece, completions)
        if last is not None and last >= first:
            raise ValueError(f"non-increasing order, previous: {last}, current: {first}")
        total += end - first + 1
        last = end
    return total


def _parsed(pieces: list[str], completions: int) -> list[tuple[int, int] | None]:
    parsed: list[tuple[int, int] | None] = []
    for piece in pieces:
        try:
            parsed.append(_interval(piece, completions))
        except ValueError:
            parsed.append(None)  # its format error is reported on its own
    return parsed


def overlap_error(completed: str, failed: str, completions: int) -> str | None:
    """``validateFailedIndexesNotOverlapCompleted``: the first index in both, as Go words it."""
    if not completed or not failed:
        return None
    done = _parsed(completed.split(","), completions)
    lost = _parsed(failed.split(","), completions)
    i = j = 0
    while i < len(done) and j < len(lost):
        a, b = done[i], lost[j]
        if a is None:
            i += 1
        elif b is None:
            j += 1
        elif a[0] <= b[1] and b[0] <= a[1]:
            return f"failedIndexes and completedIndexes overlap at index: {max(a[0], b[0])}"
        elif a[0] <= b[0]:
            i += 1
        else:
            j += 1
    return None
