"""Choosing a layout that fits the terminal: the full table when it fits, a compact one if not."""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.segment import Segment

#: A width at which nothing of a screen's tables wraps or is cut.
_UNBOUNDED = 1000


def fits(console: Console, options: ConsoleOptions, renderable: RenderableType) -> bool:
    """Whether ``renderable`` renders at the console's width as it would with room to spare:
    no line wrapped (as many lines) and nothing cut short with ``…``."""
    narrow = console.render_lines(renderable, options, pad=False)
    wide = console.render_lines(renderable, options.update_width(_UNBOUNDED), pad=False)

    def cuts(lines: list[list[Segment]]) -> int:
        return sum(segment.text.count("…") for line in lines for segment in line)

    return len(narrow) == len(wide) and cuts(narrow) == cuts(wide)


class Fitted:
    """Renders the first of ``layouts`` that :func:`fits` the width it is given, else the last."""

    def __init__(self, *layouts: RenderableType) -> None:
        if not layouts:
            raise ValueError("Fitted needs at least one layout")
        self.layouts = layouts

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for layout in self.layouts[:-1]:
            if fits(console, options, layout):
                yield layout
                return
        yield self.layouts[-1]
