"""The Action Point module (seed 004): the economy, its actions, its state.

* :mod:`~caltrop.economy.points.economy` — AP, RP and floating RP, and how a price is paid
  (R31–R33)
* :mod:`~caltrop.economy.points.actions` — the built-in actions plugged into the engine
  (R34–R45)
* :mod:`~caltrop.economy.points.state` — a participant's points and body (Stamina, position,
  conditions) and the stat block's defaults
"""
