"""``PersistentVolumeClaimResize`` (plugin/pkg/admission/storage/persistentvolume/resize,
1.32): a claim's storage request may grow only once it is Bound, and only when its
class (the same before and after, named by the beta annotation or ``storageClassName``)
exists and sets ``allowVolumeExpansion: true``. Both refusals are 403s in the plugin's
words.

Entry point: ``PersistentVolumeClaimResizePlugin``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from kubeforge.apiserver.admission.plugins.base import Plugin, forbid
from kubeforge.apiserver.builtin.podspec.resources import quantity_value
from kubeforge.apiserver.registry.admit import Attempt

__all__ = ["PersistentVolumeClaimResizePlugin"]

_BETA_CLASS = "volume.beta.kubernetes.io/storage-class"
_NOT_BOUND = "Only bound persistent volume claims can be expanded"
_NOT_EXPANDABLE = (
    "only dynamically provisioned pvc can be resized and the storageclass that provisions "
    "the pvc must support resize"
)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _requested(claim: dict[str, Any]) -> Fraction:
    requests = _dict(_dict(_dict(claim.get("spec")).get("resources")).get("requests"))
    return quantity_value(requests.get("storage", "0")) or Fraction(0)


def _class_of(claim: dict[str, Any]) -> str:
    """``GetPersistentVolumeClaimClass``: the beta annotation first, then the field."""
    annotations = _dict(_dict(claim.get("metadata")).get("annotations"))
    if _BETA_CLASS in annotations:
        return str(annotations[_BETA_CLASS])
    return str(_dict(claim.get("spec")).get("storageClassName") or "")


class PersistentVolumeClaimResizePlugin(Plugin):
    name = "PersistentVolumeClaimResize"
    resources = frozenset({("", "persistentvolumeclaims")})

    def validate(self, attempt: Attempt) -> None:
        info = attempt.served.info
        old = attempt.old
        if info.group or info.plural != "persistentvolumeclaims" or attempt.subresource:
            return
        if attempt.operation != "UPDATE" or old is None:
            return
        if _requested(attempt.obj) <= _requested(old):
            return
        if _dict(old.get("status")).get("phase") != "Bound":
            raise forbid(attempt, _NOT_BOUND)
        if not self._allows_resize(_class_of(attempt.obj), _class_of(old)):
            raise forbid(attempt, _NOT_EXPANDABLE)

    def _allows_resize(self, name: str, old_name: str) -> bool:
        if not name or name != old_name:
            return False
        found = self.storage.get(("storage.k8s.io", "storageclasses"), "", name)
        return found is not None and found.get("allowVolumeExpansion") is True
