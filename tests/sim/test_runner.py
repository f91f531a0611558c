"""The batch runner: paired seeds, identical results whatever the workers and chunks."""

from __future__ import annotations

import numpy as np
import pytest

from caltrop.content import load_encounter
from caltrop.sim.overrides import parse_variant
from caltrop.sim.runner import (
    Records,
    SimulationError,
    encounter_streams,
    resolve_policies,
    simulate,
)
from caltrop.sim.summary import summarise
from tests.sim.tiny import skirmish

VARIANTS = [parse_variant("load_reset=turn"), parse_variant("load_reset=round")]
TACTICAL = {"pc": "tactical", "npc": "tactical"}


def _same(a: Records, b: Records) -> None:
    for name in Records.__dataclass_fields__:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


def test_streams_depend_only_on_seed_and_index() -> None:
    e1, pc1, npc1 = encounter_streams(42, 7)
    e2, pc2, npc2 = encounter_streams(42, 7)
    assert e1 == e2
    assert pc1.integers(1 << 30) == pc2.integers(1 << 30)
    assert npc1.integers(1 << 30) == npc2.integers(1 << 30)
    assert encounter_streams(42, 8)[0] != e1
    assert encounter_streams(43, 7)[0] != e1


def test_workers_and_chunks_do_not_change_any_encounter() -> None:
    """Encounter i is the same whether run in this process, in 2 workers, in any chunks."""
    d = skirmish()
    one = simulate(d, VARIANTS, TACTICAL, n=30, seed=11, workers=1)
    two = simulate(d, VARIANTS, TACTICAL, n=30, seed=11, workers=2, chunk=7)
    small = simulate(d, VARIANTS, TACTICAL, n=30, seed=11, workers=1, chunk=4)
    for a, b, c in zip(one.runs, two.runs, small.runs, strict=True):
        _same(a.records, b.records)
        _same(a.records, c.records)
    assert summarise(one)["variants"] == summarise(two)["variants"]


def test_the_goblin_ambush_in_two_workers_matches_one() -> None:
    d = load_encounter("goblin-ambush")
    variants = [parse_variant("baseline")]
    one = simulate(d, variants, TACTICAL, n=6, seed=5, workers=1)
    two = simulate(d, variants, TACTICAL, n=6, seed=5, workers=2, chunk=2)
    _same(one.runs[0].records, two.runs[0].records)


def test_a_longer_run_is_the_shorter_run_plus_more() -> None:
    d = skirmish()
    short = simulate(d, VARIANTS, TACTICAL, n=10, seed=3)
    long = simulate(d, VARIANTS, TACTICAL, n=25, seed=3, chunk=6)
    for s, lg in zip(short.runs, long.runs, strict=True):
        np.testing.assert_array_equal(s.records.winner, lg.records.winner[:10])
        np.testing.assert_array_equal(s.records.rounds, lg.records.rounds[:10])


def test_identical_variants_differ_by_exactly_zero() -> None:
    """Paired seeds: the same rules give the same encounters, so every pair is the same and the
    difference is 0 — said as "identical", with Newcombe's interval for the win rates (no
    bare [0, 0], issue 25 item 3); the mean-rounds difference is 0 in every pair."""
    d = skirmish()
    result = simulate(
        d,
        [parse_variant("a:load_reset=turn"), parse_variant("b:load_reset=turn")],
        {"pc": "random", "npc": "tactical"},
        n=40,
        seed=9,
    )
    for diff in summarise(result)["differences"]:
        assert diff["diff"] == 0.0
        assert diff["identical"]
        if diff["measure"] == "win_rate":
            assert diff["discordant"] == 0
            assert diff["lo"] < 0.0 < diff["hi"]
        else:
            assert (diff["lo"], diff["hi"]) == (0.0, 0.0)


def test_records_count_reactions_costs_and_damage() -> None:
    d = skirmish()
    result = simulate(d, [parse_variant("baseline")], TACTICAL, n=60, seed=2)
    rec = result.runs[0].records
    assert rec.n == 60
    assert set(np.unique(rec.winner)) <= {1, 2}
    sage = 2
    assert rec.hinders[:, sage].sum() > 0  # the sage hinders the ogre at times
    assert (rec.reactions >= rec.team).all()
    assert (rec.cost[:, sage] >= rec.team[:, sage]).all()
    # every downed creature took at least its Health in damage from the other side
    ogre_down = rec.down[:, 0]
    assert (rec.dealt[ogre_down][:, 1:].sum(1) >= 6).all()
    assert (rec.rounds >= 1).all()


def test_summary_shape() -> None:
    result = simulate(skirmish(), VARIANTS, TACTICAL, n=20, seed=1)
    data = summarise(result)
    v = data["variants"][0]
    assert {"name", "n", "win_rate", "rounds"} <= set(v)
    assert set(v["win_rate"]) == {"pc", "npc"}
    assert {"p", "lo", "hi"} == set(v["win_rate"]["pc"])
    assert {"mean", "median", "p90", "histogram"} <= set(v["rounds"])
    assert [c["id"] for c in v["creatures"]] == ["ogre", "hero", "sage"]
    diffs = [d for d in data["differences"] if d["measure"] == "win_rate"]
    assert {(d["a"], d["b"], d["side"]) for d in diffs} == {
        ("load_reset=turn", "load_reset=round", "pc"),
        ("load_reset=turn", "load_reset=round", "npc"),
    }
    for d in diffs:
        assert d["lo"] <= d["diff"] <= d["hi"]
        assert d["newcombe"]["lo"] <= d["diff"] <= d["newcombe"]["hi"]


