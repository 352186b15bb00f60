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

"""The Frigate controller: reconciles ship.example.com/v1beta1 frigates.

Entry point: ``setup(mgr)``, which ``frigate.manager`` calls. ``rbac`` lists
what the controller may do; ``kubeforge generate rbac`` turns it into the
manager's ClusterRole (config/rbac/role.yaml).
"""

from __future__ import annotations

import logging

from kubeforge import Builder, Client, Manager, Request, Result, errors
from kubeforge.crd import Rule

from ..api.v1beta1.frigate_types import Frigate

__all__ = ["FrigateReconciler", "rbac", "setup"]

log = logging.getLogger(__name__)

rbac = [
    Rule(
        groups=["ship.example.com"],
        resources=["frigates"],
        verbs=["get", "list", "watch", "create", "update", "patch", "delete"],
    ),
    Rule(
        groups=["ship.example.com"],
        resources=["frigates/status"],
        verbs=["get", "update", "patch"],
    ),
    Rule(
        groups=["ship.example.com"],
        resources=["frigates/finalizers"],
        verbs=["update"],
    ),
]


class FrigateReconciler:
    """Moves each Frigate towards its spec.

    ``reconcile`` is handed a key, never an event: it reads the present state and
    acts on that alone, so it must be safe to run any number of times.
    """

    def __init__(self, client: Client) -> None:
        self.client = client

    async def reconcile(self, request: Request) -> Result:
        frigates = self.client.api(Frigate, namespace=request.namespace)
        try:
            frigate = await frigates.get(request.name)
        except errors.NotFound:
            return Result()  # deleted since it was queued: nothing left to do
        log.info("reconciling %s %s", frigate.kind, request)
        log.debug("demo=%r created=%s", frigate.spec.demo, frigate.status.created)
        if not frigate.status.created:
            frigate.status.created = True
            # Through the status subresource: the main resource ignores status changes.
            # The write carries the resourceVersion read above, so if the Frigate changed
            # meanwhile it fails with Conflict and the controller retries with a fresh read.
            await frigates.replace_status(frigate)
            log.info("%s %s created", frigate.kind, request)
        return Result()


def setup(mgr: Manager) -> None:
    """Register the Frigate controller with ``mgr``."""
    reconciler = FrigateReconciler(mgr.client)
    Builder(mgr).named("frigate").for_(Frigate).complete(reconciler.reconcile)
