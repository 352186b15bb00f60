"""Fixtures for client tests: TLS material generated on the fly (a CA and a client pair)."""

from __future__ import annotations

import pytest
from kf_tls import TlsMaterial, make_tls_material


@pytest.fixture(scope="session")
def tls_material() -> TlsMaterial:
    return make_tls_material()
