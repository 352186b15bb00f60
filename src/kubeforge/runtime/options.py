"""How a ``Manager`` runs: ``ManagerOptions`` (every field has a default), and
``LeaderElectionOptions``, kept here so that a manager without leader election never
loads the elector (``runtime.leader``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from kubeforge.cache.factory import Kind
from kubeforge.cache.options import CacheOptions
from kubeforge.cache.store import Transform
from kubeforge.webhook.options import WebhookServerOptions

__all__ = ["JITTER_FACTOR", "LeaderElectionOptions", "ManagerOptions"]

JITTER_FACTOR = 1.2
"""A candidate waits ``retry_period * (1 + random() * 1.2)`` between attempts (client-go's)."""


@dataclass(frozen=True, slots=True)
class LeaderElectionOptions:
    """Which lease to contend for, and client-go's timings (controller-runtime's defaults)."""

    lease_name: str
    """The Lease's name (controller-runtime's ``LeaderElectionID``)."""

    namespace: str | None = None
    """The Lease's namespace. Defaults to the client's namespace: the kubeconfig
    context's, or the pod's own in a cluster (controller-runtime's default)."""

    identity: str | None = None
    """This replica's name in ``holderIdentity``. Defaults to ``<hostname>_<uuid>``."""

    lease_duration: float = 15.0
    """Seconds a candidate waits, from the moment it last saw the lease change, before
    taking it over. Defaults to 15 s. Sent as whole seconds (``leaseDurationSeconds``)."""

    renew_deadline: float = 10.0
    """Seconds the leader keeps retrying a failing renewal before giving up the lead.
    Defaults to 10 s; must be shorter than ``lease_duration`` so a leader stops
    before anyone else may start."""

    retry_period: float = 2.0
    """Seconds between attempts to acquire or renew. Defaults to 2 s."""

    release_on_cancel: bool = True
    """Hand the lease over on a clean shutdown (``holderIdentity: ""``,
    ``leaseDurationSeconds: 1``) so a standby takes over at once instead of after
    ``lease_duration``. Defaults to on (controller-runtime's default is off): the
    manager releases only after every controller has stopped, which is the
    condition that makes releasing safe."""

    def __post_init__(self) -> None:
        if not self.lease_name:
            raise ValueError("leader election needs a lease name (leader election ID)")
        if min(self.lease_duration, self.renew_deadline, self.retry_period) <= 0:
            raise ValueError("lease duration, renew deadline and retry period must be positive")
        if self.lease_duration < 1:
            raise ValueError("the lease duration is sent in whole seconds: at least 1 s")
        if self.lease_duration <= self.renew_deadline:
            raise ValueError("the lease duration must be longer than the renew deadline")
        if self.renew_deadline <= JITTER_FACTOR * self.retry_period:
            raise ValueError("the renew deadline must be longer than 1.2 x the retry period")


@dataclass(frozen=True, slots=True)
class ManagerOptions:
    """How a manager runs; every field has a default."""

    cache_sync_timeout: float = 120.0
    """Seconds to wait for every cache's first list before giving up with
    ``CacheSyncTimeout``. Defaults to 2 minutes (controller-runtime's ``CacheSyncTimeout``)."""

    graceful_shutdown_timeout: float = 30.0
    """Seconds running reconciles get to finish on shutdown before they are
    cancelled. Defaults to 30 s (controller-runtime's ``GracefulShutdownTimeout``).
    After leadership is lost there is no grace: another replica may already lead."""

    resync_period: float | None = None
    """Default resync period of every informer: each handler re-sees every cached
    object this often. Defaults to ``None`` (never): a relist or event drives work."""

    metrics_bind_address: str = "0"
    """Where ``/metrics`` is served (``"HOST:PORT"``, ``":PORT"``, ``"0"`` for off).
    Defaults to off for a manager built in code, so tests and notebooks never fight
    over a port; ``kubeforge run`` passes kubebuilder's ``:8080``. The metrics are
    collected either way (``Manager.metrics``). See ``serving`` for ``":PORT"``."""

    metrics_secure: bool = False
    """Serve ``/metrics`` over HTTPS to authenticated, authorized callers only (TokenReview,
    then SubjectAccessReview for ``get`` on ``/metrics``; see ``runtime.metrics_auth``), as
    kubebuilder's ``--metrics-secure`` does. Defaults to plain HTTP for a manager built in
    code; the manifests ``kubeforge init`` writes turn it on."""

    metrics_cert_dir: str = ""
    """Directory of the metrics server's certificate (``metrics_cert_name``,
    ``metrics_cert_key``), reloaded when it changes; ``""``: a self-signed one is made
    at start (controller-runtime's behaviour)."""

    metrics_cert_name: str = "tls.crt"
    metrics_cert_key: str = "tls.key"

    health_probe_bind_address: str = "0"
    """Where ``/healthz`` and ``/readyz`` are served; same spelling. Defaults to off
    (controller-runtime's default); ``kubeforge run`` passes kubebuilder's ``:8081``."""

    leader_election: LeaderElectionOptions | None = None
    """Contend for a Lease and run controllers only while holding it. Defaults to
    ``None``: no election, controllers start once the caches synced."""

    default_transform: Transform | None = None
    """Applied to every object before it is cached, e.g. ``cache.drop_managed_fields``
    (which controller-runtime users set through ``cache.Options.DefaultTransform``).
    Defaults to ``None``: objects are cached as the server sent them."""

    transforms: Mapping[Kind, Transform] = field(default_factory=dict)
    """Per-kind transforms; they replace ``default_transform`` for their kind."""

    cache: CacheOptions = field(default_factory=CacheOptions)
    """What the shared cache holds (controller-runtime's ``cache.Options``): default
    namespaces, selectors and transforms, per kind in ``by_object``. Defaults to
    everything, in every namespace. ``kubeforge run`` takes it from a ``cache_options``
    attribute of the target module, beside ``setup``."""

    webhook: WebhookServerOptions = field(default_factory=WebhookServerOptions)
    """Where ``Manager.webhook_server`` listens and finds its certificate: port 9443 and
    ``<tmp>/k8s-webhook-server/serving-certs`` by default (controller-runtime's). The server
    exists only once a webhook is registered, so a manager without webhooks opens no port."""
