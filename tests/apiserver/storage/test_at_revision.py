"""A ``RevisionView`` reads a resource as it was at its revision, whatever is written
after it was made or between two of its reads: compared with a copy of the state taken
at that revision, over random writes; and so does a page read in chunks while a writer
runs in the loop's turns between them."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubeforge.apiserver.storage.at_revision import RevisionView
from kubeforge.apiserver.storage.pages import SCAN_CHUNK, read_page
from kubeforge.apiserver.storage.sqlite import ExpiredError, Storage, clone

PODS = ("", "pods")
CONFIGMAPS = ("", "configmaps")

# (resource, namespace, name, what): creates, updates and deletes over a few keys, so
# keys come and go and come back.
_write = st.tuples(
    st.sampled_from([PODS, PODS, PODS, CONFIGMAPS]),
    st.sampled_from(["a", "b", "c"]),
    st.sampled_from([f"n{i}" for i in range(8)]),
    st.sampled_from(["put", "put", "delete"]),
)


def _apply(storage: Storage, write: tuple[Any, str, str, str]) -> None:
    resource, namespace, name, what = write
    current = storage.get(resource, namespace, name)
    if what == "delete":
        if current is not None:
            storage.delete(resource, clone(current), current)
        return
    obj = {"metadata": {"name": name, "namespace": namespace}, "data": {"w": len(name)}}
    if current is None:
        storage.create(resource, obj)
    else:
        storage.update(resource, obj, current)


def _state(storage: Storage, namespace: str | None) -> list[tuple[tuple[str, str], Any]]:
    return [
        ((o["metadata"]["namespace"], o["metadata"]["name"]), clone(o))
        for o in storage.objects(PODS, namespace)
    ]


@settings(max_examples=150, deadline=None)
@given(
    before=st.lists(_write, max_size=30),
    between=st.lists(st.lists(_write, max_size=6), min_size=1, max_size=6),
    namespace=st.sampled_from([None, "a", "b"]),
)
def test_a_view_reads_its_revision_across_later_writes(
    before: list[Any], between: list[list[Any]], namespace: str | None
) -> None:
    storage = Storage(None)
    for write in before:
        _apply(storage, write)
    expected = _state(storage, namespace)
    view = RevisionView(storage, PODS, storage.revision, namespace)
    # Read two at a time with writes in between, as a page that yields does.
    read: list[tuple[tuple[str, str], Any]] = []
    cursor = None
    for writes in between:
        for write in writes:
            _apply(storage, write)
        if cursor is not None:
            position = [key for key, _ in expected].index(cursor)
            assert view.count_after(cursor) == len(expected) - position - 1
        chunk = view.after(cursor, 2)
        read += chunk
        if chunk:
            cursor = chunk[-1][0]
    read += view.after(cursor, 1000)
    assert read == expected
    assert view.count_after(("", "")) == len(expected)


@settings(max_examples=60, deadline=None)
@given(before=st.lists(_write, max_size=20), after=st.lists(_write, min_size=1, max_size=20))
def test_a_view_of_a_past_revision_undoes_what_came_since(
    before: list[Any], after: list[Any]
) -> None:
    storage = Storage(None)
    for write in before:
        _apply(storage, write)
    expected, revision = _state(storage, None), storage.revision
    for write in after:
        _apply(storage, write)
    assert RevisionView(storage, PODS, revision, None).after(None, 1000) == expected


def test_a_revision_older_than_the_history_is_expired() -> None:
    storage = Storage(None, history=2)
    for write in [(PODS, "a", f"n{i}", "put") for i in range(4)]:
        _apply(storage, write)
    with pytest.raises(ExpiredError):
        RevisionView(storage, PODS, 1, None)


def test_a_resource_never_written_reads_empty() -> None:
    storage = Storage(None)
    view = RevisionView(storage, PODS, storage.revision, "a")
    _apply(storage, (PODS, "a", "n1", "put"))
    assert view.after(None, 10) == []
    assert view.count_after(("a", "")) == 0


async def test_a_page_read_in_chunks_stays_at_its_revision_while_writes_interleave() -> None:
    """``read_page`` yields to the loop between chunks of ``SCAN_CHUNK`` objects; a writer
    running in those turns changes nothing the page shows."""
    storage = Storage(None)
    total = SCAN_CHUNK * 2 + 500
    for index in range(total):
        _apply(storage, (PODS, "a", f"n{index:05d}", "put"))
    expected = _state(storage, "a")
    view = RevisionView(storage, PODS, storage.revision, "a")
    turns = 0

    async def writer() -> None:
        nonlocal turns
        # From the end backwards, so each turn changes keys the page has not read yet:
        # deletes, updates and new keys, between chunks.
        indexes = list(range(total - 1, 0, -3))
        for start in range(0, len(indexes), 40):
            for index in indexes[start : start + 40]:
                _apply(storage, (PODS, "a", f"n{index:05d}", "delete" if index % 2 else "put"))
                _apply(storage, (PODS, "a", f"n{index:05d}x", "put"))
            turns += 1
            await asyncio.sleep(0)

    task = asyncio.create_task(writer())
    # Every third object matches: the scan reads well past one chunk for each page.
    wanted = {key for key, _ in expected[::3]}

    def matches(obj: dict[str, Any]) -> bool:
        return ("a", obj["metadata"]["name"]) in wanted

    selected, more = await read_page(view, None, matches, SCAN_CHUNK // 2, count=False)
    rest, none_left = await read_page(
        view, ("a", selected[-1]["metadata"]["name"]), matches, 0, count=False
    )
    await task
    assert turns > 0
    assert more == 1 and none_left == 0
    names = [obj["metadata"]["name"] for obj in selected + rest]
    assert names == [name for (_, name), _ in expected[::3]]
    assert [clone(obj) for obj in selected + rest] == [obj for _, obj in expected[::3]]
