"""The command path of a table (issue 11): authorise, apply to the engine, commit, answer.

Under the encounter's lock (an in-process lock around the repository's write transaction,
which holds the database's lock), :meth:`Tables.submit` checks the seat's right
(:func:`caltrop.table.rights.refusal`), applies the command to a copy of the engine state and
settles rolls with no dice, appends the new events with the command's answer, and only once that
is committed replaces the cached state and returns. A retry with the same ``command_id`` gets the
stored answer; a stale ``expected_seq`` is refused with the current head; a refused command
stores nothing. On SQLite the appends of commands arriving together are committed together
(:mod:`caltrop.store.group_commit`). Asked to, :meth:`Tables.submit` also works out what the
table's sockets are to be told (each viewer's events and view) from the state it has just
committed, in the same trip, so a broadcast needs no second read.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import tempfile
import threading
import time
import uuid
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final

from caltrop.content import (
    BUNDLED_PREFIX,
    bundled_creatures,
    bundled_encounters,
    encounter_from_dict,
    encounter_to_dict,
    load_encounter,
    load_encounter_files,
    resolve_creature,
)
from caltrop.content.catalogue import bundled_catalogue_entry
from caltrop.content.limits import MAX_FILE_BYTES
from caltrop.content.logfile import MAX_LOG_BYTES, read_log_events
from caltrop.content.serialize import log_definition
from caltrop.core.commands import GM, AddCreature, Command, parse_command
from caltrop.core.model import EncounterDef, Side
from caltrop.economy.outcome import outcome_json
from caltrop.encounter import Encounter
from caltrop.errors import (
    CaltropError,
    ForbiddenError,
    NoSeatError,
    NotFoundError,
    OutOfStepError,
    RefusedError,
    TooLargeError,
)
from caltrop.errors import RefusalError as RefusalError
from caltrop.store.lru import LRU
from caltrop.store.repository import (
    SCREEN_ROLE,
    LibraryEntry,
    Located,
    LogWriter,
    NewSeat,
    Repository,
    Seat,
)
from caltrop.table import (
    SCREEN,
    HealthShown,
    Reveal,
    TableView,
    npc_reveals,
    views,
    visible_event,
)
from caltrop.table.log import LogMemo, log_page, page_bounds
from caltrop.table.night import carry_over
from caltrop.table.rights import refusal
from caltrop.table.view import views_as_dicts

#: how long a looked-up seat is trusted without asking the database again (a revocation made by
#: another process takes effect within this time; one made here, at once)
SEAT_SECONDS: Final = 2.0
MAX_KNOWN_SEATS: Final = 10_000
#: encounters whose state is kept in memory at once; the least recently used past it is
#: forgotten and rebuilt from its log when next used (:mod:`caltrop.store.lru`, issue 20 §2)
MAX_CACHED_ENCOUNTERS: Final = 500
#: the longest command id a client may choose
MAX_COMMAND_ID: Final = 100
#: an upload of content: at most this many files, of at most MAX_FILE_BYTES each, this many
#: bytes in all, each named by a relative path of at most MAX_UPLOAD_NAME characters
MAX_UPLOAD_FILES: Final = 50
MAX_UPLOAD_BYTES: Final = 4 * MAX_FILE_BYTES
MAX_UPLOAD_NAME: Final = 200


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class NewTable:
    """A created table: its id and the seat tokens (shown once; only hashes are stored)."""

    table_id: str
    gm_token: str
    player_tokens: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class Accepted:
    """The answer to an accepted command, and the events it added (to broadcast)."""

    answer: Mapping[str, Any]
    table_id: str
    events: tuple[tuple[int, Mapping[str, Any]], ...] = ()
    replayed: bool = False
    #: the encounter whose log the events were appended to
    encounter_id: int | None = None
    #: what the sockets are told (each viewer's events and view), if :meth:`Tables.submit`
    #: was asked for it
    told: Told | None = None


#: what a broadcast tells each viewer: the new events as it may see them, and its view as
#: JSON-ready data (none for a creature that sits the encounter out)
Told = tuple[dict[str, list[dict[str, Any]]], dict[str, dict[str, Any]]]


@dataclass(frozen=True, slots=True)
class Batch:
    """What a table's sockets are told, all read from one state of its encounter (issue 20:
    the events and the views that follow them never disagree): the events ``after`` + 1 to
    ``head`` as each viewer may see them, and each viewer's view at ``head``."""

    encounter_id: int
    head: int
    #: the last seq the events start after (-1: the encounter's whole log)
    after: int
    #: viewer → ``[{seq, event}]``, seqs ``after`` + 1 .. ``head`` in order
    shown: dict[str, list[dict[str, Any]]]
    #: viewer → its view as JSON-ready data (none for a creature that sits this encounter out)
    views: dict[str, dict[str, Any]]


