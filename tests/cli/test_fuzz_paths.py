"""Issue 21, item 8: a refusal that names the wrong cause. A symbolic link to itself was "no such
file", an include naming a folder was "no such file", ``--report /dev/null`` was "[Errno 17]
File exists". The class: whatever is at a path a reader is given, the refusal says what is there
(:func:`caltrop.content.paths.path_problem`, one wording). This fuzzer puts each kind of thing at
the path of each reader and checks the words, the exit code, and that nothing else changed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner, Result

from caltrop.cli import app
from tests.fuzzing import fuzz

#: What a path may hold, and the words a refusal of it must say (one of them).
KINDS: dict[str, tuple[str, ...]] = {
    "missing": ("no such file", "does not exist"),
    "folder": ("is a folder", "is a directory"),
    "link to a folder": ("is a folder", "is a directory"),
    "link to itself": ("symbolic link that loops",),
    "link in a loop of two": ("symbolic link that loops",),
    "link to nothing": ("which does not exist",),
    "FIFO": ("is a FIFO (named pipe)",),
    "file": ("is a file",),  # only where a folder is wanted (--report)
}

#: Each reader: its arguments (``{path}`` is the path under test, ``{include}`` a file that
#: includes it), its exit code when it refuses, and the kinds it refuses (a reader wanting a
#: file takes a file; ``--report`` takes a folder and makes a missing one).
READERS: dict[str, tuple[tuple[str, ...], int, frozenset[str]]] = {
    "validate FILE": (("validate", "{path}"), 2, frozenset(KINDS) - {"file"}),
    "validate, an include": (("validate", "{include}"), 1, frozenset(KINDS) - {"file"}),
    "play FILE": (("play", "{path}"), 2, frozenset(KINDS) - {"file"}),
    "play --resume FILE": (("play", "--resume", "{path}"), 2, frozenset(KINDS) - {"file"}),
    "replay FILE": (("replay", "{path}"), 2, frozenset(KINDS) - {"file"}),
    "sim --report DIR": (
        ("sim", "duel", "--n", "2", "--workers", "1", "--report", "{path}"),
        2,
        frozenset(KINDS) - {"missing", "folder", "link to a folder"},
    ),
    "sim --report DIR/sub": (
        ("sim", "duel", "--n", "2", "--workers", "1", "--report", "{path}/sub"),
        2,
        frozenset(KINDS) - {"missing", "folder", "link to a folder"},
    ),
}

CREATURE = "kind: creature\nid: b\nname: B\nside: npc\naspects: {Might: 1}\nhealth: 3\n"


def _make(kind: str, path: Path) -> None:
    """Put a thing of ``kind`` at ``path`` (its folder exists)."""
    other = path.parent / "other"
    if kind == "folder":
        path.mkdir()
    elif kind == "link to a folder":
        other.mkdir()
        path.symlink_to(other)
    elif kind == "link to itself":
        path.symlink_to(path)
    elif kind == "link in a loop of two":
        other.symlink_to(path)
        path.symlink_to(other)
    elif kind == "link to nothing":
        path.symlink_to(path.parent / "gone")
    elif kind == "FIFO":
        os.mkfifo(path)
    elif kind == "file":
        path.write_text("mine\n", encoding="utf-8")


def _run(args: list[str]) -> Result:
    return CliRunner(env={"COLUMNS": "400", "NO_COLOR": "1"}).invoke(app, args)


def _listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@st.composite
def cases(draw: st.DrawFn) -> tuple[str, str, str]:
    reader = draw(st.sampled_from(sorted(READERS)))
    kind = draw(st.sampled_from(sorted(READERS[reader][2])))
    name = draw(st.sampled_from(["night.jsonl", "troll.yaml", "report", "a b", "x.y.z"]))
    return reader, kind, name


@fuzz(100)
@given(case=cases())
def test_fuzz_every_reader_says_what_is_at_the_path(
    tmp_path_factory: pytest.TempPathFactory, case: tuple[str, str, str]
) -> None:
    reader, kind, name = case
    folder = tmp_path_factory.mktemp("paths")
    path = folder / name
    _make(kind, path)
    include = folder / "including.yaml"
    include.write_text(CREATURE + f"include: [{name!r}]\n", encoding="utf-8")
    before = _listing(folder)
    template, code, _ = READERS[reader]
    args = [a.format(path=path, include=include) for a in template]
    result = _run(args)
    said = " ".join(result.output.split())
    assert result.exit_code == code, (args, said)
    assert any(words in said for words in KINDS[kind]), (reader, kind, said)
    if kind != "missing":
        assert "no such file" not in said, (reader, kind, said)
        assert "nor a bundled encounter" not in said, (reader, kind, said)
    assert "Errno" not in said
    assert "Traceback" not in said
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert _listing(folder) == before  # a refusal changes nothing
