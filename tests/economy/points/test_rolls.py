"""The Action Point module's roll stages as frozen records (issue 24 item 1).

The engine keeps a stage's facts in ``PendingRoll.context``, a plain mapping that the odds, the
table view and the tactics read and that ``Encounter.key`` freezes; the module's rules read and
write it only through :mod:`caltrop.economy.points.rolls`. These tests hold the two views
together: a record's mapping reads back as the same record, a field at its default is left out
(``"opposed" in context`` and ``"total_a" in context`` are markers other readers test, R4,
R42), a mapping with a key no record has is refused, and in random legal play every stage the
engine pushes is exactly the mapping of a record of its stage.

Tests of ``economy/outcome.py`` (tests/test_layout.py).
"""

from __future__ import annotations

import random
from dataclasses import MISSING, fields

import pytest
from hypothesis import given
from hypothesis import strategies as st

from caltrop.core.commands import EndTurn, RollDice
from caltrop.economy.pending import RollKind
from caltrop.economy.points.rolls import RECORDS, Check, Contest, Damage, Defence, Hit, StageRecord
from caltrop.economy.points.stages import CONTESTS
from caltrop.encounter import CHANCE, TERMINAL, Encounter
from tests.encounter.points_builders import duel, skirmish

small = st.integers(0, 9)
verb = st.sampled_from(["attack", "shoot", "martial", "stealth", "grapple", "escape", "scale"])
stat_name = st.sampled_from(["Strength", "Agility", "Poise", "Perception", "Analysis"])

records: st.SearchStrategy[StageRecord] = st.one_of(
    st.builds(
        Hit,
        verb=verb,
        attacker=small,
        target=small,
        dc=small,
        favor=st.integers(-3, 5),
        damage=st.just("1d8"),
        weapons=st.just("bow"),
        reveals=st.booleans(),
    ),
    st.builds(
        Damage,
        verb=verb,
        attacker=small,
        target=small,
        damage=st.just("2d8/2"),
        weapons=st.just("sword"),
        reveals=st.booleans(),
    ),
    st.builds(
        Defence,
        verb=verb,
        attacker=small,
        incoming=small,
        mode=st.sampled_from([None, "block", "dodge"]),
        cover=st.booleans(),
        assists=small,
    ),
    st.builds(
        Check,
        verb=verb,
        stat=stat_name,
        dc=small,
        favor=st.integers(-3, 5),
        observer=st.none() | small,
    ),
    st.builds(
        Contest,
        verb=verb,
        initiator=small,
        opposer=small,
        stat_a=stat_name,
        stat_b=stat_name,
        favor=st.integers(-3, 5),
        opposed=st.booleans(),
        total_a=st.none() | st.integers(0, 40),
    ),
)


@given(records)
def test_a_records_mapping_reads_back_as_the_same_record(record: StageRecord) -> None:
    assert type(record).of(record.context()) == record


@given(records)
def test_a_field_at_its_default_is_left_out_and_every_other_is_written(
    record: StageRecord,
) -> None:
    """A defence window without a mode has no ``"mode"`` key; a contest not yet opposed has no
    ``"opposed"`` key and one whose initiator has not rolled no ``"total_a"`` (0 is a total the
    odds use as the marker, so it is written)."""
    context = record.context()
    for f in fields(record):
        value = getattr(record, f.name)
        at_default = f.default is not MISSING and value == f.default
        assert (f.name in context) == (not at_default), f.name
        if f.name in context:
            assert context[f.name] == value


def test_a_mapping_with_a_key_no_record_has_is_refused() -> None:
    context = Defence(verb="attack", attacker=1, incoming=5).context()
    with pytest.raises(TypeError):
        Defence.of({**context, "assist": 1})  # a misspelt "assists" is not silently dropped
    with pytest.raises(TypeError):
        Defence.of({"verb": "attack", "attacker": 1})  # "incoming" is required


def test_the_table_names_each_record_by_its_stage() -> None:
    assert {name: record.name for name, record in RECORDS.items()} == {n: n for n in RECORDS}


@pytest.mark.parametrize(("build", "seed"), [(skirmish, 0), (skirmish, 1), (duel, 2)])
def test_every_stage_the_engine_pushes_is_a_records_mapping(build: object, seed: int) -> None:
    """Random legal play (as ``tests/economy/points/test_properties.py`` plays it): after each
    command, every pending stage's context is exactly the mapping of a record of its stage."""
    enc = Encounter.begin(build(), seed)  # type: ignore[operator]
    rng = random.Random(seed)
    seen: set[str] = set()
    for _ in range(400):
        if enc.current() == TERMINAL:
            break
        if enc.current() == CHANCE:
            command = RollDice()
        else:
            options = list(enc.legal_actions())
            acts = [c for c in options if not isinstance(c, EndTurn)]
            command = rng.choice(acts if acts and rng.random() < 0.85 else options)
        enc.apply(command)
        for p in enc.pending:
            if p.kind is RollKind.STAGE:
                record = RECORDS[p.stage].of(p.context)
                assert record.context() == p.context
                if isinstance(record, Contest):
                    assert record.verb in CONTESTS  # what the contest decides is in the table
                seen.add(p.stage)
    assert {"damage", "defence"} <= seen  # the play reached the attack's stages
