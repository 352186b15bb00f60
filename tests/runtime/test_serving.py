"""Bind addresses as kubebuilder spells them, and where ':PORT' binds."""

from __future__ import annotations

import pytest

from kubeforge.runtime.serving import parse_bind_address

IN_CLUSTER = {"KUBERNETES_SERVICE_HOST": "10.96.0.1"}


@pytest.mark.parametrize("address", ["0", "", "  0 "])
def test_zero_or_nothing_disables_the_server(address: str):
    assert parse_bind_address(address, environ={}) is None


def test_a_bare_port_binds_loopback_outside_a_cluster_and_every_interface_inside():
    assert parse_bind_address(":8080", environ={}) == ("127.0.0.1", 8080)
    assert parse_bind_address(":8081", environ=IN_CLUSTER) == ("0.0.0.0", 8081)


def test_an_explicit_host_is_kept_wherever_it_runs():
    assert parse_bind_address("0.0.0.0:8080", environ={}) == ("0.0.0.0", 8080)
    assert parse_bind_address("127.0.0.1:9", environ=IN_CLUSTER) == ("127.0.0.1", 9)
    assert parse_bind_address("[::1]:8443", environ={}) == ("::1", 8443)
    assert parse_bind_address("localhost:0", environ={}) == ("localhost", 0)


@pytest.mark.parametrize(
    ("address", "complaint"),
    [("8080", "no port"), (":http", "not a number"), (":70000", "out of range")],
)
def test_malformed_addresses_are_refused_with_the_reason(address: str, complaint: str):
    with pytest.raises(ValueError, match=complaint):
        parse_bind_address(address, environ={})