@dataclass
class _Cached:
    encounter: Encounter
    lock: threading.Lock = field(default_factory=threading.Lock)
    #: the log entries of the views worked out last (each command then costs its own entry)
    log_memo: LogMemo = field(default_factory=LogMemo)


def viewer_of(seat: Seat) -> str:
    """The viewer a seat sees the table as: ``gm``, its creature's id, or a table screen's
    :data:`~caltrop.table.SCREEN` (a seat of :data:`~caltrop.store.repository.SCREEN_ROLE`,
    issue 22: it watches as every player sees the table and may give no command; the GM
    issues and revokes it, :meth:`Tables.open_screen`, :meth:`Tables.close_screen`)."""
    if seat.role == SCREEN_ROLE:
        return SCREEN
    return GM if seat.role == "gm" else str(seat.creature_id)


def _plays(viewer: str, present: Set[str]) -> bool:
    """Whether ``viewer`` has a view of an encounter whose creatures are ``present``: the GM
    and a table screen always, a player while its creature plays in it."""
    return viewer in (GM, SCREEN) or viewer in present


def reveal_from(data: Mapping[str, Any]) -> dict[str, Reveal]:
    """The stored visibility (id → {health, aspects, resources, odds}) as :class:`Reveal` values."""
    out: dict[str, Reveal] = {}
    for creature_id, shown in data.items():
        out[creature_id] = Reveal(
            HealthShown(shown.get("health", "label")),
            aspects=bool(shown.get("aspects", False)),
            resources=bool(shown.get("resources", False)),
            odds=bool(shown.get("odds", True)),
        )
    return out


