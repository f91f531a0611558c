"""Rules shared by every module: the gate, pool sizes and Net Advantage (pure functions)."""
