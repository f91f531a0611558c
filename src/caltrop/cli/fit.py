"""Choosing a layout that fits the terminal: the full table when it fits, a compact one if not."""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.segment import Segment

#: A width at which nothing of a screen's tables wraps or is cut.
_UNBOUNDED = 1000


def fits(console: Console, options: ConsoleOptions, renderable: RenderableType) -> bool:
    """Whether ``renderable`` renders at the console's width as it would with room to spare:
    no line wrapped (as many lines) and nothing cut short with ``…``."""
    return _fitted(console, options, renderable) is not None


def _fitted(
    console: Console, options: ConsoleOptions, renderable: RenderableType
) -> list[list[Segment]] | None:
    """``renderable``'s lines at the console's width if it :func:`fits`, else None: the lines
    are what is printed, so a screen that fits is drawn twice, not three times (a 200-creature
    table cost 0.1 s a draw after every command: issue 21 item 6; 100 adds at 250 columns 11.2 ->
    8.6 s, the same output)."""
    wide_options = options.update_width(_UNBOUNDED)
    narrow = console.render_lines(renderable, options, pad=False, new_lines=True)
    wide = console.render_lines(renderable, wide_options, pad=False)

    def cuts(lines: list[list[Segment]]) -> int:
        return sum(segment.text.count("…") for line in lines for segment in line)

    return narrow if len(narrow) == len(wide) and cuts(narrow) == cuts(wide) else None


class Fitted:
    """Renders the first of ``layouts`` that :func:`fits` the width it is given, else the last."""

    def __init__(self, *layouts: RenderableType) -> None:
        if not layouts:
            raise ValueError("Fitted needs at least one layout")
        self.layouts = layouts

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for layout in self.layouts[:-1]:
            lines = _fitted(console, options, layout)
            if lines is not None:
                for line in lines:
                    yield from line
                return
        yield self.layouts[-1]
