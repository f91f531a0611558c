"""The encounter builder's routes (issue 23 item 3): problems shown at the field that holds them,
by the same rules as ``caltrop validate`` (the same messages, checked against the command
itself); add, remove, duplicate; saving to the library (a player's browser may not); the export
round trip (``caltrop validate`` accepts it, it loads to the saved definition, and a seeded sample
plays the same); the bounds of every route; the difficulty panel; supersession."""

from __future__ import annotations

import asyncio
import html
import json
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from caltrop.cli import app as cli
from caltrop.content.bundled import bundled_encounters
from caltrop.content.loader import load_encounter, load_encounter_text
from caltrop.content.serialize import encounter_to_dict
from caltrop.errors import BusyError, ContentError, ContentFileError
from caltrop.sim.difficulty import BANDS, assess
from caltrop.web import Settings, create_app
from caltrop.web import builder_draft as drafts
from caltrop.web.builder_runs import MAX_WAITING, Runs, StillWanted
from caltrop.web.seating import COOKIE

FORM = {"content-type": "application/x-www-form-urlencoded"}
Fields = list[tuple[str, str]]


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    url = f"sqlite:///{tmp_path / 'caltrop.db'}"
    with TestClient(create_app(Settings(database_url=url, base_url="http://testserver"))) as c:
        yield c


def fields_of(page: str) -> Fields:
    """The fields a browser would send from the builder form in ``page`` (text inputs, hidden
    inputs, each select's selected option, the textarea)."""
    form = page[page.index('<form id="builder-form"') :]
    form = form[: form.index("</form>")]
    out: Fields = []
    for match in re.finditer(r"<(input|select|textarea)\b([^>]*)>", form):
        tag, attrs = match.groups()
        name = re.search(r'name="([^"]*)"', attrs)
        if name is None or "disabled" in attrs:
            continue
        key = html.unescape(name.group(1))
        if tag == "input":
            value = re.search(r'value="([^"]*)"', attrs)
            out.append((key, html.unescape(value.group(1)) if value else ""))
        elif tag == "select":
            body = form[match.end() : form.index("</select>", match.end())]
            chosen = re.search(r'<option value="([^"]*)" selected', body) or re.search(
                r'<option value="([^"]*)"', body
            )
            out.append((key, html.unescape(chosen.group(1)) if chosen else ""))
        else:
            body = form[match.end() : form.index("</textarea>", match.end())]
            out.append((key, html.unescape(body)))
    return out


def post(client: TestClient, path: str, fields: Fields, **kwargs: Any) -> Any:
    return client.post(path, content=urlencode(fields), headers=FORM, **kwargs)


def replaced(fields: Fields, **changes: str) -> Fields:
    """``fields`` with some values changed (keys written with __ for '.', _1_ for '[1]')."""
    wanted = {_key(k): v for k, v in changes.items()}
    return [(k, wanted.get(k, v)) for k, v in fields]


def _key(name: str) -> str:
    return re.sub(r"_(\d+)_", r"[\1]", name).replace("__", ".")


def start(client: TestClient, name: str = "duel") -> Fields:
    page = client.get(f"/builder?from={name}")
    assert page.status_code == 200, page.text[:300]
    return fields_of(page.text)


def slot_text(body: str, slot: str) -> str:
    """The text of the error slot ``slot`` in a validate answer or a page."""
    match = re.search(rf'<span id="{re.escape(drafts.slot_id(slot))}"[^>]*>(.*?)</span>', body)
    assert match is not None, f"no slot {slot} in the answer"
    return html.unescape(match.group(1))


def validate_json(tmp_path: Path, text: str) -> dict[str, Any]:
    """``caltrop validate --json`` on ``text`` as a file."""
    path = tmp_path / "draft.yaml"
    path.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(cli, ["validate", str(path), "--json"])
    data: dict[str, Any] = json.loads(result.stdout)
    return data


# -- problems at their fields, by caltrop validate's rules ----------------------------------------

