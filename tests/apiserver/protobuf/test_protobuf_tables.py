"""The generated protobuf table against Kubernetes' own 1.32 round-trip fixtures.

Every ``.pb`` of ``k8s-api-testdata/v1.32.0`` decodes to exactly its ``.json`` twin,
encoding that JSON gives back the very bytes Go wrote, a field number 1.32 does not
have is an error (the ``after_roundtrip`` files carry one added later), and the
committed table is what the generator makes of the ``generated.proto`` files.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kubeforge.apiserver.protobuf import generate, table, wire

_RELATIVE = Path("shared/research/test-vectors/k8s-api-testdata/v1.32.0")


def _testdata() -> Path | None:
    for parent in Path(__file__).resolve().parents:
        if (parent / _RELATIVE).is_dir():
            return parent / _RELATIVE
    return None


TESTDATA = _testdata()
PAIRS = (
    sorted(p for p in TESTDATA.glob("*.pb") if p.with_suffix(".json").exists()) if TESTDATA else []
)
# A watch event's frame has no type meta: its reader names the kind, as client-go does.
_WATCH_EVENT = ("v1", "WatchEvent")


def test_the_fixtures_are_all_there() -> None:
    # Absent fixtures fail here rather than skip: run the tests from a checkout beside shared/.
    assert TESTDATA is not None, f"{_RELATIVE} not found above {Path(__file__).parent}"
    assert len(PAIRS) >= 170


@pytest.mark.parametrize("pb", PAIRS, ids=lambda path: path.stem)
def test_every_fixture_decodes_to_its_json_twin(pb: Path) -> None:
    decoded = wire.decode(pb.read_bytes(), _WATCH_EVENT)
    assert decoded == json.loads(pb.with_suffix(".json").read_text())


# A watch event frame carries no type meta to encode: only its decoding is checked.
_ENCODABLE = [pb for pb in PAIRS if "apiVersion" in json.loads(pb.with_suffix(".json").read_text())]


@pytest.mark.parametrize("pb", _ENCODABLE, ids=lambda path: path.stem)
def test_encoding_the_json_gives_back_gos_bytes(pb: Path) -> None:
    assert wire.encode(json.loads(pb.with_suffix(".json").read_text())) == pb.read_bytes()


def test_a_field_number_unknown_to_1_32_is_an_error_not_dropped() -> None:
    later = TESTDATA / "core.v1.Pod.after_roundtrip.pb"  # PodCondition field 7 came later
    with pytest.raises(wire.UnknownField, match="PodCondition: unknown field number 7"):
        wire.decode(later.read_bytes())


def test_an_object_with_a_field_the_message_lacks_is_not_encoded() -> None:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}, "spec": {"nope": 1}}
    assert wire.encode(pod) is None
    assert wire.encode({"apiVersion": "example.com/v1", "kind": "Widget"}) is None


def test_pointer_zeros_survive_and_value_zeros_stay_out_as_in_go_json() -> None:
    template = {
        "spec": {"hostname": "", "hostNetwork": False, "automountServiceAccountToken": False}
    }
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "a"},
        "spec": {"replicas": 0, "paused": False, "template": template},
    }
    encoded = wire.encode(deployment)
    assert encoded is not None
    spec = wire.decode(encoded)["spec"]
    assert spec["replicas"] == 0 and "paused" not in spec  # *int32 vs bool,omitempty
    assert spec["template"]["spec"] == {"automountServiceAccountToken": False}


def test_delete_options_of_any_group_version() -> None:
    assert table.message_for("batch/v1", "DeleteOptions") == "meta.v1.DeleteOptions"
    body = {"apiVersion": "v1", "kind": "DeleteOptions", "gracePeriodSeconds": 0}
    encoded = wire.encode(body)
    assert encoded is not None and wire.decode(encoded) == body


def test_the_committed_table_is_current() -> None:
    source = generate.default_source()
    assert source.is_dir(), f"the 1.32 .proto sources are not at {source}"
    committed = generate.OUTPUT.read_text()
    assert committed == generate.render(source), (
        "run python -m kubeforge.apiserver.protobuf.generate"
    )
