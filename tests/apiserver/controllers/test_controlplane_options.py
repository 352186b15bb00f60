"""``--controllers`` and ``--node-config`` as kube-controller-manager and the docs describe them."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from kubeforge.apiserver.controllers.controlplane import CONTROLLER_NAMES, enabled_controllers
from kubeforge.apiserver.controllers.nodes import load_node_specs
from kubeforge.apiserver.server.command import apiserver_command


def test_star_enables_everything_and_a_minus_turns_one_off() -> None:
    assert enabled_controllers(["*"]) == frozenset(CONTROLLER_NAMES)
    assert "root-ca-certificate-publisher-controller" in enabled_controllers(["*"])
    without = enabled_controllers(["*,-deployment"])
    assert "deployment-controller" not in without
    assert "replicaset-controller" in without


def test_kube_controller_manager_aliases_name_the_same_controller() -> None:
    publisher = "root-ca-certificate-publisher-controller"
    assert enabled_controllers(["root-ca-cert-publisher"]) == {publisher}
    assert publisher not in enabled_controllers(["*,-root-ca-cert-publisher"])


def test_an_explicit_list_enables_only_what_it_names() -> None:
    assert enabled_controllers(["job,cronjob-controller"]) == {
        "job-controller",
        "cronjob-controller",
    }
    assert enabled_controllers(["-*"]) == frozenset()
    assert enabled_controllers([""]) == frozenset()


def test_an_unknown_controller_is_refused_in_one_line() -> None:
    with pytest.raises(ValueError, match='"bogus" is not in the list of known controllers'):
        enabled_controllers(["*,bogus"])
    result = CliRunner().invoke(apiserver_command, ["--in-memory", "--controllers", "*,bogus"])
    assert result.exit_code == 2
    assert '"bogus" is not in the list of known controllers' in result.output


def test_a_node_config_names_counts_and_describes_nodes(tmp_path: Path) -> None:
    config = tmp_path / "nodes.yaml"
    config.write_text(
        "nodes:\n- name: pool\n  count: 2\n  labels: {tier: web}\n- capacity: {cpu: '2'}\n"
    )
    specs = load_node_specs(config, 5)
    assert [s.name for s in specs] == ["pool-0", "pool-1", "kubeforge-node-2"]
    assert specs[0].labels == {"tier": "web"}
    assert specs[2].capacity["cpu"] == "2"
    assert len({s.host_ip for s in specs}) == 3
    assert [s.name for s in load_node_specs(None, 2)] == ["kubeforge-node-0", "kubeforge-node-1"]


def test_a_node_config_without_nodes_is_refused(tmp_path: Path) -> None:
    config = tmp_path / "nodes.yaml"
    config.write_text("nodes: []\n")
    result = CliRunner().invoke(apiserver_command, ["--in-memory", "--node-config", str(config)])
    assert result.exit_code == 2
    assert "expected a 'nodes' list with at least one node" in result.output