#: a change a GM may type, the slot its problem belongs at, and what the message says
MISTAKES = [
    ({"participants_1___health": "ten"}, "participants[1].health", "expected an integer"),
    ({"participants_1___evasion": ""}, "participants[1].evasion", "expected an integer"),
    ({"participants_2___id": "Big Brigand"}, "participants[2].id", "lowercase word"),
    (
        {"participants_2___weapons_1___dice": "1d"},
        "participants[2].weapons[1].dice",
        "dice expression",
    ),
    ({"participants_2___actions_1___cost": "-3"}, "participants[2].actions[1].cost", "≥ 0"),
    ({"participants_1___aspects_1___value": "x"}, "participants[1].aspects[1]", "integer"),
    ({"participants_1___aspects_1___name": "two words"}, "participants[1].aspects[1]", "word"),
    ({"participants_2___id": "sellsword"}, "participants[2]", "duplicate id 'sellsword'"),
    ({"name": ""}, "name", ""),
]


@pytest.mark.parametrize(("change", "slot", "says"), MISTAKES, ids=[m[1] for m in MISTAKES])
def test_a_problem_is_shown_at_its_field_in_caltrop_validates_words(
    client: TestClient, tmp_path: Path, change: dict[str, str], slot: str, says: str
) -> None:
    fields = replaced(start(client), **change)
    answer = post(client, "/builder/validate", fields)
    assert answer.status_code == 200
    assert "HX-Trigger" not in answer.headers  # no panel refresh for a draft with problems
    shown = slot_text(answer.text, slot)
    assert says in shown
    # every problem the answer shows is one `caltrop validate` reports on the same draft as a
    # file, and no other: one set of rules
    draft = drafts.draft_from_form(dict_of(fields))
    reported = validate_json(tmp_path, drafts.yaml_text(draft))
    assert reported["ok"] is False
    messages = {p["message"] for f in reported["files"] for p in f["problems"]}
    shown_all = {
        html.unescape(m)
        for m in re.findall(r'class="field-error" hx-swap-oob="true">([^<]+)</span>', answer.text)
    }
    assert shown_all, answer.text[:500]
    lines = [line for m in shown_all for line in m.split("\n")]
    for line in lines:  # the message itself, or named by the field it is at (max_health: …)
        assert line in messages or any(line.endswith(f": {m}") for m in messages), line
    assert len(lines) == len(messages)


def said(response: Any) -> str:
    """A response's text as the page shows it (entities unescaped)."""
    return html.unescape(response.text)


def dict_of(fields: Fields) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for k, v in fields:
        out.setdefault(k, []).append(v)
    return out


def test_a_clean_draft_has_every_slot_emptied_and_refreshes_the_panel(client: TestClient) -> None:
    fields = start(client)
    bad = post(client, "/builder/validate", replaced(fields, participants_1___health="ten"))
    assert slot_text(bad.text, "participants[1].health")
    good = post(client, "/builder/validate", fields)
    assert good.headers["HX-Trigger"] == "builder-changed"
    assert slot_text(good.text, "participants[1].health") == ""
    assert "No problems" in said(good)


def test_a_field_the_form_does_not_show_is_named_at_its_creature(client: TestClient) -> None:
    fields = start(client)
    rest = dict(fields)["participants[1].rest"]
    hidden = json.dumps({**json.loads(rest), "max_health": "lots"})
    answer = post(client, "/builder/validate", replaced(fields, participants_1___rest=hidden))
    assert slot_text(answer.text, "participants[1]").startswith("max_health: expected an integer")


def test_slot_of_maps_each_problem_path() -> None:
    draft = drafts.draft_of(encounter_to_dict(load_encounter("duel")))
    assert drafts.slot_of("encounter.participants[2].health", draft) == "participants[2].health"
    assert drafts.slot_of("participants[1].aspects.Finesse", draft) == "participants[1].aspects[1]"
    assert drafts.slot_of("participants[1].stats.ap", draft) == "participants[1]"
    assert drafts.slot_of("participants[9].health", draft) == "participants"
    assert drafts.slot_of("include[1]", draft) == drafts.FORM_SLOT


# -- composing -------------------------------------------------------------------------------------


