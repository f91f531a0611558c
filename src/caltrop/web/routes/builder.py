"""The encounter builder (issue 23 item 3): a GM composes an encounter from the library's
creatures, edits them in forms checked as they are typed, sees how hard it is, saves it to the
library, exports it as YAML and opens a table from it.

* ``GET /builder`` (``?from=NAME``: a library encounter to start from) — the page;
* ``POST /builder/upload`` — the page, started from uploaded content files (multipart ``files``);
* ``POST /builder/edit`` — add, remove or duplicate a creature, add or remove an Aspect, a
  weapon or an action: the form again;
* ``POST /builder/validate`` — the content rules' problems, each at its field (htmx swaps each
  error slot by its id); the same rules as ``caltrop validate`` (:mod:`caltrop.web.builder_draft`);
* ``POST /builder/difficulty`` — the panel of ``caltrop difficulty`` (:mod:`caltrop.sim.
  difficulty`) within :data:`PANEL_SECONDS`, off the event loop, superseded by a newer request
  of the same page (:mod:`caltrop.web.builder_runs`; 204 for a superseded one);
* ``POST /builder/vary`` — "what would change it" (:mod:`caltrop.sim.vary`), on a button;
* ``POST /builder/save`` — into the server's library, under a name of its own: a browser that
  holds a player's seat is refused before its body is read (a GM's browser, or one that holds
  no seat and may open a table as the home page lets it, may save);
* ``POST /builder/export`` — the YAML file; ``POST /builder/open`` — a table of the draft, as
  the home page opens one (the GM cookie, on to ``/table``).

Every other route takes the form (``application/x-www-form-urlencoded``, at most
:data:`caltrop.web.limits.BUILDER_BODY_BYTES`), follows the Origin rule, and refuses through the
one catalogue of refusals.
"""

from __future__ import annotations

import copy
import functools
import re
import secrets
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Final
from urllib.parse import parse_qsl

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from starlette.concurrency import run_in_threadpool

from caltrop.content.bundled import bundled_rulesets
from caltrop.content.serialize import encounter_to_dict
from caltrop.core.model import EncounterDef
from caltrop.errors import CaltropError, ForbiddenError, RefusalError, RefusedError
from caltrop.sim.difficulty import BANDS, Difficulty, assess
from caltrop.sim.vary import Suggestion, listing_text, variable_stats, vary
from caltrop.store.repository import LibraryEntry
from caltrop.store.service import Tables, uploaded_encounter
from caltrop.web import builder_draft as drafts
from caltrop.web.builder_library import creature, picks
from caltrop.web.builder_runs import Runs, StillWanted
from caltrop.web.deps import ORIGIN_CHECKED, seat_of_token, service_of
from caltrop.web.errors import status_of
from caltrop.web.limits import BUILDER_BODY_BYTES
from caltrop.web.pages import MODULES, _opened
from caltrop.web.screen import render
from caltrop.web.seating import COOKIE
from caltrop.web.text import no_nul
from caltrop.web.uploads import bounded_body, uploaded

router = APIRouter(include_in_schema=False, dependencies=ORIGIN_CHECKED)

#: the difficulty panel's time budget (issue 23 item 3: "≤ 2 s"; the rest is the page's)
PANEL_SECONDS: Final = 1.5
#: the target the suggestions aim at unless the GM gives one (``caltrop difficulty --target``)
DEFAULT_TARGET: Final = 0.6
#: the stats the suggestions vary unless the GM ticks others: the first few of the listing
DEFAULT_VARIED: Final = 2
#: how many stats one press of the button may vary
MAX_VARIED: Final = 6
#: a library name made from an encounter's name (the library's key, at most 100 characters)
MAX_NAME: Final = 80
FORM_TYPE: Final = "application/x-www-form-urlencoded"
#: fields in one builder form, at most (200 creatures of some 60 fields each: the content's own
#: limit of participants, MAX_PARTICIPANTS, is reached first)
MAX_FORM_FIELDS: Final = 20_000


