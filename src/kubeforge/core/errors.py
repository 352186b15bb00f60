"""The one exception tree of kubeforge.

::

    KubeforgeError
    ├── ConfigError            a kubeconfig or in-cluster setting is missing or wrong
    ├── TransportError         the server could not be reached or the connection broke
    ├── ResourceNotFound       discovery has no such resource type (kubectl's wording)
    ├── SchemaError            a Python type no structural CRD schema can express
                               (also a ValueError)
    └── ApiError               the server answered with a failure ``Status``
        ├── BadRequest              400
        ├── Unauthorized            401
        ├── Forbidden               403
        ├── NotFound                404
        ├── MethodNotAllowed        405
        ├── AlreadyExists           409, reason AlreadyExists
        ├── Conflict                409, any other reason
        ├── Gone                    410 (reasons Gone and Expired): relist
        ├── RequestEntityTooLarge   413
        ├── UnsupportedMediaType    415
        ├── Invalid                 422
        ├── TooManyRequests         429
        ├── InternalError           500
        ├── ServiceUnavailable      503
        └── ServerTimeout           504

Every ``ApiError`` carries the server's ``Status`` body unchanged, so nothing the
server said is lost. ``ApiError.from_status`` picks the subclass by ``reason``
first and ``code`` second, the way client-go's ``apierrors.IsX`` helpers do.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "AlreadyExists",
    "ApiError",
    "BadRequest",
    "ConfigError",
    "Conflict",
    "Forbidden",
    "Gone",
    "InternalError",
    "Invalid",
    "KubeforgeError",
    "MethodNotAllowed",
    "NotFound",
    "RequestEntityTooLarge",
    "ResourceNotFound",
    "SchemaError",
    "ServerTimeout",
    "ServiceUnavailable",
    "TooManyRequests",
    "TransportError",
    "Unauthorized",
    "UnsupportedMediaType",
    "ignore_not_found",
]


class KubeforgeError(Exception):
    """Root of every error kubeforge raises on purpose."""


class ConfigError(KubeforgeError):
    """Connection settings are missing or malformed.

    The message names the file, the context and the field at fault, e.g.
    ``/home/me/.kube/config: context "dev": cluster "x" not found``.
    """


class TransportError(KubeforgeError):
    """The API server could not be reached, or the connection broke mid-request."""


class ResourceNotFound(KubeforgeError):
    """Discovery does not know the requested resource type.

    Reads like kubectl: ``the server doesn't have a resource type "widgets"``.
    """

    def __init__(self, resource: str) -> None:
        super().__init__(f'the server doesn\'t have a resource type "{resource}"')
        self.resource = resource


class SchemaError(KubeforgeError, ValueError):
    """A Python type that a structural CRD schema cannot express (``kubeforge.crd``).

    The message names the field at fault, e.g. ``children.[]: Node contains itself``.
    Also a ``ValueError``: the class given is a wrong value for a schema.
    """


class ApiError(KubeforgeError):
    """The server answered with a failure; ``status`` is its ``Status`` object verbatim."""

    code: int = 0

    def __init__(self, status: dict[str, Any]) -> None:
        self.status = status
        self.code = int(status.get("code") or type(self).code)
        self.reason: str = str(status.get("reason") or "")
        self.message: str = str(status.get("message") or "")
        super().__init__(f"{self.code} {self.reason}: {self.message}".strip())

    @property
    def details(self) -> dict[str, Any]:
        """``status.details`` (name, group, kind, causes, retryAfterSeconds), or ``{}``."""
        details = self.status.get("details")
        return details if isinstance(details, dict) else {}

    @property
    def retry_after_seconds(self) -> int | None:
        value = self.details.get("retryAfterSeconds")
        return int(value) if isinstance(value, int) else None

    @staticmethod
    def from_status(status: dict[str, Any], code: int | None = None) -> ApiError:
        """Build the most specific error for a ``Status`` body (and HTTP code, if known)."""
        if code is not None and not status.get("code"):
            status = {**status, "code": code}
        reason = status.get("reason") or ""
        cls = _BY_REASON.get(reason) or _BY_CODE.get(int(status.get("code") or 0)) or ApiError
        return cls(status)


class BadRequest(ApiError):
    code = 400


class Unauthorized(ApiError):
    code = 401


class Forbidden(ApiError):
    code = 403


class NotFound(ApiError):
    code = 404


class MethodNotAllowed(ApiError):
    code = 405


class Conflict(ApiError):
    code = 409


class AlreadyExists(Conflict):
    code = 409


class Gone(ApiError):
    """410: the requested resourceVersion or continue token is older than the server keeps."""

    code = 410


class RequestEntityTooLarge(ApiError):
    code = 413


class UnsupportedMediaType(ApiError):
    code = 415


class Invalid(ApiError):
    """422: the object failed validation; ``details["causes"]`` names each field."""

    code = 422


class TooManyRequests(ApiError):
    code = 429


class InternalError(ApiError):
    code = 500


class ServiceUnavailable(ApiError):
    code = 503


class ServerTimeout(ApiError):
    code = 504


_BY_REASON: dict[str, type[ApiError]] = {
    "BadRequest": BadRequest,
    "Unauthorized": Unauthorized,
    "Forbidden": Forbidden,
    "NotFound": NotFound,
    "MethodNotAllowed": MethodNotAllowed,
    "AlreadyExists": AlreadyExists,
    "Conflict": Conflict,
    "Gone": Gone,
    "Expired": Gone,
    "RequestEntityTooLarge": RequestEntityTooLarge,
    "UnsupportedMediaType": UnsupportedMediaType,
    "Invalid": Invalid,
    "TooManyRequests": TooManyRequests,
    "InternalError": InternalError,
    "ServiceUnavailable": ServiceUnavailable,
    "Timeout": ServerTimeout,
}

_BY_CODE: dict[int, type[ApiError]] = {
    400: BadRequest,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    405: MethodNotAllowed,
    409: Conflict,
    410: Gone,
    413: RequestEntityTooLarge,
    415: UnsupportedMediaType,
    422: Invalid,
    429: TooManyRequests,
    500: InternalError,
    503: ServiceUnavailable,
    504: ServerTimeout,
}


def ignore_not_found(error: BaseException) -> None:
    """Re-raise ``error`` unless it is a ``NotFound`` (controller-runtime's ``IgnoreNotFound``)."""
    if not isinstance(error, NotFound):
        raise error
