"""The server's uids and generated names: random version 4 UUIDs and five-character
suffixes from the OS's random bytes, never repeated, not even across a fork."""

from __future__ import annotations

import os
import re
import uuid

from kubeforge.apiserver.registry.system_metadata import generated_name, new_uid

_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


def test_uids_are_distinct_version_4_uuids_in_canonical_text() -> None:
    uids = [new_uid() for _ in range(3000)]  # more than one batch of random bytes
    assert len(set(uids)) == len(uids)
    for text in uids:
        parsed = uuid.UUID(text)
        assert parsed.version == 4
        assert parsed.variant == uuid.RFC_4122
        assert str(parsed) == text


def test_generated_names_use_every_character_of_the_alphabet_and_only_those() -> None:
    suffixes = [generated_name("web-")[4:] for _ in range(2000)]
    assert all(re.fullmatch(f"[{_ALPHABET}]{{5}}", suffix) for suffix in suffixes)
    assert set("".join(suffixes)) == set(_ALPHABET)
    long = generated_name("x" * 80)
    assert len(long) == 63 and long.startswith("x" * 58)


def test_a_forked_child_hands_out_other_uids_than_its_parent() -> None:
    new_uid()  # the parent holds unused random bytes when it forks
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:
        os.write(write_end, new_uid().encode())
        os._exit(0)
    os.waitpid(child, 0)
    os.close(write_end)
    from_child = os.read(read_end, 64).decode()
    os.close(read_end)
    assert from_child != new_uid()
