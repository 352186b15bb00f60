"""The ``batch/v1`` kinds, each with its facts for discovery, its rules and its columns.

Entry point: ``KINDS``.
"""

from __future__ import annotations

from kubeforge.apiserver.builtin.batch import columns
from kubeforge.apiserver.builtin.batch.cronjobs import CronJobStrategy
from kubeforge.apiserver.builtin.batch.jobs import JobStrategy
from kubeforge.apiserver.builtin.kind import STATUS, Kind

__all__ = ["KINDS"]

KINDS = (
    Kind(
        "batch",
        "v1",
        "CronJob",
        "cronjobs",
        short=("cj",),
        subresources=STATUS,
        categories=("all",),
        strategy=CronJobStrategy,
        printer=columns.CRON_JOB,
    ),
    Kind(
        "batch",
        "v1",
        "Job",
        "jobs",
        subresources=STATUS,
        categories=("all",),
        strategy=JobStrategy,
        printer=columns.JOB,
    ),
)
"""The batch/v1 kinds."""
