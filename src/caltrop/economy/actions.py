"""Which actions an encounter's economy plays: the plug-in half of :mod:`caltrop.economy`.

Each economy's actions (:class:`~caltrop.economy.base.Actions`) are found by the ruleset's
``economy`` in one explicit table, :data:`_ACTIONS`: a new economy adds its entry there (its
rules go in :mod:`caltrop.economy`'s registry).
"""

from __future__ import annotations

from collections.abc import Callable

from caltrop.core.model import Economy, EncounterDef
from caltrop.economy.base import Actions
from caltrop.economy.load.actions import LoadActions
from caltrop.economy.points.actions import PointsActions
from caltrop.errors import ContentError

_ACTIONS: dict[str, Callable[[EncounterDef], Actions]] = {
    Economy.ACTION_LOAD.value: LoadActions,
    Economy.ACTION_POINTS.value: lambda definition: PointsActions(),
}


def actions_for(definition: EncounterDef) -> Actions:
    """The actions of ``definition``'s economy, bound to that definition."""
    name = str(definition.ruleset.economy)
    try:
        return _ACTIONS[name](definition)
    except KeyError:
        raise ContentError(
            f"no actions for economy {name!r} (known: {', '.join(_ACTIONS)})"
        ) from None


def actions_joined(module: Actions, definition: EncounterDef) -> Actions:
    """The actions of ``definition``, which is ``module``'s definition with creatures appended
    (R48 ``gm: add``): the Action Load tables grow by the newcomer's rows and columns instead of
    being built again (issue 21 item 6, :meth:`LoadActions.joined`); others are built afresh."""
    if isinstance(module, LoadActions):
        return module.joined(definition)
    return actions_for(definition)
