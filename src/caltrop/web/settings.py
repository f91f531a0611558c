"""What the server is started with."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Settings:
    """``database_url`` None: the SQLite file in the user data directory. ``base_url`` is put in
    front of the seat links the server hands out."""

    database_url: str | None = None
    base_url: str = "http://127.0.0.1:8000"
