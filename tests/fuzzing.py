"""What every fuzzer in the suite shares: bounded, reproducible Hypothesis settings (issue 10).

The fuzzers run in CI with the rest of the suite, so each is bounded by its example count and
derandomised (a fixed seed, no example database): a failure is the same on every machine and
every run, and the whole suite stays fast. :func:`within` bounds one call's wall time, so a hang
or a quadratic blow-up fails the test instead of stalling it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from hypothesis import HealthCheck, settings

T = TypeVar("T")


#: Settings of a fuzzer: ``@fuzz(200)`` runs 200 derandomised examples, no deadline flakiness.
def fuzz(max_examples: int) -> settings:
    return settings(
        max_examples=max_examples,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )


def within(seconds: float, call: Callable[[], T]) -> T:
    """``call()``, failing if it took longer than ``seconds`` (a generous bound: the machine is
    shared, so only a hang or a blow-up should ever cross it)."""
    start = time.perf_counter()
    result = call()
    took = time.perf_counter() - start
    assert took < seconds, f"took {took:.2f} s; the bound is {seconds} s"
    return result
