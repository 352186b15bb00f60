"""Event validation, as 1.32's ``pkg/apis/core/validation/events.go`` words it.

Both Event APIs store one object (the core/v1 form), and Go validates that internal
form, so every rule here reads a core/v1 Event and every field path uses its names
(``involvedObject``, ``message``, ``source``, ``firstTimestamp``) whichever API was
written. A write through ``/api/v1`` gets only the legacy rules
(``legacyValidateEvent``); one through ``events.k8s.io/v1`` gets those and the strict
ones too (``ValidateEventCreate`` / ``ValidateEventUpdate`` by request version).

Entry points: ``legacy_errors``, ``strict_create_errors``, ``strict_update_errors``.

>>> [str(e) for e in legacy_errors({"metadata": {"namespace": "ns"}, "involvedObject": {}})]
['involvedObject.namespace: Invalid value: "": does not match event.namespace']
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from kubeforge.apiserver.failures import FieldError, GoValue
from kubeforge.apiserver.meta.validation import dns1123_subdomain
from kubeforge.core.names import qualified_name

__all__ = ["legacy_errors", "strict_create_errors", "strict_update_errors"]

# Byte limits of a new-style event's fields (ReportingInstanceLengthLimit ...).
_LIMITS = (("reportingInstance", 128), ("action", 128), ("reason", 128), ("message", 1024))
_REFERENCE_FIELDS = (
    ("Kind", "kind"),
    ("Namespace", "namespace"),
    ("Name", "name"),
    ("UID", "uid"),
    ("APIVersion", "apiVersion"),
    ("ResourceVersion", "resourceVersion"),
    ("FieldPath", "fieldPath"),
)


def _text(event: dict[str, Any], key: str) -> str:
    value = event.get(key)
    return value if isinstance(value, str) else ""


def _dict(event: dict[str, Any], key: str) -> dict[str, Any]:
    value = event.get(key)
    return value if isinstance(value, dict) else {}


def _invalid_blank(field: str, detail: str) -> FieldError:
    """Go reports these with an empty string as the value, whatever was sent."""
    return FieldError.invalid(field, "", detail)


def legacy_errors(event: dict[str, Any]) -> list[FieldError]:
    """``legacyValidateEvent``: what every Event write must pass."""
    namespace = str((event.get("metadata") or {}).get("namespace") or "")
    involved = str(_dict(event, "involvedObject").get("namespace") or "")
    mismatch = FieldError.invalid(
        "involvedObject.namespace", involved, "does not match event.namespace"
    )
    errors: list[FieldError] = []
    if not event.get("eventTime"):
        # An old-style event: its namespace is its object's (or "default" for none).
        if (not involved and namespace not in ("", "default")) or (
            involved and namespace != involved
        ):
            errors.append(mismatch)
    else:
        if not involved and namespace not in ("default", "kube-system"):
            errors.append(mismatch)
        errors += _reporting_errors(event)
    errors += [FieldError.invalid("namespace", namespace, m) for m in dns1123_subdomain(namespace)]
    return errors


def _reporting_errors(event: dict[str, Any]) -> list[FieldError]:
    """A new-style event's reporter, action and reason, and the lengths of its texts."""
    errors: list[FieldError] = []
    controller = _text(event, "reportingComponent")
    if not controller:
        errors.append(FieldError.required("reportingController"))
    errors += [
        FieldError.invalid("reportingController", controller, m) for m in qualified_name(controller)
    ]
    for key, limit in _LIMITS:
        size = len(_text(event, key).encode())
        if key != "message" and size == 0:
            errors.append(FieldError.required(key))
        if size > limit:
            errors.append(_invalid_blank(key, f"can have at most {limit} characters"))
    return errors


def _series_errors(event: dict[str, Any]) -> list[FieldError]:
    series = event.get("series")
    if series is None:
        return []
    series = series if isinstance(series, dict) else {}
    errors: list[FieldError] = []
    count = series.get("count")
    if not isinstance(count, int) or count < 2:
        errors.append(_invalid_blank("series.count", "should be at least 2"))
    if not series.get("lastObservedTime"):
        errors.append(FieldError.required("series.lastObservedTime"))
    return errors


