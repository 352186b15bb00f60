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

"""Webhooks of ship.example.com/v1beta1 Frigate: defaulting, validation.

Entry point: ``setup(mgr)``, which ``frigate.manager`` calls to serve them from the
manager's webhook server. ``webhooks`` declares them once: ``kubeforge generate``
writes config/webhook (and the CRD's conversion patch) from it, and the
``kube_webhooks`` test fixture installs it into the local API server.
"""

from __future__ import annotations

import logging

from kubeforge import Manager
from kubeforge.webhook import AdmissionRequest, FieldError, Invalid, TypeWebhooks, Warnings

from ..api.v1beta1.frigate_types import Frigate

__all__ = ["DEMO_LIMIT", "FrigateCustomDefaulter", "FrigateCustomValidator", "setup", "webhooks"]

log = logging.getLogger(__name__)

DEMO_LIMIT = 63
"""The longest ``spec.demo`` a Frigate may have (a label value's limit)."""


class FrigateCustomDefaulter:
    """Sets the defaults of Frigate objects as they are created and updated.

    Change ``obj`` in place: the API server receives the difference as a JSON patch.
    """

    async def default(self, obj: Frigate, request: AdmissionRequest) -> None:
        log.info("defaulting %s %s", obj.kind, obj.metadata.name)
        if not obj.spec.foo:
            obj.spec.foo = "bar"


class FrigateCustomValidator:
    """Accepts or refuses Frigate objects as they are created, updated and deleted.

    Return warnings (or ``None``) to accept; raise ``Invalid(obj, [FieldError...])``
    or ``Denied("why")`` to refuse. ``request`` has ``dry_run`` and ``user_info``.
    """

    async def validate_create(self, obj: Frigate, request: AdmissionRequest) -> Warnings:
        log.info("validating the creation of %s %s", obj.kind, obj.metadata.name)
        return _check_demo(obj)

    async def validate_update(
        self, old: Frigate, obj: Frigate, request: AdmissionRequest
    ) -> Warnings:
        log.info("validating the update of %s %s", obj.kind, obj.metadata.name)
        if old.spec.foo and obj.spec.foo != old.spec.foo:
            raise Invalid(obj, [FieldError.invalid("spec.foo", obj.spec.foo, "field is immutable")])
        return _check_demo(obj)

    async def validate_delete(self, obj: Frigate, request: AdmissionRequest) -> Warnings:
        # Called only if "DELETE" is among the webhook's validate_operations below.
        log.info("validating the deletion of %s %s", obj.kind, obj.metadata.name)
        return None


def _check_demo(obj: Frigate) -> Warnings:
    if len(obj.spec.demo) > DEMO_LIMIT:
        detail = f"must be no more than {DEMO_LIMIT} characters"
        raise Invalid(obj, [FieldError.invalid("spec.demo", obj.spec.demo, detail)])
    return None if obj.spec.demo else ["spec.demo is empty: the controller will log nothing"]


webhooks = TypeWebhooks(
    Frigate,
    defaulter=FrigateCustomDefaulter(),
    validator=FrigateCustomValidator(),
)


def setup(mgr: Manager) -> None:
    """Serve the Frigate v1beta1 webhooks from ``mgr``'s webhook server."""
    webhooks.complete(mgr)
