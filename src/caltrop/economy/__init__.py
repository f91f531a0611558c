"""Action economies, found by name: ``economy_for(ruleset)``."""

from __future__ import annotations

from collections.abc import Callable

from caltrop.core.model import Economy, Ruleset
from caltrop.economy.base import EconomyRules, Resources
from caltrop.economy.load.economy import ActionLoadEconomy
from caltrop.economy.points.economy import ActionPointsEconomy
from caltrop.errors import ContentError

_REGISTRY: dict[str, Callable[[Ruleset], EconomyRules]] = {
    Economy.ACTION_LOAD.value: ActionLoadEconomy,
    Economy.ACTION_POINTS.value: ActionPointsEconomy,
}


def register(name: str, factory: Callable[[Ruleset], EconomyRules]) -> None:
    """Make an economy available to rulesets that name it."""
    _REGISTRY[name] = factory


def economy_for(ruleset: Ruleset) -> EconomyRules:
    """The economy a ruleset names, bound to its options."""
    try:
        factory = _REGISTRY[str(ruleset.economy)]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY))
        raise ContentError(f"no economy named {ruleset.economy!r} (known: {known})") from None
    return factory(ruleset)


__all__ = ["EconomyRules", "Resources", "economy_for", "register"]
