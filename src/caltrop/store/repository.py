"""Every query of the store. Callers get plain frozen records, never ORM rows or sessions.

Writes to an encounter's log go through :meth:`Repository.append`: a transaction that takes
the encounter's lock up front (``BEGIN IMMEDIATE`` on SQLite, ``SELECT … FOR UPDATE`` on the
encounter's row elsewhere), so the head a writer reads is still the head when it appends;
``UNIQUE(encounter_id, seq)`` is the last guard (a breach is :class:`ConflictError`). On
SQLite the appends of many tables share one transaction and one sync to disk
(:mod:`caltrop.store.group_commit`), each in a savepoint of its own.

On PostgreSQL every change of a table also sends ``NOTIFY caltrop`` (:data:`CHANNEL`) with the
table's id inside the same transaction, so PostgreSQL delivers it exactly when the change is
committed, to every process listening (:mod:`caltrop.store.listen`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Final, TypeVar

from sqlalchemy import Connection, Engine, bindparam, func, insert, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from caltrop.errors import ConflictError as ConflictError
from caltrop.errors import NotFoundError as NotFoundError
from caltrop.store.database import WRITE
from caltrop.store.group_commit import GroupCommit
from caltrop.store.models import (
    CommandRow,
    EncounterRow,
    EventRow,
    LibraryRow,
    SeatRow,
    TableRow,
)

#: The PostgreSQL notification channel of table changes; the payload is
#: ``{"table": id, "kind": "events" | "encounter" | "visibility" | "seats"}``.
CHANNEL: Final = "caltrop"

R = TypeVar("R")

# The statements of every command, built once (building one makes hundreds of objects, some in
# reference cycles that only the garbage collector frees; issue 11's p99).
_HEAD = select(func.max(EventRow.seq)).where(EventRow.encounter_id == bindparam("encounter"))
_EVENTS = (
    select(EventRow.seq, EventRow.event)
    .where(EventRow.encounter_id == bindparam("encounter"), EventRow.seq > bindparam("after"))
    .order_by(EventRow.seq)
)
_ANSWER = select(CommandRow.answer).where(
    CommandRow.encounter_id == bindparam("encounter"),
    CommandRow.command_id == bindparam("command_id"),
)
#: a command's stored answer and the log's head, in one statement (the command path's reads)
_ANSWER_AND_HEAD = select(
    _ANSWER.scalar_subquery(),
    select(func.max(EventRow.seq))
    .where(EventRow.encounter_id == bindparam("encounter"))
    .scalar_subquery(),
)
_LOCATE = (
    select(
        EncounterRow.id,
        select(func.max(EventRow.seq))
        .where(EventRow.encounter_id == EncounterRow.id)
        .scalar_subquery(),
        EncounterRow.visibility,
    )
    .where(EncounterRow.table_id == bindparam("table"))
    .order_by(EncounterRow.position.desc())
    .limit(1)
)
_NEWEST = (
    select(EncounterRow.table_id, func.max(EncounterRow.position).label("position"))
    .where(EncounterRow.table_id.in_(bindparam("tables", expanding=True)))
    .group_by(EncounterRow.table_id)
    .subquery()
)
_HEADS = (
    select(EncounterRow.table_id, EncounterRow.id, func.max(EventRow.seq))
    .join(
        _NEWEST,
        (_NEWEST.c.table_id == EncounterRow.table_id)
        & (_NEWEST.c.position == EncounterRow.position),
    )
    .join(EventRow, EventRow.encounter_id == EncounterRow.id)
    .group_by(EncounterRow.table_id, EncounterRow.id)
)
_SEAT = select(SeatRow).where(SeatRow.token_hash == bindparam("token_hash"))
_ADD_EVENTS = insert(EventRow)
_ADD_COMMAND = insert(CommandRow)


def _dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


#: the role of a table screen's seat (a TV, issue 22): it watches and gives no command
SCREEN_ROLE: Final = "screen"


@dataclass(frozen=True, slots=True)
class Seat:
    id: int
    table_id: str
    role: str  # "gm" | "player" | "screen" (a table screen, issue 22)
    creature_id: str | None
    revoked: bool


@dataclass(frozen=True, slots=True)
class EncounterRecord:
    id: int
    table_id: str
    position: int
    name: str
    definition: Mapping[str, Any]
    visibility: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Located:
    """Where a table is now, from one light query: its current encounter, that log's head and
    what players see of its NPCs (the definition, large and unchanging, is read apart)."""

    encounter_id: int
    head: int
    visibility: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class LibraryEntry:
    """An encounter ready to open: its name, title, module and one line on it."""

    name: str
    title: str
    module: str
    summary: str


@dataclass(frozen=True, slots=True)
class NewSeat:
    token_hash: str
    role: str
    creature_id: str | None = None


def _seat(row: SeatRow) -> Seat:
    return Seat(row.id, row.table_id, row.role, row.creature_id, row.revoked)


def _encounter(row: EncounterRow) -> EncounterRecord:
    return EncounterRecord(
        row.id,
        row.table_id,
        row.position,
        row.name,
        json.loads(row.definition),
        json.loads(row.visibility),
    )


class LogWriter:
    """The inside of one write transaction on one encounter's log."""

    def __init__(
        self, session: Session | Connection, encounter_id: int, table_id: str | None
    ) -> None:
        self._session = session
        self.encounter_id = encounter_id
        #: set where the database notifies (PostgreSQL)
        self._notify_table = table_id

    def answer(self, command_id: str) -> dict[str, Any] | None:
        """The stored answer to ``command_id`` on this encounter, if it was accepted before."""
        stored = self._session.scalar(
            _ANSWER, {"encounter": self.encounter_id, "command_id": command_id}
        )
        return json.loads(stored) if stored is not None else None

    def head(self) -> int:
        """The seq of the last event (0: only the 'begin' event)."""
        return _head(self._session, self.encounter_id)

    def answer_and_head(self, command_id: str) -> tuple[dict[str, Any] | None, int]:
        """:meth:`answer` and :meth:`head` from one statement."""
        row = self._session.execute(
            _ANSWER_AND_HEAD, {"encounter": self.encounter_id, "command_id": command_id}
        ).one()
        stored, head = row
        if head is None:
            raise NotFoundError(f"encounter {self.encounter_id} has no log")
        return (json.loads(stored) if stored is not None else None), int(head)

    def events(self, after: int) -> list[tuple[int, dict[str, Any]]]:
        return _events(self._session, self.encounter_id, after)

    def append(
        self,
        events: Sequence[tuple[int, Mapping[str, Any]]],
        *,
        command_id: str,
        seat_id: int,
        answer: Mapping[str, Any],
    ) -> None:
        """Add events and the command's answer; they are committed together or not at all."""
        self._session.execute(
            _ADD_EVENTS,
            [
                {"encounter_id": self.encounter_id, "seq": seq, "event": _dumps(event)}
                for seq, event in events
            ],
        )
        self._session.execute(
            _ADD_COMMAND,
            {
                "encounter_id": self.encounter_id,
                "command_id": command_id,
                "seat_id": seat_id,
                "answer": _dumps(answer),
            },
        )
        if self._notify_table is not None:
            _notify(self._session, self._notify_table, "events")


