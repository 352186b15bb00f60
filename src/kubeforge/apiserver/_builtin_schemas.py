"""OpenAPI v3 schemas the server publishes for its built-in kinds and for ``meta/v1`` types.

These are deliberately shallow: top-level fields with types and short descriptions,
nested structures left open. They exist so that ``kubectl explain`` has something
true to say and so every GroupVersion document is self-contained (each ``$ref``
resolves). They carry no strategic-merge-patch hints, which is why the OpenAPI
module does not advertise strategic merge patch for built-ins (see there).

Entry points: ``META_SCHEMAS`` (name -> schema) and ``kind_properties(group, kind)``.
The descriptions are written for kubeforge, summarising the API's documented meaning.
"""

from __future__ import annotations

from typing import Any

__all__ = ["META", "META_SCHEMAS", "SCALE", "kind_properties", "ref"]

META = "io.k8s.apimachinery.pkg.apis.meta.v1."
SCALE = "io.k8s.api.autoscaling.v1.Scale"


def ref(name: str, description: str = "") -> dict[str, Any]:
    """A reference to ``components.schemas[name]``, wrapped in ``allOf`` when described."""
    target = {"$ref": f"#/components/schemas/{name}"}
    if not description:
        return target
    return {"description": description, "allOf": [target], "default": {}}


def _s(description: str) -> dict[str, Any]:
    return {"type": "string", "description": description}


def _i(description: str) -> dict[str, Any]:
    return {"type": "integer", "format": "int64", "description": description}


def _b(description: str) -> dict[str, Any]:
    return {"type": "boolean", "description": description}


def _strings(description: str) -> dict[str, Any]:
    return {"type": "array", "items": {"type": "string", "default": ""}, "description": description}


def _string_map(description: str) -> dict[str, Any]:
    return {
        "type": "object",
        "additionalProperties": {"type": "string", "default": ""},
        "description": description,
    }


def _open(description: str) -> dict[str, Any]:
    """An object whose inner fields this server does not describe."""
    return {
        "type": "object",
        "description": description,
        "x-kubernetes-preserve-unknown-fields": True,
    }


def _time(description: str) -> dict[str, Any]:
    return ref(META + "Time", description)