class Tables:
    """Tables over a :class:`Repository`, with each encounter's state kept in memory at its
    log's head (rebuilt by replay whenever the log moved on without this process)."""

    def __init__(self, repository: Repository, *, cached: int = MAX_CACHED_ENCOUNTERS) -> None:
        self.repository = repository
        self._cache: LRU[int, _Cached] = LRU(cached)  # issue 20 §2: at most ``cached``
        self._cache_lock = threading.Lock()
        self._library_ready = False
        #: per encounter: what players see of its NPCs, as last read or set here
        self._visibility: dict[int, Mapping[str, Any]] = {}
        #: seats looked up lately, by token hash, with when to look again
        self._seats: dict[str, tuple[Seat, float]] = {}

    # -- the library ------------------------------------------------------------------------

    def library(self) -> list[LibraryEntry]:
        """The encounters ready to open (issue 11: the bundled examples, put into the
        database on first start; a database that a newer Caltrop opens gains those it lacks)."""
        self._seed_library()
        return self.repository.library()

    def _seed_library(self) -> None:
        if self._library_ready:
            return
        known = {entry.name for entry in self.repository.library()}
        missing = []
        for name in sorted(set(bundled_encounters()) - known):
            definition = load_encounter(name)
            entry = bundled_catalogue_entry(f"encounters/{name}")
            summary = entry.description if entry is not None else ""
            module = definition.ruleset.economy.value
            missing.append(
                (
                    LibraryEntry(name, definition.name, module, summary),
                    encounter_to_dict(definition),
                )
            )
        if missing:
            self.repository.add_to_library(missing)
        self._library_ready = True

    def _from_library(self, name: str) -> EncounterDef:
        """The library's encounter ``name``; 422 naming those there are."""
        self._seed_library()
        data = self.repository.library_definition(name)
        if data is None:
            names = ", ".join(e.name for e in self.repository.library())
            raise RefusedError(f"no encounter {name!r} in the library ({names})")
        return encounter_from_dict(data)

    # -- tables -----------------------------------------------------------------------------

    def create(self, encounter: str, *, seed: int | None = None) -> NewTable:
        """A table playing an encounter of the library (by name): a GM seat and one per PC."""
        return self.create_from(self._from_library(encounter), seed=seed)

    def create_from_upload(
        self, files: Mapping[str, bytes], *, seed: int | None = None
    ) -> NewTable:
        """A table playing an uploaded encounter: content YAML files, one of them the
        encounter (:func:`uploaded_encounter`)."""
        return self.create_from(uploaded_encounter(files), seed=seed)

    def create_from(self, definition: EncounterDef, *, seed: int | None = None) -> NewTable:
        data = encounter_to_dict(definition)
        return self._open(data, Encounter.begin(definition, seed, header={"definition": data}))

    def import_log(self, payload: bytes) -> NewTable:
        """A table that goes on from an exported log (``caltrop play --log`` or ``GET
        /api/log``): read as ``caltrop replay`` reads a file, replayed with its dice checked;
        422 naming the line or the event if it is not a whole Caltrop log."""
        if len(payload) > MAX_LOG_BYTES:
            raise TooLargeError(f"a log is at most {MAX_LOG_BYTES:,} bytes")
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "upload.jsonl"
            path.write_bytes(payload)
            try:
                events, _ = read_log_events(path)
            except CaltropError as exc:
                raise RefusedError(str(exc).replace(str(path), "the upload")) from None
        header = events[0].get("header")
        if not isinstance(header, dict) or not isinstance(header.get("definition"), dict):
            raise RefusedError("line 1: the 'begin' event must carry the encounter")
        try:  # the log reader's own checks: the header, each gm: add creature (issue 21)
            definition = log_definition(events)
            engine = Encounter.replay(definition, events)
        except CaltropError as exc:
            raise RefusedError(f"this log does not replay: {exc}") from None
        except (KeyError, TypeError, ValueError, RecursionError) as exc:
            raise RefusedError(f"not a Caltrop log ({type(exc).__name__})") from None
        return self._open(encounter_to_dict(definition), engine)

    def _open(self, data: Mapping[str, Any], engine: Encounter) -> NewTable:
        definition = engine.initial
        gm_token = secrets.token_urlsafe(32)
        players = {
            c.id: secrets.token_urlsafe(32) for c in definition.participants if c.side is Side.PC
        }
        seats = [NewSeat(token_hash(gm_token), "gm")]
        seats += [NewSeat(token_hash(t), "player", cid) for cid, t in players.items()]
        table_id = uuid.uuid4().hex
        encounter_id = self.repository.create_table(
            table_id, definition.name, data, engine.events, seats
        )
        with self._cache_lock:
            self._cache[encounter_id] = _Cached(engine)
        return NewTable(table_id, gm_token, players)

    def seat(self, token: str) -> Seat:
        """The seat of a token; 401 if there is none or it was revoked."""
        known = self.known_seat(token)
        if known is not None:
            return known
        hashed = token_hash(token)
        seat = self.repository.seat_by_token_hash(hashed)
        if seat is None or seat.revoked:
            raise NoSeatError("unknown or revoked seat token")
        with self._cache_lock:
            if len(self._seats) >= MAX_KNOWN_SEATS:
                self._seats.clear()
            self._seats[hashed] = (seat, time.monotonic() + SEAT_SECONDS)
        return seat

    def known_seat(self, token: str) -> Seat | None:
        """The seat of a token this process looked up less than :data:`SEAT_SECONDS` ago (no
        query; a revocation here forgets it at once, one in another process within that
        time), else None."""
        with self._cache_lock:
            found = self._seats.get(token_hash(token))
        if found is None or found[1] < time.monotonic():
            return None
        return found[0]

    def set_visibility(self, seat: Seat, shown: Mapping[str, Mapping[str, Any]]) -> None:
        """The GM sets what players see of NPCs: id → {health: exact|label|hidden, aspects,
        resources} (issue 11); 403 for a player, 422 naming a wrong id or value."""
        if seat.role != "gm":
            raise ForbiddenError("only the GM decides what players see of NPCs")
        located = self.repository.locate(seat.table_id)
        encounter = self._at_head(located)
        npcs = {c.id for c in encounter.creatures if c.side is Side.NPC}
        merged = dict(located.visibility)
        for creature_id, value in shown.items():
            if creature_id not in npcs:
                raise RefusedError(f"{creature_id!r} is not an NPC of this encounter")
            try:
                reveal_from({creature_id: value})
            except (ValueError, AttributeError):
                raise RefusedError(
                    f"{creature_id}: health is exact, label or hidden, not {value!r}"
                ) from None
            merged[creature_id] = dict(value)
        self.repository.set_visibility(located.encounter_id, merged)
        with self._cache_lock:
            self._visibility[located.encounter_id] = merged

    def set_chance_shown(self, seat: Seat, shown: bool) -> None:
        """The GM shows the live chance of winning to the players, or hides it again (issue 23
        item 4; stored with the table, so it outlives a restart); 403 for a player."""
        if seat.role != "gm":
            raise ForbiddenError(
                "only the GM decides whether the players see the chance of winning"
            )
        self.repository.set_chance_shown(seat.table_id, shown)

    def playing(self, table_id: str) -> tuple[Located, Encounter]:
        """Where the table is (its current encounter, head, visibility) and that encounter's
        state at the head: the cached state itself (never changed in place: a commit replaces
        it), for a reader that only reads."""
        located = self.repository.locate(table_id)
        return located, self._at_head(located)

    def next_encounter(
        self,
        seat: Seat,
        encounter: str | EncounterDef,
        *,
        reset: Sequence[str] = (),
        seed: int | None = None,
    ) -> dict[str, str]:
        """The GM starts the table's next encounter (the library's by name, or an uploaded
        one's definition, :func:`uploaded_encounter`): the player
        characters carry their Health, Stamina and Exhaustion over unless ``reset`` names them
        (:func:`caltrop.table.night.carry_over`); the encounter before keeps its log. Returns
        the tokens of seats for player characters new to the table."""
        if seat.role != "gm":
            raise ForbiddenError("only the GM starts the next encounter")
        definition = self._from_library(encounter) if isinstance(encounter, str) else encounter
        previous = self._at_head(self.repository.locate(seat.table_id))
        try:
            carried = carry_over(previous, definition, reset)
        except CaltropError as exc:
            raise RefusedError(str(exc)) from None
        data = encounter_to_dict(carried)
        engine = Encounter.begin(carried, seed, header={"definition": data})
        seated = {
            s.creature_id
            for s in self.repository.seats(seat.table_id)
            if s.role == "player" and not s.revoked
        }
        tokens = {
            c.id: secrets.token_urlsafe(32)
            for c in carried.participants
            if c.side is Side.PC and c.id not in seated
        }
        seats = [NewSeat(token_hash(t), "player", cid) for cid, t in tokens.items()]
        encounter_id = self.repository.add_encounter(seat.table_id, data, engine.events, seats)
        with self._cache_lock:
            self._cache[encounter_id] = _Cached(engine)
        return tokens

    def reissue(self, seat: Seat, creature_id: str) -> tuple[str, list[int]]:
        """The GM revokes a player's seat and issues a new token for the creature (issue 11);
        returns the token and the revoked seats' ids (their sockets are to be closed)."""
        if seat.role != "gm":
            raise ForbiddenError("only the GM may revoke and reissue a seat")
        encounter = self._at_head(self.repository.locate(seat.table_id))
        pcs = [c.id for c in encounter.creatures if c.side is Side.PC]
        if creature_id not in pcs:
            raise RefusedError(f"{creature_id!r} is not a player character here ({', '.join(pcs)})")
        token = secrets.token_urlsafe(32)
        revoked = self.repository.reissue_seat(seat.table_id, creature_id, token_hash(token))
        with self._cache_lock:
            for hashed, (known, _) in list(self._seats.items()):
                if known.id in revoked:
                    del self._seats[hashed]
        return token, revoked

    def open_screen(self, seat: Seat) -> tuple[str, list[int]]:
        """The GM issues the table's screen link (a TV's, issue 22): a seat that sees what the
        players see and gives no command. The screen seat before it, if any, is revoked (one
        screen link at a time: a new one ends the old); returns the token and the revoked
        seats' ids (their sockets are to be closed)."""
        if seat.role != "gm":
            raise ForbiddenError("only the GM opens the table's screen link")
        token = secrets.token_urlsafe(32)
        revoked = self.repository.replace_screen_seat(seat.table_id, token_hash(token))
        self._forget_seats(revoked)
        return token, revoked

    def close_screen(self, seat: Seat) -> list[int]:
        """The GM revokes the table's screen link: its sockets are to be closed (the ids)."""
        if seat.role != "gm":
            raise ForbiddenError("only the GM revokes the table's screen link")
        revoked = self.repository.replace_screen_seat(seat.table_id, None)
        self._forget_seats(revoked)
        return revoked

    def _forget_seats(self, seat_ids: Sequence[int]) -> None:
        """This process's looked-up seats among ``seat_ids`` are forgotten (revoked here: at
        once)."""
        with self._cache_lock:
            for hashed, (known, _) in list(self._seats.items()):
                if known.id in seat_ids:
                    del self._seats[hashed]

    def revoked_seats(self, table_id: str) -> set[int]:
        """The ids of the table's revoked seats (another process revoked some: their sockets
        here are to be closed), forgetting this process's looked-up seats of the table."""
        seats = self.repository.seats(table_id)
        with self._cache_lock:
            for hashed, (known, _) in list(self._seats.items()):
                if known.table_id == table_id:
                    del self._seats[hashed]
        return {s.id for s in seats if s.revoked}

    # -- reading ----------------------------------------------------------------------------

    def view(self, seat: Seat) -> TableView:
        """The seat's view; 409 if its creature does not play in the table's encounter now."""
        viewer = viewer_of(seat)
        found = self.views(seat.table_id, {viewer}).get(viewer)
        if found is None:
            raise OutOfStepError(f"{viewer} does not play in this table's encounter now")
        return found

    def views(self, table_id: str, viewers: set[str]) -> dict[str, TableView]:
        """The view of each viewer of one table who plays in its encounter now (the GM always),
        from one read of its state (a broadcast)."""
        located = self.repository.locate(table_id)
        return self._views(located, self._at_head(located), viewers)

    @staticmethod
    def _views(located: Located, encounter: Encounter, viewers: Set[str]) -> dict[str, TableView]:
        present = {c.id for c in encounter.creatures}
        playing = [v for v in viewers if _plays(v, present)]
        return views(encounter, playing, reveal_from(located.visibility))

    def told(
        self,
        table_id: str,
        events: Sequence[tuple[int, Mapping[str, Any]]],
        viewers: set[str],
    ) -> Told:
        """What a broadcast tells each viewer, from one read of the table: ``events`` as the
        viewer may see them, and its view (as JSON-ready data; none for a creature that sits
        the encounter out)."""
        located = self.repository.locate(table_id)
        return self._told(located, self._at_head(located), events, viewers)

    @classmethod
    def _told(
        cls,
        located: Located,
        encounter: Encounter,
        events: Sequence[tuple[int, Mapping[str, Any]]],
        viewers: Set[str],
    ) -> Told:
        shown = cls._shown(located, encounter, events, viewers)
        views = {v: tv.as_dict() for v, tv in cls._views(located, encounter, viewers).items()}
        return shown, views

    def batch(
        self,
        table_id: str,
        encounter_id: int | None,
        after: int,
        viewers: Set[str],
        *,
        fresh: bool = False,
        force_views: bool = False,
    ) -> Batch:
        """What the table's sockets are to be told after seq ``after`` of ``encounter_id``,
        from one state (:class:`Batch`). ``fresh``: ask the database where the table is now
        (another process may have committed, or the table moved to its next encounter);
        otherwise the state this process committed last is used with no query at all, which
        holds every event up to its own last commit (a command catches up with the log before
        it is applied). A batch of another encounter than ``encounter_id`` starts at its log's
        beginning (``after`` -1). With no new event the views are worked out only if
        ``force_views`` (a socket joined, or what players see changed)."""
        if fresh or encounter_id is None:
            located = self.repository.locate(table_id)
            encounter = self._at_head(located)
            current, visibility = located.encounter_id, located.visibility
            with self._cache_lock:
                self._visibility[current] = visibility
        else:
            current = encounter_id
            encounter = self._cached(current).encounter  # one reference: one state
            with self._cache_lock:
                known = self._visibility.get(current)
            visibility = known if known is not None else self.repository.locate(table_id).visibility
        return self._batch(
            current, encounter, visibility, encounter_id, after, viewers, force_views=force_views
        )

    def _batch(
        self,
        current: int,
        encounter: Encounter,
        visibility: Mapping[str, Any],
        encounter_id: int | None,
        after: int,
        viewers: Set[str],
        *,
        force_views: bool = False,
    ) -> Batch:
        """The batch of ``encounter`` (the state of encounter ``current``) for sockets told up
        to ``after`` of ``encounter_id``; see :meth:`batch`."""
        if current != encounter_id:
            after = -1
        logged = encounter.events
        head = len(logged) - 1
        after = max(-1, min(after, head))
        events = [(seq, logged[seq]) for seq in range(after + 1, head + 1)]
        shown = self._shown_with(visibility, encounter, events, viewers)
        if not events and not force_views:
            return Batch(current, head, after, shown, {})
        present = {c.id for c in encounter.creatures}
        playing = [v for v in viewers if _plays(v, present)]
        log_memo = self._cached(current).log_memo
        seen = views(encounter, playing, reveal_from(visibility), log_memo=log_memo)
        return Batch(current, head, after, shown, views_as_dicts(seen))

    def events_since(self, seat: Seat, last_seq: int) -> list[dict[str, Any]]:
        """The events after ``last_seq`` as the seat may see them, each with its seq."""
        located = self.repository.locate(seat.table_id)
        events = self.repository.events(located.encounter_id, last_seq)
        return self.shown_events(seat.table_id, events, {viewer_of(seat)})[viewer_of(seat)]

    def events_before(self, seat: Seat, before: int | None, limit: int) -> list[dict[str, Any]]:
        """A page of the log going back (issue 22 item 6): at most ``limit`` events with seq
        below ``before`` (None: from the head), newest first, each with its seq, as the seat
        may see them (the live stream's filter, :meth:`_shown_with`)."""
        located = self.repository.locate(seat.table_id)
        encounter = self._at_head(located)
        events = encounter.events
        seqs = page_bounds(before, limit, len(events) - 1)
        viewer = viewer_of(seat)
        page = [(seq, events[seq]) for seq in seqs]
        return self._shown_with(located.visibility, encounter, page, {viewer})[viewer]

    def log_page(
        self, seat: Seat, before: int | None, limit: int
    ) -> tuple[list[dict[str, Any]], int | None]:
        """The page of :meth:`events_before` as the screens' log entries (each command with its
        dice, newest first: :func:`caltrop.table.log.log_page`), and the cursor of the page
        before it (None: this page reaches the log's first command)."""
        located = self.repository.locate(seat.table_id)
        encounter = self._at_head(located)
        shown = reveal_from(located.visibility)
        entries = log_page(encounter, viewer_of(seat), before, limit, shown)
        seqs = page_bounds(before, limit, len(encounter.events) - 1)
        older = seqs[-1] if seqs and seqs[-1] > 1 else None  # seq 0 is the log's 'begin'
        return entries, older

    def shown_events(
        self,
        table_id: str,
        events: Sequence[tuple[int, Mapping[str, Any]]],
        viewers: set[str],
    ) -> dict[str, list[dict[str, Any]]]:
        """Each viewer's ``{seq, event}`` list of ``events`` of the table's encounter now, as
        that viewer may see them (:func:`caltrop.table.visible_event`)."""
        located = self.repository.locate(table_id)
        return self._shown(located, self._at_head(located), events, viewers)

    @classmethod
    def _shown(
        cls,
        located: Located,
        encounter: Encounter,
        events: Sequence[tuple[int, Mapping[str, Any]]],
        viewers: Set[str],
    ) -> dict[str, list[dict[str, Any]]]:
        return cls._shown_with(located.visibility, encounter, events, viewers)

    @staticmethod
    def _shown_with(
        visibility: Mapping[str, Any],
        encounter: Encounter,
        events: Sequence[tuple[int, Mapping[str, Any]]],
        viewers: Set[str],
    ) -> dict[str, list[dict[str, Any]]]:
        """Each viewer's ``{seq, event}`` list of ``events``: every player sees an event alike
        (:func:`caltrop.table.visible_event`), so it is worked out once for the GM and once
        for the players."""
        reveals = npc_reveals(encounter, reveal_from(visibility))
        cache: dict[bool, list[dict[str, Any]]] = {}
        out: dict[str, list[dict[str, Any]]] = {}
        for viewer in viewers:
            key = viewer == GM
            if key not in cache:
                cache[key] = [
                    {"seq": seq, "event": visible_event(e, viewer, reveals)} for seq, e in events
                ]
            out[viewer] = cache[key]
        return out
        return {
            viewer: [{"seq": seq, "event": visible_event(e, viewer, reveals)} for seq, e in events]
            for viewer in viewers
        }

    def head(self, seat: Seat) -> int:
        return self.repository.locate(seat.table_id).head

    def heads(self, table_ids: Sequence[str]) -> dict[str, tuple[int, int]]:
        """Per table: its current encounter's id and log head (what its sockets should know)."""
        return self.repository.heads(table_ids)

    def log_lines(self, seat: Seat, position: int | None = None) -> list[str]:
        """An encounter's log as ``caltrop replay`` reads it (the GM's export): the current
        encounter's, or the one at ``position`` (0 the night's first)."""
        if seat.role != "gm":
            raise ForbiddenError("only the GM may export the log (it holds every stat block)")
        if position is None:
            encounter_id = self.repository.locate(seat.table_id).encounter_id
        else:
            played = self.repository.encounters(seat.table_id)
            if not 0 <= position < len(played):
                raise NotFoundError(
                    f"no encounter {position}: this night has {len(played)} (0 to "
                    f"{len(played) - 1})",
                )
            encounter_id = played[position].id
        return [
            json.dumps(e, sort_keys=True, ensure_ascii=False)
            for _, e in self.repository.events(encounter_id)
        ]

    def night(self, seat: Seat) -> list[tuple[str, list[str]]]:
        """Every encounter's log of the night, in order, each with a file name
        (``1-goblin-ambush.jsonl``): the GM's export of the whole night."""
        if seat.role != "gm":
            raise ForbiddenError("only the GM may export the logs (they hold every stat block)")
        out = []
        for n, record in enumerate(self.repository.encounters(seat.table_id), start=1):
            slug = "-".join("".join(c if c.isalnum() else " " for c in record.name).split())
            lines = [
                json.dumps(e, sort_keys=True, ensure_ascii=False)
                for _, e in self.repository.events(record.id)
            ]
            out.append((f"{n}-{slug.lower() or 'encounter'}.jsonl", lines))
        return out

    # -- the command path -------------------------------------------------------------------

    def submit(
        self,
        seat: Seat,
        text: str,
        command_id: str,
        expected_seq: int | None = None,
        *,
        tell: Set[str] = frozenset(),
    ) -> Accepted:
        """Apply one command for ``seat`` and commit it; see the module's docstring. With
        ``tell`` (viewers), the answer carries what each is to be told (:attr:`Accepted.told`)."""
        if seat.role == SCREEN_ROLE:
            raise ForbiddenError("a table screen only shows the table: it gives no commands")
        if not command_id or len(command_id) > MAX_COMMAND_ID:
            raise RefusedError(f"command_id must be 1 to {MAX_COMMAND_ID} characters")
        located = self.repository.locate(seat.table_id)
        encounter_id = located.encounter_id
        cached = self._cached(encounter_id)

        def work(log: LogWriter) -> tuple[Accepted, Encounter | None]:
            stored, head = log.answer_and_head(command_id)
            if stored is not None:
                if stored.get("seat") != seat.id:
                    raise OutOfStepError(f"command_id {command_id!r} was used by another seat")
                if _canonical(text) != _canonical(str(stored.get("command", ""))):
                    # a retry resends the same command; another one under a used id would be
                    # dropped without a word if it were answered with the stored answer
                    raise OutOfStepError(
                        f"command_id {command_id!r} was used for {stored.get('command')!r}, "
                        f"not {_canonical(text)!r}: send a new command with a new command_id"
                    )
                return Accepted(stored, seat.table_id, replayed=True), None
            if expected_seq is not None and expected_seq != head:
                raise OutOfStepError(
                    f"stale expected_seq {expected_seq}: the log is at {head}", head=head
                )
            current = cached.encounter
            if len(current.events) - 1 != head:  # another process appended: catch up
                current = _advanced(current, log.events(len(current.events) - 1))
            try:
                command = _command(text, current)
            except CaltropError as exc:
                raise RefusedError(str(exc)) from None
            why = refusal(current, None if seat.role == "gm" else seat.creature_id, command)
            if why is not None:
                raise ForbiddenError(why)
            after = current.clone()
            try:
                outcome = after.apply(command)
            except CaltropError as exc:
                raise RefusedError(str(exc)) from None
            settled = after.settle()
            new = tuple((seq, after.events[seq]) for seq in range(head + 1, len(after.events)))
            answer: dict[str, Any] = {
                "accepted": True,
                "seat": seat.id,
                "command": str(command),
                "seq": new[-1][0],
                "first_seq": head + 1,
                "outcomes": [outcome_json(o) for o in ([outcome] if outcome else []) + settled],
            }
            log.append(new, command_id=command_id, seat_id=seat.id, answer=answer)
            return Accepted(answer, seat.table_id, new, encounter_id=encounter_id), after

        with cached.lock:
            accepted, after = self.repository.append(encounter_id, work)
            # committed, still under the lock: a reader never sees a head the cache lacks, so
            # it never replays for nothing
            if after is not None:
                cached.encounter = after
        if tell and after is not None:
            told = self._told(located, after, accepted.events, tell)
            accepted = replace(accepted, told=told)
        return accepted

    # -- state ------------------------------------------------------------------------------

    def _cached(self, encounter_id: int) -> _Cached:
        """The encounter's state kept in memory (replayed from its log the first time)."""
        with self._cache_lock:
            cached = self._cache.get(encounter_id)
        if cached is None:
            definition = self.repository.definition(encounter_id)
            events = [e for _, e in self.repository.events(encounter_id)]
            cached = _Cached(_replay(definition, events))
            with self._cache_lock:
                cached = self._cache.setdefault(encounter_id, cached)
        return cached

    def _at_head(self, located: Located) -> Encounter:
        """The encounter at the head ``located`` read (caught up with the events another
        process appended, if this one is behind)."""
        cached = self._cached(located.encounter_id)
        with cached.lock:
            have = len(cached.encounter.events) - 1
            if have < located.head:
                events = self.repository.events(located.encounter_id, have)
                cached.encounter = _advanced(cached.encounter, events)
            return cached.encounter


