"""Hub-and-spoke conversion between the versions of a custom resource: ``Conversion``.

Entry points: ``Conversion(hub=v1.Frigate).spoke(v1beta1.Frigate, to_hub=..., from_hub=...)``
declares how each version (a spoke) converts to and from the one version that all
convert through (the hub, usually the stored one), as controller-runtime's
``conversion.Hub``/``Convertible`` do; ``ConversionWebhook(conversions)`` serves them
at ``/convert`` with ``apiextensions.k8s.io/v1`` ``ConversionReview``.

Each object of a review is decoded with its version's model class, converted
spoke -> hub -> spoke (a step is skipped where one side is the hub), and encoded as
``desiredAPIVersion``. What the converter functions need not think about:

- ``metadata`` comes back as it was sent (the API server refuses any change but to
  labels and annotations); labels and annotations the converter set are kept, so a
  converter may stash a field the other version lacks in an annotation.
- Fields the source model does not declare (kept by the models, see
  ``core.meta``) are put back in the converted object where their parent exists and
  the converter set nothing there.

A failing converter fails the whole review with a ``Failure`` result naming the
versions and the error, which the API server reports to the client; an object of an
unregistered kind or version fails it likewise. An object already at the desired
version is passed through unchanged.

Example::

    conversion = Conversion(hub=v1.Frigate).spoke(
        v1beta1.Frigate, to_hub=frigate_to_v1, from_hub=frigate_from_v1
    )
    server.register(CONVERT_PATH, ConversionWebhook([conversion]))
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

import msgspec
import orjson
from aiohttp import web

from kubeforge.core.meta import Model, convert, to_builtins
from kubeforge.core.resource import Resource
from kubeforge.webhook.admission import read_json_body

__all__ = ["CONVERT_PATH", "Conversion", "ConversionError", "ConversionWebhook", "copy_as"]

log = logging.getLogger("kubeforge.webhook.conversion")

CONVERT_PATH = "/convert"
"""Where controller-runtime (and the kubebuilder CRD patch) serves conversion."""

H = TypeVar("H", bound=Resource)
S = TypeVar("S", bound=Resource)


R = TypeVar("R", bound=Resource)


def copy_as(obj: Resource, cls: type[R]) -> R:
    """``obj`` read as ``cls``: the same fields under ``cls``'s apiVersion, unknown ones kept.

    The starting point of a converter between versions that share their fields; rename,
    split or drop fields on the result from there.
    """
    data = to_builtins(obj)
    data["apiVersion"] = cls.info.api_version
    return convert(data, cls)


class ConversionError(Exception):
    """An object could not be converted; the review fails with this message."""


@dataclass(frozen=True, slots=True)
class _Spoke:
    cls: type[Resource]
    to_hub: Callable[[Any], Resource]
    from_hub: Callable[[Any], Resource]


class Conversion:
    """The versions of one kind and how each converts to and from the hub."""

    def __init__(self, hub: type[Resource]) -> None:
        self.hub = hub
        self.spokes: dict[str, _Spoke] = {}

    @property
    def group(self) -> str:
        return self.hub.info.group

    @property
    def kind(self) -> str:
        return self.hub.info.kind

    @property
    def versions(self) -> list[str]:
        return [self.hub.info.version, *self.spokes]

    def spoke(
        self,
        cls: type[S],
        *,
        to_hub: Callable[[S], Resource],
        from_hub: Callable[[Any], S],
    ) -> Conversion:
        """Add a version; returns ``self`` so spokes chain."""
        info = cls.info
        if (info.group, info.kind) != (self.group, self.kind):
            raise ValueError(
                f"{info.api_version} {info.kind} is not a version of {self.group} {self.kind}"
            )
        if info.version == self.hub.info.version or info.version in self.spokes:
            raise ValueError(f"version {info.version} of {self.kind} is declared twice")
        self.spokes[info.version] = _Spoke(cls, to_hub, from_hub)
        return self

    def convert(self, obj: dict[str, Any], api_version: str) -> dict[str, Any]:
        """``obj`` (any version of this kind, as a dict) as ``api_version``."""
        source = str(obj.get("apiVersion") or "")
        if source == api_version:
            return obj
        src_version, dst_version = self._version(source), self._version(api_version)
        src_cls = self._class(src_version)
        try:
            typed = convert(obj, src_cls)
        except msgspec.ValidationError as error:
            raise ConversionError(f"cannot decode {source} {self.kind}: {error}") from None
        hub = typed if src_version == self.hub.info.version else self._to_hub(src_version, typed)
        out = hub if dst_version == self.hub.info.version else self._from_hub(dst_version, hub)
        result: dict[str, Any] = to_builtins(out)
        result["apiVersion"], result["kind"] = api_version, self.kind
        result["metadata"] = _metadata(obj.get("metadata") or {}, result.get("metadata") or {})
        for parent, key, value in _unknown_fields(typed, ()):
            if parent and parent[0] == "metadata":
                continue
            target = _find(result, parent)
            if isinstance(target, dict) and key not in target:
                target[key] = value
        return result

    def _version(self, api_version: str) -> str:
        group, _, version = api_version.rpartition("/")
        if group != self.group or version not in self.versions:
            raise ConversionError(
                f"{api_version} {self.kind} is not one of the versions of the conversion "
                f"({', '.join(f'{self.group}/{v}' for v in self.versions)})"
            )
        return version

    def _class(self, version: str) -> type[Resource]:
        return self.hub if version == self.hub.info.version else self.spokes[version].cls

    def _to_hub(self, version: str, obj: Resource) -> Resource:
        return self._step(version, obj, self.spokes[version].to_hub, "to")

    def _from_hub(self, version: str, hub: Resource) -> Resource:
        return self._step(version, hub, self.spokes[version].from_hub, "from")

    def _step(
        self, version: str, obj: Resource, step: Callable[[Any], Resource], direction: str
    ) -> Resource:
        try:
            return step(obj)
        except Exception as error:
            raise ConversionError(
                f"{self.kind} {version} failed to convert {direction} hub version "
                f"{self.hub.info.version}: {error}"
            ) from error


def _metadata(sent: dict[str, Any], converted: dict[str, Any]) -> dict[str, Any]:
    metadata = dict(sent)
    for key in ("labels", "annotations"):
        if converted.get(key) is not None:
            metadata[key] = converted[key]
    return metadata


def _unknown_fields(value: Any, path: tuple[str | int, ...]) -> Iterator[tuple[Any, str, Any]]:
    """``(parent path, key, value)`` of every field a model of ``value`` does not declare."""
    if isinstance(value, Model):
        for key, item in (value.unknown_fields_ or {}).items():
            yield path, key, item
        for name in value.__struct_fields__:
            if name == "unknown_fields_":
                continue
            wire = value.__struct_encode_fields__[value.__struct_fields__.index(name)]
            yield from _unknown_fields(getattr(value, name), (*path, wire))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _unknown_fields(item, (*path, index))
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _unknown_fields(item, (*path, key))


def _find(document: Any, path: tuple[str | int, ...]) -> Any:
    for part in path:
        if isinstance(document, dict) and isinstance(part, str):
            document = document.get(part)
        elif isinstance(document, list) and isinstance(part, int) and part < len(document):
            document = document[part]
        else:
            return None
    return document


class ConversionWebhook:
    """The ``/convert`` handler for every registered kind."""

    def __init__(
        self, conversions: Iterable[Conversion] = (), *, on_panic: Callable[[], None] | None = None
    ) -> None:
        self.conversions: dict[tuple[str, str], Conversion] = {}
        self.on_panic = on_panic
        for conversion in conversions:
            self.add(conversion)

    def add(self, conversion: Conversion) -> None:
        key = (conversion.group, conversion.kind)
        if key in self.conversions and self.conversions[key] is not conversion:
            raise ValueError(f"a conversion of {conversion.kind}.{conversion.group} exists already")
        self.conversions[key] = conversion

    async def __call__(self, request: web.Request) -> web.Response:
        body, problem = await read_json_body(request)
        review_request = body.get("request") if isinstance(body, dict) else None
        if problem is not None or not isinstance(review_request, dict):
            log.error("conversion webhook: bad request: %s", problem or "no request in the review")
            return web.Response(status=400)
        response = self.review(review_request)
        out = {
            "apiVersion": body.get("apiVersion") or "apiextensions.k8s.io/v1",
            "kind": "ConversionReview",
            "response": response,
        }
        return web.Response(body=orjson.dumps(out), content_type="application/json")

    def review(self, request: dict[str, Any]) -> dict[str, Any]:
        """The ``ConversionReview.response`` for ``request``."""
        uid = str(request.get("uid") or "")
        desired = str(request.get("desiredAPIVersion") or "")
        try:
            converted = [self.convert(obj, desired) for obj in request.get("objects") or []]
        except ConversionError as error:
            log.error("conversion webhook: %s", error)
            return {
                "uid": uid,
                "result": {"metadata": {}, "status": "Failure", "message": str(error)},
            }
        except Exception:
            log.exception("conversion webhook: a converter raised")
            if self.on_panic is not None:
                self.on_panic()
            message = "internal error occurred during conversion"
            return {"uid": uid, "result": {"metadata": {}, "status": "Failure", "message": message}}
        return {
            "uid": uid,
            "convertedObjects": converted,
            "result": {"metadata": {}, "status": "Success"},
        }

    def convert(self, obj: Any, api_version: str) -> dict[str, Any]:
        if not isinstance(obj, dict):
            raise ConversionError("an object to convert is not a JSON object")
        group = str(obj.get("apiVersion") or "").rpartition("/")[0]
        kind = str(obj.get("kind") or "")
        conversion = self.conversions.get((group, kind))
        if conversion is None:
            raise ConversionError(f'no conversion is registered for kind "{kind}" of "{group}"')
        return conversion.convert(obj, api_version)
