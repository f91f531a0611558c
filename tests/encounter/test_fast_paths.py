"""The engine's fast paths give what the plain rules give.

Issue 3 asks for a state whose clone and step are fast (issue 5: thousands of encounters a
second). The engine therefore works out once per definition which commands each action could
ever give (:class:`~caltrop.economy.load.actions._Choices`), asks whether a creature may react
without building its commands, remembers pool expressions, and rolls dice without the
:class:`~caltrop.dice.Roll` tree. These tests hold those paths to an oracle: legal-action
generation and "who decides now" written out plainly from the rules, as the engine had them
before the fast paths, compared at every step of random play.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator

import numpy as np
import pytest

from caltrop.content import load_encounter
from caltrop.core.commands import GM, Act, Command, EndTurn, Pass, PassAll, RollDice
from caltrop.core.model import ActionDef, ActionKind, EncounterDef
from caltrop.economy.load.state import LoadState
from caltrop.encounter import CHANCE, TERMINAL, Encounter, PendingRoll, RollKind
from tests.encounter.builders import (
    ACTION_LOAD_RULESETS,
    duel,
    goblin_team_example,
    skirmish,
    watch_my_back_example,
)

# -- the oracle: the rules of legal-action generation, written out plainly ----------------------


def _grant_fits(enc: Encounter, i: int, action: ActionDef, other: int) -> bool:
    grant = action.grant
    if grant is None:
        return False
    same = enc.creatures[i].side is enc.creatures[other].side
    return (same and i != other) if grant.to == "ally" else not same  # R47: allies are others


def _candidates(
    enc: Encounter, i: int, action: ActionDef, top: PendingRoll | None
) -> Iterator[Command]:
    creature = enc.creatures[i]
    # R46: the gate sees the Load plus the costs of i's own declared actions still pending
    owed = sum(p.action.cost for p in enc.pending if p.roller == i and p.action is not None)
    resources = LoadState(enc.resources[i].as_dict()["load"] + owed)
    if not enc.economy.allows(creature, resources, action, on_turn=top is None):
        return
    if action.kind is ActionKind.TEAM:
        assert top is not None
        # R47: one creature applies a source key to one roll once
        applied = {creature.action(name).source_key for h, name in top.helpers if h == i}  # type: ignore[union-attr]
        if _grant_fits(enc, i, action, top.roller) and action.source_key not in applied:
            yield Act(creature.id, action.name)
        return
    if action.kind is ActionKind.CHECK:
        if action.dc is not None:
            yield Act(creature.id, action.name)
        return
    weapons: list[tuple[str, ...]] = [()]
    if action.uses_weapon:
        weapons = [
            (w.name,)
            for w in creature.weapons
            if action.weapon_kind is None or w.kind is action.weapon_kind
        ]
    for j, other in enumerate(enc.creatures):
        if j == i or enc.down[j]:
            continue
        if action.kind is ActionKind.ATTACK and other.side is creature.side:
            continue
        if action.kind is ActionKind.EFFECT and (
            action.grant is None or not _grant_fits(enc, i, action, j)
        ):
            continue
        for w in weapons:
            yield Act(creature.id, action.name, (other.id,), w)
    if action.kind is ActionKind.EFFECT and action.grant is None:
        yield Act(creature.id, action.name)


def oracle_legal(enc: Encounter, actor: str) -> list[Command]:
    if enc.over:
        return []
    if actor == GM:
        if not enc.pending:
            return []
        # the GM may roll, and may pass for everyone the window still asks (``gm: pass all``)
        asking = enc.pending[-1].kind is not RollKind.INITIATIVE and oracle_current(enc) != CHANCE
        return [RollDice(), PassAll()] if asking else [RollDice()]
    ids = [c.id for c in enc.creatures]
    if actor not in ids or enc.down[ids.index(actor)]:
        return []
    i = ids.index(actor)
    creature = enc.creatures[i]
    out: list[Command] = []
    if enc.pending:
        top = enc.pending[-1]
        if top.kind is RollKind.INITIATIVE or i == top.roller:
            return []
        for action in creature.actions:
            if action.reaction:
                out.extend(_candidates(enc, i, action, top))
        if i not in top.passed:
            out.append(Pass(actor))
        return out
    if enc.turn_owner != actor:
        return []
    for action in creature.actions:
        if action.kind is not ActionKind.TEAM:
            out.extend(_candidates(enc, i, action, None))
    out.append(EndTurn(actor))
    return out


def oracle_current(enc: Encounter) -> str:
    if enc.over:
        return TERMINAL
    if enc.pending:
        top = enc.pending[-1]
        if top.kind is RollKind.INITIATIVE:
            return CHANCE
        n = len(enc.order)
        start = enc.order.index(top.roller)
        for k in range(1, n):
            i = enc.order[(start + k) % n]
            if enc.down[i] or i in top.passed:
                continue
            if any(
                action.reaction and any(True for _ in _candidates(enc, i, action, top))
                for action in enc.creatures[i].actions
            ):
                return enc.creatures[i].id
        return CHANCE
    owner = enc.turn_owner
    assert owner is not None
    return owner


# -- random play, checked at every step ---------------------------------------------------------


def _definitions() -> dict[str, EncounterDef]:
    out = {f"skirmish-{name}": skirmish(rs) for name, rs in ACTION_LOAD_RULESETS.items()}
    out["duel"] = duel()
    out["goblin-team"] = goblin_team_example()
    out["watch-my-back"] = watch_my_back_example()
    out["goblin-ambush"] = load_encounter("goblin-ambush")
    out["orc-bridge"] = load_encounter("orc-bridge")
    return out


DEFINITIONS = _definitions()


@pytest.mark.parametrize("name", sorted(DEFINITIONS))
@pytest.mark.parametrize("seed", range(4))
def test_legal_actions_and_current_match_the_plain_rules(name: str, seed: int) -> None:
    """At every step of a random play-out: the same commands in the same order for every
    creature (and the GM, and an unknown id), and the same creature asked to decide."""
    definition = DEFINITIONS[name]
    enc = Encounter.begin(definition, seed, record=False)
    rng = random.Random(seed)
    ids = [c.id for c in definition.participants] + [GM, "nobody"]
    for _ in range(3000):
        for actor in ids:
            assert list(enc.generate_legal(actor)) == oracle_legal(enc, actor)
        who = enc.current()
        assert who == oracle_current(enc)
        if who == TERMINAL:
            return
        options = list(enc.legal_actions())
        enc.apply(RollDice() if who == CHANCE else rng.choice(options))
    pytest.fail("no end within 3000 steps")


def test_clone_continues_the_dice_stream_exactly() -> None:
    """A clone's generator is the original's, to the half-used 32-bit word: both sides of a clone
    roll the same dice from then on, and the same as the original would have."""
    definition = DEFINITIONS["goblin-ambush"]
    enc = Encounter.begin(definition, 11, record=False)
    rng = random.Random(3)
    for step in range(200):
        if enc.is_terminal():
            break
        twin = enc.clone()
        np.testing.assert_equal(twin.rng.bit_generator.state, enc.rng.bit_generator.state)
        who = enc.current()
        command = RollDice() if who == CHANCE else rng.choice(list(enc.legal_actions()))
        assert twin.apply(command) == enc.apply(command), f"step {step}"
        assert twin.to_json() == enc.to_json()


def test_deep_copy_plays_on_like_the_original() -> None:
    """``copy.deepcopy`` (the baseline clone() is measured against) shares the definition's
    tables and plays on exactly like the original."""
    enc = Encounter.begin(DEFINITIONS["skirmish-current-turn"], 4)
    rng = random.Random(4)
    for _ in range(15):
        who = enc.current()
        enc.apply(RollDice() if who == CHANCE else rng.choice(list(enc.legal_actions())))
    twin = copy.deepcopy(enc)
    assert twin.to_json() == enc.to_json()
    for _ in range(400):
        who = enc.current()
        if who == TERMINAL:
            break
        command = RollDice() if who == CHANCE else rng.choice(list(enc.legal_actions()))
        assert twin.apply(command) == enc.apply(command)
    assert twin.to_json() == enc.to_json()
    assert twin.log_lines() == enc.log_lines()


def _table_commands(enc: Encounter) -> list[Act]:
    """Every Act the engine's tables could ever offer in ``enc`` (the objects it remembers)."""
    from caltrop.economy.load.actions import tables as load_tables

    tables = load_tables(enc.definition)
    out: list[Act] = []
    for per_creature in (*tables.own_turn, *tables.reaction_choices):
        for choices in per_creature:
            out.extend(cmd for _, commands in choices.targets for cmd in commands)
            if choices.plain is not None:
                out.append(choices.plain)
    return out


