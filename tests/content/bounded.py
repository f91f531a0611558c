"""Bounded, reproducible Hypothesis settings for the content fuzzers (issue 10).

Issue 10: "Hypothesis fuzzers that run in CI (bounded examples, fixed seed database off)". Each
fuzzer is bounded by its example count and derandomised (a fixed seed, no example database), so a
failure is the same on every machine and the suite stays fast; :func:`within` bounds one call's
wall time, so a hang or a blow-up fails the test instead of stalling it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from hypothesis import HealthCheck, settings

T = TypeVar("T")


def fuzz(max_examples: int) -> settings:
    """``@fuzz(100)``: 100 derandomised examples, no example database, no deadline flakiness."""
    return settings(
        max_examples=max_examples,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )


def within(seconds: float, call: Callable[[], T]) -> T:
    """``call()``, failing if it took longer than ``seconds`` (generous: the machine is shared,
    so only a hang or a blow-up should cross it)."""
    start = time.perf_counter()
    try:
        return call()
    finally:
        took = time.perf_counter() - start
        assert took < seconds, f"took {took:.2f} s; the bound is {seconds} s"
