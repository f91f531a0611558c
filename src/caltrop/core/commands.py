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
    gm: set aria prone on                          SetFact: a condition, in both modules (R48)
    gm: damage goblin 3 · gm: heal bron 5          ChangeHealth (R48)
    gm: set bron load 2 · gm: set kestrel rp 1     SetStat: Load, Exhaustion, Buffer; AP, RP, Stamina (R48)
    gm: add goblin as goblin-4 after goblin-3      AddCreature: reinforcements (R48)
    gm: remove goblin-2                            RemoveCreature (R48)
    gm: order aria,goblin-1,bron                   Reorder: the turn order (R48)
    gm: pass all                                   PassAll: everyone still to be asked passes
    total 14                                       RollTotal: a chance outcome by its total
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import TypeAlias

from caltrop.core.ids import id_problem
from caltrop.core.model import CreatureDef
from caltrop.core.pool import Advantage
from caltrop.dice.faces import parse_faces
from caltrop.errors import InvalidActionError

#: R34: coordinates are finite numbers within ±10,000 m.
COORDINATE_LIMIT = 10_000

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
    #: ``move toward ID`` / ``move N m toward X,Y`` (R35): a partial move along the line
    toward: bool = False
    #: at most this many meters (``4 m``), with ``toward``
    meters: float | None = None

    def __str__(self) -> str:
        if self.toward:
            return self._toward_text()
        parts = [f"{self.actor}: {self.action}", *self.targets]
        if self.weapons:
            parts += ["with", "+".join(self.weapons)]
        if self.dc is not None:
            parts += ["dc", str(self.dc)]
        if self.to is not None:
            parts += ["to", f"{_num(self.to[0])},{_num(self.to[1])}"]
        parts += [f"+{f}" for f in self.flags]
        return " ".join(parts) + _advantages_text(self.advantages)

    def _toward_text(self) -> str:
        parts = [f"{self.actor}: {self.action}"]
        far = [f"{_num(self.meters)} m"] if self.meters is not None else []
        if self.to is not None:
            parts += [*far, "toward", f"{_num(self.to[0])},{_num(self.to[1])}"]
        else:
            parts += ["toward", *self.targets, *far]
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
    if not (math.isfinite(x) and math.isfinite(y)) or max(abs(x), abs(y)) > COORDINATE_LIMIT:
        raise InvalidActionError(
            f"a position is two numbers within ±{COORDINATE_LIMIT:,} m (R34), not {text!r}"
        )
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


#: The stats a GM may set (R48): the Action Load module's, then the Action Point module's.
STATS = ("load", "exhaustion", "buffer", "ap", "rp", "stamina")


@dataclass(frozen=True, slots=True)
class ChangeHealth:
    """The GM deals ``amount`` damage to ``target``, or heals it (R48): Health stays within
    0…max; 0 is down, and healing a downed creature above 0 brings it back."""

    target: str
    amount: int
    heal: bool = False

    def __str__(self) -> str:
        return f"gm: {'heal' if self.heal else 'damage'} {self.target} {self.amount}"


@dataclass(frozen=True, slots=True)
class SetStat:
    """The GM sets one of :data:`STATS` of ``target`` (R48): ``gm: set bron load 2``."""

    target: str
    stat: str
    value: int

    def __str__(self) -> str:
        return f"gm: set {self.target} {self.stat} {self.value}"


@dataclass(frozen=True, slots=True)
class AddCreature:
    """Reinforcements (R48): ``gm: add goblin as goblin-4 after goblin-3`` or ``… by initiative``.

    ``source`` names the creature (a bundled or included creature, or a creature file); the
    engine finds it in the encounter's reserves unless ``creature`` carries its definition
    (resolved by the caller, and kept in the log so the log replays on its own). ``creature``
    is not part of the text form and does not take part in equality.
    """

    source: str
    as_id: str | None = None
    after: str | None = None
    by_initiative: bool = False
    creature: CreatureDef | None = field(default=None, compare=False, hash=False, repr=False)

    def __str__(self) -> str:
        parts = [f"gm: add {self.source}"]
        if self.as_id is not None:
            parts += ["as", self.as_id]
        if self.after is not None:
            parts += ["after", self.after]
        if self.by_initiative:
            parts += ["by", "initiative"]
        return " ".join(parts)


