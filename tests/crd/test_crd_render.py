"""render_yaml: deterministic, readable YAML that parses back to the same objects."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

from kubeforge.crd import generate_crd, render_yaml

from .kf_ships import Carrier, CarrierV1Alpha1, Frigate

HERE = Path(__file__).parent

RENDER = """
import sys
sys.path.insert(0, sys.argv[1])
from crd.kf_ships import Carrier, CarrierV1Alpha1, Frigate
from kubeforge.crd import generate_crds, render_yaml
sys.stdout.write(render_yaml(generate_crds([Frigate, CarrierV1Alpha1, Carrier])))
"""


def test_rendering_parses_back_to_the_same_objects() -> None:
    crds = [generate_crd([Carrier, CarrierV1Alpha1]), generate_crd(Frigate)]
    text = render_yaml(crds)
    assert list(yaml.safe_load_all(text)) == crds
    assert text.startswith("---\napiVersion: apiextensions.k8s.io/v1\n")
    assert text.count("\n---\n") == 1


def test_rendering_twice_is_byte_identical() -> None:
    first = render_yaml(generate_crd([Carrier, CarrierV1Alpha1]))
    second = render_yaml(generate_crd([CarrierV1Alpha1, Carrier]))
    assert first == second


def test_separate_processes_with_different_hash_seeds_write_identical_bytes() -> None:
    outputs = set()
    for seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", RENDER, str(HERE.parent)],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        outputs.add(done.stdout)
    assert len(outputs) == 1
    assert "name: carriers.ship.example.com" in outputs.pop()


def test_multi_line_descriptions_are_literal_blocks_and_lists_are_indented() -> None:
    text = render_yaml(generate_crd(Carrier))
    assert (
        "              description: |-\n"
        "                CarrierSpec is the desired state of a Carrier.\n"
        "\n"
        "                It exercises every type and marker that the CRD generator supports.\n"
    ) in text
    assert "    shortNames:\n      - cv\n" in text


def test_strings_yaml_would_misread_are_quoted() -> None:
    text = render_yaml({"a": "yes", "b": "1.0", "c": "no", "d": "", "e": ["on"]})
    assert yaml.safe_load(text) == {"a": "yes", "b": "1.0", "c": "no", "d": "", "e": ["on"]}