Route = Callable[[Request], Awaitable[Response]]


def _fragment(route: Route) -> Route:
    """A route whose refusal is an HTML fragment beside the form (its status the catalogue's),
    not the API's JSON: the page shows it where the answer goes."""

    @functools.wraps(route)
    async def answered(request: Request) -> Response:
        try:
            return await route(request)
        except RefusalError as exc:
            return _refusal(exc)

    return answered


def _on_a_page(route: Route) -> Route:
    """A route a plain form post reaches (export, open): its refusal is a page of its own."""

    @functools.wraps(route)
    async def answered(request: Request) -> Response:
        try:
            return await route(request)
        except RefusalError as exc:
            return _page_refusal(exc)

    return answered


def _runs(request: Request) -> Runs:
    state = request.app.state
    if not hasattr(state, "builder_runs"):
        state.builder_runs = Runs()
    runs: Runs = state.builder_runs
    return runs


async def _fields(request: Request) -> dict[str, list[str]]:
    """The builder form's fields, read within the route's limit: 422 for a body that is not a
    form, or a field that holds a NUL character (issue 20)."""
    body = await bounded_body(request, BUILDER_BODY_BYTES, "a builder form")
    if not request.headers.get("content-type", "").startswith(FORM_TYPE):
        raise RefusedError(f"send the builder's form ({FORM_TYPE})")
    try:
        pairs = parse_qsl(
            body.decode("utf-8"), keep_blank_values=True, max_num_fields=MAX_FORM_FIELDS
        )
    except (UnicodeDecodeError, ValueError) as exc:
        raise RefusedError(f"not a builder form: {exc}") from None
    fields: dict[str, list[str]] = {}
    for name, value in pairs:
        for what, text in ((f"the field name {name[:40]!r}", name), (name[:40], value)):
            try:
                no_nul(text)
            except ValueError as exc:
                raise RefusedError(f"{what}: {exc}") from None
        fields.setdefault(name, []).append(value)
    return fields


def _one(fields: Mapping[str, Sequence[str]], name: str) -> str:
    return (fields.get(name) or [""])[0]


def _session(fields: Mapping[str, Sequence[str]]) -> str:
    """The page's session key (made when the page was served): at most 64 URL-safe letters."""
    value = _one(fields, "session")
    if not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", value):
        raise RefusedError("session: the builder page's own key (reload the page)")
    return value


def _economy(draft: Mapping[str, Any]) -> str:
    return "action_points" if draft.get("ruleset") == "action-points" else "action_load"


def _context(
    service: Tables, draft: dict[str, Any], session: str, checked: drafts.Checked
) -> dict[str, Any]:
    economy = _economy(draft)
    offered = [p for p in picks(service) if p.module == economy]
    return {
        "draft": draft,
        "session": session,
        "problems": checked.problems,
        "rulesets": list(bundled_rulesets()),
        "picks": offered,
        "module_label": MODULES.get(economy, economy),
        "slot_id": drafts.slot_id,
        "rest_json": drafts.rest_json,
        "creature_fields": drafts.CREATURE_FIELDS,
        "weapon_fields": drafts.WEAPON_FIELDS,
        "action_fields": drafts.ACTION_FIELDS,
    }


# -- the page and its form ------------------------------------------------------------------------


@router.get("/builder", response_class=HTMLResponse)
async def page(request: Request) -> HTMLResponse:
    """The builder, blank or from a library encounter (``?from=NAME``)."""
    service = service_of(request)
    start = request.query_params.get("from", "")
    draft = drafts.blank_draft()
    if start:
        data = await run_in_threadpool(_library_definition, service, start)
        if data is None:
            message = f"no encounter {start[:100]!r} in the library"
            page = render("message.html", heading="No such encounter", message=message, back="/")
            return HTMLResponse(page, status_code=404)
        draft = drafts.draft_of(data)
    checked = await run_in_threadpool(drafts.check, draft)
    context = await run_in_threadpool(_context, service, draft, secrets.token_urlsafe(16), checked)
    return HTMLResponse(render("builder.html", bands=BANDS, **context))


