"""Pod IPs on a simulated node: the first free address of its CIDR after the bridge's.

``PodAddresses`` hands out addresses as pods start and learns from pod events which are
in use and which were given back; the lowest free one always comes next.
"""

from __future__ import annotations

from typing import Any

import pytest

from kubeforge.apiserver.controllers.nodes import NodeSpec, PodAddresses


def _pod(uid: str, ip: str, node: str = "node-a") -> dict[str, Any]:
    return {"metadata": {"uid": uid}, "spec": {"nodeName": node}, "status": {"podIP": ip}}


def test_addresses_come_in_order_and_a_freed_one_comes_back_first() -> None:
    spec = NodeSpec("node-a", 3)
    addresses = PodAddresses([spec])
    given = [addresses.allocate(spec) for _ in range(4)]
    assert given == ["10.244.3.2", "10.244.3.3", "10.244.3.4", "10.244.3.5"]
    for uid, ip in enumerate(given):
        addresses.track(_pod(str(uid), ip), gone=False)
    addresses.track(_pod("1", "10.244.3.3"), gone=True)
    addresses.track(_pod("other", "10.244.3.2"), gone=True)  # not its owner: kept
    assert addresses.allocate(spec) == "10.244.3.3"
    assert addresses.allocate(spec) == "10.244.3.6"


def test_addresses_in_use_from_elsewhere_are_skipped() -> None:
    spec = NodeSpec("node-a", 0)
    addresses = PodAddresses([spec])
    addresses.track(_pod("x", "10.244.0.2"), gone=False)
    addresses.track(_pod("y", "10.244.0.4"), gone=False)
    assert [addresses.allocate(spec) for _ in range(2)] == ["10.244.0.3", "10.244.0.5"]


def test_a_full_node_says_so() -> None:
    spec = NodeSpec("node-a", 1)
    addresses = PodAddresses([spec])
    assert [addresses.allocate(spec) for _ in range(253)][-1] == "10.244.1.254"
    with pytest.raises(RuntimeError, match="node-a has no pod IP left"):
        addresses.allocate(spec)
