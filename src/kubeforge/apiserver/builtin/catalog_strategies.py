"""Rules of the GA built-ins listed in ``builtins_catalog`` (batch kinds aside: ``builtins_batch``).

``CatalogStrategy`` is what every such kind gets: unknown fields pruned against the
Kubernetes 1.32 type table, ``status`` owned by ``/status`` where the real resource has
that subresource (a new object starts with the Go status struct's non-omitempty
fields), ``metadata.generation`` kept for the kinds whose real strategy keeps it.
Subclasses add the defaults of ``pkg/apis/*/v1/defaults.go`` and the validation users
hit first, worded as the real server words it.

Entry point: ``MORE_STRATEGIES`` (``(group, plural)`` -> strategy class), used by
``builtins``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from kubeforge.apiserver.authn.authenticator import UserInfo
from kubeforge.apiserver.builtin.apps import ReplicaSetStrategy, default_pod_template
from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.registry.scale import ScalePaths
from kubeforge.apiserver.registry.served import ServedResource
from kubeforge.apiserver.registry.strategy import Strategy
from kubeforge.apiserver.smd.schema import builtin_root

__all__ = ["MORE_STRATEGIES", "CatalogStrategy", "spec_of"]

# Kinds whose real strategy sets generation 1 on create and bumps it on spec changes.
_WITH_GENERATION = frozenset(
    {
        "cronjobs",
        "endpointslices",
        "flowschemas",
        "horizontalpodautoscalers",
        "ingressclasses",
        "ingresses",
        "jobs",
        "networkpolicies",
        "poddisruptionbudgets",
        "prioritylevelconfigurations",
        "replicationcontrollers",
        "validatingadmissionpolicies",
        "validatingadmissionpolicybindings",
    }
)


def spec_of(obj: dict[str, Any]) -> dict[str, Any] | None:
    spec = obj.get("spec")
    return spec if isinstance(spec, dict) else None


def _child(parent: dict[str, Any], key: str) -> dict[str, Any]:
    """``parent[key]`` as a dict, created (or replaced when not a dict) as needed."""
    value = parent.get(key)
    if not isinstance(value, dict):
        value = parent[key] = {}
    return value


class CatalogStrategy(Strategy):
    """The generic rules of a catalogued built-in; ``default`` runs on every write."""

    empty_status: ClassVar[dict[str, Any]] = {}
    """A new object's status (with ``/status``): the Go struct's non-omitempty fields."""

    def __init__(self, served: ServedResource) -> None:
        super().__init__(served)
        info = served.info
        root = builtin_root(info.group, info.version, info.kind)
        if root is not None:
            known = ("apiVersion", "kind", "metadata")
            self.top_level_fields = tuple(k for k in root.fields if k not in known)
        self.status_subresource = "status" in served.subresources
        self.has_generation = info.plural in _WITH_GENERATION

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        if self.status_subresource:
            obj["status"] = dict(self.empty_status)
        self.default(obj)

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        super().prepare_for_update(new, old)
        self.default(new)

    def default(self, obj: dict[str, Any]) -> None:
        """The kind's ``SetDefaults_*``."""


# --- core/v1 ---------------------------------------------------------------------------------


class PersistentVolumeClaimStrategy(CatalogStrategy):
    empty_status: ClassVar[dict[str, Any]] = {"phase": "Pending"}

    def default(self, obj: dict[str, Any]) -> None:
        spec = spec_of(obj)
        if spec is not None:
            spec.setdefault("volumeMode", "Filesystem")

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        spec = spec_of(obj) or {}
        errors: list[FieldError] = []
        if not spec.get("accessModes"):
            errors.append(
                FieldError("Required", "spec.accessModes", "at least 1 access mode is required")
            )
        requests = (spec.get("resources") or {}).get("requests") or {}
        if not spec.get("dataSourceRef") and "storage" not in requests:
            errors.append(FieldError("Required", "spec.resources[storage]"))
        return errors


class PersistentVolumeStrategy(CatalogStrategy):
    empty_status: ClassVar[dict[str, Any]] = {"phase": "Pending"}

    def default(self, obj: dict[str, Any]) -> None:
        spec = spec_of(obj)
        if spec is not None:
            spec.setdefault("persistentVolumeReclaimPolicy", "Retain")
            spec.setdefault("volumeMode", "Filesystem")


