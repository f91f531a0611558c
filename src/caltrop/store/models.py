"""The tables of the store (SQLAlchemy 2 typed ORM). Migrations: :mod:`caltrop.store.migrations`."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


def _now() -> datetime:
    """Now, in UTC without a zone (a portable TIMESTAMP on SQLite and PostgreSQL)."""
    return datetime.now(UTC).replace(tzinfo=None)


class Base(DeclarativeBase):
    pass


class TableRow(Base):
    """A night at the table: a run of encounters played by the same seats."""

    __tablename__ = "tables"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(default=_now)
    #: the GM shows the live chance of winning to the players too (issue 23 item 4; off at first)
    chance_shown: Mapped[bool] = mapped_column(default=False)


class EncounterRow(Base):
    """One encounter of a night; ``position`` orders them (the last is the one being played).
    ``definition`` is the encounter's JSON (its log's header); ``visibility`` what players see
    of each NPC (JSON: id → {health, aspects, resources})."""

    __tablename__ = "encounters"
    __table_args__ = (UniqueConstraint("table_id", "position", name="uq_encounters_position"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), index=True)
    position: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(200))
    definition: Mapped[str] = mapped_column(Text)
    visibility: Mapped[str] = mapped_column(Text, default="{}")
    created_at: Mapped[datetime] = mapped_column(default=_now)


class SeatRow(Base):
    """Who may speak at a table: the GM, or a player bound to one creature. Only the SHA-256
    of the seat's token is kept."""

    __tablename__ = "seats"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    role: Mapped[str] = mapped_column(String(10))  # "gm" | "player"
    creature_id: Mapped[str | None] = mapped_column(String(100), nullable=True)
    revoked: Mapped[bool] = mapped_column(default=False)


class EventRow(Base):
    """One event of an encounter's append-only log: seq 0 is its 'begin' event, seq n its n-th
    command (the engine's ``n``). Never updated, never deleted."""

    __tablename__ = "events"
    __table_args__ = (UniqueConstraint("encounter_id", "seq", name="uq_events_encounter_seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    encounter_id: Mapped[int] = mapped_column(ForeignKey("encounters.id", ondelete="CASCADE"))
    seq: Mapped[int] = mapped_column(Integer)
    event: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=_now)


class CommandRow(Base):
    """The answer given to one accepted command, by the client's ``command_id``: a retry gets
    this answer again instead of a second application."""

    __tablename__ = "commands"
    __table_args__ = (
        UniqueConstraint("encounter_id", "command_id", name="uq_commands_encounter_command"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    encounter_id: Mapped[int] = mapped_column(ForeignKey("encounters.id", ondelete="CASCADE"))
    command_id: Mapped[str] = mapped_column(String(100))
    seat_id: Mapped[int] = mapped_column(ForeignKey("seats.id", ondelete="CASCADE"))
    answer: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=_now)


class LibraryRow(Base):
    """An encounter ready to open as a table: the bundled examples, put here on first start
    (a database that a newer Caltrop opens gains the examples it lacks)."""

    __tablename__ = "library"

    name: Mapped[str] = mapped_column(String(100), primary_key=True)
    title: Mapped[str] = mapped_column(String(200))
    module: Mapped[str] = mapped_column(String(40))
    #: one line on what it is (the file's first comment)
    summary: Mapped[str] = mapped_column(Text)
    definition: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=_now)