META_SCHEMAS: dict[str, dict[str, Any]] = {
    META + "Time": {
        "type": "string",
        "format": "date-time",
        "description": "A timestamp in RFC 3339 form with whole seconds, in UTC.",
    },
    META + "MicroTime": {
        "type": "string",
        "format": "date-time",
        "description": "A timestamp in RFC 3339 form with microseconds, in UTC.",
    },
    META + "FieldsV1": {
        "type": "object",
        "description": "A set of fields, encoded as a trie of f:, k:, v: and i: keys.",
    },
    META + "OwnerReference": {
        "type": "object",
        "description": "Names an object that owns this one; the garbage collector follows it.",
        "required": ["apiVersion", "kind", "name", "uid"],
        "properties": {
            "apiVersion": _s("API version of the owner."),
            "kind": _s("Kind of the owner."),
            "name": _s("Name of the owner."),
            "uid": _s("UID of the owner."),
            "controller": _b("True when the owner is the managing controller; at most one."),
            "blockOwnerDeletion": _b("Foreground deletion of the owner waits for this object."),
        },
        "x-kubernetes-map-type": "atomic",
    },
    META + "ManagedFieldsEntry": {
        "type": "object",
        "description": "Which manager owns which fields, and through which operation.",
        "properties": {
            "apiVersion": _s("Version of the fields set below."),
            "fieldsType": _s("Format of fieldsV1; always FieldsV1."),
            "fieldsV1": ref(META + "FieldsV1", "The fields this manager owns."),
            "manager": _s("Name of the field manager."),
            "operation": _s("Apply or Update."),
            "subresource": _s("The subresource the write went through, if any."),
            "time": _time("When the entry last changed."),
        },
    },
    META + "ObjectMeta": {
        "type": "object",
        "description": "Metadata every persisted object carries.",
        "properties": {
            "annotations": _string_map("Free-form key/value data for tools; not selectable."),
            "creationTimestamp": _time("When the server stored the object first. Read-only."),
            "deletionGracePeriodSeconds": _i("Seconds granted before the object is removed."),
            "deletionTimestamp": _time("When deletion was requested. Read-only."),
            "finalizers": {
                **_strings("Keys that must be removed before the object is deleted."),
                "x-kubernetes-list-type": "set",
            },
            "generateName": _s("Prefix for a server-generated name when name is empty."),
            "generation": _i("Sequence number of changes to the desired state. Read-only."),
            "labels": _string_map("Key/value pairs used by selectors to group objects."),
            "managedFields": {
                "type": "array",
                "description": "Field ownership bookkeeping for server-side apply.",
                "items": ref(META + "ManagedFieldsEntry", ""),
            },
            "name": _s("Unique name within the namespace (or cluster, for cluster-scoped kinds)."),
            "namespace": _s("The namespace the object lives in; empty for cluster-scoped kinds."),
            "ownerReferences": {
                "type": "array",
                "description": "Objects this one depends on.",
                "items": ref(META + "OwnerReference", ""),
                "x-kubernetes-list-map-keys": ["uid"],
                "x-kubernetes-list-type": "map",
            },
            "resourceVersion": _s("Opaque version for optimistic concurrency and watches."),
            "selfLink": _s("Deprecated and never set."),
            "uid": _s("Unique identity for the lifetime of the object. Read-only."),
        },
    },
    META + "ListMeta": {
        "type": "object",
        "description": "Metadata of a list response.",
        "properties": {
            "continue": _s("Token for the next page, when the list was cut by limit."),
            "remainingItemCount": _i("Items left after this page, when known."),
            "resourceVersion": _s("Store revision the list was read at; start watches here."),
            "selfLink": _s("Deprecated and never set."),
        },
    },
    META + "StatusCause": {
        "type": "object",
        "description": "One reason a request failed, often tied to a field.",
        "properties": {
            "field": _s("Path of the field at fault, e.g. spec.replicas."),
            "message": _s("Human-readable description."),
            "reason": _s("Machine-readable reason, e.g. FieldValueInvalid."),
        },
    },
    META + "StatusDetails": {
        "type": "object",
        "description": "Extra data about a failure.",
        "properties": {
            "causes": {
                "type": "array",
                "items": ref(META + "StatusCause", ""),
                "description": "Individual causes.",
            },
            "group": _s("Group of the resource."),
            "kind": _s("Kind or resource the failure is about."),
            "name": _s("Name of the object."),
            "retryAfterSeconds": {
                "type": "integer",
                "format": "int32",
                "description": "Retry hint.",
            },
            "uid": _s("UID of the object."),
        },
    },
    META + "Status": {
        "type": "object",
        "description": "The outcome of a request that returns no object, and every failure.",
        "properties": {
            "apiVersion": _s("Always v1."),
            "code": {"type": "integer", "format": "int32", "description": "HTTP status code."},
            "details": ref(META + "StatusDetails", "Extra data about the failure."),
            "kind": _s("Always Status."),
            "message": _s("Human-readable description."),
            "metadata": ref(META + "ListMeta", "Standard list metadata."),
            "reason": _s("Machine-readable reason, e.g. NotFound or Conflict."),
            "status": _s("Success or Failure."),
        },
        "x-kubernetes-group-version-kind": [{"group": "", "kind": "Status", "version": "v1"}],
    },
    META + "Preconditions": {
        "type": "object",
        "description": "Conditions the stored object must meet for a delete to proceed.",
        "properties": {
            "resourceVersion": _s("Required resourceVersion."),
            "uid": _s("Required UID."),
        },
    },
    META + "DeleteOptions": {
        "type": "object",
        "description": "Options of a delete request.",
        "properties": {
            "apiVersion": _s("API version of this object."),
            "dryRun": _strings("All: validate and report without persisting."),
            "gracePeriodSeconds": _i("Seconds before the object is removed; 0 means now."),
            "kind": _s("Always DeleteOptions."),
            "orphanDependents": _b("Deprecated; use propagationPolicy."),
            "preconditions": ref(META + "Preconditions", "Must hold for the delete to run."),
            "propagationPolicy": _s("Orphan, Background or Foreground."),
        },
    },
    META + "Patch": {
        "type": "object",
        "description": "A patch body; its format is given by the request's Content-Type.",
    },
}


def _scale_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "description": "The replica count of a scalable object.",
        "properties": {
            "apiVersion": _s("autoscaling/v1."),
            "kind": _s("Scale."),
            "metadata": ref(META + "ObjectMeta", "Metadata of the scaled object."),
            "spec": {
                "type": "object",
                "description": "Desired replicas.",
                "properties": {"replicas": _i("Desired number of replicas.")},
            },
            "status": {
                "type": "object",
                "description": "Observed replicas.",
                "properties": {
                    "replicas": _i("Observed number of replicas."),
                    "selector": _s("Label selector of the replicas, as a string."),
                },
            },
        },
        "x-kubernetes-group-version-kind": [
            {"group": "autoscaling", "kind": "Scale", "version": "v1"}
        ],
    }


META_SCHEMAS[SCALE] = _scale_schema()

_SPEC = "The desired state, written by users and controllers."
_STATUS = "The observed state, written by the system."

