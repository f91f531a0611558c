"""The screens render the view model's fields and nothing else (issue 12): the pool, the odds,
one field per die, the log die by die with the d4s paired into fives."""

from __future__ import annotations

from typing import Any

from caltrop.content import load_encounter
from caltrop.core.commands import parse_command
from caltrop.encounter import Encounter
from caltrop.table import Reveal, view
from caltrop.web.headers import CONTENT_SECURITY_POLICY
from caltrop.web.screen import hopeless, number, positions, render, resources_text, screen_fragments


def orc_bridge(viewer: str) -> dict[str, Any]:
    return view(Encounter.begin(load_encounter("orc-bridge"), 1), viewer).as_dict()


def test_a_players_screen_shows_aspect_minus_load_and_greys_with_the_reason() -> None:
    seen = orc_bridge("bron")
    html = screen_fragments(seen)
    assert '<th scope="row">Might</th><td>5</td><td>6</td>' in html  # Load −1: 5 − (−1)
    assert "strike orc-brute with sword" in html
    assert "cost 3 Load" in html  # R12: the strike adds its Cost 3 to Load
    assert "leaves Load 2" in html
    greyed = [o for o in seen["options"]["bron"] if not o["legal"]]
    assert greyed
    for o in greyed:
        assert o["reason"].replace("'", "&#39;") in html


def test_pool_odds_and_one_field_per_die_are_shown_when_the_view_has_them() -> None:
    seen = orc_bridge("bron")
    strike = seen["options"]["bron"][0]
    strike["pool"] = "5d4 + 1d8: Might 5 − Load 0"
    strike["odds"] = {
        "kind": "attack",
        "success": 0.75,
        "exact": "3/4",
        "expected_damage": 6.5,
        "against": "Evasion 9",
        "with_help": 0.8125,
        "with_hinder": 0.5,
    }
    seen["pending"] = {
        "kind": "action",
        "roller": "bron",
        "action": "strike",
        "target": "orc-brute",
        "dc": None,
        "stage": "",
        "expression": "5d4+1d8",
        "pool": "5d4 + 1d8: Might 5 − Load 0",
        "dice": [4, 4, 4, 4, 4, 8],
        "advantages": [],
        "net_advantage": 0,
        "passed": [],
        "waiting_on": [],
        "depth": 0,
    }
    seen["options"]["bron"].append(
        {
            "actor": "bron",
            "command": "roll",
            "action": "roll",
            "legal": True,
            "cost": {},
            "reaction": False,
        }
    )
    html = screen_fragments(seen)
    assert "5d4 + 1d8: Might 5 − Load 0" in html
    assert "75.0% to deal damage against Evasion 9, 6.50 expected damage" in html
    assert "(exactly 3/4)" in html
    assert "with help 81.2%" in html
    assert "with hinder 50.0%" in html
    assert html.count('name="die"') == 6
    assert 'aria-label="die 6 of 6, a d8"' in html


def test_the_log_shows_each_die_and_the_fives() -> None:
    seen = orc_bridge("gm")
    seen["log"] = [
        {
            "seq": 3,
            "actor": "bron",
            "command": "roll 4,1,3,2,7",
            "text": "Bron rolls 4d4 + 1d8",
            "dice": [
                {"faces": 4, "value": 4},
                {"faces": 4, "value": 1},
                {"faces": 4, "value": 3},
                {"faces": 4, "value": 2},
                {"faces": 8, "value": 7},
            ],
            "total": 17,
            "result": "9 damage to Orc Brute",
            "fives": [[4, 1], [3, 2]],
        }
    ]
    html = screen_fragments(seen)
    assert "Bron rolls 4d4 + 1d8" in html
    assert html.count('class="die d4"') == 4
    # each die with its faces: a d4 is the log's plain die, any other is named (issue 22 item 6)
    assert 'class="die d8" title="d8: 7">7<small>d8</small><' in html
    assert "fives: (4+1) (3+2)" in html
    assert "= 17" in html
    assert "9 damage to Orc Brute" in html


def test_the_real_views_odds_pool_dice_and_log_are_on_the_screen() -> None:
    """What the view model computes (table/odds.py, pool.py, log.py) reaches the screen."""
    encounter = Encounter.begin(load_encounter("orc-bridge"), 1)
    offered = view(encounter, "bron").as_dict()["options"]["bron"][0]
    html = screen_fragments(view(encounter, "bron").as_dict())
    assert offered["pool"] in html
    # the Brute's Aspects are hidden from Bron's player: a whole percentage, no fraction
    assert f"about {100 * offered['odds']['success']:.0f}% to deal damage" in html
    assert "exactly" not in html
    shown = {"orc-brute": Reveal(aspects=True)}
    offered = view(encounter, "bron", shown).as_dict()["options"]["bron"][0]
    html = screen_fragments(view(encounter, "bron", shown).as_dict())
    assert f"{100 * offered['odds']['success']:.1f}% to deal damage" in html
    assert f"(exactly {offered['odds']['exact']})" in html
    for text in ("bron: strike orc-brute with sword", "aria: help", "gm: pass all"):
        encounter.apply(parse_command(text))
    seen = view(encounter, "bron").as_dict()
    html = screen_fragments(seen)
    assert html.count('name="die"') == len(seen["pending"]["dice"])
    encounter.apply(parse_command("roll 4,1,3,2,2,1,7"))
    encounter.settle()
    seen = view(encounter, "aria").as_dict()
    html = screen_fragments(seen)
    last = seen["log"][-1]
    assert html.count('class="die d') == len(last["dice"])
    assert "fives: " + " ".join(f"({a}+{b})" for a, b in last["fives"]) in html
    assert str(last["result"]) in html


