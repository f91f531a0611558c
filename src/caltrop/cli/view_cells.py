"""Cells both encounter tables share, from the view model: the title, Health, a side's colour."""

from __future__ import annotations

from rich.markup import escape
from rich.text import Text

from caltrop.table import CreatureView, TableView


def title(tv: TableView) -> str:
    """The table's title; names are text, never rich markup (``[/x] M`` stays as written)."""
    return f"{escape(tv.encounter)} — round {tv.round}"


def health(cv: CreatureView) -> Text:
    """``12/14``, red when down (R16)."""
    return Text(f"{cv.health}/{cv.max_health}", style="red" if cv.down else "")


def side_style(cv: CreatureView) -> str:
    return "cyan" if cv.side == "pc" else "magenta"