@dataclass(frozen=True, slots=True)
class RemoveCreature:
    """The GM takes ``target`` out of the encounter (R48): gone, not down."""

    target: str

    def __str__(self) -> str:
        return f"gm: remove {self.target}"


@dataclass(frozen=True, slots=True)
class Reorder:
    """The GM sets the turn order (R48): every creature in the encounter, once each."""

    order: tuple[str, ...]

    def __str__(self) -> str:
        return f"gm: order {','.join(self.order)}"


@dataclass(frozen=True, slots=True)
class Undo:
    """The GM takes back the last decision: the last command, with the rolls that had no dice
    to roll after it (a declined defence, settled on its own). It is a command of its own in
    the log, so history is never deleted: a replay applies it as it was applied at the table.
    The dice are rewound with the state, so the same roll again rolls the same dice."""

    def __str__(self) -> str:
        return "gm: undo"


@dataclass(frozen=True, slots=True)
class PassAll:
    """Everyone still to be asked about the pending roll passes (the GM moves the table on)."""

    def __str__(self) -> str:
        return "gm: pass all"


Command: TypeAlias = (
    Act
    | EndTurn
    | Pass
    | RollDice
    | RollTotal
    | CallRoll
    | EndEncounter
    | SetFact
    | ChangeHealth
    | SetStat
    | AddCreature
    | RemoveCreature
    | Reorder
    | PassAll
    | Undo
)
#: The command classes, for ``isinstance`` checks.
COMMAND_TYPES = (
    Act,
    EndTurn,
    Pass,
    RollDice,
    RollTotal,
    CallRoll,
    EndEncounter,
    SetFact,
    ChangeHealth,
    SetStat,
    AddCreature,
    RemoveCreature,
    Reorder,
    PassAll,
    Undo,
)
#: The GM's commands (R48 and the GM's calls), refused to anyone but the ``gm:`` actor.
GM_COMMANDS = (
    CallRoll,
    EndEncounter,
    SetFact,
    ChangeHealth,
    SetStat,
    AddCreature,
    RemoveCreature,
    Reorder,
    PassAll,
    Undo,
)

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


def _new_id(text: str, line: str) -> str:
    """The id ``gm: add … as ID`` gives: the one id rule of content and logs (issue 21), so a
    game can never take an id its log would be refused for."""
    problem = id_problem(text)
    if problem is not None:
        raise InvalidActionError(f"{line[:80]!r}: not a creature id: {problem}")
    return text


def _int(text: str, what: str, line: str) -> int:
    if re.fullmatch(r"[+-]?[0-9]{1,7}", text):
        return int(text)
    if re.fullmatch(r"[+-]?[0-9]+", text):
        raise InvalidActionError(f"{what} must be a whole number of at most 7 digits")
    raise InvalidActionError(f"{what} must be a whole number, not {text!r} in {line!r}")


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
                advantage = Advantage(
                    "adv" if kind == "adv" else "dis", _word(source, "an advantage source", line)
                )
                if advantage in advantages:
                    raise InvalidActionError(
                        f"{token} twice in {line!r}: one creature's source counts once, a second "
                        "time adds nothing (R14, R47)"
                    )
                advantages.append(advantage)
                if len(advantages) > MAX_ADVANTAGES:
                    raise InvalidActionError(
                        f"at most {MAX_ADVANTAGES} sources of advantage on one action"
                    )
            else:
                flags.add(kind)
        else:
            words.append(token)
    return words, tuple(advantages), flags


#: The longest command line, and the most advantages one command may carry.
MAX_COMMAND = 2_000
MAX_ADVANTAGES = 20


