"""The objects a fresh 1.32 API server keeps by itself, as the real kubectl shows them."""

from __future__ import annotations

import pytest

from .kf_kubectl import Kubectl

pytestmark = pytest.mark.kubectl


def test_get_svc_kubernetes(kubectl: Kubectl) -> None:
    row = kubectl.run("get", "svc", "kubernetes", "-n", "default", "--no-headers").split()
    assert row[:5] == ["kubernetes", "ClusterIP", "10.96.0.1", "<none>", "443/TCP"]


def test_get_endpointslices_and_flowschemas(kubectl: Kubectl) -> None:
    slices = kubectl.run("get", "endpointslices", "-n", "default", "--no-headers").splitlines()
    [row] = [line.split() for line in slices if line.startswith("kubernetes ")]
    assert row[1] == "IPv4" and row[2].isdigit()
    schemas = kubectl.run("get", "flowschemas").splitlines()
    assert schemas[0].split() == [
        "NAME", "PRIORITYLEVEL", "MATCHINGPRECEDENCE", "DISTINGUISHERMETHOD", "AGE", "MISSINGPL",
    ]  # fmt: skip
    rows = {line.split()[0]: line.split() for line in schemas[1:]}
    assert rows["exempt"][1:4] == ["exempt", "1", "<none>"] and rows["exempt"][-1] == "False"
    assert rows["global-default"][1:4] == ["global-default", "9900", "ByUser"]
    levels = kubectl.run("get", "prioritylevelconfigurations", "--no-headers").splitlines()
    by_name = {line.split()[0]: line.split() for line in levels}
    assert by_name["workload-high"][1:6] == ["Limited", "40", "128", "6", "50"]
    assert by_name["exempt"][1:6] == ["Exempt", "<none>", "<none>", "<none>", "<none>"]
