"""Logs as files (issue 10): a log is read without trusting it and written without losing data.

Every refusal is a :class:`LogFileError` naming the file (and the line), in well under a second:
no hang on a FIFO, no MemoryError on ``/dev/zero``, no traceback on a line that is ``5``.
"""

from __future__ import annotations

import json
import os
import stat
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from caltrop.content import encounter_to_dict, load_encounter, logfile
from caltrop.content.logfile import (
    CUT_LINE_WARNING,
    MAX_INT_DIGITS,
    MAX_JSON_DEPTH,
    MAX_LOG_BYTES,
    LogFileError,
    read_log_events,
    write_log,
)
from caltrop.encounter import Encounter
from tests.fuzzing import fuzz, within


def _game(seed: int, commands: int = 0) -> list[str]:
    """The log lines of Orc Bridge with ``seed``, after its first ``commands`` legal commands
    (its header carries the definition, as ``caltrop play`` writes it)."""
    definition = load_encounter("orc-bridge")
    header = {"definition": encounter_to_dict(definition)}
    encounter = Encounter.begin(definition, seed, header=header)
    for _ in range(commands):
        encounter.apply(next(iter(encounter.legal_actions())))
    return encounter.log_lines()


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _refused(path: Path, *fragments: str) -> str:
    with pytest.raises(LogFileError) as info:
        within(2.0, lambda: read_log_events(path))
    message = str(info.value)
    assert str(path) in message
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message, message
    return message


# -- reading: what a log is ---------------------------------------------------------------------


def test_a_saved_game_reads_back_event_for_event(tmp_path: Path) -> None:
    lines = _game(7, commands=3)
    events, warnings = read_log_events(_write(tmp_path / "g.jsonl", lines))
    assert events == [json.loads(line) for line in lines]
    assert warnings == []
    assert events[0]["event"] == "begin"


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        ("5", "a number"),
        ("[]", "an array"),
        ("null", "null"),
        ('"x"', "a string"),
        ("true", "a boolean"),
    ],
)
def test_a_line_that_is_not_an_object_is_refused_with_its_number(
    tmp_path: Path, line: str, kind: str
) -> None:
    lines = _game(1, commands=2)
    lines.insert(2, line)
    _refused(_write(tmp_path / "g.jsonl", lines), "line 3:", f"a JSON object, not {kind}")


@pytest.mark.parametrize("first", ["5", "[]", '{"event": "command", "n": 1}', '{"event": "begin"}'])
def test_a_first_line_that_is_not_a_begin_event_is_refused(tmp_path: Path, first: str) -> None:
    _refused(_write(tmp_path / "g.jsonl", [first, *_game(1)[1:]]), "line 1:")


@pytest.mark.parametrize(
    ("edit", "fragment"),
    [
        ('"seed": 1e400', "too large"),
        ('"seed": NaN', "not a number"),
        ('"seed": -Infinity', "not a number"),
        ('"seed": ' + "9" * 5000, f"at most {MAX_INT_DIGITS}"),  # past Python's 4,300 digits
        ('"seed": 1.5', "whole number"),
        ('"seed": true', "whole number"),
        ('"seed": -3', "at least 0"),
    ],
)
def test_bad_numbers_are_refused(tmp_path: Path, edit: str, fragment: str) -> None:
    begin = json.loads(_game(4)[0])
    text = json.dumps(begin).replace(f'"seed": {begin["seed"]}', edit)
    assert edit in text
    _refused(_write(tmp_path / "g.jsonl", [text]), "line 1:", fragment)


def test_deep_nesting_is_refused(tmp_path: Path) -> None:
    lines = _game(1)
    deep = '{"event": "command", "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    _refused(_write(tmp_path / "g.jsonl", [*lines, deep]), "line 2:", "nested deeper")
    shallow = '{"event": "command", "x": ' + "[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1)
    _refused(_write(tmp_path / "h.jsonl", [*lines, shallow + "}"]), "line 2:", "nested deeper")


def test_an_unpaired_surrogate_escape_is_refused(tmp_path: Path) -> None:
    lines = [*_game(1), '{"event": "command", "command": "\\ud800"}']
    _refused(_write(tmp_path / "g.jsonl", lines), "line 2:", "surrogate")