def strict_create_errors(event: dict[str, Any]) -> list[FieldError]:
    """``ValidateEventCreate`` beyond the legacy rules, for ``events.k8s.io/v1`` (the
    object's metadata is the engine's to check)."""
    errors = _series_errors(event)
    if not event.get("eventTime"):
        errors.append(FieldError.required("eventTime"))
    kind = _text(event, "type")
    if kind not in ("Normal", "Warning"):
        errors.append(_invalid_blank("type", f"has invalid value: {kind}"))
    for key in ("firstTimestamp", "lastTimestamp"):
        if event.get(key):
            errors.append(_invalid_blank(key, "needs to be unset"))
    if event.get("count"):
        errors.append(_invalid_blank("count", "needs to be unset"))
    source = _dict(event, "source")
    if source.get("component") or source.get("host"):
        errors.append(_invalid_blank("source", "needs to be unset"))
    return errors


# The fields ValidateEventUpdate holds still, in its order ("reason" twice, as Go has it),
# each with how Go prints its value.
_IMMUTABLE = (
    ("involvedObject", "reference"),
    ("reason", "string"),
    ("message", "string"),
    ("source", "source"),
    ("firstTimestamp", "time"),
    ("lastTimestamp", "time"),
    ("count", "int"),
    ("reason", "string"),
    ("type", "string"),
    ("eventTime", "time"),
    ("action", "string"),
    ("related", "pointer"),
    ("reportingComponent", "string"),
    ("reportingInstance", "string"),
)


def strict_update_errors(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """``ValidateEventUpdate`` beyond the legacy rules, for ``events.k8s.io/v1``."""
    errors: list[FieldError] = []
    if new.get("series") != old.get("series"):
        errors += _series_errors(new)
    for key, shape in _IMMUTABLE:
        if _comparable(new, key, shape) != _comparable(old, key, shape):
            field = "reportingController" if key == "reportingComponent" else key
            errors.append(
                FieldError.invalid(field, _go_value(new, key, shape), "field is immutable")
            )
    return errors


def _comparable(event: dict[str, Any], key: str, shape: str) -> Any:
    """The field as Go's semantic equality sees it: absent and zero alike."""
    value = event.get(key)
    if shape in ("reference", "source"):
        return {k: v for k, v in (value or {}).items() if v}
    if shape == "time":
        return _parsed(value)
    return value or None


def _parsed(value: Any) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.fromisoformat(value).astimezone(UTC)
    except ValueError:
        return None


def _go_value(event: dict[str, Any], key: str, shape: str) -> Any:
    """The value as Go's field error prints it."""
    value = event.get(key)
    if shape == "string":
        return value if isinstance(value, str) else ""
    if shape == "int":
        return value if isinstance(value, int) else 0
    if shape == "time":
        return GoValue(_go_time(_parsed(value)))
    if shape == "source":
        source = value if isinstance(value, dict) else {}
        fields = ", ".join(
            f"{name}:{GoValue.quote(str(source.get(key) or ''))}"
            for name, key in (("Component", "component"), ("Host", "host"))
        )
        return GoValue(f"core.EventSource{{{fields}}}")
    if not isinstance(value, dict):
        return GoValue('"null"') if shape == "pointer" else GoValue(_go_reference({}))
    return GoValue(_go_reference(value))


def _go_reference(reference: dict[str, Any]) -> str:
    """``%#v`` of a ``core.ObjectReference``."""
    fields = ", ".join(
        f"{name}:{GoValue.quote(str(reference.get(key) or ''))}" for name, key in _REFERENCE_FIELDS
    )
    return f"core.ObjectReference{{{fields}}}"


def _go_time(moment: datetime | None) -> str:
    """``time.Time.String()`` of a time decoded on a UTC server (fraction trimmed)."""
    if moment is None:
        return "0001-01-01 00:00:00 +0000 UTC"
    text = f"{moment:%Y-%m-%d %H:%M:%S}"
    if moment.microsecond:
        text += f".{moment.microsecond:06d}".rstrip("0")
    return f"{text} +0000 UTC"