def test_points_and_positions_for_the_action_point_module() -> None:
    seen = view(Encounter.begin(load_encounter("bridge-duel-ap"), 1), "gm").as_dict()
    placed = positions(seen)
    assert [p["id"] for p in placed] == ["torvald", "kestrel", "brakka", "bandit-archer"]
    xs = [p["x"] for p in placed]
    assert min(xs) >= 0
    assert max(xs) <= 100
    assert xs[1] < xs[0] < xs[2] < xs[3]  # kestrel −8, torvald 0, brakka 10, archer 22
    assert resources_text({"ap": 4, "rp": 0, "floating_rp": 1, "stamina": 6.0}) == (
        "AP 4 · RP 0 · floating RP 1 · Stamina 6"
    )
    kestrel = view(Encounter.begin(load_encounter("bridge-duel-ap"), 1), "kestrel").as_dict()
    html = screen_fragments(kestrel)
    assert 'data-fill="kestrel: move toward torvald"' in html
    # R34: positions are no secret at a table; R39/R41: a creature unaware of another does not
    # see where it stands
    assert "brakka" in [p["id"] for p in positions(kestrel)]
    enc = Encounter.begin(load_encounter("bridge-duel-ap"), 1)
    enc.apply(parse_command("gm: set kestrel aware brakka off"))
    unaware = view(enc, "kestrel").as_dict()
    assert "brakka" not in [p["id"] for p in positions(unaware)]
    assert "brakka" in [p["id"] for p in positions(view(enc, "torvald").as_dict())]


def _row(html: str, creature: str) -> str:
    """A player's table row of ``creature``, or the GM's row's summary line (gm_rows.html)."""
    start = html.index(f'id="row-{creature}"')
    ends = (html.find("</tr>", start), html.find("</summary>", start))
    return html[start : min(end for end in ends if end >= 0)]


def test_a_down_creature_says_down_once() -> None:
    """Issue 22 item 8: "0/9 (down) · down" on the GM's screen, "down · down" on a player's."""
    enc = Encounter.begin(load_encounter("orc-bridge"), 1)
    enc.apply(parse_command("gm: damage goblin-archer 9"))
    gm = screen_fragments(view(enc, "gm").as_dict())
    player = screen_fragments(view(enc, "bron").as_dict())
    assert "0/9 (down)" in _row(gm, "goblin-archer")
    for html in (gm, player):
        row = _row(html, "goblin-archer")
        cells = row.split("<td>", 1)[1] if "<td>" in row else row.split('class="vitals">', 1)[1]
        assert cells.count("down") == 1, cells


def test_positions_are_shown_without_a_floats_binary_noise() -> None:
    """Issue 22 item 8: ``0.30000000000000004`` on the screen; two decimals at most."""
    assert number(0.1 + 0.2) == "0.3"
    assert number(1.5300000000000002) == "1.53"
    assert number(8.55) == "8.55"
    assert number(6.0) == "6"
    assert number(-0.001) == "0"
    seen = view(Encounter.begin(load_encounter("bridge-duel-ap"), 1), "gm").as_dict()
    seen["creatures"][0]["position"] = [0.1 + 0.2, 1.5300000000000002]
    html = screen_fragments(seen)
    assert "0.30000000000000004" not in html
    assert "0.3, 1.53" in html


def test_an_option_at_exactly_nought_percent_is_set_apart_after_the_others() -> None:
    """Issue 22 item 8: options at 0.0% were offered as ordinary buttons."""
    seen = orc_bridge("bron")
    legal = [o for o in seen["options"]["bron"] if o["legal"]]
    assert len(legal) >= 2
    first, second = legal[0], legal[1]
    first["odds"] = {"kind": "attack", "success": 0.0, "expected_damage": 0.0}
    second["odds"] = {"kind": "attack", "success": 0.5, "expected_damage": 1.0}
    html = screen_fragments(seen)
    assert html.count("cannot succeed now (0%)") == 1
    assert html.index(f'value="{second["command"]}"') < html.index(f'value="{first["command"]}"')
    assert hopeless(first)
    assert not hopeless(second)
    # a reaction's odds are the pending roll's: never "cannot succeed"
    assert not hopeless({**first, "reaction": True})


