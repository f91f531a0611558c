"""A table's batches keep log entries from one command to the next (issue 20 §5): every batch
the stream reads equals views worked out from nothing, from the log alone, whatever the
commands and whatever the GM shows the players meanwhile."""

from __future__ import annotations

import contextlib
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine

from caltrop.content import encounter_from_dict
from caltrop.core.commands import GM
from caltrop.core.model import Side
from caltrop.encounter import CHANCE, TERMINAL, Encounter
from caltrop.errors import RefusalError
from caltrop.store import Repository
from caltrop.store.service import Tables, reveal_from
from caltrop.table import views
from caltrop.table.view import views_as_dicts


def fresh_views(tables: Tables, table_id: str, viewers: list[str]) -> dict[str, object]:
    """The views of the table's current state, replayed from its stored log in a new
    encounter object, with no memo of any kind."""
    repository = tables.repository
    located = repository.locate(table_id)
    definition = encounter_from_dict(repository.definition(located.encounter_id))
    replayed = Encounter.replay(definition, [e for _, e in repository.events(located.encounter_id)])
    present = {c.id for c in replayed.creatures}
    playing = [v for v in viewers if v == GM or v in present]
    return dict(views_as_dicts(views(replayed, playing, reveal_from(located.visibility))))


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    name=st.sampled_from(["goblin-ambush", "bridge-duel-ap"]),
    seed=st.integers(0, 2**16),
    steps=st.integers(1, 25),
)
def test_every_batch_equals_views_worked_out_from_the_log(
    engine: Engine, name: str, seed: int, steps: int
) -> None:
    tables = Tables(Repository(engine))
    new = tables.create(name, seed=seed)
    gm = tables.seat(new.gm_token)
    viewers = [GM, *new.player_tokens]
    rng = random.Random(seed)
    encounter_id, head = None, -1
    compared = 0
    for k in range(steps):
        state = tables.views(new.table_id, {GM})  # the GM's view: who decides, what is legal
        current = state[GM].current
        if current == TERMINAL:
            break
        npcs = [c.id for c in state[GM].creatures if c.side == Side.NPC.value]
        if rng.random() < 0.25 and npcs:  # the GM shows or hides an NPC meanwhile
            shown = {
                "health": rng.choice(["exact", "label", "hidden"]),
                "aspects": rng.random() < 0.5,
            }
            tables.set_visibility(
                gm, {rng.choice(npcs): {**shown, "resources": rng.random() < 0.5}}
            )
        options = [o.command for opts in state[GM].options.values() for o in opts if o.legal]
        if current == CHANCE or not options or rng.random() < 0.2:
            command = rng.choice(["roll", f"gm: damage {rng.choice(npcs)} 1"] if npcs else ["roll"])
        else:
            command = rng.choice(options)
        with contextlib.suppress(RefusalError):  # refused: nothing stored, views read anyway
            tables.submit(gm, command, f"c{k}")
        batch = tables.batch(new.table_id, encounter_id, head, set(viewers), fresh=k % 3 == 0)
        encounter_id, head = batch.encounter_id, batch.head
        if batch.views:
            assert batch.views == fresh_views(tables, new.table_id, viewers), (name, seed, k)
            compared += 1
    assert compared > 0 or steps < 3
