"""Who is asked in each roller's reaction window, in turn order (R15), built when first asked.

R15: a declared roll opens a window in which the others, in turn order starting after the
roller, may react. Each roller's window is the turn order rotated past it. The encounter kept
every roller's window as a tuple, rebuilt in full whenever the order changed — and a ``gm: add``
(R48) changes it — so each add cost the square of the creatures (issue 21 item 6: repeated
``gm: add goblin`` slowed quadratically). :class:`TurnWindows` holds the order and each roller's
place in it, and builds a roller's window the first time it is asked for: a change of the order
costs the order's length, and a simulation, whose order is fixed, builds each window once.
"""

from __future__ import annotations

from collections.abc import Sequence


class TurnWindows(dict[int, tuple[int, ...]]):
    """Per roller: the others in turn order starting after it (empty for one not in the order).

    Read-only to its users: ``windows[roller]`` builds that window once and keeps it. Built
    from a copy of the order, so a later change of the order list cannot make it stale."""

    __slots__ = ("_order", "_place")

    def __init__(self, order: Sequence[int]) -> None:
        super().__init__()
        self._order = tuple(order)
        self._place = {roller: pos for pos, roller in enumerate(self._order)}

    def __missing__(self, roller: int) -> tuple[int, ...]:
        pos = self._place.get(roller)
        window = () if pos is None else (*self._order[pos + 1 :], *self._order[:pos])
        self[roller] = window
        return window
