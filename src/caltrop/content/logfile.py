"""Game logs as files: read one without trusting it, write one without losing anything (issue 10).

A log is UTF-8 text, one JSON object a line; the first is the game's ``begin`` event (its seed
and the encounter it plays), each later one an event of that game. This module only reads and
writes the file; :meth:`caltrop.encounter.Encounter.replay` checks what the events say.

Reading (:func:`read_log_events`) refuses, with :class:`LogFileError` and a one-line reason:

* anything but a regular file — a FIFO (opened without blocking, so it never hangs), a device
  (``/dev/zero`` is never read), a directory;
* a file over :data:`MAX_LOG_BYTES` (refused from its size, before it is read) — and one that
  grows past it while being read;
* binary, UTF-16 or other non-UTF-8 text, naming the line;
* a line that is not a JSON object (``5``, ``[]``, ``null``, ``"x"``), naming the line; JSON
  nested deeper than :data:`MAX_JSON_DEPTH`; ``NaN``, ``Infinity``, a float that overflows
  (``"seed": 1e400``) and integers of more than :data:`MAX_INT_DIGITS` digits;
* a first event that is not a ``begin`` event with an integer seed.

A last line cut mid-write (no newline at its end, and not a whole JSON object: a crash of the
writer) is dropped, with the warning ``"dropped the last line: cut off mid-write"`` among the
returned warnings, and the game resumes from its last whole event.

Writing (:func:`write_log`) is atomic and durable: the lines go to a temporary file in the same
directory, which is fsynced, renamed over the log, and the directory fsynced; a failure removes
the temporary file and leaves the old log as it was. A new log gets the user's umask (``0o666 &
~umask``); a replaced one keeps its mode. It refuses a device, FIFO or directory at the path, a
symbolic link (it would replace the link, or write where the link points: neither is what was
asked), and — unless ``replace_game=True`` — an existing file the save would lose something of
(:func:`replace_refusal`, the one rule of every save, issue 21): another game, a longer or
different log of this game (``play --log FILE`` started again, an older copy resumed over a
newer one), or a file that is not a log. The refusal says how many commands the file holds and
names the option that replaces it anyway (``override``: ``--force``, ``save FILE --replace``).
A temporary file left by a writer killed mid-save (``.FILE.1a2b3c4d.tmp``) is removed by
:func:`remove_stale_temporaries`, which ``caltrop play`` calls before its first save.

Usage (for ``caltrop play`` / ``replay`` and the session's ``save``)::

    from caltrop.content.logfile import LogFileError, read_log_events, write_log

    try:
        events, warnings = read_log_events(path)  # --resume FILE, replay FILE
    except LogFileError as exc:
        fail(str(exc))                            # one line; exit code 2
    for warning in warnings:
        console.print(f"{path}: {warning}")       # say what was dropped
    definition = encounter_from_dict(events[0]["header"]["definition"])
    encounter = Encounter.replay(definition, events)

    try:  # after every command; replace_game=True only when the user said so (or --resume)
        write_log(path, encounter.log_lines(), replace_game=False, override="--force")
    except LogFileError as exc:
        ...  # "FILE: holds another game (…; 5 commands); resume it with --resume FILE, …"

Both raise only :class:`LogFileError` (a :class:`~caltrop.errors.CaltropError`); an ``OSError``
is turned into one that names the file and the reason.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final, NoReturn

from caltrop.content.paths import KINDS as _KINDS
from caltrop.content.paths import MISSING, path_problem
from caltrop.errors import LogFileError as LogFileError

#: The largest log read or written: ~100,000 commands of a long session, with room to spare.
MAX_LOG_BYTES: Final = 20 * 1024 * 1024
#: JSON nesting of any event (an encounter's definition in the header is ~8 deep).
MAX_JSON_DEPTH: Final = 64
#: Digits of any integer in a log (a 64-bit seed has 20).
MAX_INT_DIGITS: Final = 40
#: The warning given when a cut last line is dropped.
CUT_LINE_WARNING: Final = "dropped the last line: cut off mid-write"

_UTF16_BOMS: Final = (b"\xff\xfe", b"\xfe\xff")
_UTF8_BOM: Final = b"\xef\xbb\xbf"


# -- reading ------------------------------------------------------------------------------------


def read_log_events(path: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """The events of the log at ``path``, and the warnings of reading it (a dropped cut line).

    Raises :class:`LogFileError` for anything that is not a whole, bounded JSON-lines log of
    objects starting with a ``begin`` event (see the module docstring for every case).
    """
    path = Path(path)
    data = _read_bounded(path)
    if data.startswith(_UTF16_BOMS) or _looks_utf16(data):
        _refuse(path, "is UTF-16 text; a log is UTF-8")
    if data.startswith(_UTF8_BOM):
        data = data[len(_UTF8_BOM) :]
    lines = data.split(b"\n")
    cut = lines[-1] != b""  # the last line has no newline: possibly cut mid-write
    if not cut:
        lines.pop()
    events: list[dict[str, Any]] = []
    warnings: list[str] = []
    for number, raw in enumerate(lines, start=1):
        last = number == len(lines)
        try:
            event = _event(raw, number)
        except LogFileError as exc:
            if last and cut and number > 1:  # a crash of the writer: keep every whole event
                warnings.append(CUT_LINE_WARNING)
                break
            _refuse(path, str(exc))
        if event is not None:
            events.append(event)
    if not events:
        _refuse(path, "holds no event; a log starts with its 'begin' event")
    try:
        _check_begin(events[0])
    except LogFileError as exc:
        _refuse(path, str(exc))
    return events, warnings


def _looks_utf16(data: bytes) -> bool:
    """UTF-16 without a byte-order mark: ASCII text with a NUL byte after (or before) each."""
    head = data[:4096]
    return (
        len(head) >= 4
        and b"\x00" in head
        and (head[1::2].count(0) * 2 >= len(head) // 2 or head[0::2].count(0) * 2 >= len(head) // 2)
    )


def _read_bounded(path: Path) -> bytes:
    """The bytes of a regular file of at most MAX_LOG_BYTES, opened so that nothing blocks."""
    info = _stat(path, follow=True)
    if info is None:  # a link to nothing says so (issue 21: one wording, content.paths)
        why = path_problem(path)
        _refuse(path, "does not exist" if why in (None, MISSING) else why)
    _require_regular(path, info)
    _require_size(path, info.st_size)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        _refuse(path, _reason(exc))
    with os.fdopen(fd, "rb") as handle:
        _require_regular(path, os.fstat(handle.fileno()))  # replaced since the stat: check again
        data = handle.read(MAX_LOG_BYTES + 1)
    _require_size(path, len(data))
    return data


def _require_regular(path: Path, info: os.stat_result) -> None:
    for test, kind in _KINDS:
        if test(info.st_mode):
            _refuse(path, f"is {kind}, not a log file")
    if not stat.S_ISREG(info.st_mode):
        _refuse(path, "is not a regular file")


def _require_size(path: Path, size: int) -> None:
    if size > MAX_LOG_BYTES:
        _refuse(path, f"is {size:,} bytes; a log is at most {MAX_LOG_BYTES:,}")


def _event(raw: bytes, number: int) -> dict[str, Any] | None:
    """One line as an event (None for a blank line); LogFileError names the line."""
    if b"\x00" in raw:
        raise LogFileError(f"line {number}: binary data (a NUL byte); a log is UTF-8 text")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LogFileError(
            f"line {number}: not UTF-8 text (byte 0x{raw[exc.start]:02x} at column {exc.start + 1})"
        ) from None
    if not text.strip():
        return None
    try:
        value = json.loads(
            text,
            parse_int=_bounded_int,
            parse_float=_finite_float,
            parse_constant=_no_constant,
        )
    except _NumberRefusedError as exc:
        raise LogFileError(f"line {number}: {exc}") from None
    except RecursionError:
        raise LogFileError(f"line {number}: JSON nested deeper than {MAX_JSON_DEPTH}") from None
    except json.JSONDecodeError as exc:
        raise LogFileError(
            f"line {number}: not a JSON line ({exc.msg} at column {exc.colno})"
        ) from None
    if not isinstance(value, dict):
        raise LogFileError(f"line {number}: a log line is a JSON object, not {_json_kind(value)}")
    problem = _bad_value(value)
    if problem:
        raise LogFileError(f"line {number}: {problem}")
    return value


class _NumberRefusedError(ValueError):
    """A number the JSON hooks refuse (raised through ``json.loads``)."""


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise _NumberRefusedError(
            f"an integer of {len(text.lstrip('-')):,} digits; at most {MAX_INT_DIGITS}"
        )
    return int(text)


def _finite_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise _NumberRefusedError(f"the number {text[:20]} is too large")
    return value


def _no_constant(text: str) -> NoReturn:
    raise _NumberRefusedError(f"{text} is not a number a log holds")


def _json_kind(value: object) -> str:
    match value:
        case list():
            return "an array"
        case None:
            return "null"
        case str():
            return "a string"
        case bool():
            return "a boolean"
        case _:
            return "a number"


def _bad_value(value: dict[str, Any]) -> str | None:
    """Nesting past MAX_JSON_DEPTH, or a string with an unpaired surrogate (``"\\ud800"``,
    which no terminal or file can print), found by an iterative walk."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            return f"JSON nested deeper than {MAX_JSON_DEPTH}"
        if isinstance(item, dict):
            for key, inner in item.items():
                if not _printable_text(key):
                    return "a key with an unpaired surrogate escape"
                stack.append((inner, depth + 1))
        elif isinstance(item, list):
            stack.extend((inner, depth + 1) for inner in item)
        elif isinstance(item, str) and not _printable_text(item):
            return "a string with an unpaired surrogate escape"
    return None


