"""Commands: the moves of an encounter, as small value objects with a round-tripping text form.

The text form is one notation shared by the log, the CLI and tests
(``parse_command(str(c)) == c``, checked by a property test)::

    aria: strike goblin with dagger +adv:torch     Act (an action, its targets, weapon, advantage)
    aria: pick-lock dc 12                          Act with a DC
    bron: hinder                                   Act: a team action on the pending roll (R15)
    bron: pass                                     Pass: decline to react to the pending roll
    aria: end turn                                 EndTurn (R18: always allowed on one's turn)
    roll                                           RollDice with the engine's seeded RNG
    roll 3,1,4,4,2,7                               RollDice with entered physical dice (R5)
    gm: call aria finesse dc 12 +count-load        CallRoll: a GM-called roll (R17); Load counts
    gm: call aria finesse +no-count-load           … or not (neither flag: the ruleset's default)
    gm: end encounter                              EndEncounter
    gm: set goblin aware aria off                  SetFact: the GM's facts (R34, seed 004)
    total 14                                       RollTotal: a chance outcome by its total
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TypeAlias

from caltrop.core.pool import Advantage
from caltrop.errors import InvalidActionError

_WORD = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.'-]*$")


def _advantages_text(advantages: tuple[Advantage, ...]) -> str:
    return "".join(f" {a}" for a in advantages)


@dataclass(frozen=True, slots=True)
class Act:
    """``actor`` takes ``action`` (on its turn, or as a reaction/team action on another's)."""

    actor: str
    action: str
    targets: tuple[str, ...] = ()
    weapons: tuple[str, ...] = ()
    dc: int | None = None
    advantages: tuple[Advantage, ...] = ()
    to: tuple[float, float] | None = None
    flags: tuple[str, ...] = ()

    def __str__(self) -> str:
        parts = [f"{self.actor}: {self.action}", *self.targets]
        if self.weapons:
            parts += ["with", "+".join(self.weapons)]
        if self.dc is not None:
            parts += ["dc", str(self.dc)]
        if self.to is not None:
            parts += ["to", f"{_num(self.to[0])},{_num(self.to[1])}"]
        parts += [f"+{f}" for f in self.flags]
        return " ".join(parts) + _advantages_text(self.advantages)


def _num(x: float) -> str:
    """A coordinate in meters: ``3`` for 3.0, ``2.5`` for 2.5."""
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def _point(text: str, line: str) -> tuple[float, float]:
    xs = text.split(",")
    if len(xs) != 2:
        raise InvalidActionError(f"a position is X,Y in meters, not {text!r} in {line!r}")
    try:
        x, y = float(xs[0]), float(xs[1])
    except ValueError:
        raise InvalidActionError(f"a position is X,Y in meters, not {text!r} in {line!r}") from None
    if x != x or y != y or abs(x) == float("inf") or abs(y) == float("inf"):
        raise InvalidActionError(f"a position is two finite numbers, not {text!r}")
    return (x, y)


@dataclass(frozen=True, slots=True)
class EndTurn:
    """``actor`` ends its turn, perhaps early (R18)."""

    actor: str

    def __str__(self) -> str:
        return f"{self.actor}: end turn"


@dataclass(frozen=True, slots=True)
class Pass:
    """``actor`` declines to react to the pending roll (closes its part of the reaction window)."""

    actor: str

    def __str__(self) -> str:
        return f"{self.actor}: pass"


@dataclass(frozen=True, slots=True)
class RollDice:
    """Roll the pending roll: with the engine's seeded RNG, or ``entered`` physical dice (R5)."""

    entered: tuple[int, ...] | None = None

    def __str__(self) -> str:
        if self.entered is None:
            return "roll"
        return "roll " + ",".join(map(str, self.entered))


@dataclass(frozen=True, slots=True)
class RollTotal:
    """Resolve the pending roll with a given total (exact solvers walking chance outcomes)."""

    total: int

    def __str__(self) -> str:
        return f"total {self.total}"


@dataclass(frozen=True, slots=True)
class CallRoll:
    """The GM calls for a roll of ``target``'s ``aspect`` (R17).

    Whether Load counts is the GM's choice per roll: ``True`` (``+count-load``), ``False``
    (``+no-count-load``), or ``None`` for the ruleset's ``gm_roll_counts_load`` default.
    """

    target: str
    aspect: str
    dc: int | None = None
    count_load: bool | None = None
    advantages: tuple[Advantage, ...] = ()

    def __str__(self) -> str:
        parts = [f"gm: call {self.target} {self.aspect}"]
        if self.dc is not None:
            parts += ["dc", str(self.dc)]
        if self.count_load is not None:
            parts.append("+count-load" if self.count_load else "+no-count-load")
        return " ".join(parts) + _advantages_text(self.advantages)


@dataclass(frozen=True, slots=True)
class EndEncounter:
    """The GM ends the encounter (when one side yields or flees, say)."""

    def __str__(self) -> str:
        return "gm: end encounter"


#: The facts a GM sets in the Action Point module (R34): ``gm: set goblin aware aria off``.
FACTS = ("prone", "aware", "sight", "at")


@dataclass(frozen=True, slots=True)
class SetFact:
    """The GM sets a fact the engine does not trace (R34): line of sight, awareness, prone, place.

    ``gm: set aria prone on`` · ``gm: set goblin aware aria off`` (the goblin is not aware of
    Aria) · ``gm: set goblin sight aria off`` (no line of sight) · ``gm: set aria at 3,4``.
    """

    subject: str
    fact: str
    other: str | None = None
    value: bool = True
    at: tuple[float, float] | None = None

    def __str__(self) -> str:
        if self.at is not None:
            return f"gm: set {self.subject} at {_num(self.at[0])},{_num(self.at[1])}"
        other = f" {self.other}" if self.other else ""
        return f"gm: set {self.subject} {self.fact}{other} {'on' if self.value else 'off'}"


Command: TypeAlias = Act | EndTurn | Pass | RollDice | RollTotal | CallRoll | EndEncounter | SetFact
#: The command classes, for ``isinstance`` checks.
COMMAND_TYPES = (Act, EndTurn, Pass, RollDice, RollTotal, CallRoll, EndEncounter, SetFact)

#: The actor of a command that is not any creature's decision.
GM = "gm"


def command_actor(command: Command) -> str:
    """Who issues ``command``: a creature id, or ``"gm"`` for rolls and GM calls."""
    if isinstance(command, Act | EndTurn | Pass):
        return command.actor
    return GM


def _word(text: str, what: str, line: str) -> str:
    if not _WORD.match(text):
        raise InvalidActionError(f"{what} must be one word, not {text!r} in {line!r}")
    return text


def _int(text: str, what: str, line: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise InvalidActionError(
            f"{what} must be a whole number, not {text!r} in {line!r}"
        ) from None


def _split_advantages(
    tokens: list[str], line: str
) -> tuple[list[str], tuple[Advantage, ...], set[str]]:
    words: list[str] = []
    advantages: list[Advantage] = []
    flags: set[str] = set()
    for token in tokens:
        if token.startswith("+"):
            kind, sep, source = token[1:].partition(":")
            if sep:
                if kind not in ("adv", "dis"):
                    raise InvalidActionError(
                        f"{token!r}: advantage is written +adv:SOURCE or +dis:SOURCE (in {line!r})"
                    )
                advantages.append(
                    Advantage(
                        "adv" if kind == "adv" else "dis",
                        _word(source, "an advantage source", line),
                    )
                )
            else:
                flags.add(kind)
        else:
            words.append(token)
    return words, tuple(advantages), flags


def parse_command(line: str) -> Command:
    """Parse the text form of a command; raises :class:`InvalidActionError` saying what is wrong."""
    text = " ".join(line.split())
    if not text:
        raise InvalidActionError("empty command")
    head, colon, rest = text.partition(":")
    if not colon:
        return _parse_chance(text)
    actor = head.strip().lower() if head.strip().lower() == GM else head.strip()
    tokens = rest.split()
    if not tokens:
        raise InvalidActionError(f"{line!r}: nothing after '{head}:'")
    if actor == GM:
        return _parse_gm(tokens, line)
    _word(actor, "a creature id", line)
    words, advantages, flag_set = _split_advantages(tokens, line)
    flags = tuple(_word(f, "a flag", line) for f in _ordered_flags(tokens))
    if flag_set and words in (["end", "turn"], ["end"], ["pass"]):
        raise InvalidActionError(f"{line!r}: flags go with actions, not with {' '.join(words)!r}")
    if words == ["end", "turn"] or words == ["end"]:
        return EndTurn(actor)
    if words == ["pass"]:
        return Pass(actor)
    if not words:
        raise InvalidActionError(f"{line!r}: which action?")
    action = _word(words[0], "an action name", line)
    targets: list[str] = []
    weapons: tuple[str, ...] = ()
    dc: int | None = None
    to: tuple[float, float] | None = None
    i = 1
    while i < len(words):
        word = words[i]
        if word == "to" and i + 1 < len(words):
            to = _point(words[i + 1], line)
            i += 2
        elif word == "with" and i + 1 < len(words):
            weapons = tuple(_word(w, "a weapon", line) for w in words[i + 1].split("+"))
            i += 2
        elif word == "dc" and i + 1 < len(words):
            dc = _int(words[i + 1], "a DC", line)
            i += 2
        else:
            targets.append(_word(word, "a target", line))
            i += 1
    return Act(actor, action, tuple(targets), weapons, dc, advantages, to, flags)


def _ordered_flags(tokens: list[str]) -> list[str]:
    """``+stealth``-style flags (not ``+adv:``/``+dis:``), in the order written."""
    return [t[1:] for t in tokens if t.startswith("+") and ":" not in t]


def _parse_chance(text: str) -> Command:
    word, _, rest = text.partition(" ")
    if word == "roll":
        if not rest:
            return RollDice()
        faces = [f for f in re.split(r"[,\s]+", rest) if f]
        return RollDice(tuple(_int(f, "a die face", text) for f in faces))
    if word == "total" and rest:
        return RollTotal(_int(rest, "a total", text))
    raise InvalidActionError(
        f"{text!r}: a command is 'CREATURE: ACTION …', 'roll [faces]' or 'gm: call …'"
    )


def _parse_set(tokens: list[str], line: str) -> SetFact:
    usage = (
        "'gm: set CREATURE prone on|off', 'gm: set CREATURE aware|sight OTHER on|off' "
        "or 'gm: set CREATURE at X,Y'"
    )
    if len(tokens) < 3 or tokens[2] not in FACTS:
        raise InvalidActionError(f"{line!r}: {usage}")
    subject = _word(tokens[1], "a creature id", line)
    fact = tokens[2]
    if fact == "at":
        if len(tokens) != 4:
            raise InvalidActionError(f"{line!r}: {usage}")
        return SetFact(subject, fact, at=_point(tokens[3], line))
    rest = tokens[3:]
    other = None
    if fact in ("aware", "sight"):
        if len(rest) != 2:
            raise InvalidActionError(f"{line!r}: {usage}")
        other = _word(rest[0], "a creature id", line)
        rest = rest[1:]
    if rest not in (["on"], ["off"]):
        raise InvalidActionError(f"{line!r}: {usage}")
    return SetFact(subject, fact, other, rest[0] == "on")


def _parse_gm(tokens: list[str], line: str) -> Command:
    if tokens == ["end", "encounter"]:
        return EndEncounter()
    if tokens and tokens[0] == "set":
        return _parse_set(tokens, line)
    words, advantages, flags = _split_advantages(tokens, line)
    unknown = flags - {"count-load", "no-count-load"}
    if unknown:
        raise InvalidActionError(f"{line!r}: unknown flag(s) {', '.join(sorted(unknown))}")
    if {"count-load", "no-count-load"} <= flags:
        raise InvalidActionError(f"{line!r}: +count-load or +no-count-load, not both")
    if len(words) not in (3, 5) or words[0] != "call" or (len(words) == 5 and words[3] != "dc"):
        raise InvalidActionError(f"{line!r}: a GM-called roll is 'gm: call CREATURE ASPECT [dc N]'")
    dc = _int(words[4], "a DC", line) if len(words) == 5 else None
    return CallRoll(
        _word(words[1], "a creature id", line),
        _word(words[2], "an Aspect", line),
        dc,
        True if "count-load" in flags else False if "no-count-load" in flags else None,
        advantages,
    )