def _notify(session: Session | Connection, table_id: str, kind: str) -> None:
    """PostgreSQL: tell every listening process that the table changed, on commit."""
    bind = session.get_bind() if isinstance(session, Session) else session
    if bind.dialect.name == "postgresql":
        payload = _dumps({"table": table_id, "kind": kind})
        session.execute(select(func.pg_notify(CHANNEL, payload)))


def _head(session: Session | Connection, encounter_id: int) -> int:
    head = session.scalar(_HEAD, {"encounter": encounter_id})
    if head is None:
        raise NotFoundError(f"encounter {encounter_id} has no log")
    return int(head)


def _events(
    session: Session | Connection, encounter_id: int, after: int
) -> list[tuple[int, dict[str, Any]]]:
    rows = session.execute(_EVENTS, {"encounter": encounter_id, "after": after})
    return [(int(seq), json.loads(event)) for seq, event in rows]


class Repository:
    """The store's one door: tables, seats, encounters and their logs."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._read = sessionmaker(engine, expire_on_commit=False)
        self._write = sessionmaker(
            engine.execution_options(**{WRITE: True}), expire_on_commit=False
        )
        #: SQLite has one writer at a time: this process's appends queue here and are committed
        #: together (one sync to disk a batch), not in SQLite's busy handler (which sleeps and
        #: retries with growing pauses); PostgreSQL commits concurrent transactions itself
        # (on a Connection: the ORM's unit of work cost more than the commit itself, issue 20 §5)
        writing = engine.execution_options(**{WRITE: True})
        self._group = GroupCommit(writing.connect) if engine.dialect.name == "sqlite" else None

    # -- tables and seats -------------------------------------------------------------------

    def create_table(
        self,
        table_id: str,
        name: str,
        definition: Mapping[str, Any],
        events: Sequence[Mapping[str, Any]],
        seats: Sequence[NewSeat],
    ) -> int:
        """A new table with its first encounter, whose log holds ``events`` (seq 0 the 'begin'
        event; an imported log brings more), and its seats; returns the encounter's id."""
        with self._write.begin() as session:
            session.add(TableRow(id=table_id, name=name))
            session.flush()  # no ORM relationships: the parent row goes first by hand
            return _insert_encounter(
                session, table_id, 0, str(definition.get("name", name)), definition, events, seats
            )

    def add_encounter(
        self,
        table_id: str,
        definition: Mapping[str, Any],
        events: Sequence[Mapping[str, Any]],
        seats: Sequence[NewSeat],
    ) -> int:
        """The table's next encounter (after every one before) with its log's first events, and
        seats for the player characters new to the table; returns the encounter's id."""
        with self._write.begin() as session:
            last = session.scalar(
                select(func.max(EncounterRow.position)).where(EncounterRow.table_id == table_id)
            )
            if last is None:
                raise NotFoundError(f"no table {table_id!r}")
            _notify(session, table_id, "encounter")
            return _insert_encounter(
                session,
                table_id,
                int(last) + 1,
                str(definition.get("name", "")),
                definition,
                events,
                seats,
            )

    def reissue_seat(self, table_id: str, creature_id: str, token_hash: str) -> list[int]:
        """Revoke every seat of ``creature_id`` at the table and add one with ``token_hash``;
        returns the ids of the revoked seats."""
        with self._write.begin() as session:
            rows = list(
                session.scalars(
                    select(SeatRow).where(
                        SeatRow.table_id == table_id,
                        SeatRow.creature_id == creature_id,
                        SeatRow.revoked.is_(False),
                    )
                )
            )
            for row in rows:
                row.revoked = True
            session.add(
                SeatRow(
                    table_id=table_id, token_hash=token_hash, role="player", creature_id=creature_id
                )
            )
            _notify(session, table_id, "seats")  # other processes close the revoked sockets
            return [row.id for row in rows]

    def replace_screen_seat(self, table_id: str, token_hash: str | None) -> list[int]:
        """Revoke the table's screen seats (role ``screen``) and, with ``token_hash``, add the
        new one; returns the ids of the revoked seats."""
        with self._write.begin() as session:
            rows = list(
                session.scalars(
                    select(SeatRow).where(
                        SeatRow.table_id == table_id,
                        SeatRow.role == SCREEN_ROLE,
                        SeatRow.revoked.is_(False),
                    )
                )
            )
            for row in rows:
                row.revoked = True
            if token_hash is not None:
                session.add(SeatRow(table_id=table_id, token_hash=token_hash, role=SCREEN_ROLE))
            _notify(session, table_id, "seats")  # other processes close the revoked sockets
            return [row.id for row in rows]

    def seat_by_token_hash(self, token_hash: str) -> Seat | None:
        with self._read() as session:
            row = session.scalar(_SEAT, {"token_hash": token_hash})
            return _seat(row) if row is not None else None

    def seats(self, table_id: str) -> list[Seat]:
        with self._read() as session:
            rows = session.scalars(
                select(SeatRow).where(SeatRow.table_id == table_id).order_by(SeatRow.id)
            )
            return [_seat(r) for r in rows]

    # -- the library ------------------------------------------------------------------------

    def library(self) -> list[LibraryEntry]:
        with self._read() as session:
            rows = session.scalars(select(LibraryRow).order_by(LibraryRow.name))
            return [LibraryEntry(r.name, r.title, r.module, r.summary) for r in rows]

    def library_definition(self, name: str) -> dict[str, Any] | None:
        with self._read() as session:
            stored = session.scalar(select(LibraryRow.definition).where(LibraryRow.name == name))
            return json.loads(stored) if stored is not None else None

    def add_to_library(self, entries: Sequence[tuple[LibraryEntry, Mapping[str, Any]]]) -> int:
        """Add the entries whose names the library lacks (others are kept as they are);
        returns how many were added."""
        with self._write.begin() as session:
            known = set(session.scalars(select(LibraryRow.name)))
            added = 0
            for entry, definition in entries:
                if entry.name in known:
                    continue
                session.add(
                    LibraryRow(
                        name=entry.name,
                        title=entry.title,
                        module=entry.module,
                        summary=entry.summary,
                        definition=_dumps(definition),
                    )
                )
                added += 1
            return added

    # -- encounters and their logs ----------------------------------------------------------

    def current_encounter(self, table_id: str) -> EncounterRecord:
        """The encounter the table plays now (the last one started)."""
        with self._read() as session:
            row = session.scalar(
                select(EncounterRow)
                .where(EncounterRow.table_id == table_id)
                .order_by(EncounterRow.position.desc())
                .limit(1)
            )
            if row is None:
                raise NotFoundError(f"no table {table_id!r}")
            return _encounter(row)

    def locate(self, table_id: str) -> Located:
        """The table's current encounter, its head and visibility (one query, no ORM rows)."""
        with self.engine.connect() as connection:
            row = connection.execute(_LOCATE, {"table": table_id}).first()
        if row is None or row[1] is None:
            raise NotFoundError(f"no table {table_id!r}")
        visibility = row[2]
        return Located(int(row[0]), int(row[1]), json.loads(visibility) if visibility else {})

    def definition(self, encounter_id: int) -> dict[str, Any]:
        """An encounter's definition (the JSON its log's header holds)."""
        with self.engine.connect() as connection:
            stored = connection.scalar(
                select(EncounterRow.definition).where(EncounterRow.id == encounter_id)
            )
        if stored is None:
            raise NotFoundError(f"no encounter {encounter_id}")
        loaded: dict[str, Any] = json.loads(stored)
        return loaded

    def set_visibility(self, encounter_id: int, visibility: Mapping[str, Any]) -> None:
        with self._write.begin() as session:
            row = session.get(EncounterRow, encounter_id)
            if row is None:
                raise NotFoundError(f"no encounter {encounter_id}")
            row.visibility = _dumps(visibility)
            _notify(session, row.table_id, "visibility")

    def chance_shown(self, table_id: str) -> bool:
        """Whether the GM shows the live chance of winning to the table's players (issue 23)."""
        with self.engine.connect() as connection:
            shown = connection.scalar(select(TableRow.chance_shown).where(TableRow.id == table_id))
        if shown is None:
            raise NotFoundError(f"no table {table_id!r}")
        return bool(shown)

    def set_chance_shown(self, table_id: str, shown: bool) -> None:
        """The GM shows the live chance of winning to the players, or hides it (other processes
        are told as of a visibility change)."""
        with self._write.begin() as session:
            row = session.get(TableRow, table_id)
            if row is None:
                raise NotFoundError(f"no table {table_id!r}")
            row.chance_shown = shown
            _notify(session, table_id, "visibility")

    def encounters(self, table_id: str) -> list[EncounterRecord]:
        """Every encounter of the table, in the order they were played."""
        with self._read() as session:
            rows = session.scalars(
                select(EncounterRow)
                .where(EncounterRow.table_id == table_id)
                .order_by(EncounterRow.position)
            )
            return [_encounter(r) for r in rows]

    def events(self, encounter_id: int, after: int = -1) -> list[tuple[int, dict[str, Any]]]:
        """The log's events with seq > ``after``, in order."""
        with self._read() as session:
            return _events(session, encounter_id, after)

    def head(self, encounter_id: int) -> int:
        with self._read() as session:
            return _head(session, encounter_id)

    def heads(self, table_ids: Sequence[str]) -> dict[str, tuple[int, int]]:
        """Per table: its current encounter's id and that log's head (one query; the tables
        a process watches for changes made by other processes)."""
        if not table_ids:
            return {}
        with self._read() as session:
            rows = session.execute(_HEADS, {"tables": list(table_ids)})
            return {str(t): (int(e), int(h)) for t, e, h in rows}

    def append(self, encounter_id: int, work: Callable[[LogWriter], R]) -> R:
        """``work`` inside a write transaction on one encounter's log, holding its lock; its
        result once that is committed. Raises what ``work`` raised (nothing it wrote is kept),
        :class:`ConflictError` if the unique seq was taken."""
        if self._group is None:
            with self._writing(encounter_id) as log:
                return work(log)

        def inside(connection: Connection) -> R:  # SQLite: BEGIN IMMEDIATE locked it
            try:
                return work(LogWriter(connection, encounter_id, None))
            except IntegrityError as exc:
                raise ConflictError(
                    f"encounter {encounter_id}: the log moved on meanwhile"
                ) from exc

        return self._group.run(inside)

    @contextmanager
    def _writing(self, encounter_id: int) -> Iterator[LogWriter]:
        session = self._write()
        try:
            session.begin()
            table_id = session.scalar(
                select(EncounterRow.table_id)
                .where(EncounterRow.id == encounter_id)
                .with_for_update()
            )
            if table_id is None:
                raise NotFoundError(f"no encounter {encounter_id}")
            yield LogWriter(session, encounter_id, table_id)
            try:
                session.commit()
            except IntegrityError as exc:
                raise ConflictError(
                    f"encounter {encounter_id}: the log moved on meanwhile"
                ) from exc
        except BaseException:
            session.rollback()
            raise
        finally:
            session.close()


def _insert_encounter(
    session: Session,
    table_id: str,
    position: int,
    name: str,
    definition: Mapping[str, Any],
    events: Sequence[Mapping[str, Any]],
    seats: Sequence[NewSeat],
) -> int:
    """One encounter of a table with its log's first events and the seats new to the table, in
    the caller's transaction; returns the encounter's id."""
    encounter = EncounterRow(
        table_id=table_id,
        position=position,
        name=name,
        definition=_dumps(definition),
        visibility="{}",
    )
    session.add(encounter)
    session.flush()
    for seq, event in enumerate(events):
        session.add(EventRow(encounter_id=encounter.id, seq=seq, event=_dumps(event)))
    for seat in seats:
        session.add(
            SeatRow(
                table_id=table_id,
                token_hash=seat.token_hash,
                role=seat.role,
                creature_id=seat.creature_id,
            )
        )
    return encounter.id
