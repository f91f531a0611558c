"""A creature's state in the Action Load module: its one Load (R13), nothing else."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(slots=True)
class LoadState:
    """A creature's current Action Load (R13: one per creature)."""

    load: int

    def copy(self) -> LoadState:
        return LoadState(self.load)

    def as_dict(self) -> dict[str, Any]:
        return {"load": self.load}

    def key(self) -> tuple[Any, ...]:
        return (self.load,)