def test_add_duplicate_and_remove_creatures(client: TestClient) -> None:
    fields = start(client)
    added = post(
        client,
        "/builder/edit",
        [*replaced(fields, source="bundled:monsters/goblin"), ("op", "add")],
    )
    assert added.status_code == 200
    assert added.headers["HX-Trigger"] == "builder-changed"
    after = fields_of(added.text)
    ids = [v for k, v in after if re.fullmatch(r"participants\[\d+\]\.id", k)]
    assert ids == ["sellsword", "brigand", "goblin"]
    twin = fields_of(
        post(client, "/builder/edit", [*after, ("op", "duplicate"), ("index", "3")]).text
    )
    ids = [v for k, v in twin if re.fullmatch(r"participants\[\d+\]\.id", k)]
    assert ids == ["sellsword", "brigand", "goblin", "goblin-2"]
    gone = fields_of(post(client, "/builder/edit", [*twin, ("op", "remove"), ("index", "1")]).text)
    ids = [v for k, v in gone if re.fullmatch(r"participants\[\d+\]\.id", k)]
    assert ids == ["brigand", "goblin", "goblin-2"]
    # the goblin came with its stat block, as the bundled file has it
    goblin = drafts.draft_from_form(dict_of(gone))["participants"][1]
    assert (goblin["health"], goblin["evasion"], goblin["aspects"]["Finesse"]) == (10, 11, 5)


def test_aspect_weapon_and_action_rows(client: TestClient) -> None:
    fields = start(client)
    more = fields_of(
        post(client, "/builder/edit", [*fields, ("op", "add-aspect"), ("index", "1")]).text
    )
    assert drafts.draft_from_form(dict_of(more))["participants"][0]["aspects"] == {
        "Finesse": 5,
        "Aspect1": 1,
    }
    fewer = post(
        client, "/builder/edit", [*more, ("op", "remove-weapon"), ("index", "2"), ("row", "1")]
    )
    brigand = drafts.draft_from_form(dict_of(fields_of(fewer.text)))["participants"][1]
    assert brigand["weapons"] == []
    assert "expected at least" not in said(fewer)  # a creature may fight without a weapon listed
    unknown = post(client, "/builder/edit", [*fields, ("op", "remove"), ("index", "7")])
    assert unknown.status_code == 422
    assert "index is a number from 1 to 2" in said(unknown)
    nothing = post(
        client, "/builder/edit", [*replaced(fields, source="library:x:1"), ("op", "add")]
    )
    assert nothing.status_code == 422
    assert "no creature 'library:x:1'" in said(nothing)


def test_the_picker_offers_bundled_and_library_creatures_of_the_module(client: TestClient) -> None:
    page = client.get("/builder?from=duel").text
    assert 'value="bundled:monsters/goblin"' in page
    assert 'value="library:goblin-ambush:1"' in page
    assert "bundled:action-points/monsters/wolf" not in page  # another module's creature
    switched = post(
        client,
        "/builder/edit",
        [*replaced(start(client), ruleset="action-points"), ("op", "ruleset")],
    )
    assert switched.status_code == 200
    assert 'value="bundled:action-points/monsters/wolf"' in switched.text  # the new module's
    points = client.get("/builder?from=warband-ap").text
    assert 'value="bundled:action-points/monsters/wolf"' in points
    assert "bundled:monsters/goblin" not in points


# -- saving, exporting, opening --------------------------------------------------------------------


def test_save_puts_the_draft_in_the_library_once(client: TestClient) -> None:
    fields = replaced(start(client), name="Duel at Dawn", participants_2___health="20")
    saved = post(client, "/builder/save", fields)
    assert saved.status_code == 201, saved.text
    assert "duel-at-dawn" in said(saved)
    library = {e["name"]: e for e in client.get("/api/library").json()}
    assert library["duel-at-dawn"]["title"] == "Duel at Dawn"
    assert "duel-at-dawn" in client.get("/").text
    reopened = drafts.draft_from_form(dict_of(start(client, "duel-at-dawn")))
    assert reopened["participants"][1]["health"] == 20
    again = post(client, "/builder/save", fields)
    assert again.status_code == 422
    assert "already holds an encounter named 'duel-at-dawn'" in said(again)
    bad = post(client, "/builder/save", replaced(fields, name="Other", participants_1___health="x"))
    assert bad.status_code == 422
    assert "the draft has problems" in said(bad)
    assert "other" not in {e["name"] for e in client.get("/api/library").json()}