class ReplicationControllerStrategy(ReplicaSetStrategy):
    """Like a ReplicaSet, with a plain label map for a selector (defaulted from the template)."""

    scale_paths = ScalePaths(".spec.replicas", ".status.replicas", ".spec.selector")
    immutable_selector = False

    def default_spec(self, spec: dict[str, Any]) -> None:
        spec.setdefault("replicas", 1)
        labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels") or {}
        if not spec.get("selector") and labels:
            spec["selector"] = dict(labels)

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        super().prepare_for_create(obj)
        self._default_labels(obj)

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        super().prepare_for_update(new, old)
        self._default_labels(new)

    @staticmethod
    def _default_labels(obj: dict[str, Any]) -> None:
        meta = obj["metadata"]
        labels = ((spec_of(obj) or {}).get("template") or {}).get("metadata", {}).get("labels")
        if not meta.get("labels") and labels:
            meta["labels"] = dict(labels)

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        spec = spec_of(obj) or {}
        # The label map becomes a LabelSelector so the shared workload checks apply.
        converted = {**spec, "selector": {"matchLabels": spec.get("selector") or {}}}
        errors = [
            e
            for e in super().validate({**obj, "spec": converted})
            if e.field != "spec.template.spec.activeDeadlineSeconds"
        ]
        return [
            FieldError("Required", "spec.selector")
            if e.field == "spec.selector" and "empty selector" in e.detail
            else e
            for e in errors
        ]


class ResourceQuotaStrategy(CatalogStrategy):
    pass


class LimitRangeStrategy(CatalogStrategy):
    def default(self, obj: dict[str, Any]) -> None:
        for item in (spec_of(obj) or {}).get("limits") or []:
            if not isinstance(item, dict) or item.get("type") != "Container":
                continue
            default = item.get("default") or {}
            for key, value in (item.get("max") or {}).items():
                default.setdefault(key, value)
            request = item.get("defaultRequest") or {}
            for key, value in default.items():
                request.setdefault(key, value)
            for key, value in (item.get("min") or {}).items():
                request.setdefault(key, value)
            if default:
                item["default"] = default
            if request:
                item["defaultRequest"] = request


class PodTemplateStrategy(CatalogStrategy):
    def default(self, obj: dict[str, Any]) -> None:
        default_pod_template(obj.get("template"))


# --- other groups ----------------------------------------------------------------------------


class StorageClassStrategy(CatalogStrategy):
    def default(self, obj: dict[str, Any]) -> None:
        obj.setdefault("reclaimPolicy", "Delete")
        obj.setdefault("volumeBindingMode", "Immediate")

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        if not obj.get("provisioner"):
            return [FieldError("Required", "provisioner")]
        return []

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        errors = self.validate(new)
        for key in ("parameters", "provisioner", "reclaimPolicy", "volumeBindingMode"):
            if new.get(key) != old.get(key):
                errors.append(FieldError("Forbidden", key, "updates to " + key + " are forbidden."))
        return errors


_PATH_TYPES = ("Exact", "ImplementationSpecific", "Prefix")


class IngressStrategy(CatalogStrategy):
    empty_status: ClassVar[dict[str, Any]] = {"loadBalancer": {}}

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        spec = spec_of(obj) or {}
        errors: list[FieldError] = []
        if not spec.get("rules") and not spec.get("defaultBackend"):
            errors.append(
                FieldError(
                    "Invalid", "spec", "either `defaultBackend` or `rules` must be specified", spec
                )
            )
        for i, rule in enumerate(spec.get("rules") or []):
            paths = ((rule.get("http") or {}).get("paths") or []) if isinstance(rule, dict) else []
            for j, path in enumerate(paths):
                where = f"spec.rules[{i}].http.paths[{j}].pathType"
                kind = path.get("pathType") if isinstance(path, dict) else None
                if kind is None:
                    errors.append(FieldError("Required", where, "pathType must be specified"))
                elif kind not in _PATH_TYPES:
                    errors.append(FieldError.not_supported(where, kind, _PATH_TYPES))
        return errors


class NetworkPolicyStrategy(CatalogStrategy):
    def default(self, obj: dict[str, Any]) -> None:
        spec = spec_of(obj)
        if spec is None:
            return
        if not spec.get("policyTypes"):
            spec["policyTypes"] = ["Ingress", "Egress"] if spec.get("egress") else ["Ingress"]
        for direction in ("ingress", "egress"):
            for rule in spec.get(direction) or []:
                for port in (rule.get("ports") or []) if isinstance(rule, dict) else []:
                    if isinstance(port, dict):
                        port.setdefault("protocol", "TCP")


