"""The dice core: notation, exact distributions, defences, rolls and vectorised rolling.

>>> from caltrop.dice import distribution, parse
>>> str(parse("5d4 + 1d8"))
'5d4+1d8'
>>> distribution("3d4").p_at_least_exact(10)
Fraction(5, 32)
"""

from caltrop.dice.ast import Const, Dice, Div, Expr, Group, Term, pool
from caltrop.dice.defence import blocked, defence_total, dodged, undefended
from caltrop.dice.distribution import Distribution, clear_caches, constant, dice, distribution
from caltrop.dice.parse import parse
from caltrop.dice.render import render_d4_math, render_json, render_plain
from caltrop.dice.roll import DiceRoll, EnteredDice, RngDice, Roll, roll
from caltrop.dice.vector import roll_totals

__all__ = [
    "Const",
    "Dice",
    "DiceRoll",
    "Distribution",
    "Div",
    "EnteredDice",
    "Expr",
    "Group",
    "RngDice",
    "Roll",
    "Term",
    "blocked",
    "clear_caches",
    "constant",
    "defence_total",
    "dice",
    "distribution",
    "dodged",
    "parse",
    "pool",
    "render_d4_math",
    "render_json",
    "render_plain",
    "roll",
    "roll_totals",
    "undefended",
]
