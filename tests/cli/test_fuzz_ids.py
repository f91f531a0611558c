"""Issue 21, item 2: ``gm: add CREATURE as ID`` took ids the log reader refuses (``gm``,
``call``, ``dc``, ``end``, ``pass``, ``roll``, ``total``, ``with``, upper case, 41 characters),
and the game's log could never be replayed or resumed. Now one id rule
(:func:`caltrop.core.ids.id_problem`) serves content, commands, the server and the log reader:
whatever id ``gm: add`` takes, the log replays and resumes; whatever it refuses, content refuses
too, and the refusal changes nothing."""

from __future__ import annotations

import string
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from caltrop.cli.play import _command, read_log, write_log
from caltrop.content import encounter_to_dict, load_encounter
from caltrop.content.schema import CreatureDocument
from caltrop.core.commands import parse_command
from caltrop.core.ids import MAX_ID, RESERVED_WORDS, id_problem
from caltrop.encounter import Encounter
from caltrop.errors import CaltropError
from tests.fuzzing import fuzz

#: Ids as a hostile GM types them: reserved words in any case, edge lengths, odd characters.
IDS = st.one_of(
    st.sampled_from(sorted(RESERVED_WORDS)),
    st.sampled_from(sorted(RESERVED_WORDS)).map(str.upper),
    st.sampled_from(["a" * MAX_ID, "a" * (MAX_ID + 1), "-a", "a-", "9", "goblin-2", "Gob", "é"]),
    st.text(alphabet=string.ascii_lowercase + string.digits + "-", min_size=1, max_size=45),
    st.text(alphabet=string.ascii_letters + string.digits + "-_.'", min_size=1, max_size=45),
)


def _begin() -> Encounter:
    definition = load_encounter("orc-bridge")
    return Encounter.begin(definition, 3, header={"definition": encounter_to_dict(definition)})


def _creature_document(creature_id: str) -> bool:
    """Whether a content file may give a creature this id."""
    data = {"kind": "creature", "id": creature_id, "name": "X", "side": "npc", "health": 5}
    data["aspects"] = {"Might": 1}
    try:
        CreatureDocument.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors()
    else:
        return True
    assert [e["loc"] for e in errors] == [("id",)], errors  # the id, nothing else
    return False


@fuzz(150)
@given(new_id=IDS)
def test_any_id_gm_add_takes_replays_and_resumes(
    tmp_path_factory: pytest.TempPathFactory, new_id: str
) -> None:
    encounter = _begin()
    line = f"gm: add goblin as {new_id}"
    try:
        command = _command(line, encounter, None)
        encounter.apply(command)
    except CaltropError:
        assert id_problem(new_id) is not None or new_id in {c.id for c in encounter.creatures}
        assert len(encounter.commands) == 0  # a refusal changes nothing
        return
    assert id_problem(new_id) is None, f"{new_id!r} was taken though the id rule refuses it"
    assert _creature_document(new_id)  # content takes it too
    path = tmp_path_factory.mktemp("ids") / "night.jsonl"
    write_log(path, encounter)
    replayed = read_log(path)  # the log reader takes it: the game replays…
    assert replayed.to_json() == encounter.to_json()
    replayed.apply(parse_command("gm: end encounter"))  # …and resumes
    write_log(path, replayed)
    assert read_log(path).to_json() == replayed.to_json()


@pytest.mark.parametrize(
    "new_id", [*sorted(RESERVED_WORDS), "GM", "Goblin", "a" * (MAX_ID + 1), "goblin_2", "a.b"]
)
def test_the_ids_the_log_reader_refused_are_refused_by_gm_add(new_id: str) -> None:
    """The issue's examples: each is refused with the id rule's reason, and content refuses it."""
    with pytest.raises(CaltropError, match="not a creature id"):
        parse_command(f"gm: add goblin as {new_id}")
    assert not _creature_document(new_id)


def test_a_numbered_id_past_the_limit_is_refused_not_logged(tmp_path: Path) -> None:
    """A 40-character id taken twice would be numbered ``…-2`` (42 characters), which the log
    reader refuses: ``gm: add`` refuses it instead, and the game goes on unchanged."""
    long_id = "g" * MAX_ID
    encounter = _begin()
    encounter.apply(_command(f"gm: add goblin as {long_id}", encounter, None))
    before = encounter.to_json()
    creature = next(c for c in encounter.creatures if c.id == long_id)
    add = parse_command(f"gm: add {long_id}")
    with pytest.raises(CaltropError, match=f"at most {MAX_ID} characters"):
        encounter.apply(replace(add, creature=creature))
    assert encounter.to_json() == before
    write_log(tmp_path / "g.jsonl", encounter)
    assert read_log(tmp_path / "g.jsonl").to_json() == before