def test_every_page_names_its_icon_inline() -> None:
    """Issue 22 item 8: ``/favicon.ico`` 404: the icon is a data: URI the CSP allows."""
    html = render("message.html", heading="x", message="y")
    assert '<link rel="icon" href="data:image/svg+xml,' in html
    assert "img-src 'self' data:" in CONTENT_SECURITY_POLICY


def test_a_defence_window_shows_each_choices_consequence_and_its_cost_as_paid() -> None:
    """Issue 22 item 2 (R40, R45): Torvald, 6 damage incoming (Block 3d4 + Resistance 1, Dodge
    2d4 + 1), sees for each choice the chance of taking no damage and the damage taken, exactly
    (his own numbers), and each cost as "cost 1 RP", never "RP -1"."""
    from tests.table.test_defence_odds import windows

    enc, defender, _ = next(w for w in windows() if w[0].pending_roll.context["incoming"] == 6)
    html = screen_fragments(view(enc, defender).as_dict())
    assert "cost 1 RP" in html
    assert "RP -1" not in html
    assert "to deal damage" not in html
    # Block: 3d4 + 1 ≥ 6 but for a 2 (1/64 each way under 5: 15/16); E[taken] = 5/64
    assert "93.8% to take no damage, 0.08 expected damage taken (exactly 15/16 and 5/64)" in html
    assert "with one more Defense Assist die 99.6%" in html
    # Dodge: 2d4 + 1 ≥ 6 is 10/16, else all 6 taken: 6 × 6/16 = 9/4
    assert "62.5% to take no damage, 2.25 expected damage taken (exactly 5/8 and 9/4)" in html
    # Take Cover, then Block: 2 × 3d4 + 1 ≥ 7 always; then Dodge: 2 × 2d4 + 1 ≥ 6 but for
    # (1,1): 15/16, else all 6 taken (6/16 = 3/8)
    assert "then block: 100.0% to take no damage, 0.00 expected damage taken" in html
    assert (
        "; then dodge: 93.8% to take no damage, 0.38 expected damage taken (exactly 15/16 and 3/8)"
    ) in html
    # no defence (pass): 6 − 1, whole numbers: no "exactly 0 and 5" after the same figures
    assert "0.0% to take no damage, 5.00 expected damage taken;" in html or (
        "0.0% to take no damage, 5.00 expected damage taken<" in html
    )
    assert "(exactly 0 and 5)" not in html
    assert "(exactly 1 and 0)" not in html  # Take Cover then Block: certain


def test_a_player_sees_an_npcs_defence_rounded() -> None:
    """docs/rules.md, "What the odds tell a player": against an NPC whose Aspects are hidden,
    whole percentages and damage to one decimal, no fraction."""
    from tests.table.test_odds import ap_encounter

    enc = ap_encounter()
    owner = enc.turn_owner
    assert owner is not None
    foe = next(c for c in enc.creatures if c.side.name == "NPC")
    enc.apply(parse_command(f"{owner}: attack {foe.id}"))
    enc.apply(parse_command("roll 6"))  # the damage (R45)
    assert enc.current() == foe.id
    enc.apply(parse_command(f"{foe.id}: block"))
    html = screen_fragments(view(enc, owner).as_dict())
    assert "to take no damage" in html
    assert "expected damage taken" in html
    assert "exactly" not in html
    assert "about 100% to take no damage, 0.0 expected damage taken" in html
    gm = screen_fragments(view(enc, "gm").as_dict())
    # the GM's unrounded; certain here, so no fraction follows ("exactly 1 and 0" said nothing)
    assert "100.0% to take no damage, 0.00 expected damage taken;" in gm
    assert "(exactly 1 and 0)" not in gm


def test_a_defence_not_yet_chosen_has_no_dice_to_roll_or_type() -> None:
    """R40: until the defender chooses, the defence roll has no dice ("0: no defence chosen");
    the GM may still go on (its ``roll`` settles it as it stands), but is offered no "Roll 0"
    and no field for the faces of 0 dice. Once Block is chosen, its dice are rolled or typed."""
    from tests.table.test_odds import ap_defence_stage

    enc, foe = ap_defence_stage()
    seen = view(enc, "gm").as_dict()
    assert seen["pending"]["expression"] == "0"
    html = screen_fragments(seen)
    assert "Go on: no dice to roll" in html
    assert "Roll 0" not in html
    assert "faces of 0" not in html
    enc.apply(parse_command(f"{foe}: block"))
    chosen = view(enc, "gm").as_dict()
    html = screen_fragments(chosen)
    assert f"Roll {chosen['pending']['expression']}" in html
    assert chosen["pending"]["expression"] != "0"
    assert "Or type the physical dice" in html
    assert "no dice to roll" not in html
