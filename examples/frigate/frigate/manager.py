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

"""Registers the project's controllers with a manager: ``setup(mgr)``.

``kubeforge create api`` adds each new controller at the ``kubeforge:scaffold``
markers below; keep them.
"""

from __future__ import annotations

from kubeforge import Manager

from .controllers import frigate_controller
from .webhooks import frigate_v1_webhook, frigate_v1beta1_webhook

# kubeforge:scaffold:imports

__all__ = ["setup"]


def setup(mgr: Manager) -> None:
    """Register every controller of the project with ``mgr``."""
    frigate_controller.setup(mgr)
    frigate_v1beta1_webhook.setup(mgr)
    frigate_v1_webhook.setup(mgr)
    # kubeforge:scaffold:controllers
