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

"""The manager as it runs in a cluster: under exactly the RBAC in config/rbac.

``kube_manager`` (kubeforge's pytest plugin) applies config/rbac to an API server
that enforces RBAC and runs ``setup(mgr)`` as the manager's ServiceAccount, so a
permission the controllers need and config/rbac lacks fails here with the
server's 403, as it would after ``kubeforge deploy``. ``kubeforge generate``
derives those permissions from the controllers themselves.
"""

from __future__ import annotations

from kubeforge.testing.rbac import ManagerUnderRbac


async def test_the_manager_runs_under_its_generated_rbac(kube_manager: ManagerUnderRbac) -> None:
    await kube_manager.settle()
