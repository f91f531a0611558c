"""Example content shipped with Caltrop (not official rules): rulesets, weapons, actions, a
small party, a few monsters and two encounters, as YAML files read by :mod:`caltrop.content`."""