def parse_command(line: str) -> Command:
    """Parse the text form of a command; raises :class:`InvalidActionError` saying what is wrong."""
    if not isinstance(line, str):
        raise InvalidActionError(f"a command is text, not {type(line).__name__}")
    if len(line) > MAX_COMMAND:
        raise InvalidActionError(f"a command is at most {MAX_COMMAND:,} characters")
    if not line.isprintable() and any(ch not in " \t\r\n" and not ch.isprintable() for ch in line):
        raise InvalidActionError("a command holds no control characters")
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
    toward = False
    meters: float | None = None
    i = 1
    while i < len(words):
        word = words[i]
        if word == "toward" and i + 1 < len(words) and not toward and to is None:
            toward = True
            if "," in words[i + 1]:
                to = _point(words[i + 1], line)
            else:
                targets.append(_word(words[i + 1], "a target", line))
            i += 2
        elif words[i + 1 : i + 2] == ["m"] and _is_number(word) and meters is None:
            meters = _meters(word, line)
            i += 2
        elif word == "to" and i + 1 < len(words):
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
    if meters is not None and not toward:
        raise InvalidActionError(f"{line!r}: a distance goes with 'toward' (move 4 m toward X,Y)")
    return Act(actor, action, tuple(targets), weapons, dc, advantages, to, flags, toward, meters)


def _is_number(text: str) -> bool:
    return bool(re.fullmatch(r"[0-9]+(\.[0-9]+)?", text))


def _meters(text: str, line: str) -> float:
    value = float(text)
    if not 0 < value <= COORDINATE_LIMIT:
        raise InvalidActionError(f"{line!r}: a distance is more than 0 and at most 10,000 m")
    return value


def _ordered_flags(tokens: list[str]) -> list[str]:
    """``+stealth``-style flags (not ``+adv:``/``+dis:``), in the order written."""
    return [t[1:] for t in tokens if t.startswith("+") and ":" not in t]


def _parse_chance(text: str) -> Command:
    word, _, rest = text.partition(" ")
    if word == "roll":
        if not rest:
            return RollDice()
        return RollDice(parse_faces(rest))  # R5: ASCII digits, at least one face
    if word == "total" and rest:
        return RollTotal(_int(rest, "a total", text))
    raise InvalidActionError(
        f"{text!r}: a command is 'CREATURE: ACTION …', 'roll [faces]' or 'gm: call …'"
    )


_SET_USAGE = (
    "'gm: set CREATURE CONDITION on|off' (prone, or a condition the ruleset names), "
    "'gm: set CREATURE aware|sight OTHER on|off', 'gm: set CREATURE at X,Y' "
    f"or 'gm: set CREATURE {'|'.join(STATS)} N'"
)


def _parse_set(tokens: list[str], line: str) -> SetFact | SetStat:
    if len(tokens) < 4:
        raise InvalidActionError(f"{line!r}: {_SET_USAGE}")
    subject = _word(tokens[1], "a creature id", line)
    fact = tokens[2]
    if fact in STATS:
        if len(tokens) != 4:
            raise InvalidActionError(f"{line!r}: 'gm: set CREATURE {fact} N'")
        return SetStat(subject, fact, _int(tokens[3], f"{fact}", line))
    if fact == "at":
        if len(tokens) != 4:
            raise InvalidActionError(f"{line!r}: {_SET_USAGE}")
        return SetFact(subject, fact, at=_point(tokens[3], line))
    rest = tokens[3:]
    other = None
    if fact in ("aware", "sight"):
        if len(rest) != 2:
            raise InvalidActionError(f"{line!r}: {_SET_USAGE}")
        other = _word(rest[0], "a creature id", line)
        rest = rest[1:]
    else:
        _word(fact, "a condition", line)
    if rest not in (["on"], ["off"]):
        raise InvalidActionError(f"{line!r}: {_SET_USAGE}")
    return SetFact(subject, fact, other, rest[0] == "on")


