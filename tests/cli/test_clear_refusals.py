"""Issue 21, item 8: refusals that named the wrong cause, each now in words that say what is
there — one wording for every reader (:func:`caltrop.content.paths.path_problem`)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner, Result

from caltrop.cli import app
from caltrop.content.logfile import LogFileError, read_log_events
from caltrop.content.paths import path_problem
from caltrop.core.codec import check_roll_record, describe
from caltrop.errors import ContentError
from tests.fuzzing import fuzz


def _run(*args: str) -> Result:
    runner = CliRunner(env={"COLUMNS": "250", "NO_COLOR": "1"})
    return runner.invoke(app, list(args))


def _said(result: Result) -> str:
    return " ".join(result.output.split())


CREATURE = "kind: creature\nid: a\nname: A\nside: npc\naspects: {Might: 1}\nhealth: 3\n"


def test_a_symbolic_link_to_itself_is_not_reported_as_missing(tmp_path: Path) -> None:
    loop = tmp_path / "self.yaml"
    loop.symlink_to(loop)
    dangling = tmp_path / "dangling.yaml"
    dangling.symlink_to(tmp_path / "nothere.yaml")
    assert "symbolic link that loops" in (path_problem(loop) or "")
    assert "which does not exist" in (path_problem(dangling) or "")
    for args in (["validate", str(loop)], ["play", str(loop)]):
        result = _run(*args)
        assert result.exit_code == 2, result.output
        assert "is a symbolic link that loops" in _said(result)
        assert "no such file" not in result.output
        assert "nor a bundled encounter" not in result.output
    result = _run("validate", str(dangling))
    assert result.exit_code == 2
    assert "is a symbolic link to" in _said(result)
    assert "which does not exist" in _said(result)
    assert "no such file" not in result.output


def test_an_include_naming_a_folder_or_a_loop_says_so(tmp_path: Path) -> None:
    (tmp_path / "monsters").mkdir()
    (tmp_path / "self.yaml").symlink_to(tmp_path / "self.yaml")
    path = tmp_path / "troll.yaml"
    path.write_text(CREATURE + "include: [monsters, self.yaml, gone.yaml]\n", encoding="utf-8")
    result = _run("validate", str(path))
    assert result.exit_code == 1, result.output
    said = _said(result)
    assert "'monsters' is a folder, not a file" in said
    assert "'self.yaml' is a symbolic link that loops" in said
    assert "no such file 'gone.yaml'" in said  # a file that is truly not there, as before


@pytest.mark.parametrize(
    ("target", "words"),
    [
        ("/dev/null", "--report /dev/null: is a character device"),
        ("FILE", "--report {target}: is a file"),
        ("FILE/sub", "--report {target}: cannot be made ({file} is a file)"),
    ],
)
def test_report_names_a_folder_and_says_what_is_there(
    tmp_path: Path, target: str, words: str
) -> None:
    """``--report /dev/null`` said "[Errno 17] File exists"; refused before the run, saying
    what is there (a file where a folder would be made, too)."""
    file = tmp_path / "notes.txt"
    file.write_text("mine\n", encoding="utf-8")
    target = target.replace("FILE", str(file))
    result = _run("sim", "duel", "--n", "5", "--workers", "1", "--report", target)
    assert result.exit_code == 2, result.output
    said = _said(result)
    assert words.format(target=target, file=file) in said, said
    assert "names a folder" in said
    assert "Errno" not in said
    assert "PC win" not in result.output  # refused before anything ran
    assert file.read_text(encoding="utf-8") == "mine\n"


def test_a_fractional_face_in_a_log_is_named_with_its_place() -> None:
    """A log's roll record with ``faces: [4, 1.5]`` said "at most 1000 whole numbers"."""
    record = {"roller": "aria", "expression": "2d4", "faces": [4, 1.5], "total": 5}
    with pytest.raises(Exception, match=r"face 2 is 1\.5; a face is a whole number"):
        check_roll_record(record)


def test_a_seed_of_5_0_is_named_as_written(tmp_path: Path) -> None:
    """``"seed": 5.0`` said "the seed is a whole number, not a number"."""
    path = tmp_path / "g.jsonl"
    path.write_text(json.dumps({"event": "begin", "seed": 5.0}) + "\n", encoding="utf-8")
    with pytest.raises(LogFileError, match=r"the seed is a whole number, not 5\.0"):
        read_log_events(path)
    assert os.path.exists(path)


#: JSON values that are not whole numbers (as a log holds them): each is named as written.
NOT_WHOLE = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.none(),
    st.text(max_size=6),
    st.lists(st.integers(1, 4), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=1),
)


@fuzz(150)
@given(value=NOT_WHOLE, place=st.integers(min_value=0, max_value=3))
def test_fuzz_a_face_that_is_not_whole_is_named_with_its_place_and_value(
    value: object, place: int
) -> None:
    """The class of "float faces: at most 1000 whole numbers": a refusal that names a rule the
    value does not break. Any face that is not a whole number is named, with its place."""
    faces: list[object] = [1, 2, 3, 4]
    faces[place] = value
    record = {"roller": "aria", "expression": "4d4", "faces": faces, "total": 10}
    with pytest.raises(ContentError) as info:
        check_roll_record(record)
    assert f"face {place + 1} is {describe(value)}; a face is a whole number" in str(info.value)


@fuzz(100)
@given(seed=st.floats(allow_nan=False, allow_infinity=False))
def test_fuzz_a_seed_that_is_a_fraction_is_named_as_written(
    tmp_path_factory: pytest.TempPathFactory, seed: float
) -> None:
    """``"seed": 5.0`` said "the seed is a whole number, not a number": any float is named."""
    path = tmp_path_factory.mktemp("seed") / "g.jsonl"
    path.write_text(json.dumps({"event": "begin", "seed": seed}) + "\n", encoding="utf-8")
    with pytest.raises(LogFileError) as info:
        read_log_events(path)
    assert f"the seed is a whole number, not {json.loads(json.dumps(seed))!r}" in str(info.value)