@router.post("/builder/upload", response_class=HTMLResponse)
@_on_a_page
async def from_upload(request: Request) -> Response:
    """The builder started from uploaded content files (an encounter YAML and the files it
    includes, as the home page's upload takes them): its creatures become the draft's, to edit
    and save to the library."""
    files, _ = await uploaded(request)
    service = service_of(request)
    definition = await run_in_threadpool(uploaded_encounter, files)
    draft = drafts.draft_of(encounter_to_dict(definition))
    checked = await run_in_threadpool(drafts.check, draft)
    context = await run_in_threadpool(_context, service, draft, secrets.token_urlsafe(16), checked)
    return HTMLResponse(render("builder.html", bands=BANDS, **context))


def _library_definition(service: Tables, name: str) -> dict[str, Any] | None:
    service.library()  # the bundled encounters are put there on first use
    return service.repository.library_definition(name)


@router.post("/builder/edit", response_class=HTMLResponse)
@_fragment
async def edit(request: Request) -> Response:
    """One change of the draft's shape (``op``, ``index``, ``row``, ``source``): the form again,
    checked, and the panel told to refresh."""
    fields = await _fields(request)
    session = _session(fields)
    service = service_of(request)
    draft = drafts.draft_from_form(fields)
    await run_in_threadpool(_apply, service, draft, fields)
    checked = await run_in_threadpool(drafts.check, draft)
    context = await run_in_threadpool(_context, service, draft, session, checked)
    body = render("builder_form.html", **context)
    return HTMLResponse(body, headers={"HX-Trigger": "builder-changed"})


def _index(fields: Mapping[str, Sequence[str]], name: str, count: int) -> int:
    text = _one(fields, name)
    if not text.isdigit() or not 1 <= int(text) <= count:
        raise RefusedError(f"{name} is a number from 1 to {count}, not {text[:20]!r}")
    return int(text) - 1


def _apply(service: Tables, draft: dict[str, Any], fields: Mapping[str, Sequence[str]]) -> None:
    """The change ``op`` names, made to ``draft`` (in place)."""
    op = _one(fields, "op")
    creatures: list[dict[str, Any]] = draft["participants"]
    taken = {str(c.get("id", "")) for c in creatures}
    if op == "add":
        added = drafts.plain(creature(service, _one(fields, "source")))
        added["id"] = drafts.free_id(str(added.get("id", "creature")), taken)
        creatures.append(added)
        return
    if op == "ruleset":  # the ruleset changed: the form again, its picker of that module
        return
    i = _index(fields, "index", len(creatures))
    chosen = creatures[i]
    if op == "remove":
        del creatures[i]
    elif op == "duplicate":
        twin = copy.deepcopy(chosen)
        twin["id"] = drafts.free_id(str(chosen.get("id", "creature")), taken)
        creatures.insert(i + 1, twin)
    elif op == "add-aspect":
        aspects = chosen.setdefault("aspects", {})
        n = 1
        while f"Aspect{n}" in aspects:
            n += 1
        aspects[f"Aspect{n}"] = 1
    elif op == "remove-aspect":
        names = list(chosen.get("aspects", {}))
        del chosen["aspects"][names[_index(fields, "row", len(names))]]
    elif op == "add-weapon":
        chosen.setdefault("weapons", []).append({"name": "weapon", "dice": "1d6", "kind": "melee"})
    elif op == "add-action":
        aspect = next(iter(chosen.get("aspects") or {"Might": 0}))
        chosen.setdefault("actions", []).append(
            {
                "name": "strike",
                "aspect": aspect,
                "cost": 3,
                "kind": "attack",
                "uses_weapon": True,
                "weapon_kind": "melee",
            }
        )
    elif op in ("remove-weapon", "remove-action"):
        group = op.removeprefix("remove-") + "s"
        items = chosen.get(group) or []
        del items[_index(fields, "row", len(items))]
    else:
        raise RefusedError(f"op: unknown change {op[:40]!r}")