# Top-level fields per built-in (group, kind), besides apiVersion, kind and metadata.
_KINDS: dict[tuple[str, str], dict[str, Any]] = {
    ("", "ConfigMap"): {
        "data": _string_map("UTF-8 configuration values by key."),
        "binaryData": {
            "type": "object",
            "additionalProperties": {"type": "string", "format": "byte"},
            "description": "Binary values by key, base64 on the wire.",
        },
        "immutable": _b("When true, data can no longer be changed."),
    },
    ("", "Secret"): {
        "data": {
            "type": "object",
            "additionalProperties": {"type": "string", "format": "byte"},
            "description": "Secret values by key, base64 on the wire.",
        },
        "stringData": _string_map("Write-only plain-text values, merged into data."),
        "type": _s("How the data is meant to be used, e.g. Opaque."),
        "immutable": _b("When true, data can no longer be changed."),
    },
    ("", "Namespace"): {
        "spec": {
            "type": "object",
            "description": _SPEC,
            "properties": {"finalizers": _strings("Must be empty before the namespace goes.")},
        },
        "status": {
            "type": "object",
            "description": _STATUS,
            "properties": {"phase": _s("Active or Terminating.")},
        },
    },
    ("", "Pod"): {
        "spec": {
            **_open(_SPEC),
            "properties": {
                "containers": {
                    "type": "array",
                    "items": _open("One container: name, image, command, ports, ..."),
                    "description": "The containers of the pod; at least one.",
                },
                "nodeName": _s("The node the pod is bound to."),
                "restartPolicy": _s("Always, OnFailure or Never."),
                "serviceAccountName": _s("The service account the pod runs as."),
            },
        },
        "status": {
            **_open(_STATUS),
            "properties": {
                "phase": _s("Pending, Running, Succeeded, Failed or Unknown."),
                "podIP": _s("The pod's primary IP address."),
                "conditions": {
                    "type": "array",
                    "items": _open("A condition: type, status, reason, message."),
                    "description": "Current service state of the pod.",
                },
            },
        },
    },
    ("", "Service"): {"spec": _open(_SPEC), "status": _open(_STATUS)},
    ("", "Node"): {"spec": _open(_SPEC), "status": _open(_STATUS)},
    ("", "Event"): {
        "involvedObject": _open("The object this event is about."),
        "reason": _s("Short machine-readable reason, e.g. Scheduled."),
        "message": _s("Human-readable description."),
        "type": _s("Normal or Warning."),
        "count": {"type": "integer", "format": "int32", "description": "Occurrences seen."},
        "firstTimestamp": _time("First occurrence."),
        "lastTimestamp": _time("Latest occurrence."),
        "eventTime": ref(META + "MicroTime", "When the event was first observed."),
        "source": _open("The component that reported the event."),
        "reportingComponent": _s("Name of the reporting controller."),
        "reportingInstance": _s("Identity of the reporting controller instance."),
        "action": _s("What was done, or failed to be done."),
        "related": _open("A secondary object involved."),
        "series": _open("Data about a series of repeated events."),
    },
    ("coordination.k8s.io", "Lease"): {
        "spec": {
            "type": "object",
            "description": _SPEC,
            "properties": {
                "holderIdentity": _s("Who holds the lease."),
                "leaseDurationSeconds": {
                    "type": "integer",
                    "format": "int32",
                    "description": "How long a holder may go without renewing.",
                },
                "acquireTime": ref(META + "MicroTime", "When the current holder took it."),
                "renewTime": ref(META + "MicroTime", "When the holder last renewed it."),
                "leaseTransitions": {
                    "type": "integer",
                    "format": "int32",
                    "description": "How many times the holder changed.",
                },
                "preferredHolder": _s("Who should hold the lease next."),
                "strategy": _s("How the next holder is picked."),
            },
        },
    },
    ("apiextensions.k8s.io", "CustomResourceDefinition"): {
        "spec": {
            **_open(_SPEC),
            "required": ["group", "names", "scope", "versions"],
            "properties": {
                "group": _s("API group of the custom resource."),
                "names": _open("plural, singular, kind, listKind, shortNames, categories."),
                "scope": _s("Namespaced or Cluster."),
                "versions": {
                    "type": "array",
                    "items": _open("name, served, storage, schema, subresources, columns."),
                    "description": "The versions served; exactly one is the storage version.",
                },
                "conversion": _open("How objects convert between versions."),
                "preserveUnknownFields": _b("Legacy: keep fields the schema does not name."),
            },
        },
        "status": {
            **_open(_STATUS),
            "properties": {
                "acceptedNames": _open("The names actually being served."),
                "conditions": {
                    "type": "array",
                    "items": _open("A condition such as Established or NamesAccepted."),
                    "description": "Current state of the definition.",
                },
                "storedVersions": _strings("Every version ever used for storage."),
            },
        },
    },
}


def kind_properties(group: str, kind: str) -> dict[str, Any]:
    """Top-level properties of a built-in kind (besides apiVersion/kind/metadata), or ``{}``."""
    return dict(_KINDS.get((group, kind), {}))