def test_binary_utf16_and_latin1_files_are_refused(tmp_path: Path) -> None:
    text = "\n".join(_game(2)) + "\n"
    for name, data, fragment in [
        ("bom.jsonl", text.encode("utf-16"), "UTF-16"),
        ("le.jsonl", text.encode("utf-16-le"), "UTF-16"),
        ("png.jsonl", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "line 1"),
        ("nul.jsonl", text.encode() + b'{"event": "command"\x00}\n', "NUL"),
        (
            "latin1.jsonl",
            text.encode() + '{"event": "command", "c": "é"}\n'.encode("latin-1"),
            "UTF-8",
        ),
    ]:
        path = tmp_path / name
        path.write_bytes(data)
        _refused(path, fragment)


def test_a_utf8_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + ("\n".join(_game(3)) + "\n").encode())
    events, _ = read_log_events(path)
    assert events[0]["seed"] == 3


# -- reading: the last line cut mid-write --------------------------------------------------------


@pytest.mark.parametrize("keep", [1, 20, 0.5])
def test_a_last_line_cut_mid_write_is_dropped_with_a_warning(tmp_path: Path, keep: float) -> None:
    lines = _game(5, commands=4)
    last = lines[-1].encode()
    cut = last[: int(keep * len(last)) if isinstance(keep, float) else keep]
    path = tmp_path / "g.jsonl"
    path.write_bytes(("\n".join(lines[:-1]) + "\n").encode() + cut)
    events, warnings = read_log_events(path)
    assert events == [json.loads(line) for line in lines[:-1]]
    assert warnings == [CUT_LINE_WARNING]


def test_a_last_line_cut_inside_a_utf8_character_is_dropped(tmp_path: Path) -> None:
    lines = _game(5, commands=1)
    path = tmp_path / "g.jsonl"
    path.write_bytes(
        ("\n".join(lines) + "\n").encode() + '{"event": "command", "c": "é'.encode()[:-1]
    )
    assert read_log_events(path) == ([json.loads(line) for line in lines], [CUT_LINE_WARNING])


def test_a_whole_last_line_without_a_newline_is_kept(tmp_path: Path) -> None:
    lines = _game(5, commands=2)
    path = tmp_path / "g.jsonl"
    path.write_text("\n".join(lines), encoding="utf-8")
    assert read_log_events(path) == ([json.loads(line) for line in lines], [])


def test_a_broken_line_in_the_middle_is_not_taken_for_a_cut(tmp_path: Path) -> None:
    lines = _game(5, commands=3)
    lines[2] = lines[2][:10]
    _refused(_write(tmp_path / "g.jsonl", lines), "line 3:", "not a JSON line")


