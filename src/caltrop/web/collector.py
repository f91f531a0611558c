"""The garbage collector of a serving process, set for short pauses (issue 11's p99).

CPython's cyclic collector stops the process while it walks every tracked object of the
generation it collects; its full (oldest-generation) pass over a serving process — the
modules, FastAPI's routes, a thousand sockets, two hundred tables' states — took 160–480 ms
under the 200-table load test, and every command in flight waited for it (those pauses *were*
the p99). Two settings take them away without turning collection off:

* everything alive once the server is set up (imported modules, the app) is moved to the
  permanent generation (:func:`gc.freeze`), which no pass walks again;
* the youngest generation is collected after :data:`THRESHOLDS` ``[0]`` allocations rather than
  700, so the many objects a request makes and drops within a few awaits die young instead of
  being promoted to the old generation, whose growth is what triggers a full pass.

Cyclic garbage is still collected (the passes still run, on a larger young generation).
"""

from __future__ import annotations

import gc
from typing import Final

#: (young, middle, old) thresholds of :func:`gc.set_threshold` for a serving process
THRESHOLDS: Final = (50_000, 20, 10)


def settle_for_serving() -> None:
    """Collect once, freeze what is alive, and set :data:`THRESHOLDS` (call once the app is
    built, before serving; it changes the whole process's collector, so a library embedding
    :func:`caltrop.web.create_app` is left to choose its own)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)
