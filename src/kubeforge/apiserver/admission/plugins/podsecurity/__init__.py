"""``PodSecurity``: the Pod Security Standards' levels enforced, audited and warned of per
namespace, as kube-apiserver 1.32's plugin does (k8s.io/pod-security-admission).

Modules, lowest first: ``levels`` (levels, versions, the namespace labels), ``spec``
(check types, the container walk, wording helpers), the checks (``checks_host``,
``checks_profiles``: baseline; ``checks_restricted``), ``registry`` (which checks a level
and version run, and how their results read), ``evaluation`` (the decisions) and
``plugin`` (the admission plugin).

Entry point: ``PodSecurityPlugin``.
"""

from kubeforge.apiserver.admission.plugins.podsecurity.plugin import PodSecurityPlugin

__all__ = ["PodSecurityPlugin"]