@pytest.mark.parametrize("name", sorted(DEFINITIONS))
@pytest.mark.parametrize("seed", range(2))
def test_a_remembered_command_is_judged_like_a_fresh_one(name: str, seed: int) -> None:
    """R11/R15/R16 checks that depend on the state are made anew for a command the engine has
    already validated once (it remembers only what the definition decides): at every step of a
    random play-out, each table command and an equal fresh object get the same verdict, with the
    same reason ("… is down", the gate's arithmetic, whose turn it is)."""
    definition = DEFINITIONS[name]
    enc = Encounter.begin(definition, seed, record=False)
    commands = _table_commands(enc)
    rng = random.Random(seed)
    refusals: set[str] = set()
    for _ in range(3000):
        for command in commands:
            fresh = Act(command.actor, command.action, command.targets, command.weapons)
            assert fresh is not command
            verdict = enc.why_illegal(command)
            assert verdict == enc.why_illegal(fresh), command
            if verdict is not None:
                refusals.add(verdict.split(":")[0].split(" ")[-1])
        who = enc.current()
        if who == TERMINAL:
            break
        options = list(enc.legal_actions())
        enc.apply(RollDice() if who == CHANCE else rng.choice(options))
    else:
        pytest.fail("no end within 3000 steps")
    assert refusals  # the comparison saw refusals, not only legal commands