def test_policies_from_file_cli_and_default() -> None:
    assert resolve_policies({"pc": "greedy"}, {"npc": "random"}) == {
        "pc": "tactical",
        "npc": "random",
    }
    assert resolve_policies({}) == {"pc": "tactical", "npc": "tactical"}
    with pytest.raises(ValueError, match="no policy named 'clever'"):
        resolve_policies({"pc": "clever"})


def test_bad_runs_are_refused() -> None:
    with pytest.raises(SimulationError, match="--n"):
        simulate(skirmish(), [], TACTICAL, n=0, seed=1)
    with pytest.raises(SimulationError, match="differ"):
        simulate(skirmish(), [parse_variant("baseline")] * 2, TACTICAL, n=1, seed=1)


def test_a_fight_nobody_can_win_stops_at_the_round_cap() -> None:
    from caltrop.sim.overrides import apply_overrides, parse_override

    stalemate = apply_overrides(
        skirmish(), [parse_override("pc.evasion=99"), parse_override("npc.evasion=99")]
    )
    result = simulate(stalemate, [], TACTICAL, n=3, seed=1, max_rounds=5)
    rec = result.runs[0].records
    assert rec.timeout.all()
    assert (rec.winner == 0).all()
    assert (rec.rounds == 5).all()  # it lasted the 5 rounds allowed, as the fast path counts


def test_action_point_records_count_points_and_damage_by_attacker() -> None:
    """Seed 004 runs: damage is credited to the attacker (the defence roll is the defender's),
    points spent are AP + RP + floating RP paid, and every downed creature took its Health."""
    d = load_encounter("bridge-duel-ap")
    policies = {"pc": "attack-weakest", "npc": "attack-weakest"}
    result = simulate(d, [parse_variant("baseline")], policies, n=12, seed=3)
    rec = result.runs[0].records
    assert (rec.cost.sum(1) > 0).all()  # everybody's side pays for its turns
    assert (rec.dealt.sum(1) > 0).all()
    max_health = np.array([c.max_health for c in d.participants])
    pcs = np.array([c.side.value == "pc" for c in d.participants])
    for row in range(rec.n):
        down = rec.down[row]
        # damage dealt by one side is at least the Health lost by the other side's downed ones
        assert rec.dealt[row][pcs].sum() >= (max_health * (down & ~pcs)).sum()
        assert rec.dealt[row][~pcs].sum() >= (max_health * (down & pcs)).sum()


def test_points_left_at_the_end_of_a_turn_are_lost_not_spent() -> None:
    """R31: "unspent AP are lost at the end of the turn" — a creature that ends every turn
    without acting spent nothing, though its AP fall to 0 when its turn ends."""
    from caltrop.core.commands import Command, EndTurn, Pass
    from caltrop.encounter import Encounter
    from caltrop.sim.runner import Records, play_recorded

    class Idle:
        def choose(self, encounter: Encounter, actor: str) -> Command:
            return Pass(actor) if encounter.pending else EndTurn(actor)

    d = load_encounter("bridge-duel-ap")
    out = Records.empty(1, len(d.participants))
    play_recorded(d, {"pc": Idle(), "npc": Idle()}, 5, out, 0, max_rounds=3)
    assert out.timeout[0]
    assert out.rounds[0] == 3
    assert (out.cost == 0).all()
    assert out.steps[0] > 3 * len(d.participants)  # every creature's turns were played


def test_an_allys_off_turn_action_is_paid_by_the_ally(monkeypatch: pytest.MonkeyPatch) -> None:
    """R32 ``off_turn_actions: any``: while one creature's side decides, the tactics may have an
    ally act off its turn; the points that action spends are the ally's (the records counted
    them against the creature whose turn it was)."""
    from caltrop.encounter import Encounter
    from caltrop.sim import runner
    from caltrop.sim.registry import make_policy

    definition = parse_variant("off_turn_actions=any").apply(load_encounter("bridge-duel-ap"))
    ids = [c.id for c in definition.participants]
    policies = {side: make_policy("tactical", np.random.default_rng(0)) for side in ("pc", "npc")}
    chosen: list[str | None] = [None]  # the actor of the command just chosen, until it is paid
    paid_by: list[tuple[str, str, int]] = []  # (who decided, who acted, whose points were read)

    class Spy:
        def __init__(self, inner: object) -> None:
            self.inner = inner

        def choose(self, encounter: Encounter, who: str) -> object:
            command = self.inner.choose(encounter, who)  # type: ignore[attr-defined]
            actor = getattr(command, "actor", who)
            chosen[0] = f"{who}>{actor}" if actor != who else None
            return command

    real = runner._points

    def points(encounter: Encounter, j: int) -> int:
        if chosen[0] is not None:  # the first reading after an ally's command was chosen
            who, actor = chosen[0].split(">")
            paid_by.append((who, actor, j))
            chosen[0] = None
        return real(encounter, j)

    monkeypatch.setattr(runner, "_points", points)
    spied = {side: Spy(p) for side, p in policies.items()}
    out = Records.empty(30, len(ids))
    for row in range(30):
        runner.play_recorded(definition, spied, 100 + row, out, row)  # type: ignore[arg-type]
    assert paid_by, "no ally acted off its turn in 30 encounters: the test could not fail"
    assert all(ids[j] == actor for _who, actor, j in paid_by), paid_by[:5]
