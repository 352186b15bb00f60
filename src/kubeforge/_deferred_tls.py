"""aiohttp's default TLS contexts read the system CA bundle on first use, not at import.

aiohttp (3.10 and later) builds two ``SSLContext`` objects when ``aiohttp.connector``
is imported and loads the system's CA bundle into both: about 60 ms of parsing
certificates, a sixth of what ``import kubeforge`` would otherwise cost. kubeforge
never uses those two contexts (its client hands aiohttp the cluster's own context,
``client/_transport.py``; its servers build theirs), so paying for them at import is
paying for nothing.

``install()`` (called by ``kubeforge/__init__``) registers a one-shot import hook.
While ``aiohttp.connector`` is executed, ``SSLContext.load_default_certs`` and
``set_default_verify_paths`` record what was asked instead of reading the bundle;
each context they were called on reads it the first time it wraps a connection or
is asked about its certificate store. So other aiohttp code in the same process
still verifies against the system's CAs, exactly as before, and pays the ~30 ms
once, on its first HTTPS connection. If aiohttp is already imported, or stops
building contexts at import, nothing changes.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import ssl
    from importlib.machinery import ModuleSpec

__all__ = ["install"]

_TARGET = "aiohttp.connector"
_DEFERRED = ("load_default_certs", "set_default_verify_paths")
# Plain duck-typed finder and loader, and ``ssl`` imported only when aiohttp's connector
# is: ``import kubeforge.models.core_v1`` must not pay for ssl or importlib.abc.


def _deferred_context_class() -> type[ssl.SSLContext]:
    import ssl

    class DeferredCertsContext(ssl.SSLContext):
        """A context whose default-certificate loading waits until the context is used."""

        _pending: list[tuple[str, tuple[Any, ...]]]

        def _load_pending(self) -> None:
            # Swapped in one step, so two threads never load the same request twice.
            pending, self._pending = self._pending, []
            for name, args in pending:
                getattr(ssl.SSLContext, name)(self, *args)

        def wrap_socket(self, *args: Any, **kwargs: Any) -> ssl.SSLSocket:
            self._load_pending()
            return super().wrap_socket(*args, **kwargs)

        def wrap_bio(self, *args: Any, **kwargs: Any) -> ssl.SSLObject:
            self._load_pending()
            return super().wrap_bio(*args, **kwargs)

        def get_ca_certs(self, binary_form: bool = False) -> Any:
            self._load_pending()
            return super().get_ca_certs(binary_form)

        def cert_store_stats(self) -> dict[str, int]:
            self._load_pending()
            return super().cert_store_stats()

    return DeferredCertsContext


def _deferring(name: str, deferred: type[ssl.SSLContext]) -> Callable[..., None]:
    def record(self: ssl.SSLContext, *args: Any) -> None:
        if not isinstance(self, deferred):
            self.__class__ = deferred
            self._pending = []  # type: ignore[attr-defined]
        self._pending.append((name, args))  # type: ignore[attr-defined]

    return record


class _Loader:
    """Runs the real loader with the two certificate loaders deferred."""

    def __init__(self, real: Any) -> None:
        self._real = real

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)  # get_source (tracebacks), is_package, ...

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        create: Callable[[ModuleSpec], ModuleType | None] | None = getattr(
            self._real, "create_module", None
        )
        return create(spec) if create is not None else None

    def exec_module(self, module: ModuleType) -> None:
        import ssl

        deferred = _deferred_context_class()
        saved = {name: ssl.SSLContext.__dict__.get(name) for name in _DEFERRED}
        for name in _DEFERRED:
            setattr(ssl.SSLContext, name, _deferring(name, deferred))
        try:
            self._real.exec_module(module)
        finally:
            for name, original in saved.items():
                if original is None:
                    delattr(ssl.SSLContext, name)  # inherited from the C base again
                else:
                    setattr(ssl.SSLContext, name, original)


class _Finder:
    """Finds ``aiohttp.connector`` once, through the other finders, and wraps its loader."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname != _TARGET:
            return None
        _uninstall(self)
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            spec: ModuleSpec | None = find(fullname, path, target) if find is not None else None
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = _Loader(spec.loader)  # type: ignore[assignment]
                return spec
        return None


def _uninstall(finder: _Finder) -> None:
    with contextlib.suppress(ValueError):  # another thread's import got there first
        sys.meta_path.remove(finder)


def install() -> None:
    """Defer aiohttp's default-certificate loading, unless aiohttp's connector is loaded."""
    if _TARGET in sys.modules or any(isinstance(f, _Finder) for f in sys.meta_path):
        return
    sys.meta_path.insert(0, _Finder())