def _printable_text(text: str) -> bool:
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _check_begin(first: dict[str, Any]) -> None:
    if first.get("event") != "begin":
        raise LogFileError("line 1: a log starts with its 'begin' event")
    seed = first.get("seed")
    if type(seed) is not int:
        shown = repr(seed) if isinstance(seed, float) else _json_kind(seed)  # "not 5.0" (issue 21)
        raise LogFileError(f"line 1: the seed is a whole number, not {shown}")
    if seed < 0:
        raise LogFileError(f"line 1: the seed is at least 0, not {seed}")
    fmt = first.get("format")
    if fmt is not None and not (isinstance(fmt, str) and re.fullmatch(r"caltrop-log/\d+", fmt)):
        raise LogFileError(f"line 1: {str(fmt)[:40]!r} is not a Caltrop log format")


# -- writing ------------------------------------------------------------------------------------


def write_log(
    path: Path, lines: Sequence[str], *, replace_game: bool, override: str = "--force"
) -> None:
    """Write ``lines`` (JSON lines, the first a ``begin`` event) to ``path`` atomically and
    durably, refusing what would lose data (see the module docstring).

    ``replace_game=True`` allows overwriting any regular file (another game, a longer log of
    this one, a file that is not a log): pass it only when the user has said so. Without it the
    file must be one :func:`replace_refusal` allows; ``override`` names how the user says so
    (``--force``, ``save FILE --replace``) in the refusal.
    """
    path = Path(path)
    if "\x00" in str(path):
        raise LogFileError(f"{str(path)!r}: a file name has no NUL character")
    payload = _payload(path, lines)
    existing = _stat(path, follow=False)
    mode: int | None = None
    if existing is not None:
        if stat.S_ISLNK(existing.st_mode):
            _refuse(path, f"is a symbolic link (to {_link_target(path)}); name the file itself")
        _require_regular(path, existing)
        if not replace_game:
            why = replace_refusal(path, _events_of(lines), _file_events(path))
            if why is not None:
                _refuse(path, f"{why}; to replace it anyway: {override}")
        mode = stat.S_IMODE(existing.st_mode)
    _replace_atomically(path, payload, mode)


