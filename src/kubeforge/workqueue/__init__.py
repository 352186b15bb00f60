"""Work queues with client-go's semantics: de-duplicated, one-at-a-time, delayed, rate-limited.

See ``RateLimitingQueue`` for the queue a controller uses. The package imports
only ``kubeforge.core``: keys are opaque hashables (usually ``ObjectKey``), and
the queue never sees objects or events.

Layers, each adding to the one before:

- ``WorkQueue``: FIFO with dirty/processing sets; ``add``, ``get``, ``done``, shutdown.
- ``DelayingQueue``: ``add_after(key, seconds)`` on an injected ``Clock``.
- ``RateLimitingQueue``: ``add_rate_limited``, ``forget``, ``num_requeues`` via a ``RateLimiter``.

Each layer has its module (``queue``, ``delaying``, ``rate_limiting_queue``), and
the ``RateLimiter`` implementations theirs (``rate_limiters``), as in client-go's
``util/workqueue`` (``rate_limiting_queue.go``, ``default_rate_limiters.go``).

Metrics are reported through the ``MetricsProvider`` protocol; the default
records nothing.
"""

from kubeforge.workqueue.delaying import DelayingQueue
from kubeforge.workqueue.metrics import (
    CounterMetric,
    GaugeMetric,
    HistogramMetric,
    MetricsProvider,
    NoopMetricsProvider,
    SettableGaugeMetric,
)
from kubeforge.workqueue.queue import ShutDown, WorkQueue
from kubeforge.workqueue.rate_limiters import (
    BucketRateLimiter,
    ItemExponentialFailureRateLimiter,
    ItemFastSlowRateLimiter,
    MaxOfRateLimiter,
    RateLimiter,
    WithMaxWaitRateLimiter,
    default_controller_rate_limiter,
    default_item_based_rate_limiter,
)
from kubeforge.workqueue.rate_limiting_queue import RateLimitingQueue

__all__ = [
    "BucketRateLimiter",
    "CounterMetric",
    "DelayingQueue",
    "GaugeMetric",
    "HistogramMetric",
    "ItemExponentialFailureRateLimiter",
    "ItemFastSlowRateLimiter",
    "MaxOfRateLimiter",
    "MetricsProvider",
    "NoopMetricsProvider",
    "RateLimiter",
    "RateLimitingQueue",
    "SettableGaugeMetric",
    "ShutDown",
    "WithMaxWaitRateLimiter",
    "WorkQueue",
    "default_controller_rate_limiter",
    "default_item_based_rate_limiter",
]