def test_a_players_browser_may_not_save(client: TestClient) -> None:
    table = client.post("/api/tables", json={"encounter": "duel"}).json()
    player = next(iter(table["players"].values()))["token"]
    fields = replaced(start(client), name="Players Duel")
    client.cookies.set(COOKIE, player)
    refused = post(client, "/builder/save", fields)
    assert refused.status_code == 403
    assert "holds a player's seat (sellsword)" in said(refused)
    client.cookies.set(COOKIE, table["gm"]["token"])  # the GM's browser may
    assert post(client, "/builder/save", fields).status_code == 201
    names = {e["name"] for e in client.get("/api/library").json()}
    assert "players-duel" in names


def test_a_players_seat_is_refused_before_the_body_is_read(client: TestClient) -> None:
    table = client.post("/api/tables", json={"encounter": "duel"}).json()
    player = next(iter(table["players"].values()))["token"]
    client.cookies.set(COOKIE, player)
    # not a form at all: a route that read it first would say so (422); it is refused unread
    refused = client.post("/builder/save", content=b"\x00" * 100)
    assert refused.status_code == 403


def test_export_round_trip(client: TestClient, tmp_path: Path) -> None:
    fields = replaced(start(client), name="Harder Duel", participants_2___health="17")
    fields = replaced(fields, participants_2___actions_1___cost="2")
    exported = post(client, "/builder/export", fields)
    assert exported.status_code == 200
    assert exported.headers["content-disposition"] == 'attachment; filename="harder-duel.yaml"'
    path = tmp_path / "harder-duel.yaml"
    path.write_text(exported.text, encoding="utf-8")
    checked = CliRunner().invoke(cli, ["validate", str(path)])
    assert checked.exit_code == 0, checked.stdout
    assert "ok (encounter 'Harder Duel', 2 participants)" in checked.stdout
    assert post(client, "/builder/save", fields).status_code == 201
    saved = client.get("/builder?from=harder-duel")
    assert saved.status_code == 200
    from_library = _library_definition(client, "harder-duel")
    loaded = encounter_to_dict(load_encounter(path))
    assert loaded["participants"] == from_library["participants"]
    assert loaded["ruleset"] == from_library["ruleset"]
    assert loaded["participants"][1]["health"] == 17
    assert loaded["participants"][1]["actions"][0]["cost"] == 2
    # it plays the same: a seeded sample of the export and of the saved definition
    from caltrop.content.serialize import encounter_from_dict

    one = assess(load_encounter(path), n=300, search_n=0, exact=False, workers=1)
    two = assess(encounter_from_dict(from_library), n=300, search_n=0, exact=False, workers=1)
    a, b = one.tactical.as_dict(), two.tactical.as_dict()
    a.pop("seconds"), b.pop("seconds")
    assert a == b
    assert a["n"] == 300


def _library_definition(client: TestClient, name: str) -> dict[str, Any]:
    service = client.app.state.tables  # type: ignore[attr-defined]
    data: dict[str, Any] | None = service.repository.library_definition(name)
    assert data is not None
    return data


def test_export_of_a_draft_with_problems_is_refused_in_words(client: TestClient) -> None:
    refused = post(client, "/builder/export", replaced(start(client), participants_1___health="x"))
    assert refused.status_code == 422
    assert "participants[1].health: expected an integer, got 'x'" in said(refused)


def test_open_a_table_from_the_draft(client: TestClient) -> None:
    fields = replaced(start(client), name="Brawl", participants_2___health="3")
    opened = post(client, "/builder/open", fields, follow_redirects=False)
    assert opened.status_code == 303
    assert opened.headers["location"] == "/table"
    view = client.get("/api/view").json()  # the browser now holds the GM's seat
    assert view["encounter"] == "Brawl"
    brigand = next(c for c in view["creatures"] if c["id"] == "brigand")
    assert brigand["health"] == 3


