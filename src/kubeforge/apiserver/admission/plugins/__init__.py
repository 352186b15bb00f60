"""kube-apiserver's compiled-in admission plugins that change or refuse objects, in its
order (``AllOrderedPlugins``, 1.32), each on by default as there and switched with
``--enable-admission-plugins`` / ``--disable-admission-plugins``.

``IMPLEMENTED`` are the plugins this server runs; ``KNOWN`` every name kube-apiserver
1.32 accepts (naming one that is not implemented is accepted and does nothing, as it
would have nothing to act on here, or is listed as not done in docs/local-server.md).
``NamespaceLifecycle`` is the store's own check and the webhook and policy plugins are
``admission.chain``'s; both are listed so the flags take their names.

Entry point: ``BuiltinPlugins.from_flags(storage, enable, disable)``.

>>> sorted(enabled_plugins((), ("ServiceAccount",)))[:3]
['DefaultStorageClass', 'DefaultTolerationSeconds', 'LimitRanger']
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from kubeforge.apiserver.admission.plugins.base import Plugin
from kubeforge.apiserver.admission.plugins.limitranger import LimitRangerPlugin
from kubeforge.apiserver.admission.plugins.podsecurity import PodSecurityPlugin
from kubeforge.apiserver.admission.plugins.priority import SYSTEM_PRIORITY_CLASSES, PriorityPlugin
from kubeforge.apiserver.admission.plugins.resize import PersistentVolumeClaimResizePlugin
from kubeforge.apiserver.admission.plugins.resourcequota import ResourceQuotaPlugin
from kubeforge.apiserver.admission.plugins.serviceaccount import ServiceAccountPlugin
from kubeforge.apiserver.admission.plugins.storageclass import DefaultStorageClassPlugin
from kubeforge.apiserver.admission.plugins.tolerations import DefaultTolerationSecondsPlugin
from kubeforge.apiserver.registry.admit import Attempt
from kubeforge.apiserver.storage.sqlite import ResourceKey, Storage

__all__ = [
    "DEFAULT_ENABLED",
    "IMPLEMENTED",
    "KNOWN",
    "RUN_ELSEWHERE",
    "SYSTEM_PRIORITY_CLASSES",
    "BuiltinPlugins",
    "UnknownPluginError",
    "enabled_plugins",
]

# kube-apiserver 1.32's AllOrderedPlugins.
KNOWN = (
    "AlwaysAdmit", "NamespaceAutoProvision", "NamespaceLifecycle", "NamespaceExists",
    "LimitPodHardAntiAffinityTopology", "LimitRanger", "ServiceAccount", "NodeRestriction",
    "TaintNodesByCondition", "AlwaysPullImages", "ImagePolicyWebhook", "PodSecurity",
    "PodNodeSelector", "Priority", "DefaultTolerationSeconds", "PodTolerationRestriction",
    "EventRateLimit", "ExtendedResourceToleration", "DefaultStorageClass",
    "StorageObjectInUseProtection", "OwnerReferencesPermissionEnforcement",
    "PersistentVolumeClaimResize", "RuntimeClass", "CertificateApproval", "CertificateSigning",
    "ClusterTrustBundleAttest", "CertificateSubjectRestriction", "DefaultIngressClass",
    "DenyServiceExternalIPs", "MutatingAdmissionWebhook", "ValidatingAdmissionPolicy",
    "ValidatingAdmissionWebhook", "ResourceQuota", "AlwaysDeny",
)  # fmt: skip
# Those not in kube-apiserver 1.32's DefaultOffAdmissionPlugins.
DEFAULT_ENABLED = frozenset(
    {
        "NamespaceLifecycle", "LimitRanger", "ServiceAccount", "TaintNodesByCondition",
        "PodSecurity", "Priority", "DefaultTolerationSeconds", "DefaultStorageClass",
        "StorageObjectInUseProtection", "PersistentVolumeClaimResize", "RuntimeClass",
        "CertificateApproval", "CertificateSigning", "ClusterTrustBundleAttest",
        "CertificateSubjectRestriction", "DefaultIngressClass", "MutatingAdmissionWebhook",
        "ValidatingAdmissionPolicy", "ValidatingAdmissionWebhook", "ResourceQuota",
    }
)  # fmt: skip
IMPLEMENTED: dict[str, type[Plugin]] = {
    plugin.name: plugin
    for plugin in (
        LimitRangerPlugin,
        ServiceAccountPlugin,
        PodSecurityPlugin,
        PriorityPlugin,
        DefaultTolerationSecondsPlugin,
        DefaultStorageClassPlugin,
        PersistentVolumeClaimResizePlugin,
        ResourceQuotaPlugin,
    )
}


RUN_ELSEWHERE = frozenset(
    {
        "NamespaceLifecycle",  # the store's own check (registry.engine)
        "MutatingAdmissionWebhook",  # admission.chain
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionWebhook",
    }
)
"""Plugins whose work is done outside this package (they ignore the flags)."""


Step = Callable[[Attempt], None]


class UnknownPluginError(ValueError):
    """A flag named a plugin kube-apiserver 1.32 does not have."""


def enabled_plugins(enable: Iterable[str], disable: Iterable[str]) -> frozenset[str]:
    """The defaults, plus ``enable``, minus ``disable`` (kube-apiserver's rule: a plugin in
    both lists is refused)."""
    enable, disable = tuple(enable), tuple(disable)
    for flag, names in (("enable", enable), ("disable", disable)):
        for name in names:
            if name not in KNOWN:
                raise UnknownPluginError(f'{flag}-admission-plugins plugin "{name}" is unknown')
    both = sorted(set(enable) & set(disable))
    if both:
        raise UnknownPluginError(
            f"[{' '.join(both)}] in enable-admission-plugins and disable-admission-plugins "
            "overlapped"
        )
    return (DEFAULT_ENABLED | set(enable)) - set(disable)


class BuiltinPlugins:
    """The enabled implemented plugins, run in kube-apiserver's order."""

    def __init__(self, storage: Storage, names: Iterable[str]) -> None:
        wanted = set(names)
        self.names = tuple(name for name in KNOWN if name in wanted)
        self._plugins = [IMPLEMENTED[n](storage) for n in self.names if n in IMPLEMENTED]
        self._steps: dict[ResourceKey, tuple[list[Step], list[Step]]] = {}

    def mutate(self, attempt: Attempt) -> None:
        for step in self._steps_for(attempt)[0]:
            step(attempt)

    def validate(self, attempt: Attempt) -> None:
        for step in self._steps_for(attempt)[1]:
            step(attempt)

    def _steps_for(self, attempt: Attempt) -> tuple[list[Step], list[Step]]:
        """The mutating and validating steps, in order, of the plugins that may act on the
        attempt's resource and have such a step (worked out once per resource)."""
        info = attempt.served.info
        resource = (info.group, info.plural)
        steps = self._steps.get(resource)
        if steps is None:
            acting = [p for p in self._plugins if p.resources is None or resource in p.resources]
            steps = self._steps[resource] = (
                [p.mutate for p in acting if type(p).mutate is not Plugin.mutate],
                [p.validate for p in acting if type(p).validate is not Plugin.validate],
            )
        return steps