def replace_refusal(
    path: Path, ours: Sequence[Mapping[str, Any]], theirs: Sequence[Mapping[str, Any]] | None
) -> str | None:
    """Why the log ``ours`` may not replace the file at ``path`` holding ``theirs`` (its whole
    events; None: not a log), or None when it may — the one rule of every save (issue 21).

    A save may replace an empty file, or a log of the same game whose events are a prefix of
    ``ours``: the same ``begin`` event, then the same events, no more of them. A game's log only
    grows (an undo is itself an event), so a save of the game being played always may; what it
    refuses is a file that holds something the save would lose: another game, a later (longer)
    copy of this one, or a file that is not a log at all.
    """
    if theirs is None:
        return "exists and is not a Caltrop log; refusing to overwrite it"
    if not theirs:
        return None  # an empty file: nothing to lose
    held = _commands_text(theirs)
    if theirs[0] != ours[0]:
        first = theirs[0]
        game = f"{str(first.get('encounter', '?'))[:60]}, seed {first.get('seed', '?')}"
        return (
            f"holds another game ({game}; {held}); resume it with --resume {path}, "
            "or save to another file"
        )
    if len(theirs) > len(ours) or any(a != b for a, b in zip(theirs, ours, strict=False)):
        later = len(theirs) > len(ours) and all(a == b for a, b in zip(theirs, ours, strict=False))
        how = "a later copy of this game" if later else "this game with other commands"
        return (
            f"holds {how} ({held}; this one has {_commands_text(ours)}) that this save would "
            f"lose; resume it with --resume {path}, or save to another file"
        )
    return None


