"""Caltrop: rules engine, exact odds and table tool for a d4 dice-pool tabletop RPG.

The layers import one way only::

    dice  <-  core  <-  economy  <-  encounter  <-  content / sim  <-  cli / web / store
"""

__version__ = "0.1.0"
