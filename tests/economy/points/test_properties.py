"""Random legal play of Action Point encounters (seed 004) against the engine's invariants.

Issue 3's properties, for the second economy: a refused command changes neither state nor log;
``is_legal`` agrees with ``apply``; ``undo`` gives back exactly the state before the last command;
``clone()`` is independent and, continued with the same commands, equals the original;
``replay(log)`` equals the live state. And the module's own: AP, RP, floating RP and Stamina never
go below 0 (R31–R33, R37), Stamina never above its maximum (R37), only the turn owner holds AP
(R31), and whoever must decide is standing and has something legal to do.
"""

from __future__ import annotations

import random
from dataclasses import replace
from fractions import Fraction

import pytest

from caltrop.core.commands import Act, Command, EndTurn, Pass, RollDice, parse_command
from caltrop.core.model import EncounterDef, Initiative
from caltrop.economy.points.state import points
from caltrop.encounter import CHANCE, TERMINAL, Encounter
from caltrop.errors import CaltropError
from tests.encounter.points_builders import ap_ruleset, duel, replayed, skirmish

GAMES = [
    ("skirmish", skirmish, 0),
    ("skirmish", skirmish, 1),
    ("skirmish-initiative", lambda: skirmish(ap_ruleset(Initiative.CHECK)), 2),
    ("duel", duel, 3),
    ("duel-initiative", lambda: duel(ap_ruleset(Initiative.CHECK)), 4),
    ("duel", duel, 5),
    ("duel", duel, 6),
]
MAX_STEPS = 600


def _choose(enc: Encounter, rng: random.Random) -> Command:
    if enc.current() == CHANCE:
        return RollDice()
    options = list(enc.legal_actions())
    assert options, f"{enc.current()} must decide but has no legal action"
    # end turns less often than uniformly, so that turns see several actions
    acts = [c for c in options if not isinstance(c, EndTurn)]
    if acts and rng.random() < 0.85:
        return rng.choice(acts)
    return rng.choice(options)


def _snap(enc: Encounter) -> tuple[str, list[str], object]:
    return enc.to_json(), enc.log_lines(), enc.key()


def _quick_snap(enc: Encounter) -> tuple[str, int, object, object]:
    """The state, and the log's length and last event (a refusal appends nothing)."""
    return enc.to_json(), len(enc.events), enc.events[-1], enc.key()


def _check_points(enc: Encounter) -> None:
    owner = enc.turn_owner
    for creature, resources in zip(enc.creatures, enc.resources, strict=True):
        s = points(resources)
        assert s.ap >= 0
        assert s.rp >= 0
        assert s.floating >= 0
        assert 0 <= s.stamina <= creature.stats.get("stamina", 0)  # R37
        if owner is not None and creature.id != owner:
            assert s.ap == 0  # R31: unspent AP are lost; only the owner has AP
        if creature.id == owner:
            assert s.rp == 0  # R32: on its own turn it pays in AP


def _check_decision(enc: Encounter) -> None:
    who = enc.current()
    if who == TERMINAL:
        assert enc.is_terminal()
        return
    if who == CHANCE:
        total = sum((p for _, p in enc.chance_outcomes()), Fraction(0))
        assert total == 1
        return
    i = enc.index(who)
    assert not enc.down[i]
    assert any(True for _ in enc.legal_actions())


def _mutations(enc: Encounter, command: Command, rng: random.Random) -> list[Command]:
    """Commands near a legal one: other actors, targets, positions, flags and dice."""
    ids = [c.id for c in enc.creatures] + ["ghost"]
    out: list[Command] = [RollDice((9,)), Pass(rng.choice(ids)), EndTurn(rng.choice(ids))]
    if isinstance(command, Act):
        out += [
            replace(command, actor=rng.choice(ids)),
            replace(command, targets=(rng.choice(ids),)),
            replace(command, to=(rng.uniform(-9, 9), rng.uniform(-9, 9))),
            replace(command, flags=("stealth", "careful")),
            replace(command, action=rng.choice(["block", "assist", "escape", "leap", "fly"])),
        ]
    return out