def test_a_cut_first_line_is_refused_not_dropped(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    path.write_text(_game(5)[0][:50], encoding="utf-8")
    _refused(path, "line 1:")


# -- reading: what is not a file ------------------------------------------------------------------


def test_a_fifo_is_refused_without_hanging(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    _refused(fifo, "FIFO")


def test_a_device_is_refused_without_reading_it() -> None:
    _refused(Path("/dev/zero"), "character device")


def test_a_directory_and_a_missing_file_are_refused(tmp_path: Path) -> None:
    _refused(tmp_path, "directory")
    _refused(tmp_path / "nope.jsonl", "does not exist")


def test_a_symlink_to_a_device_is_refused(tmp_path: Path) -> None:
    link = tmp_path / "g.jsonl"
    link.symlink_to("/dev/zero")
    _refused(link, "character device")


def test_a_huge_log_is_refused_from_its_size(tmp_path: Path) -> None:
    """A 100 MB log took 1 GB and 8 s to refuse; a sparse file's size is enough now."""
    path = tmp_path / "huge.jsonl"
    with open(path, "wb") as handle:
        handle.truncate(100 * 1024 * 1024)
    _refused(path, f"at most {MAX_LOG_BYTES:,}")


def test_a_log_that_grows_past_the_limit_while_read_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _write(tmp_path / "g.jsonl", _game(1) * 40)
    monkeypatch.setattr(logfile, "MAX_LOG_BYTES", path.stat().st_size - 1)
    _refused(path, "bytes; a log is at most")


# -- reading: fuzzed -----------------------------------------------------------------------------

_VALID = "\n".join(_game(6, commands=3)) + "\n"


@st.composite
def _mutated(draw: st.DrawFn) -> bytes:
    data = bytearray(_VALID.encode())
    for _ in range(draw(st.integers(1, 4))):
        # anywhere, or among the command events (the header is most of the bytes)
        at = draw(st.one_of(st.integers(0, len(data)), st.integers(len(data) * 9 // 10, len(data))))
        how = draw(st.sampled_from(["cut", "flip", "insert", "delete"]))
        if how == "cut":
            del data[at:]
        elif how == "flip" and at < len(data):
            data[at] = draw(st.integers(0, 255))
        elif how == "insert":
            data[at:at] = draw(
                st.one_of(
                    st.binary(max_size=8),
                    st.sampled_from(
                        [
                            b"\n",
                            b"5\n",
                            b"[]\n",
                            b"null",
                            b'"x"',
                            b"1e400",
                            b"NaN",
                            b"[[[[",
                            b"9" * 5000,
                        ]
                    ),
                )
            )
        else:
            del data[at : at + draw(st.integers(1, 40))]
    return bytes(data)


def _outcome(path: Path) -> tuple[list[dict[str, Any]], list[str]] | LogFileError:
    """What reading ``path`` gives; a LogFileError is returned, anything else escapes."""
    try:
        return read_log_events(path)
    except LogFileError as exc:
        return exc


@fuzz(300)
@given(_mutated())
def test_a_mutated_log_reads_or_is_refused_with_a_log_file_error(data: bytes) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "g.jsonl"
        path.write_bytes(data)
        outcome = within(2.0, lambda: _outcome(path))
    if isinstance(outcome, LogFileError):
        assert str(path) in str(outcome)
        assert "\n" not in str(outcome)
        return
    events, warnings = outcome
    assert events
    assert events[0]["event"] == "begin"
    assert all(isinstance(e, dict) for e in events)
    assert warnings in ([], [CUT_LINE_WARNING])


# -- writing --------------------------------------------------------------------------------------


def _lines_of(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def test_write_then_read_gives_the_lines_back(tmp_path: Path) -> None:
    lines = _game(8, commands=3)
    path = tmp_path / "sub" / "g.jsonl"
    write_log(path, lines, replace_game=False)
    assert _lines_of(path) == lines
    assert read_log_events(path) == ([json.loads(line) for line in lines], [])


def test_the_same_game_may_grow_but_never_shrink(tmp_path: Path) -> None:
    """Issue 21: the check compared only the first line, so ``play orc-bridge --seed 8 --log
    FILE`` started again replaced 6 lines with 1. A save may replace a log of the same game only
    when that log is a prefix of the save (an undo is itself an event: a game's log only grows)."""
    path = tmp_path / "g.jsonl"
    write_log(path, _game(8, commands=1), replace_game=False)
    write_log(path, _game(8, commands=4), replace_game=False)  # the game goes on
    write_log(path, _game(8, commands=4), replace_game=False)  # saved again, the same
    assert _lines_of(path) == _game(8, commands=4)
    for shorter in (0, 1, 3):
        with pytest.raises(LogFileError) as info:
            write_log(path, _game(8, commands=shorter), replace_game=False)
        message = str(info.value)
        assert "holds a later copy of this game (4 commands" in message, message
        assert f"this one has {shorter} command" in message
        assert message.endswith("to replace it anyway: --force")
        assert _lines_of(path) == _game(8, commands=4)
    write_log(path, _game(8, commands=0), replace_game=True)  # when the user has said so
    assert _lines_of(path) == _game(8, commands=0)


def test_a_log_of_the_same_game_with_other_events_is_not_replaced(tmp_path: Path) -> None:
    """Same begin event, same length, one event different: not a prefix, so refused; the
    refusal names the option the caller gives (the session's ``save FILE --replace``)."""
    path = tmp_path / "g.jsonl"
    saved = _game(8, commands=3)
    write_log(path, saved, replace_game=False)
    other = [*saved[:-1], json.dumps({**json.loads(saved[-1]), "command": "roll"})]
    with pytest.raises(LogFileError, match=r"this game with other commands \(3 commands") as info:
        write_log(path, other, replace_game=False, override=f"'save {path} --replace'")
    assert str(info.value).endswith(f"'save {path} --replace'")
    assert _lines_of(path) == saved


def test_a_log_cut_mid_write_may_be_replaced_by_its_whole_events(tmp_path: Path) -> None:
    """A crash cut the last line: resuming writes the whole events back (the cut line was never
    an event, so the file's events are a prefix of the save)."""
    lines = _game(8, commands=3)
    path = tmp_path / "g.jsonl"
    path.write_text("\n".join(lines) + "\n" + lines[-1][:10], encoding="utf-8")
    write_log(path, lines, replace_game=False)
    assert _lines_of(path) == lines


@given(
    saved=st.integers(min_value=0, max_value=6),
    writing=st.integers(min_value=0, max_value=6),
    seeds=st.sampled_from([(8, 8), (8, 9)]),
)
@fuzz(40)
def test_fuzz_saves_over_logs_of_the_same_game_of_every_length(
    tmp_path_factory: pytest.TempPathFactory, saved: int, writing: int, seeds: tuple[int, int]
) -> None:
    """The class of issue 21's data loss: a save over a log of this game (or another) of any
    length replaces it exactly when the file's events are a prefix of the save's; otherwise
    the file is unchanged and the refusal says how many commands it holds."""
    path = tmp_path_factory.mktemp("saves") / "g.jsonl"
    old, new = _game(seeds[0], commands=saved), _game(seeds[1], commands=writing)
    write_log(path, old, replace_game=False)
    if seeds[0] == seeds[1] and writing >= saved:
        write_log(path, new, replace_game=False)
        assert _lines_of(path) == new
        return
    with pytest.raises(LogFileError) as info:
        write_log(path, new, replace_game=False)
    assert f"({saved} command" in str(info.value) or f"; {saved} command" in str(info.value)
    assert "--force" in str(info.value)
    assert _lines_of(path) == old


def test_a_stale_temporary_file_is_found_and_removed(tmp_path: Path) -> None:
    """Issue 21: a SIGKILL mid-save can leave ``.g.jsonl.1a2b3c4d.tmp``; the next session
    removes it (and nothing else: not another log's, not a link, not the log)."""
    path = tmp_path / "g.jsonl"
    write_log(path, _game(1), replace_game=False)
    stale = tmp_path / ".g.jsonl.0badf00d.tmp"
    stale.write_text("half a save", encoding="utf-8")
    other = tmp_path / ".h.jsonl.0badf00d.tmp"
    other.write_text("another log's", encoding="utf-8")
    odd = tmp_path / ".g.jsonl.notours.tmp"
    odd.write_text("not a name write_log makes", encoding="utf-8")
    link = tmp_path / ".g.jsonl.deadbeef.tmp"
    link.symlink_to(other)
    assert logfile.remove_stale_temporaries(path) == [stale]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["g.jsonl", other.name, odd.name, link.name]
    )


def test_another_game_is_never_written_over_a_log(tmp_path: Path) -> None:
    """``play X --log FILE`` replaced a 10-line save with 1 line: now refused, naming the game."""
    path = tmp_path / "g.jsonl"
    saved = _game(8, commands=6)
    write_log(path, saved, replace_game=False)
    with pytest.raises(
        LogFileError, match=r"holds another game \(Orc Bridge, seed 8; 6 commands\).*--resume"
    ):
        write_log(path, _game(9), replace_game=False)
    assert _lines_of(path) == saved
    write_log(path, _game(9), replace_game=True)  # when the user has said so
    assert _lines_of(path) == _game(9)


def test_a_file_that_is_not_a_log_is_not_written_over(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("my notes\n", encoding="utf-8")
    with pytest.raises(LogFileError, match="not a Caltrop log"):
        write_log(path, _game(1), replace_game=False)
    assert path.read_text(encoding="utf-8") == "my notes\n"
    empty = tmp_path / "empty.jsonl"
    empty.touch()
    write_log(empty, _game(1), replace_game=False)  # an empty file holds nothing to lose
    assert _lines_of(empty) == _game(1)


def test_a_new_log_gets_the_users_umask(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        write_log(tmp_path / "g.jsonl", _game(1), replace_game=False)
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "g.jsonl").stat().st_mode) == 0o640  # not mkstemp's 0o600


def test_a_replaced_log_keeps_its_mode(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    write_log(path, _game(1), replace_game=False)
    path.chmod(0o604)
    write_log(path, _game(1, commands=1), replace_game=False)
    assert stat.S_IMODE(path.stat().st_mode) == 0o604


def test_a_symlink_is_refused_and_its_target_untouched(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.txt"
    target.write_text("precious\n", encoding="utf-8")
    link = tmp_path / "g.jsonl"
    link.symlink_to(target)
    for replace in (False, True):
        with pytest.raises(LogFileError, match="symbolic link"):
            write_log(link, _game(1), replace_game=replace)
    assert link.is_symlink()
    assert target.read_text(encoding="utf-8") == "precious\n"
    dangling = tmp_path / "d.jsonl"
    dangling.symlink_to(tmp_path / "missing")
    with pytest.raises(LogFileError, match="symbolic link"):
        write_log(dangling, _game(1), replace_game=True)
    assert not (tmp_path / "missing").exists()


def test_devices_fifos_and_directories_are_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for path, kind in [
        (Path("/dev/null"), "character device"),
        (fifo, "FIFO"),
        (tmp_path, "directory"),
    ]:
        with pytest.raises(LogFileError, match=kind):
            within(2.0, lambda p=path: write_log(p, _game(1), replace_game=True))
    assert stat.S_ISFIFO(fifo.stat().st_mode)


def _tmp_files(directory: Path) -> list[str]:
    return [p.name for p in directory.iterdir() if p.name.endswith(".tmp")]


def test_a_failed_write_leaves_no_tmp_file_and_the_old_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "g.jsonl"
    saved = _game(3, commands=2)
    write_log(path, saved, replace_game=False)

    def full(fd: int, data: Any) -> int:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(logfile.os, "write", full)
    with pytest.raises(LogFileError, match="no space left on device"):
        write_log(path, _game(3, commands=3), replace_game=False)
    assert _tmp_files(tmp_path) == []
    assert _lines_of(path) == saved


def test_a_failed_rename_leaves_no_tmp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(src: Any, dst: Any) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(logfile.os, "replace", refuse)
    with pytest.raises(LogFileError, match="permission denied"):
        write_log(tmp_path / "g.jsonl", _game(3), replace_game=False)
    assert list(tmp_path.iterdir()) == []


def test_a_write_fsyncs_the_file_and_its_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[str] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        synced.append("dir" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file")
        real_fsync(fd)

    monkeypatch.setattr(logfile.os, "fsync", fsync)
    write_log(tmp_path / "g.jsonl", _game(3), replace_game=False)
    assert synced == ["file", "dir"]


def test_a_log_too_large_to_read_back_is_not_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(logfile, "MAX_LOG_BYTES", 100)
    with pytest.raises(LogFileError, match="a log is at most 100"):
        write_log(tmp_path / "g.jsonl", _game(3), replace_game=False)
    assert list(tmp_path.iterdir()) == []


def test_a_nul_in_the_name_and_nothing_to_save_are_refused(tmp_path: Path) -> None:
    with pytest.raises(LogFileError, match="NUL"):
        write_log(tmp_path / "a\x00b", _game(1), replace_game=False)
    with pytest.raises(LogFileError, match="nothing to save"):
        write_log(tmp_path / "g.jsonl", [], replace_game=False)


def test_a_reader_never_sees_half_a_log(tmp_path: Path) -> None:
    """Saves race a reader: every read sees one whole save or the other, never a mix."""
    path = tmp_path / "g.jsonl"
    short, long = _game(2, commands=1), _game(2, commands=8)
    write_log(path, short, replace_game=False)
    done = threading.Event()

    def writer() -> None:
        for i in range(40):
            write_log(path, long if i % 2 else short, replace_game=True)
        done.set()

    thread = threading.Thread(target=writer)
    thread.start()
    seen = set()
    while not done.is_set():
        events, warnings = read_log_events(path)
        assert warnings == []
        seen.add(len(events))
    thread.join()
    assert seen <= {len(short), len(long)}
    assert _tmp_files(tmp_path) == []


#: A writer saving a growing game again and again, as ``caltrop play --log`` does after each
#: command: argv[1] the log, argv[2] a JSON file of the whole game's lines.
_SAVER = """
import json, sys
from pathlib import Path
from caltrop.content.logfile import write_log
lines = json.loads(Path(sys.argv[2]).read_text(encoding="utf-8"))
for n in range(1, len(lines) + 1):
    write_log(Path(sys.argv[1]), lines[:n], replace_game=False)
    if n == 1:
        print("saved", flush=True)
"""


@fuzz(8)
@given(delay_ms=st.integers(min_value=0, max_value=40))
def test_fuzz_a_writer_killed_at_any_moment_leaves_a_whole_log_and_no_stray_file(
    tmp_path_factory: pytest.TempPathFactory, delay_ms: int
) -> None:
    """Issue 21: 3 of 30 SIGKILLs of ``play --log`` left a stray ``.LOG.xxxx.tmp``. The class: a
    writer killed at any moment of any save. The log is then whole, a prefix of the game (so a
    later save of the game may replace it), and the next start's clean-up leaves no temporary
    file beside it (and removes nothing else)."""
    import signal
    import subprocess
    import sys
    import time

    folder = tmp_path_factory.mktemp("killed")
    path = folder / "g.jsonl"
    game = _game(8, commands=30)
    (folder / "game.json").write_text(json.dumps(game), encoding="utf-8")
    keep = folder / "notes.txt"
    keep.write_text("mine", encoding="utf-8")
    child = subprocess.Popen(
        [sys.executable, "-c", _SAVER, str(path), str(folder / "game.json")],
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert child.stdout is not None
    assert child.stdout.readline() == b"saved\n"
    time.sleep(delay_ms / 1000)  # where in the saves the kill lands, not a bound on anything
    child.send_signal(signal.SIGKILL)
    child.wait()
    child.stdout.close()
    events, warnings = read_log_events(path)
    assert warnings == []
    assert events == [json.loads(line) for line in game[: len(events)]]
    logfile.remove_stale_temporaries(path)
    assert sorted(p.name for p in folder.iterdir()) == ["g.jsonl", "game.json", "notes.txt"]
    write_log(path, game, replace_game=False)  # the game saved again takes it over
    assert _lines_of(path) == game


def _branch(choices: int, commands: int) -> list[str]:
    """Orc Bridge, seed 8, after ``commands`` legal commands chosen by ``random.Random(choices)``
    (two branches of one game share the ``begin`` event and part from some command on)."""
    import random

    definition = load_encounter("orc-bridge")
    encounter = Encounter.begin(definition, 8, header={"definition": encounter_to_dict(definition)})
    rng = random.Random(choices)
    for _ in range(commands):
        if encounter.is_terminal():
            break
        encounter.apply(rng.choice(sorted(encounter.legal_actions(), key=str)))
    return encounter.log_lines()


@given(
    saved=st.tuples(st.integers(0, 2), st.integers(0, 8)),
    writing=st.tuples(st.integers(0, 2), st.integers(0, 8)),
)
@fuzz(40)
def test_fuzz_a_save_replaces_a_log_of_the_same_game_only_when_it_holds_all_of_it(
    tmp_path_factory: pytest.TempPathFactory, saved: tuple[int, int], writing: tuple[int, int]
) -> None:
    """Issue 21 item 1's class, with branches: the same game played two ways (an older copy, a
    game replayed with other choices) as well as to other lengths. A save replaces the file
    exactly when the file's lines are the first lines of the save (the oracle: the lines as
    text); otherwise it is refused, saying how many commands the file holds, and unchanged."""
    path = tmp_path_factory.mktemp("branches") / "g.jsonl"
    old, new = _branch(*saved), _branch(*writing)
    write_log(path, old, replace_game=True)
    if new[: len(old)] == old:
        write_log(path, new, replace_game=False)
        assert _lines_of(path) == new
        return
    with pytest.raises(LogFileError) as info:
        write_log(path, new, replace_game=False)
    held = sum(1 for line in old if json.loads(line)["event"] == "command")
    assert f"({held} command" in str(info.value)
    assert str(info.value).endswith("to replace it anyway: --force")
    assert _lines_of(path) == old