# -- bounds ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("route", ["edit", "validate", "difficulty", "vary", "export", "save"])
def test_a_body_that_is_not_the_form_is_refused(client: TestClient, route: str) -> None:
    answer = client.post(f"/builder/{route}", json={"name": "x"})
    assert answer.status_code == 422
    assert "send the builder's form (application/x-www-form-urlencoded)" in said(answer)


def test_a_nul_in_a_field_is_refused(client: TestClient) -> None:
    answer = post(client, "/builder/validate", replaced(start(client), name="Du\x00el"))
    assert answer.status_code == 422
    assert "holds a NUL character (U+0000) at position 3" in said(answer)


def test_a_foreign_page_is_refused(client: TestClient) -> None:
    fields = start(client)
    answer = client.post(
        "/builder/save",
        content=urlencode(fields),
        headers={**FORM, "Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"},
    )
    assert answer.status_code == 403
    assert "another site's page" in said(answer)


def test_an_unknown_start_is_404(client: TestClient) -> None:
    assert client.get("/builder?from=nothing-here").status_code == 404


# -- the difficulty panel --------------------------------------------------------------------------


def test_the_panel_gives_caltrop_difficultys_figures(client: TestClient) -> None:
    fields = start(client)
    panel = post(client, "/builder/difficulty", fields)
    assert panel.status_code == 200, panel.text[:300]
    n = int(re.search(r"([\d,]+) fights under tactical", panel.text).group(1).replace(",", ""))  # type: ignore[union-attr]
    # the same fights `caltrop difficulty --n N --no-exact` plays: the same PC win figure
    same = assess(load_encounter("duel"), n=n, search_n=0, exact=False, workers=1)
    assert f"<dd>{100 * same.tactical.pc_win.estimate:.1f}%" in said(panel)
    assert same.band.capitalize() in said(panel)
    assert any(f"<strong>{b.name.capitalize()}</strong>" in said(panel) for b in BANDS)
    assert 'name="vary" value="sellsword.health" checked' in said(panel)
    waiting = post(client, "/builder/difficulty", replaced(fields, participants_1___health="x"))
    assert "once the form holds no problem (1 now)" in said(waiting)


def test_the_panel_needs_the_pages_session(client: TestClient) -> None:
    fields = [(k, v) for k, v in start(client) if k != "session"]
    assert post(client, "/builder/difficulty", fields).status_code == 422


def test_suggestions_on_demand(client: TestClient) -> None:
    fields = start(client)
    asked = post(client, "/builder/vary", [*fields, ("target", "0.5"), ("vary", "brigand.health")])
    assert asked.status_code == 200, asked.text[:300]
    assert '<th scope="row">brigand.health</th><td>14</td>' in said(asked)
    none = post(client, "/builder/vary", [*fields, ("target", "0.5")])
    assert none.status_code == 422
    assert "tick a stat to vary" in said(none)
    wrong = post(client, "/builder/vary", [*fields, ("target", "2"), ("vary", "brigand.health")])
    assert wrong.status_code == 422
    assert "from 0 to 1, not 2.0" in said(wrong)
    odd = post(client, "/builder/vary", [*fields, ("vary", "brigand.speed")])
    assert odd.status_code == 422
    assert "brigand.speed" in said(odd)


# -- supersession ----------------------------------------------------------------------------------


def test_a_newer_request_supersedes_an_older_one_at_its_next_step() -> None:
    runs = Runs()
    began = threading.Event()
    steps = {"old": 0}

    def old(still_wanted: StillWanted) -> str:
        began.set()
        while True:  # a long computation that asks at each step whether it is still wanted
            still_wanted()
            steps["old"] += 1
            threading.Event().wait(0.001)

    def new(still_wanted: StillWanted) -> str:
        still_wanted()
        return "the newer answer"

    async def both() -> tuple[str | None, str | None]:
        first = asyncio.ensure_future(runs.run("page", old))
        await asyncio.get_running_loop().run_in_executor(None, began.wait)
        second = await runs.run("page", new)
        return await first, second

    first, second = asyncio.run(both())
    runs.close()
    assert first is None  # stopped: its answer never comes
    assert second == "the newer answer"
    assert runs.superseded == 1
    assert steps["old"] >= 1


