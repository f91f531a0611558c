"""Random play-outs of the bundled encounters, shared by the view and server tests."""

from __future__ import annotations

import random
from collections.abc import Iterator

from caltrop.content import bundled_encounters, encounter_to_dict, load_encounter
from caltrop.core.commands import GM, Command
from caltrop.encounter import CHANCE, TERMINAL, Encounter

BUNDLED = sorted(bundled_encounters())


def begin(name: str, seed: int = 7) -> Encounter:
    definition = load_encounter(name)
    return Encounter.begin(definition, seed, header={"definition": encounter_to_dict(definition)})


def random_play(encounter: Encounter, seed: int, steps: int) -> Iterator[Command]:
    """Apply up to ``steps`` random legal commands of whoever decides (the GM at chance points);
    yields each after it is applied."""
    rng = random.Random(seed)
    for _ in range(steps):
        who = encounter.current()
        if who == TERMINAL:
            return
        legal = list(encounter.legal_actions(GM if who == CHANCE else who))
        if not legal:
            return
        command = rng.choice(legal)
        encounter.apply(command)
        encounter.settle()
        yield command
