# Copyright 2026 The kubeforge authors
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""The Frigate v1beta1 webhooks (defaulting, validation) against kubeforge's local API server.

``kube_webhooks(setup)`` (kubeforge's pytest plugin) serves them from a manager with a
generated certificate and installs them into the session's local API server, so
kubectl's writes below go through them as they would in a cluster.
"""

from __future__ import annotations

import json
import subprocess
from typing import Any

from kubeforge import Client, ObjectMeta
from kubeforge.testing import LocalApiServer
from kubeforge.webhook import mutate_path, validate_path

from frigate.api.v1beta1.frigate_types import Frigate, FrigateSpec
from frigate.webhooks.frigate_v1beta1_webhook import DEMO_LIMIT, setup


def kubectl(
    server: LocalApiServer, *args: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["kubectl", f"--kubeconfig={server.kubeconfig}", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def manifest(name: str, namespace: str, **spec: str) -> str:
    return json.dumps(
        {
            "apiVersion": "ship.example.com/v1beta1",
            "kind": "Frigate",
            "metadata": {"name": name, "namespace": namespace},
            "spec": spec,
        }
    )


async def test_kubectl_create_of_a_bad_frigate_is_denied_with_the_validator_s_message(
    client: Client, namespace: str, kube_rbac_apiserver: LocalApiServer, kube_webhooks: Any
) -> None:
    kube_webhooks(setup)
    bad = manifest("chatty", namespace, demo="x" * (DEMO_LIMIT + 1))
    done = kubectl(kube_rbac_apiserver, "create", "-f", "-", stdin=bad)
    assert done.returncode == 1
    assert f'The Frigate "chatty" is invalid: spec.demo: Invalid value: "{"x" * 64}": ' in (
        done.stderr
    )
    assert "must be no more than 63 characters" in done.stderr


async def test_kubectl_create_gets_the_default_and_the_warning(
    client: Client, namespace: str, kube_rbac_apiserver: LocalApiServer, kube_webhooks: Any
) -> None:
    mgr = kube_webhooks(setup)
    done = kubectl(kube_rbac_apiserver, "create", "-f", "-", stdin=manifest("plain", namespace))
    assert done.returncode == 0, done.stderr
    assert "Warning: spec.demo is empty: the controller will log nothing" in done.stderr
    stored = await client.api(Frigate, namespace=namespace).get("plain")
    assert stored.spec.foo == "bar"  # the defaulter's
    served = mgr.metrics.render().decode()
    for path in (mutate_path(Frigate.info), validate_path(Frigate.info)):
        assert f'controller_runtime_webhook_requests_total{{code="200",webhook="{path}"}}' in served


async def test_spec_foo_cannot_change_once_set(
    client: Client, namespace: str, kube_rbac_apiserver: LocalApiServer, kube_webhooks: Any
) -> None:
    kube_webhooks(setup)
    frigate = Frigate(
        metadata=ObjectMeta(name="steady", namespace=namespace),
        spec=FrigateSpec(foo="keel", demo="steady as she goes"),
    )
    await client.api(Frigate, namespace=namespace).create(frigate)
    patch = '{"spec": {"foo": "mast"}}'
    done = kubectl(
        kube_rbac_apiserver,
        "-n",
        namespace,
        "patch",
        "frigate",
        "steady",
        "--type=merge",
        "-p",
        patch,
    )
    assert done.returncode == 1
    assert 'spec.foo: Invalid value: "mast": field is immutable' in done.stderr