def _advanced(encounter: Encounter, events: Sequence[tuple[int, Mapping[str, Any]]]) -> Encounter:
    """A copy of ``encounter`` with the logged ``events`` (seq, event) after its head applied,
    checked as a replay checks them."""
    after = encounter.clone()
    try:
        for seq, event in events:
            after.replay_event(event, seq)
    except CaltropError as exc:
        raise NotFoundError(f"the stored log does not replay: {exc}") from exc
    return after


def uploaded_encounter(files: Mapping[str, bytes]) -> EncounterDef:
    """The encounter of an upload (name → bytes): at most :data:`MAX_UPLOAD_FILES` files of at
    most ``MAX_FILE_BYTES`` each (:data:`MAX_UPLOAD_BYTES` in all), named by relative paths,
    UTF-8 text; exactly one is ``kind: encounter`` and it may include the others by relative
    path, never a file of the server's. 413 past a size, 422 naming the file, line and field."""
    if not files:
        raise RefusedError("no files uploaded: send the encounter's YAML files")
    if len(files) > MAX_UPLOAD_FILES:
        raise TooLargeError(f"at most {MAX_UPLOAD_FILES} files in one upload")
    total = sum(len(data) for data in files.values())
    if total > MAX_UPLOAD_BYTES:
        raise TooLargeError(f"an upload is at most {MAX_UPLOAD_BYTES:,} bytes in all")
    texts: dict[str, str] = {}
    for name, data in files.items():
        clean = _upload_name(name)
        if len(data) > MAX_FILE_BYTES:
            raise TooLargeError(f"{clean}: a content file is at most {MAX_FILE_BYTES:,} bytes")
        try:
            texts[clean] = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise RefusedError(
                f"{clean}: not UTF-8 text (byte {exc.start + 1}); content files are YAML"
            ) from None
    try:
        return load_encounter_files(texts)
    except CaltropError as exc:
        raise RefusedError(str(exc)) from None