@router.post("/builder/validate", response_class=HTMLResponse)
@_fragment
async def validate(request: Request) -> Response:
    """Every error slot of the form, filled or emptied, as out-of-band swaps; the panel is told
    to refresh when the draft holds no problem."""
    fields = await _fields(request)
    draft = drafts.draft_from_form(fields)
    checked = await run_in_threadpool(drafts.check, draft)
    body = render(
        "builder_errors.html",
        slots=sorted(drafts.slots(draft)),
        problems=checked.problems,
        slot_id=drafts.slot_id,
    )
    headers = {"HX-Trigger": "builder-changed"} if checked.ok else {}
    return HTMLResponse(body, headers=headers)


# -- how hard it is -------------------------------------------------------------------------------


@router.post("/builder/difficulty", response_class=HTMLResponse)
@_fragment
async def difficulty(request: Request) -> Response:
    """The difficulty panel of the draft; 204 (nothing to swap) when a newer change of the same
    page superseded this request."""
    fields = await _fields(request)
    session = _session(fields)
    draft = drafts.draft_from_form(fields)
    checked = await run_in_threadpool(drafts.check, draft)
    definition = checked.definition
    if definition is None:
        return HTMLResponse(render("builder_panel.html", answer=None, problems=checked.problems))

    def work(still_wanted: StillWanted) -> Difficulty:
        # exact=False: the exact solver's size estimate is not a time bound, and the panel has
        # one (issue 23 item 3); `caltrop difficulty` solves it where it can
        return assess(
            definition,
            seconds=PANEL_SECONDS,
            exact=False,
            progress=lambda _stage, _done, _total: still_wanted(),
        )

    answer = await _runs(request).run(session, work)
    if answer is None:
        return Response(status_code=204)
    stats = variable_stats(definition)
    return HTMLResponse(
        render(
            "builder_panel.html",
            answer=answer,
            problems={},
            stats=stats,
            ticked=stats[:DEFAULT_VARIED],
            target=DEFAULT_TARGET,
        )
    )


@router.post("/builder/vary", response_class=HTMLResponse)
@_fragment
async def suggestions(request: Request) -> Response:
    """What would bring the PC win probability to the target: each ticked stat's value."""
    fields = await _fields(request)
    session = _session(fields)
    draft = drafts.draft_from_form(fields)
    checked = await run_in_threadpool(drafts.check, draft)
    definition = checked.definition
    if definition is None:
        raise RefusedError("the draft has problems: fix them first (they are shown at the fields)")
    target_text = _one(fields, "target").strip() or str(DEFAULT_TARGET)
    try:
        target = float(target_text)
    except ValueError:
        said = f"target is a PC win probability from 0 to 1, not {target_text[:20]!r}"
        raise RefusedError(said) from None
    if not 0.0 <= target <= 1.0:  # (nan too)
        raise RefusedError(f"target is a PC win probability from 0 to 1, not {target}")
    names = [n for n in fields.get("vary", []) if n]
    if not names:
        listed = listing_text(variable_stats(definition))
        raise RefusedError(f"tick a stat to vary; what may be varied: {listed}")
    if len(names) > MAX_VARIED:
        raise RefusedError(f"at most {MAX_VARIED} stats at once ({len(names)} ticked)")

    def work(still_wanted: StillWanted) -> tuple[Suggestion, ...]:
        return vary(definition, names, target, progress=lambda _stat, _played: still_wanted())

    try:
        found = await _runs(request).run(f"{session}:vary", work)
    except RefusalError:
        raise
    except CaltropError as exc:  # vary's own refusals (a stat it cannot vary): said in words
        raise RefusedError(str(exc)) from None
    if found is None:
        return Response(status_code=204)
    return HTMLResponse(render("builder_vary.html", suggestions=found, target=target))