def test_an_answer_that_finishes_after_a_newer_request_is_dropped() -> None:
    runs = Runs()

    def finishes_anyway(_still_wanted: StillWanted) -> str:
        runs.ticket("page")  # a newer request came while it ran, and it never asked
        return "stale"

    assert asyncio.run(runs.run("page", finishes_anyway)) is None
    assert runs.superseded == 1
    other = asyncio.run(runs.run("another page", lambda _w: "kept"))
    runs.close()
    assert other == "kept"  # another page's session is its own


# -- every library encounter, and whatever is typed ------------------------------------------------


@pytest.mark.parametrize("name", sorted(bundled_encounters()))
def test_every_bundled_encounter_survives_the_form(client: TestClient, name: str) -> None:
    """The form of a library encounter, sent back as a browser sends it, is that encounter:
    the same creatures and ruleset once loaded, and no problem; each of its slots is shown."""
    page = client.get(f"/builder?from={name}").text
    draft = drafts.draft_from_form(dict_of(fields_of(page)))
    checked = drafts.check(draft)
    assert checked.definition is not None, checked.problems
    # every slot a problem may be put at is on the page (no problem is put where none sees it)
    missing = [s for s in drafts.slots(draft) if f'id="{drafts.slot_id(s)}"' not in page]
    assert missing == []
    loaded = encounter_to_dict(checked.definition)
    saved = _library_definition(client, name)
    assert loaded["participants"] == saved["participants"]
    assert loaded["ruleset"] == saved["ruleset"]


@pytest.fixture(scope="module")
def duel_fields(tmp_path_factory: pytest.TempPathFactory) -> Fields:
    url = f"sqlite:///{tmp_path_factory.mktemp('duel') / 'caltrop.db'}"
    with TestClient(create_app(Settings(database_url=url))) as c:
        return start(c)


TYPED = st.text(max_size=24) | st.from_regex(r"-?[0-9]{1,25}", fullmatch=True)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_whatever_is_typed_is_checked_and_shown_at_a_field(
    duel_fields: Fields, data: st.DataObject
) -> None:
    """Any text in any field of the form: the content rules' verdict (never a crash), each of
    its problems at a slot the form has, as many as the loader reports."""
    keys = [k for k, _ in duel_fields if k not in ("session",) and not k.endswith(".rest")]
    typed = data.draw(st.dictionaries(st.sampled_from(keys), TYPED, min_size=1, max_size=3))
    fields = [(k, typed.get(k, v)) for k, v in duel_fields]
    draft = drafts.draft_from_form(dict_of(fields))
    checked = drafts.check(draft)
    assert set(checked.problems) <= drafts.slots(draft)
    reported = _loader_problems(drafts.yaml_text(draft))
    if reported is None:
        assert checked.ok
    else:
        assert sum(len(m) for m in checked.problems.values()) == reported


def _loader_problems(text: str) -> int | None:
    """How many problems the content loader reports on ``text`` (None: it loads)."""
    try:
        load_encounter_text(text, drafts.EXPORT_NAME)
    except ContentFileError as exc:
        return len(exc.problems)
    except ContentError:
        return 1
    return None


def test_computations_past_the_bound_are_refused_not_queued() -> None:
    runs = Runs()
    release = threading.Event()

    def slow(_still_wanted: StillWanted) -> str:
        release.wait(30)
        return "done"

    async def many() -> list[str | None]:
        waiting = [asyncio.ensure_future(runs.run(f"page-{i}", slow)) for i in range(MAX_WAITING)]
        await asyncio.sleep(0)  # each has taken its place
        with pytest.raises(BusyError, match=f"at most {MAX_WAITING} at once"):
            await runs.run("one more page", slow)
        release.set()
        return list(await asyncio.gather(*waiting))

    assert asyncio.run(many()) == ["done"] * MAX_WAITING
    assert asyncio.run(runs.run("later", lambda _w: "room again")) == "room again"
    runs.close()


