"""What the server is started with."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True, slots=True)
class Settings:
    """``database_url`` None: the SQLite file in the user data directory. ``base_url`` is put in
    front of the seat links the server hands out. ``sqlite_sync`` (SQLite only; see
    :func:`caltrop.store.open_database`): ``"normal"`` — a commit survives the server's crash
    or kill, and a power cut may take back the last second or so of commands; ``"full"`` — a
    commit waits for the disk, so it survives a power cut too, at the disk's latency."""

    database_url: str | None = None
    base_url: str = "http://127.0.0.1:8000"
    sqlite_sync: Literal["normal", "full"] = "normal"
