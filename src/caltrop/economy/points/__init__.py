"""The Action Point module (seed 004): the economy, its actions, its state.

* :mod:`~caltrop.economy.points.economy` — AP, RP and floating RP, and how a price is paid
  (R31–R33)
* :mod:`~caltrop.economy.points.state` — a participant's points and body (Stamina, position,
  conditions) and the stat block's defaults
* :mod:`~caltrop.economy.points.actions` — the dispatcher the engine sees: the module's checks,
  then the verb's entry of :mod:`~caltrop.economy.points.verbs` (its one table of verbs)
* by phase, each verb's planner and effect: :mod:`~caltrop.economy.points.movement` (R34–R36),
  :mod:`~caltrop.economy.points.attacks` (R38, R39), :mod:`~caltrop.economy.points.defence`
  (R40), :mod:`~caltrop.economy.points.grapple` (R42, R43),
  :mod:`~caltrop.economy.points.stealth` (R41), :mod:`~caltrop.economy.points.misc` (R33, R37,
  R44), and what they share, :mod:`~caltrop.economy.points.common`
* the roll stages: :mod:`~caltrop.economy.points.stages` (what each rolls and how it resolves)
  and :mod:`~caltrop.economy.points.rolls` (one frozen record per stage)
"""
