"""``Encounter.look_ahead``: a clone that keeps no log, for the view's look-aheads (issue 20 §5).

A look-ahead must play exactly as a clone does — same state of play after the same commands,
same dice — leave the encounter it was made from alone, and refuse what needs a log (undo,
the events) with a reason rather than pretending to have one.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from caltrop.core.commands import GM, Undo
from caltrop.encounter import CHANCE, TERMINAL
from caltrop.errors import IllegalActionError
from tests.table.plays import BUNDLED, begin, random_play


@settings(max_examples=25, deadline=None)
@given(name=st.sampled_from(BUNDLED), seed=st.integers(0, 2**16), steps=st.integers(0, 30))
def test_a_look_ahead_plays_as_a_clone_and_leaves_the_encounter_alone(
    name: str, seed: int, steps: int
) -> None:
    """After the same random commands (dice rolled too), a look-ahead and a clone hold the same
    state of play and the same commands given; the encounter they were made from is as before."""
    enc = begin(name, seed)
    for _ in random_play(enc, seed, steps):
        pass
    before = (enc.state.copy(), enc.events, enc.rng.bit_generator.state)
    clone, ahead = enc.clone(), enc.look_ahead()
    rng = random.Random(seed)
    for _ in range(10):
        who = clone.current()
        if who == TERMINAL:
            break
        legal = list(clone.legal_actions(GM if who == CHANCE else who))
        if not legal:
            break
        command = rng.choice(legal)
        assert clone.apply(command) == ahead.apply(command)
        clone.settle()
        ahead.settle()
        assert ahead.state == clone.state
        assert ahead.commands == clone.commands
    assert (enc.state, enc.events, enc.rng.bit_generator.state) == before


@pytest.mark.parametrize("name", BUNDLED)
def test_a_look_ahead_keeps_no_log(name: str) -> None:
    enc = begin(name)
    for _ in random_play(enc, 3, 5):
        pass
    ahead = enc.look_ahead()
    with pytest.raises(IllegalActionError, match="keeps no log"):
        _ = ahead.events
    with pytest.raises(IllegalActionError, match="cannot undo"):
        ahead.apply(Undo())
    assert len(enc.events) >= 1  # the encounter it came from still has its own
