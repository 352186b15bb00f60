"""Turn kubeforge's errors into one readable CLI line (no traceback)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import click

from kubeforge.core import errors

__all__ = ["readable_errors"]


@contextmanager
def readable_errors() -> Iterator[None]:
    """Re-raise kubeforge errors as ``click.ClickException``: printed as ``Error: <message>``."""
    try:
        yield
    except errors.KubeforgeError as exc:
        raise click.ClickException(str(exc)) from exc
