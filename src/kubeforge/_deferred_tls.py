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

import importlib.abc
import importlib.machinery
import ssl
import sys
import threading
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

__all__ = ["install"]

_TARGET = "aiohttp.connector"
_DEFERRED = ("load_default_certs", "set_default_verify_paths")


class _DeferredCertsContext(ssl.SSLContext):
    """A context whose default-certificate loading waits until the context is used."""

    _pending: list[tuple[str, tuple[Any, ...]]]
    _loading = threading.Lock()

    def _load_pending(self) -> None:
        with self._loading:
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


def _deferring(name: str) -> Callable[..., None]:
    def record(self: ssl.SSLContext, *args: Any) -> None:
        if not isinstance(self, _DeferredCertsContext):
            self.__class__ = _DeferredCertsContext
            self._pending = []
        self._pending.append((name, args))

    return record


class _Loader(importlib.abc.Loader):
    """Runs the real loader with the two certificate loaders deferred."""

    def __init__(self, real: importlib.abc.Loader) -> None:
        self._real = real

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self._real.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        saved = {name: ssl.SSLContext.__dict__.get(name) for name in _DEFERRED}
        for name in _DEFERRED:
            setattr(ssl.SSLContext, name, _deferring(name))
        try:
            self._real.exec_module(module)
        finally:
            for name, original in saved.items():
                if original is None:
                    delattr(ssl.SSLContext, name)  # inherited from the C base again
                else:
                    setattr(ssl.SSLContext, name, original)


class _Finder(importlib.abc.MetaPathFinder):
    """Finds ``aiohttp.connector`` once, through the other finders, and wraps its loader."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != _TARGET:
            return None
        _uninstall(self)
        for finder in sys.meta_path:
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = _Loader(spec.loader)
                return spec
        return None


def _uninstall(finder: _Finder) -> None:
    try:
        sys.meta_path.remove(finder)
    except ValueError:
        pass  # another thread's import got there first


def install() -> None:
    """Defer aiohttp's default-certificate loading, unless aiohttp's connector is loaded."""
    if _TARGET in sys.modules or any(isinstance(f, _Finder) for f in sys.meta_path):
        return
    sys.meta_path.insert(0, _Finder())