def _amount(tokens: list[str], line: str) -> ChangeHealth:
    verb = tokens[0]
    if len(tokens) != 3:
        raise InvalidActionError(f"{line!r}: 'gm: {verb} CREATURE N'")
    amount = _int(tokens[2], f"{verb} amount", line)
    if amount <= 0:
        raise InvalidActionError(f"{line!r}: {verb} needs a positive number, not {amount}")
    return ChangeHealth(_word(tokens[1], "a creature id", line), amount, verb == "heal")


_ADD_USAGE = "'gm: add CREATURE [as ID] [after ID | by initiative]'"


def _parse_add(tokens: list[str], line: str) -> AddCreature:
    if len(tokens) < 2:
        raise InvalidActionError(f"{line!r}: {_ADD_USAGE}")
    source = tokens[1]
    if not source.isprintable() or len(source) > 300:
        raise InvalidActionError(f"{line!r}: a creature is a name or a file path")
    as_id = after = None
    by_initiative = False
    rest = tokens[2:]
    while rest:
        if rest[0] == "as" and len(rest) >= 2 and as_id is None:
            as_id, rest = _new_id(rest[1], line), rest[2:]
        elif rest[0] == "after" and len(rest) >= 2 and after is None and not by_initiative:
            after, rest = _word(rest[1], "a creature id", line), rest[2:]
        elif rest[:2] == ["by", "initiative"] and after is None and not by_initiative:
            by_initiative, rest = True, rest[2:]
        else:
            raise InvalidActionError(f"{line!r}: {_ADD_USAGE}")
    return AddCreature(source, as_id, after, by_initiative)


def _parse_gm(tokens: list[str], line: str) -> Command:
    if tokens == ["end", "encounter"]:
        return EndEncounter()
    if tokens and tokens[0] == "set":
        return _parse_set(tokens, line)
    if tokens == ["pass", "all"]:
        return PassAll()
    if tokens[0] == "undo":
        if len(tokens) != 1:
            raise InvalidActionError(
                f"{line!r}: 'gm: undo' takes nothing more (undo once a command)"
            )
        return Undo()
    if tokens[0] in ("damage", "heal"):
        return _amount(tokens, line)
    if tokens[0] == "add":
        return _parse_add(tokens, line)
    if tokens[0] == "remove":
        if len(tokens) != 2:
            raise InvalidActionError(f"{line!r}: 'gm: remove CREATURE'")
        return RemoveCreature(_word(tokens[1], "a creature id", line))
    if tokens[0] == "order":
        ids = [t for chunk in tokens[1:] for t in chunk.split(",") if t]
        if not ids:
            raise InvalidActionError(f"{line!r}: 'gm: order ID,ID,…' (every creature, once each)")
        return Reorder(tuple(_word(t, "a creature id", line) for t in ids))
    words, advantages, flags = _split_advantages(tokens, line)
    unknown = flags - {"count-load", "no-count-load"}
    if unknown:
        raise InvalidActionError(f"{line!r}: unknown flag(s) {', '.join(sorted(unknown))}")
    if {"count-load", "no-count-load"} <= flags:
        raise InvalidActionError(f"{line!r}: +count-load or +no-count-load, not both")
    if not words or words[0] != "call":
        raise InvalidActionError(
            f"{line!r}: the GM's commands are call, set, damage, heal, add, remove, order, "
            "pass all, undo and end encounter"
        )
    if len(words) not in (3, 5) or (len(words) == 5 and words[3] != "dc"):
        raise InvalidActionError(f"{line!r}: a GM-called roll is 'gm: call CREATURE ASPECT [dc N]'")
    dc = _int(words[4], "a DC", line) if len(words) == 5 else None
    return CallRoll(
        _word(words[1], "a creature id", line),
        _word(words[2], "an Aspect", line),
        dc,
        True if "count-load" in flags else False if "no-count-load" in flags else None,
        advantages,
    )
