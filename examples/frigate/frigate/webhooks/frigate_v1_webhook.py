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

"""Webhooks of ship.example.com/v1 Frigate: conversion.

Entry point: ``setup(mgr)``, which ``frigate.manager`` calls to serve them from the
manager's webhook server. ``webhooks`` declares them once: ``kubeforge generate``
writes config/webhook (and the CRD's conversion patch) from it, and the
``kube_webhooks`` test fixture installs it into the local API server.
"""

from __future__ import annotations

import logging

from kubeforge import Manager
from kubeforge.webhook import Conversion, TypeWebhooks

from ..api.v1.frigate_types import Frigate
from ..api.v1beta1 import frigate_conversion as v1beta1_conversion
from ..api.v1beta1.frigate_types import Frigate as FrigateV1beta1

__all__ = ["setup", "webhooks"]

log = logging.getLogger(__name__)


webhooks = TypeWebhooks(
    Frigate,
    conversion=Conversion(hub=Frigate).spoke(
        FrigateV1beta1,
        to_hub=v1beta1_conversion.to_hub,
        from_hub=v1beta1_conversion.from_hub,
    ),
)


def setup(mgr: Manager) -> None:
    """Serve the Frigate v1 webhooks from ``mgr``'s webhook server."""
    webhooks.complete(mgr)
