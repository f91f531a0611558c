"""Rules shared by every module: the gate, pool sizes and Net Advantage (pure functions), the
definitions they read (creatures, actions, rulesets, encounters) and the command notation.

>>> from caltrop.core import Advantage, check_gate, net_advantage, pool_size, parse_command
>>> check_gate(4, 2, 1, aspect_name="Might").reason   # R11: Aspect − Load ≥ Cost
'Might 4 − Load 2 = 2 ≥ cost 1'
>>> net_advantage([Advantage("adv", "torch"), Advantage("adv", "torch"), Advantage("dis", "dark")])
0
>>> pool_size(4, -1, net_adv=1)                       # R12: a negative Load adds no dice
5
>>> str(parse_command("goblin: attack hero +adv:torch"))
'goblin: attack hero +adv:torch'
"""

from caltrop.core.commands import (
    GM,
    Act,
    AddCreature,
    CallRoll,
    ChangeHealth,
    Command,
    EndEncounter,
    EndTurn,
    Pass,
    PassAll,
    RemoveCreature,
    Reorder,
    RollDice,
    RollTotal,
    SetFact,
    SetStat,
    Undo,
    command_actor,
    parse_command,
)
from caltrop.core.model import (
    ActionDef,
    ActionKind,
    CreatureDef,
    Economy,
    EncounterDef,
    Grant,
    Halving,
    Initiative,
    LoadReset,
    OffTurn,
    Ruleset,
    Side,
    Weapon,
    WeaponKind,
)
from caltrop.core.pool import (
    Advantage,
    AdvantageKind,
    Gate,
    Revision,
    check_gate,
    gate_open,
    gm_pool_size,
    net_advantage,
    pool_size,
)

__all__ = [
    "GM",
    "Act",
    "ActionDef",
    "ActionKind",
    "AddCreature",
    "Advantage",
    "AdvantageKind",
    "CallRoll",
    "ChangeHealth",
    "Command",
    "CreatureDef",
    "Economy",
    "EncounterDef",
    "EndEncounter",
    "EndTurn",
    "Gate",
    "Grant",
    "Halving",
    "Initiative",
    "LoadReset",
    "OffTurn",
    "Pass",
    "PassAll",
    "RemoveCreature",
    "Reorder",
    "Revision",
    "RollDice",
    "RollTotal",
    "Ruleset",
    "SetFact",
    "SetStat",
    "Side",
    "Undo",
    "Weapon",
    "WeaponKind",
    "check_gate",
    "command_actor",
    "gate_open",
    "gm_pool_size",
    "net_advantage",
    "parse_command",
    "pool_size",
]