@pytest.mark.parametrize(("name", "build", "seed"), GAMES, ids=[f"{g[0]}-{g[2]}" for g in GAMES])
def test_random_legal_play_keeps_every_invariant(name: str, build: object, seed: int) -> None:
    """Random play to the end (bounded): refusals change nothing, ``is_legal`` agrees with
    ``apply``, the points stay in bounds, and the log replays to the same state."""
    definition: EncounterDef = build()  # type: ignore[operator]
    enc = Encounter.begin(definition, seed)
    rng = random.Random(seed)
    for step in range(MAX_STEPS):
        _check_points(enc)
        _check_decision(enc)
        if enc.is_terminal():
            break
        command = _choose(enc, rng)
        if step % 3 == 0:
            before = _quick_snap(enc)
            for other in _mutations(enc, command, rng):
                if enc.is_legal(other):
                    continue  # a mutation may happen to be legal: not applied here
                with pytest.raises(CaltropError):
                    enc.apply(other)
                assert _quick_snap(enc) == before
        assert enc.is_legal(command)
        enc.apply(command)
    again = replayed(enc)
    assert again.to_json() == enc.to_json()
    assert again.log_lines() == enc.log_lines()
    assert again.key() == enc.key()


@pytest.mark.parametrize(("name", "build", "seed"), GAMES[:3], ids=[g[0] for g in GAMES[:3]])
def test_undo_gives_back_the_state_before_and_redo_the_state_after(
    name: str, build: object, seed: int
) -> None:
    """``undo`` (``gm: undo``: the state rebuilt without the last command) gives exactly the
    state before it, while the log keeps its whole history (the undone command and the undo
    are both in it, issue 11); applying the same command again gives exactly the state after
    it, seeded dice included (the dice are rewound with the state)."""
    definition: EncounterDef = build()  # type: ignore[operator]
    enc = Encounter.begin(definition, seed)
    rng = random.Random(100 + seed)
    for step in range(240):
        if enc.is_terminal():
            break
        before = _snap(enc)
        command = _choose(enc, rng)
        enc.apply(command)
        if step % 12 == 0 and not enc._free[-1]:  # a dice-free roll goes back with its cause
            after = _snap(enc)
            assert enc.undo() == command
            assert (_snap(enc)[0], _snap(enc)[2]) == (before[0], before[2])
            assert enc.log_lines() == [
                *after[1],
                f'{{"command": "gm: undo", "event": "command", "n": {len(after[1])}}}',
            ]
            enc.apply(command)
            assert (_snap(enc)[0], _snap(enc)[2]) == (after[0], after[2])


@pytest.mark.parametrize(("name", "build", "seed"), GAMES, ids=[f"{g[0]}-{g[2]}" for g in GAMES])
def test_clones_are_independent_and_continue_identically(
    name: str, build: object, seed: int
) -> None:
    """``clone()`` shares nothing that changes: playing on a clone leaves the original as it was;
    a clone taken half-way and given the same commands ends exactly like the original."""
    definition: EncounterDef = build()  # type: ignore[operator]
    enc = Encounter.begin(definition, seed)
    rng = random.Random(200 + seed)
    clones: list[tuple[Encounter, int]] = []
    for step in range(MAX_STEPS):
        if enc.is_terminal():
            break
        if step % 40 == 0:
            frozen = _snap(enc)
            probe = enc.clone()
            probe_rng = random.Random(step)
            for _ in range(15):
                if probe.is_terminal():
                    break
                probe.apply(_choose(probe, probe_rng))
            assert _snap(enc) == frozen
            clones.append((enc.clone(), len(enc.commands)))
        enc.apply(_choose(enc, rng))
    for twin, at in clones:
        for command in enc.commands[at:]:
            twin.apply(command)
        assert _snap(twin) == _snap(enc)


def test_text_commands_round_trip_through_the_log() -> None:
    """Every command of AP play has a text form that parses back to itself (the log is text)."""
    enc = Encounter.begin(skirmish(), 5)
    rng = random.Random(5)
    for _ in range(300):
        if enc.is_terminal():
            break
        command = _choose(enc, rng)
        assert parse_command(str(command)) == command
        enc.apply(command)