class PodDisruptionBudgetStrategy(CatalogStrategy):
    empty_status: ClassVar[dict[str, Any]] = {
        "disruptionsAllowed": 0,
        "currentHealthy": 0,
        "desiredHealthy": 0,
        "expectedPods": 0,
    }

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        spec = spec_of(obj) or {}
        if spec.get("minAvailable") is not None and spec.get("maxUnavailable") is not None:
            return [
                FieldError(
                    "Invalid", "spec", "minAvailable and maxUnavailable cannot be both set", spec
                )
            ]
        return []


class PriorityClassStrategy(CatalogStrategy):
    def default(self, obj: dict[str, Any]) -> None:
        obj.setdefault("preemptionPolicy", "PreemptLowerPriority")

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        value = obj.get("value")
        if not isinstance(value, int) or isinstance(value, bool):
            return [FieldError("Required", "value")]
        if value > 1_000_000_000:
            return [
                FieldError(
                    "Forbidden",
                    "value",
                    "maximum allowed value of a user defined priority is 1000000000",
                )
            ]
        return []

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        errors = self.validate(new)
        if new.get("value") != old.get("value"):
            errors.append(FieldError("Forbidden", "value", "may not be changed in an update."))
        return errors


class RuntimeClassStrategy(CatalogStrategy):
    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return [] if obj.get("handler") else [FieldError("Required", "handler")]


_ADDRESS_TYPES = ("IPv4", "IPv6", "FQDN")


class EndpointSliceStrategy(CatalogStrategy):
    def default(self, obj: dict[str, Any]) -> None:
        for port in obj.get("ports") or []:
            if isinstance(port, dict):
                port.setdefault("name", "")
                port.setdefault("protocol", "TCP")

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        kind = obj.get("addressType")
        if not kind:
            return [FieldError("Required", "addressType")]
        if kind not in _ADDRESS_TYPES:
            return [FieldError.not_supported("addressType", kind, ("FQDN", "IPv4", "IPv6"))]
        return []


class CertificateSigningRequestStrategy(CatalogStrategy):
    extra_fields = ("spec.signerName",)

    def record_requester(self, obj: dict[str, Any], user: UserInfo) -> None:
        spec = spec_of(obj)
        if spec is None:
            return
        for key in ("username", "uid", "groups", "extra"):
            spec.pop(key, None)
        spec["username"] = user.name
        if user.uid:
            spec["uid"] = user.uid
        if user.groups:
            spec["groups"] = list(user.groups)
        if user.extra:
            spec["extra"] = {key: list(values) for key, values in user.extra.items()}

    def default(self, obj: dict[str, Any]) -> None:
        spec = spec_of(obj)
        if spec is not None and not spec.get("usages"):
            spec["usages"] = ["digital signature", "key encipherment"]

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        spec = spec_of(obj) or {}
        errors: list[FieldError] = []
        if not spec.get("request"):
            errors.append(FieldError("Required", "spec.request"))
        if not spec.get("signerName"):
            errors.append(FieldError("Required", "spec.signerName"))
        return errors


class VolumeAttachmentStrategy(CatalogStrategy):
    empty_status: ClassVar[dict[str, Any]] = {"attached": False}


_Kinds = dict[tuple[str, str], type[Strategy]]

MORE_STRATEGIES: _Kinds = {
    ("", "persistentvolumeclaims"): PersistentVolumeClaimStrategy,
    ("", "persistentvolumes"): PersistentVolumeStrategy,
    ("", "replicationcontrollers"): ReplicationControllerStrategy,
    ("", "resourcequotas"): ResourceQuotaStrategy,
    ("", "limitranges"): LimitRangeStrategy,
    ("", "podtemplates"): PodTemplateStrategy,
    ("storage.k8s.io", "storageclasses"): StorageClassStrategy,
    ("storage.k8s.io", "volumeattachments"): VolumeAttachmentStrategy,
    ("networking.k8s.io", "ingresses"): IngressStrategy,
    ("networking.k8s.io", "networkpolicies"): NetworkPolicyStrategy,
    ("policy", "poddisruptionbudgets"): PodDisruptionBudgetStrategy,
    ("scheduling.k8s.io", "priorityclasses"): PriorityClassStrategy,
    ("node.k8s.io", "runtimeclasses"): RuntimeClassStrategy,
    ("discovery.k8s.io", "endpointslices"): EndpointSliceStrategy,
    ("certificates.k8s.io", "certificatesigningrequests"): CertificateSigningRequestStrategy,
}
