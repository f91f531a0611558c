"""What the server is started with."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

#: a GM opens a few tables a night, a club behind one address a few dozen: 20 at once, then one
#: every 10 s, keeps a stranger's loop from filling the disk (issue 20 §2)
NEW_TABLES_BURST: Final = 20
NEW_TABLES_PER_MINUTE: Final = 6.0


@dataclass(frozen=True, slots=True)
class Settings:
    """``database_url`` None: the SQLite file in the user data directory. ``base_url`` is put in
    front of the seat links the server hands out. ``sqlite_sync`` (SQLite only; see
    :func:`caltrop.store.open_database`): ``"normal"`` — a commit survives the server's crash
    or kill, and a power cut may take back the last second or so of commands; ``"full"`` — a
    commit waits for the disk, so it survives a power cut too, at the disk's latency.

    ``new_tables_burst`` and ``new_tables_per_minute``: how many tables one client address may
    open at once, then a minute (:mod:`caltrop.web.ratelimit`; both 0: no limit).

    ``chance``: the live chance of winning on the GM's screen (:mod:`caltrop.web.chance`, a
    worker process; ``caltrop serve`` turns it on), ``chance_n`` its fights per answer (None:
    :func:`caltrop.sim.live.chance_at`'s default)."""

    database_url: str | None = None
    base_url: str = "http://127.0.0.1:8000"
    sqlite_sync: Literal["normal", "full"] = "normal"
    new_tables_burst: int = NEW_TABLES_BURST
    new_tables_per_minute: float = NEW_TABLES_PER_MINUTE
    chance: bool = False
    chance_n: int | None = None