def _commands_text(events: Sequence[Mapping[str, Any]]) -> str:
    n = sum(1 for e in events if e.get("event") == "command")
    return f"{n:,} command" + ("" if n == 1 else "s")


def _events_of(lines: Sequence[str]) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    for line in lines:
        value = json.loads(line)
        events.append(value if isinstance(value, dict) else {"value": value})
    return events


def _file_events(path: Path) -> list[dict[str, Any]] | None:
    """The whole events of the file at ``path`` ([] for an empty one), or None if it is not a
    log (read as :func:`read_log_events` reads it: a cut last line is not an event)."""
    try:
        info = os.stat(path)
    except OSError as exc:
        _refuse(path, _reason(exc))
    if info.st_size == 0:
        return []
    try:
        events, _ = read_log_events(path)
    except LogFileError:
        try:
            with open(path, "rb") as handle:
                blank = not handle.read(4096).strip()
        except OSError as exc:
            _refuse(path, _reason(exc))
        return [] if blank and info.st_size <= 4096 else None
    return events


def _payload(path: Path, lines: Sequence[str]) -> bytes:
    if not lines:
        raise LogFileError(f"{path}: nothing to save (a log starts with its 'begin' event)")
    for number, line in enumerate(lines, start=1):
        if "\n" in line or "\r" in line:
            raise LogFileError(f"{path}: line {number} to save spans several lines")
    payload = ("\n".join(lines) + "\n").encode("utf-8", errors="strict")
    _require_size(path, len(payload))
    return payload


def _temporary_name(path: Path) -> Path:
    return path.parent / f".{path.name}.{secrets.token_hex(4)}.tmp"


def remove_stale_temporaries(path: Path) -> list[Path]:
    """Remove the temporary files a writer of ``path`` killed mid-save left beside it (regular
    files named as :func:`write_log` names them, ``.FILE.1a2b3c4d.tmp``); return those removed.

    A save's temporary file lives for one write; one still there when a session starts is what a
    SIGKILL left (issue 21). Nothing else is touched: not a link, not another file's.
    """
    path = Path(path)
    pattern = re.compile(re.escape(f".{path.name}.") + r"[0-9a-f]{8}\.tmp")
    removed: list[Path] = []
    try:
        names = os.listdir(path.parent if str(path.parent) else ".")
    except OSError:
        return removed
    for name in names:
        if not pattern.fullmatch(name):
            continue
        candidate = path.parent / name
        with contextlib.suppress(OSError):
            if stat.S_ISREG(os.lstat(candidate).st_mode):
                os.unlink(candidate)
                removed.append(candidate)
    return removed


def _replace_atomically(path: Path, payload: bytes, mode: int | None) -> None:
    directory = path.parent
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        _refuse(directory, _reason(exc))
    tmp = _temporary_name(path)
    try:
        # 0o666 and O_EXCL: the kernel applies the user's umask, as for any new file
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
    except OSError as exc:
        _refuse(path, _reason(exc))
    try:
        try:
            if mode is not None:
                os.fchmod(fd, mode)
            view = memoryview(payload)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        _refuse(path, _reason(exc))
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_directory(directory)


def _fsync_directory(directory: Path) -> None:
    """Make the rename durable; a system that cannot open a directory skips it quietly."""
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems refuse fsync on a directory; the file itself is synced
    finally:
        os.close(fd)


# -- shared -------------------------------------------------------------------------------------


def _stat(path: Path, *, follow: bool) -> os.stat_result | None:
    try:
        return os.stat(path) if follow else os.lstat(path)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the name
        _refuse(path, (path_problem(path) if follow else None) or _reason(exc))


def _link_target(path: Path) -> str:
    try:
        return os.readlink(path)
    except OSError:
        return "?"


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror[0].lower() + exc.strerror[1:]
    return str(exc)


def _refuse(path: Path, why: str) -> NoReturn:
    raise LogFileError(f"{path}: {why}")
