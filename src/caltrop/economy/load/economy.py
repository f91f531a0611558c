"""The Action Load economy (seed 000, current revision; seed 001, legacy revision).

Load grows by each action's Cost after it resolves; a creature may act — on its own turn or,
in response, on others' — while Aspect − Load ≥ Cost (R11). Load resets at the start of the
creature's turn (R10) or, with ``load_reset: round``, for everyone at the start of each round
(R19). One Load per creature, shared by all its Aspects (R13).
"""

from __future__ import annotations

import functools

from caltrop.core.model import ActionDef, CreatureDef, LoadReset, Ruleset
from caltrop.core.pool import Gate, Revision, check_gate, gate_open, gm_pool_size, pool_size
from caltrop.economy.base import Resources
from caltrop.economy.load.state import LoadState


@functools.lru_cache(maxsize=4096, typed=True)
def _check_gate(aspect: int, load: int, cost: int, revision: Revision, aspect_name: str) -> Gate:
    """:func:`check_gate`, remembered: a :class:`Gate` is an immutable value of these five (and
    its reason text costs more to build than to look up), and the engine and tactics ask the
    same few gates over and over. Errors are raised anew each time (never remembered)."""
    return check_gate(aspect, load, cost, revision, aspect_name=aspect_name)


@functools.lru_cache(maxsize=4096, typed=True)
def _pool_size(
    aspect: int, load: int, net_adv: int, revision: Revision, fixed_pool: int | None
) -> int:
    """:func:`pool_size`, remembered likewise (tactics weigh many pools per decision)."""
    return pool_size(aspect, load, net_adv, revision, fixed_pool=fixed_pool)


def _state(resources: Resources) -> LoadState:
    assert isinstance(resources, LoadState)
    return resources


class ActionLoadEconomy:
    """Action Load rules bound to a ruleset's ``revision`` (R20) and ``load_reset`` (R19)."""

    name = "action_load"

    def __init__(self, ruleset: Ruleset) -> None:
        self.ruleset = ruleset
        self.revision = ruleset.revision
        self.reset_each_round = ruleset.load_reset is LoadReset.ROUND

    def reset_value(self, creature: CreatureDef) -> int:
        """R10: Load := Exhaustion − Load Buffer (current); R20: Load := 0 (legacy)."""
        if self.revision is Revision.LEGACY:
            return 0
        return creature.exhaustion - creature.load_buffer

    def initial(self, creature: CreatureDef) -> LoadState:
        """Before its first turn a creature has its reset value, as if its turn had just begun."""
        return LoadState(self.reset_value(creature))

    def on_round_start(
        self, creatures: tuple[CreatureDef, ...], resources: list[Resources]
    ) -> None:
        """R19 ``round``: everyone's Load resets at the start of each round."""
        if self.reset_each_round:
            for creature, res in zip(creatures, resources, strict=True):
                _state(res).load = self.reset_value(creature)

    def on_turn_start(
        self, creatures: tuple[CreatureDef, ...], resources: list[Resources], owner: int
    ) -> None:
        """R10 / R19 ``turn``: the owner's Load resets at the start of its turn."""
        if not self.reset_each_round:
            _state(resources[owner]).load = self.reset_value(creatures[owner])

    def aspect(self, creature: CreatureDef, name: str) -> int:
        return creature.aspects.get(name, 0)

    def gate(
        self, creature: CreatureDef, resources: Resources, action: ActionDef, *, on_turn: bool
    ) -> Gate:
        """R11: Aspect − Load ≥ Cost, the same on the creature's turn and on others' turns."""
        return _check_gate(
            self.aspect(creature, action.aspect),
            _state(resources).load,
            action.cost,
            self.revision,
            action.aspect,
        )

    def allows(
        self, creature: CreatureDef, resources: Resources, action: ActionDef, *, on_turn: bool
    ) -> bool:
        """R11 as a bool (the same rule as :meth:`gate`, tested to agree). Asked for every
        candidate command, so the resources are not type-checked here (:meth:`gate` does)."""
        load: int = resources.load  # type: ignore[attr-defined]
        return gate_open(creature.aspects.get(action.aspect, 0), load, action.cost, self.revision)

    def ceiling(self, creature: CreatureDef, action: ActionDef) -> int:
        """The highest Load at which R11's gate is open for ``action``: Aspect − Cost (legacy
        R20: Aspect − Load must also stay above 0, so Aspect − max(Cost, 1)). The gate as one
        comparison, ``load <= ceiling``, for the engine's hot loops (tested to agree with
        :meth:`allows` for every Load)."""
        aspect = creature.aspects.get(action.aspect, 0)
        if self.revision is Revision.LEGACY:
            return aspect - max(action.cost, 1)
        return aspect - action.cost

    def pool(
        self, creature: CreatureDef, resources: Resources, action: ActionDef, net_adv: int
    ) -> int:
        """R12: Aspect − max(0, Load) + Net Advantage, at least 1 (legacy: R20)."""
        return _pool_size(
            self.aspect(creature, action.aspect),
            _state(resources).load,
            net_adv,
            self.revision,
            action.fixed_pool,
        )

    def pay(
        self, creature: CreatureDef, resources: Resources, action: ActionDef, *, on_turn: bool
    ) -> None:
        """Seed 000 step 6: "Add the action's Cost … to your Action Load"."""
        _state(resources).load += action.cost

    def gm_pool(
        self,
        creature: CreatureDef,
        resources: Resources,
        aspect: int,
        net_adv: int,
        *,
        count_load: bool,
    ) -> int:
        """R17: GM-called rolls; Load counts only if the GM says so."""
        return gm_pool_size(aspect, _state(resources).load, net_adv, count_load=count_load)

    def describe(self, creature: CreatureDef, resources: Resources) -> str:
        return f"Load {_state(resources).load}"
