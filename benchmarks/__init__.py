"""Caltrop's benchmarks: speed against named baselines, measured in the same run.

Run them with ``python benchmarks/run.py`` (every section) or ``python benchmarks/run.py dice``.
They are not part of the test suite and nothing asserts a wall-clock time;
``tests/benchmarks`` only checks, at a tiny size, that every benchmark runs and that the engines
it compares agree.
"""
