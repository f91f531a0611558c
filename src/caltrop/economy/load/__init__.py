"""The Action Load module (seeds 000 and 001): the economy, its actions, its state.

* :mod:`~caltrop.economy.load.economy` — the gate, pool size, pay and resets (R10–R13, R19, R20)
* :mod:`~caltrop.economy.load.actions` — the actions plugged into the engine (R14–R17, R47)
* :mod:`~caltrop.economy.load.state` — a creature's one Load (R13)
"""