def _upload_name(name: str) -> str:
    """An uploaded file's name as a '/'-separated relative path inside the upload."""
    clean = name.replace("\\", "/").strip()
    parts = [p for p in clean.split("/") if p not in ("", ".")]
    if (
        not parts
        or len(clean) > MAX_UPLOAD_NAME
        or ".." in parts
        or any(not ch.isprintable() for ch in clean)
    ):
        shown = repr(name[:60])
        raise RefusedError(
            f"{shown}: an uploaded file is named by a relative path (no '..', no control "
            f"characters, at most {MAX_UPLOAD_NAME} characters)",
        )
    return "/".join(parts)


def _replay(definition: Mapping[str, Any], events: Sequence[Mapping[str, Any]]) -> Encounter:
    """State from the log, as ``caltrop replay`` rebuilds it (the header's definition)."""
    try:
        return Encounter.replay(encounter_from_dict(definition), events)
    except CaltropError as exc:
        raise NotFoundError(f"the stored log does not replay: {exc}") from exc


def _canonical(text: str) -> str:
    """A command's text as the log writes it (``  bron:  strike x`` → ``bron: strike x``), to
    tell a retry of a command from another command under the same ``command_id``; text that
    does not parse is compared with its spaces folded."""
    try:
        return str(parse_command(text))
    except CaltropError:
        return " ".join(text.split())


def _command(text: str, encounter: Encounter) -> Command:
    """The command ``text`` says; ``gm: add`` of a creature the encounter does not hold in
    reserve is looked up among the bundled creatures (R48); never as a file on the server."""
    command = parse_command(text)
    reserves = {c.id for c in encounter.definition.reserves}
    if (
        isinstance(command, AddCreature)
        and command.creature is None
        and command.source not in reserves
    ):
        if command.source not in bundled_creatures() and not command.source.startswith(
            BUNDLED_PREFIX
        ):
            raise CaltropError(
                f"no creature {command.source!r} in this encounter's reserves nor bundled "
                "(the server reads no files)"
            )
        command = replace(command, creature=resolve_creature(command.source, base=None))
    return command
