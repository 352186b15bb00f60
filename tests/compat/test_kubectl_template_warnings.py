"""A workload's pod template warnings as kubectl prints them from a 1.32 server
(``GetWarningsForPodTemplate``, pkg/api/pod/warnings.go)."""

from __future__ import annotations

import json

import pytest

from .kf_kubectl import Kubectl

pytestmark = pytest.mark.kubectl


def _deployment(name: str, grace: int) -> str:
    labels = {"app": name}
    template = {
        "metadata": {"labels": labels},
        "spec": {
            "terminationGracePeriodSeconds": grace,
            "containers": [{"name": "app", "image": "nginx"}],
        },
    }
    spec = {"selector": {"matchLabels": labels}, "template": template}
    body = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name}}
    return json.dumps({**body, "spec": spec})


def test_kubectl_prints_a_template_warning(kubectl: Kubectl) -> None:
    done = kubectl.complete("create", "-f", "-", stdin=_deployment("graceless", -1))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "deployment.apps/graceless created"
    assert (
        "Warning: spec.template.spec.terminationGracePeriodSeconds: must be >= 0; negative "
        "values are invalid and will be treated as 1"
    ) in done.stderr
