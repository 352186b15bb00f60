"""ExponentialBackoff: client-go's reflector pacing on an injected clock."""

from __future__ import annotations

import pytest

from kubeforge.core.clock import FakeClock
from kubeforge.watch import ExponentialBackoff


def test_delays_double_from_the_initial_value_up_to_the_cap():
    backoff = ExponentialBackoff(clock=FakeClock(), jitter=0)
    delays = [backoff.next_delay() for _ in range(8)]
    assert delays == pytest.approx([0.8, 1.6, 3.2, 6.4, 12.8, 25.6, 30.0, 30.0])


def test_jitter_only_lengthens_a_delay_by_up_to_its_own_length():
    clock = FakeClock()
    for _ in range(200):
        backoff = ExponentialBackoff(clock=clock)
        first, second = backoff.next_delay(), backoff.next_delay()
        assert 0.8 <= first <= 1.6
        assert 1.6 <= second <= 3.2


def test_two_quiet_minutes_start_the_sequence_over():
    clock = FakeClock()
    backoff = ExponentialBackoff(clock=clock, jitter=0)
    assert [backoff.next_delay() for _ in range(3)] == pytest.approx([0.8, 1.6, 3.2])
    clock.advance(119)
    assert backoff.next_delay() == pytest.approx(6.4)  # still the same episode
    clock.advance(120)
    assert backoff.next_delay() == pytest.approx(0.8)


def test_reset_forgets_past_failures():
    backoff = ExponentialBackoff(clock=FakeClock(), jitter=0)
    backoff.next_delay()
    backoff.next_delay()
    backoff.reset()
    assert backoff.next_delay() == pytest.approx(0.8)


def test_nonsensical_parameters_are_rejected():
    with pytest.raises(ValueError):
        ExponentialBackoff(initial=5, maximum=1)
