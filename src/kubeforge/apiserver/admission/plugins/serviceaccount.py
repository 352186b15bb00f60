"""``ServiceAccount`` (plugin/pkg/admission/serviceaccount, 1.32) on pod creation: the
account defaults to ``default`` and must exist; unless automounting is off (pod first,
then account), every container and init container without a mount at the token path
gets the ``kube-api-access-<5 random>`` projected volume (token, ``kube-root-ca.crt``,
namespace) mounted read-only there; the account's image pull secrets are copied when the
pod names none. Mirror pods are left alone.

One divergence, on purpose: a namespace's ``default`` account that the service-account
controller has not created yet counts as present (the real plugin answers 403 in that
instant; a local server's clients would race it on every new namespace).

Entry point: ``ServiceAccountPlugin``.
"""

from __future__ import annotations

import secrets
from typing import Any

from kubeforge.apiserver.admission.plugins.base import Plugin, forbid, is_create_of
from kubeforge.apiserver.registry.admit import Attempt

__all__ = ["TOKEN_MOUNT_PATH", "ServiceAccountPlugin", "token_volume"]

TOKEN_MOUNT_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"
_VOLUME_PREFIX = "kube-api-access-"
_MIRROR = "kubernetes.io/config.mirror"
# names.SimpleNameGenerator's alphabet: no vowels, no confusable digits.
_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_WARN_ONLY_EXPIRATION = 3607  # serviceaccount.WarnOnlyBoundTokenExpirationSeconds


def token_volume(name: str) -> dict[str, Any]:
    """``TokenVolumeSource()`` as the stored v1 volume ``name``."""
    sources = [
        {"serviceAccountToken": {"expirationSeconds": _WARN_ONLY_EXPIRATION, "path": "token"}},
        {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
        {
            "downwardAPI": {
                "items": [
                    {
                        "path": "namespace",
                        "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"},
                    }
                ]
            }
        },
    ]
    return {"name": name, "projected": {"sources": sources, "defaultMode": 420}}


def _automount(pod_spec: dict[str, Any], account: dict[str, Any]) -> bool:
    for source in (pod_spec, account):
        value = source.get("automountServiceAccountToken")
        if isinstance(value, bool):
            return value
    return True


def _mount_token(spec: dict[str, Any]) -> None:
    found = spec.get("volumes")
    volumes: list[Any] = found if isinstance(found, list) else []
    existing = next(
        (
            v["name"]
            for v in volumes
            if isinstance(v, dict) and str(v.get("name", "")).startswith(_VOLUME_PREFIX)
        ),
        None,
    )
    name = existing or _VOLUME_PREFIX + "".join(secrets.choice(_ALPHABET) for _ in range(5))
    mount = {"name": name, "readOnly": True, "mountPath": TOKEN_MOUNT_PATH}
    needed = False
    for key in ("initContainers", "containers"):
        for container in spec.get(key) or []:
            if not isinstance(container, dict):
                continue
            mounts = container.get("volumeMounts")
            if not isinstance(mounts, list):
                mounts = container["volumeMounts"] = []
            if not any(
                isinstance(m, dict) and m.get("mountPath") == TOKEN_MOUNT_PATH for m in mounts
            ):
                mounts.append(dict(mount))
                needed = True
    if needed and existing is None:
        spec["volumes"] = [*volumes, token_volume(name)]


class ServiceAccountPlugin(Plugin):
    name = "ServiceAccount"
    resources = frozenset({("", "pods")})

    def mutate(self, attempt: Attempt) -> None:
        if not is_create_of(attempt, "", "pods"):
            return
        pod = attempt.obj
        spec = pod.get("spec")
        if not isinstance(spec, dict) or _MIRROR in (
            (pod.get("metadata") or {}).get("annotations") or {}
        ):
            return
        account_name = spec.get("serviceAccountName") or "default"
        spec["serviceAccountName"] = account_name
        spec["serviceAccount"] = account_name  # v1's deprecated twin, as conversion fills it
        account = self.storage.get(("", "serviceaccounts"), attempt.namespace, account_name)
        if account is None and account_name != "default":
            raise forbid(
                attempt,
                f"error looking up service account {attempt.namespace}/{account_name}: "
                f'serviceaccount "{account_name}" not found',
            )
        account = account or {}
        if _automount(spec, account):
            _mount_token(spec)
        pull = account.get("imagePullSecrets")
        if not spec.get("imagePullSecrets") and pull:
            spec["imagePullSecrets"] = [dict(item) for item in pull]