def test_uploaded_creatures_come_into_the_builder_and_the_library(client: TestClient) -> None:
    """An encounter uploaded with a creature file of its own: its creatures are the draft's,
    and once saved they are on offer to every other draft."""
    troll = (
        "kind: creature\nid: cave-troll\nname: Cave Troll\nside: npc\n"
        "aspects: {Might: 6}\nhealth: 30\nevasion: 6\nweapons: [{name: club, dice: 1d8}]\n"
        "actions: [{name: smash, aspect: Might, cost: 2, kind: attack, uses_weapon: true}]\n"
    )
    encounter = (
        "kind: encounter\nname: Troll Bridge\ninclude: [troll.yaml]\nparticipants:\n"
        "  - caltrop:party/bron\n  - cave-troll\n"
    )
    files = [("files", ("troll.yaml", troll)), ("files", ("bridge.yaml", encounter))]
    page = client.post("/builder/upload", files=files)
    assert page.status_code == 200, page.text[:300]
    fields = fields_of(page.text)
    draft = drafts.draft_from_form(dict_of(fields))
    assert [c["id"] for c in draft["participants"]] == ["bron", "cave-troll"]
    assert draft["participants"][1]["health"] == 30
    assert post(client, "/builder/save", fields).status_code == 201
    picker = client.get("/builder?from=duel").text
    assert 'value="library:troll-bridge:2">Cave Troll (NPC) — Troll Bridge' in picker
    bad = client.post("/builder/upload", files=[("files", ("x.yaml", "kind: encounter\n"))])
    assert bad.status_code == 422
    assert "participants" in said(bad)


def test_the_panel_of_a_superseded_request_sends_nothing(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the route: a newer request of the same page comes while the panel's computation
    runs (its ticket taken at the computation's first step); at the next step the computation
    stops and the route answers 204, nothing to swap. Another page's request is answered."""
    from caltrop.web.routes import builder

    fields = start(client)
    session = dict(fields)["session"]
    steps: list[str] = []
    real = builder.assess

    def newer_request_comes(definition: Any, **kwargs: Any) -> Any:
        progress = kwargs["progress"]
        runs: Runs = client.app.state.builder_runs  # type: ignore[attr-defined]
        runs.ticket(session)  # the page's next change, asked while this one runs
        steps.append("played a chunk")
        progress("tactical", 2000, 0)
        steps.append("went on")  # never: the step above stopped it
        return real(definition, **kwargs)

    monkeypatch.setattr(builder, "assess", newer_request_comes)
    superseded = post(client, "/builder/difficulty", fields)
    assert superseded.status_code == 204
    assert superseded.text == ""
    assert steps == ["played a chunk"]
    monkeypatch.setattr(builder, "assess", real)
    answered = post(client, "/builder/difficulty", fields)
    assert answered.status_code == 200
    assert "PCs win" in answered.text


def test_an_action_point_stat_is_edited_at_its_own_field(client: TestClient) -> None:
    """The Action Point stat block (seed 004) is shown one field a stat; a value the content
    limits refuse is shown at that field, in their words (R48's range for ap)."""
    fields = start(client, "warband-ap")
    assert dict(fields)["participants[1].stats.ap"] == "6"
    answer = post(client, "/builder/validate", replaced(fields, participants_1___stats__ap="-5"))
    assert slot_text(answer.text, "participants[1].stats.ap").startswith(
        "expected a number from 0 to 99, got -5"
    )
    assert dict(fields)["participants[1].weapons[1].ap"] == "3"  # Torvald's longsword (R38)
    assert "participants[1].weapons[1].close" not in dict(fields)  # a melee weapon has no range
    slow = post(client, "/builder/validate", replaced(fields, participants_1___weapons_1___ap="-1"))
    assert slot_text(slow.text, "participants[1].weapons[1].ap").startswith("expected a number")
    more = replaced(fields, participants_1___stats__ap="7")
    draft = drafts.draft_from_form(dict_of(more))
    assert draft["participants"][0]["stats"]["ap"] == 7
    assert drafts.check(draft).ok


def test_a_form_of_too_many_fields_is_refused(client: TestClient) -> None:
    from caltrop.web.routes.builder import MAX_FORM_FIELDS

    many = [("session", "x")] + [(f"f{i}", "") for i in range(MAX_FORM_FIELDS)]
    answer = post(client, "/builder/validate", many)
    assert answer.status_code == 422
    assert "not a builder form: Max number of fields exceeded" in said(answer)
