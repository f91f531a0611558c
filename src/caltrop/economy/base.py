"""The contract every action economy fulfils; the engine drives economies only through it.

An economy decides three things for the one encounter engine: what a creature's resources are
(Action Load; or AP, RP and floating RP), whether an action can be paid for right now (the gate,
with the arithmetic when it cannot), and how many d4s an allowed action rolls. It also reacts to
turn and round starts. A shared conformance suite (``tests/economy/test_conformance.py``) runs
against every registered economy.
"""

from __future__ import annotations

from typing import Any, Protocol

from caltrop.core.model import ActionDef, CreatureDef, Ruleset


class Verdict(Protocol):
    """The answer to "can this be paid for now?": truthy if so, with the reason in words."""

    @property
    def reason(self) -> str: ...

    def __bool__(self) -> bool: ...


class Resources(Protocol):
    """One creature's mutable economy state (Load, or points). Copied on every clone."""

    def copy(self) -> Resources: ...

    def as_dict(self) -> dict[str, Any]:
        """What a player sees, JSON-ready, for state JSON and displays (``{"load": 2}``)."""
        ...


class EconomyRules(Protocol):
    """An action economy, bound to one ruleset."""

    name: str
    ruleset: Ruleset

    def initial(self, creature: CreatureDef) -> Resources:
        """The resources a creature enters the encounter with."""
        ...

    def on_round_start(
        self, creatures: tuple[CreatureDef, ...], resources: list[Resources]
    ) -> None:
        """Called when a round begins (before its first turn starts)."""
        ...

    def on_turn_start(
        self, creatures: tuple[CreatureDef, ...], resources: list[Resources], owner: int
    ) -> None:
        """Called when ``owner``'s turn begins."""
        ...

    def gate(
        self, creature: CreatureDef, resources: Resources, action: ActionDef, *, on_turn: bool
    ) -> Verdict:
        """Whether ``creature`` may take ``action`` now; never depends on advantage (R11)."""
        ...

    def allows(
        self, creature: CreatureDef, resources: Resources, action: ActionDef, *, on_turn: bool
    ) -> bool:
        """``bool(gate(...))`` without building the reason: for legal-action generation."""
        ...

    def pool(
        self, creature: CreatureDef, resources: Resources, action: ActionDef, net_adv: int
    ) -> int:
        """The number of d4s the action rolls (extra dice come on top)."""
        ...

    def pay(
        self, creature: CreatureDef, resources: Resources, action: ActionDef, *, on_turn: bool
    ) -> None:
        """Spend for ``action`` once it has resolved (Load += Cost; or AP/RP paid)."""
        ...

    def gm_pool(
        self,
        creature: CreatureDef,
        resources: Resources,
        aspect: int,
        net_adv: int,
        *,
        count_load: bool,
    ) -> int:
        """The number of d4s of a GM-called roll of an Aspect with value ``aspect`` (R17)."""
        ...

    def describe(self, creature: CreatureDef, resources: Resources) -> str:
        """One short line for displays: ``Load 2``."""
        ...