# -- keeping it ------------------------------------------------------------------------------------


async def _gm_capable(request: Request) -> None:
    """Who may change the library, decided before the body is read: a browser that holds a
    player's seat (in force) may not; a GM's browser may, and so may one that holds no seat (it
    may open a table from the home page, and so become a GM, as anyone who reaches the port)."""
    token = request.cookies.get(COOKIE)
    if not token:
        return
    try:
        seat = await seat_of_token(service_of(request), token)
    except RefusalError:
        return  # an unknown or revoked seat: this browser holds nothing
    if seat.role != "gm":
        raise ForbiddenError(
            f"this browser holds a player's seat ({seat.creature_id}): only a GM's browser, "
            "or one that holds no seat, saves encounters to the library"
        )


def library_name(title: str) -> str:
    """The library name of an encounter called ``title``: lower case, words joined by '-'."""
    name = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:MAX_NAME].strip("-")
    return name or "encounter"


@router.post("/builder/save", response_class=HTMLResponse)
@_fragment
async def save(request: Request) -> Response:
    """The draft into the server's library, under the name its title makes; 422 when the
    library already holds that name (rename the encounter) or the draft has problems."""
    await _gm_capable(request)
    fields = await _fields(request)
    draft = drafts.draft_from_form(fields)
    service = service_of(request)
    name = await run_in_threadpool(_save, service, draft)
    body = render("builder_saved.html", name=name, title=draft.get("name", ""))
    return HTMLResponse(body, status_code=201)


def _save(service: Tables, draft: dict[str, Any]) -> str:
    definition = _checked(draft)
    name = library_name(definition.name)
    service.library()  # the bundled ones first: a draft never takes a bundled name
    summary = (definition.description or "").split("\n")[0][:200]
    entry = LibraryEntry(name, definition.name, definition.ruleset.economy.value, summary)
    if service.repository.add_to_library([(entry, encounter_to_dict(definition))]) == 0:
        raise RefusedError(
            f"the library already holds an encounter named {name!r}: give this one another name"
        )
    return name


def _checked(draft: Mapping[str, Any]) -> EncounterDef:
    checked = drafts.check(draft)
    if checked.definition is None:
        said = "; ".join(f"{slot}: {m}" for slot, ms in checked.problems.items() for m in ms)
        raise RefusedError(f"the draft has problems: {said}")
    return checked.definition


@router.post("/builder/export")
@_on_a_page
async def export(request: Request) -> Response:
    """The draft as an encounter YAML file (a download) that ``caltrop validate`` accepts."""
    fields = await _fields(request)
    draft = drafts.draft_from_form(fields)
    definition = await run_in_threadpool(_checked, draft)
    filename = f"{library_name(definition.name)}.yaml"
    return Response(
        drafts.yaml_text(draft),
        media_type="application/yaml",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


@router.post("/builder/open")
@_on_a_page
async def open_table(request: Request) -> Response:
    """A table of the draft, as the home page opens one: on to the GM screen."""
    fields = await _fields(request)
    draft = drafts.draft_from_form(fields)
    service = service_of(request)
    definition = await run_in_threadpool(_checked, draft)
    new = await run_in_threadpool(service.create_from, definition)
    return _opened(request, new)


def _refusal(exc: RefusalError) -> HTMLResponse:
    body = render("builder_refusal.html", reason=exc.reason)
    return HTMLResponse(body, status_code=status_of(exc))


def _page_refusal(exc: RefusalError) -> HTMLResponse:
    page = render("message.html", heading="Not done", message=exc.reason, back="/builder")
    return HTMLResponse(page, status_code=status_of(exc))
