"""Issue 20 §2, "Memory comes back": the encounters kept in memory are a bounded LRU, and an
encounter forgotten from it plays on exactly as one kept (rebuilt from its log)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from caltrop.store.lru import LRU
from caltrop.store.service import MAX_CACHED_ENCOUNTERS, Tables
from tests.store.test_store import replayed


def test_two_thousand_tables_leave_at_most_the_bound_in_memory(tables: Tables) -> None:
    assert MAX_CACHED_ENCOUNTERS < 2000  # the test is of an eviction
    created = [tables.create("orc-bridge", seed=n) for n in range(2000)]
    assert len(tables._cache) == MAX_CACHED_ENCOUNTERS
    # the first table was forgotten long ago: it plays on from its log, and its state is what
    # a replay of the stored log says
    first = created[0]
    gm, bron = tables.seat(first.gm_token), tables.seat(first.player_tokens["bron"])
    encounter_id = tables.repository.locate(first.table_id).encounter_id
    assert encounter_id not in tables._cache
    before = tables.view(gm).to_json()
    for n, (seat, command) in enumerate(
        [(bron, "bron: strike orc-brute"), (gm, "gm: pass all"), (gm, "roll")]
    ):
        accepted = tables.submit(seat, command, f"c{n}")
        assert accepted.answer["accepted"] is True
    assert encounter_id in tables._cache  # used again: it is the newest now
    assert len(tables._cache) == MAX_CACHED_ENCOUNTERS
    after = tables.view(gm)
    assert after.to_json() != before
    assert replayed(tables, first.table_id).snapshot()["commands"] == 3
    fresh = Tables(tables.repository)  # a process that never cached it agrees
    assert fresh.view(fresh.seat(first.gm_token)).to_json() == after.to_json()


def test_an_encounter_evicted_between_two_commands_plays_on(tables: Tables) -> None:
    """A bound of one: every use of another table evicts this one, so each of its commands
    starts from a replay of its log (the scenario of a busy server, at its smallest)."""
    small = Tables(tables.repository, cached=1)
    one, other = small.create("orc-bridge", seed=3), small.create("goblin-ambush", seed=4)
    bron = small.seat(one.player_tokens["bron"])
    gm, other_gm = small.seat(one.gm_token), small.seat(other.gm_token)
    for n, (seat, command) in enumerate(
        [(bron, "bron: strike orc-brute"), (gm, "gm: pass all"), (gm, "roll")]
    ):
        small.view(other_gm)  # evicts ``one``
        assert small.submit(seat, command, f"c{n}").answer["accepted"] is True
    assert len(small._cache) == 1
    kept = Tables(tables.repository)  # never evicted: the same state
    assert kept.view(kept.seat(one.gm_token)).to_json() == small.view(gm).to_json()
    assert replayed(small, one.table_id).snapshot()["commands"] == 3


@given(st.integers(1, 8), st.lists(st.integers(0, 20), max_size=60))
def test_the_lru_keeps_the_most_recently_used(bound: int, uses: list[int]) -> None:
    lru: LRU[int, str] = LRU(bound)
    for key in uses:
        lru.setdefault(key, str(key))
    recent: list[int] = []
    for key in reversed(uses):
        if key not in recent:
            recent.append(key)
    kept = recent[:bound]
    assert len(lru) == len(kept)
    assert all(key in lru for key in kept)
    assert not any(key in lru for key in recent[bound:])


def test_an_lru_holds_at_least_one_entry() -> None:
    with pytest.raises(ValueError, match="at least one"):
        LRU(0)
