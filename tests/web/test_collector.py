"""A serving process's collector (issue 11's p99: full collections over a thousand sockets'
worth of objects paused every command in flight for 160-480 ms)."""

from __future__ import annotations

import subprocess
import sys

from caltrop.web.collector import THRESHOLDS

PROBE = """
import gc
from caltrop.web import create_app
from caltrop.web.collector import settle_for_serving
app = create_app()
before = gc.get_freeze_count()
settle_for_serving()
print(before, gc.get_freeze_count(), *gc.get_threshold())
"""


def test_serving_freezes_what_is_alive_and_sets_the_young_threshold() -> None:
    found = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, check=True, timeout=120
    )
    before, frozen, *thresholds = map(int, found.stdout.split())
    assert before == 0
    assert frozen > 10_000  # the imported modules and the app are out of every pass
    assert tuple(thresholds) == THRESHOLDS
    assert THRESHOLDS[0] > 700  # younger objects die young rather than being promoted


def test_caltrop_serve_settles_its_collector_before_serving() -> None:
    from caltrop.cli import serve

    source = serve.__loader__.get_source(serve.__name__)  # type: ignore[union-attr]
    assert source is not None
    assert source.index("settle_for_serving()") < source.index("uvicorn.run(")
