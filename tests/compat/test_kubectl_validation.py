"""kubectl's default strict validation, answered by the server (fieldValidation=Strict/Warn)."""

from __future__ import annotations

import pytest

from .kf_kubectl import Kubectl

pytestmark = pytest.mark.kubectl


def test_strict_validation_rejects_unknown_fields_of_built_ins(kubectl: Kubectl) -> None:
    manifest = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: typo\ndatta:\n  a: b\n"
    error = kubectl.fails("create", "-f", "-", stdin=manifest)
    assert 'unknown field "datta"' in error
    warned = kubectl.complete("create", "--validate=warn", "-f", "-", stdin=manifest)
    assert warned.returncode == 0, warned.stderr
    assert 'Warning: unknown field "datta"' in warned.stderr
    assert warned.stdout.strip() == "configmap/typo created"
