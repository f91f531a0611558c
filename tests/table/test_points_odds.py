"""The exact odds of a full melee exchange in the Action Point module agree with the engine.

Issue 4: "The exact odds of a full melee exchange (attack damage versus Block or Dodge with
Resistance and assists) are available from the dice core and agree with simulation of the engine
within its confidence interval." Checked three ways for each exchange:

* the dice core (:mod:`caltrop.dice.distribution` and :mod:`caltrop.dice.defence`) gives the
  exact distribution of the damage dealt to Health (R38 halving, R40 defences, R45 order);
* walking the engine's own chance outcomes (``chance_outcomes`` and ``RollTotal``) through the
  exchange gives exactly the same distribution, as fractions;
* many seeded exchanges played through :class:`Encounter` with ``RollDice()`` agree with it: the
  mean damage and P(damage = 0) fall within the 99.9% confidence interval of the exact values.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import pytest

from caltrop.core.commands import RollDice, RollTotal, parse_command
from caltrop.dice import Distribution, blocked, distribution, dodged, undefended
from caltrop.encounter import CHANCE, Encounter
from tests.encounter.points_builders import SWORD, ap_creature, ap_npc, definition

#: Two-sided 99.9% normal quantile.
Z999 = 3.2905
SAMPLES = 1500
#: R38: the sword's 2d8, halved up, is the incoming damage.
INCOMING = distribution("2d8").halve_up()


@dataclass(frozen=True)
class Exchange:
    """One melee exchange: the orc's sword against Aria, who reacts with ``reactions`` and is
    helped by Bron's ``assists`` Defense Assists (R40)."""

    id: str
    reactions: tuple[str, ...]
    assists: int
    block: int
    dodge: int
    resistance: int
    exact: Callable[[], Distribution]

    def begin(self, seed: int) -> Encounter:
        orc = ap_npc("orc", at=(1, 0), weapons=(SWORD,), health=99)
        aria = ap_creature(
            "aria",
            health=99,
            block=self.block,
            dodge=self.dodge,
            resistance=self.resistance,
            rp=len(self.reactions),
        )
        bron = ap_creature("bron", at=(-1, 0), rp=max(self.assists, 1))
        return Encounter.begin(definition(orc, aria, bron), seed, record=False)

    def react(self, enc: Encounter) -> None:
        """The window after the damage roll (R45): Aria's reactions, then Bron's assists."""
        for reaction in self.reactions:
            enc.apply(parse_command(f"aria: {reaction}"))
        for _ in range(self.assists):
            enc.apply(parse_command("bron: assist"))
        if enc.current() == "bron":
            enc.apply(parse_command("bron: pass"))
        assert enc.current() == CHANCE


EXCHANGES = [
    Exchange(
        "block-assisted",
        ("block",),
        assists=2,
        block=3,
        dodge=0,
        resistance=1,
        exact=lambda: blocked(INCOMING, 3, 1, assists=2),
    ),
    Exchange(
        "dodge-in-cover-assisted",
        ("cover", "dodge"),
        assists=1,
        block=0,
        dodge=1,
        resistance=1,
        exact=lambda: dodged(INCOMING, 1, 1, cover=True, assists=1),
    ),
    Exchange(
        "dodge",
        ("dodge",),
        assists=0,
        block=0,
        dodge=2,
        resistance=2,
        exact=lambda: dodged(INCOMING, 2, 2),
    ),
    Exchange(
        "block-in-cover",
        ("cover", "block"),
        assists=0,
        block=1,
        dodge=0,
        resistance=0,
        exact=lambda: blocked(INCOMING, 1, 0, cover=True),
    ),
    Exchange(
        "undefended",
        (),
        assists=0,
        block=3,
        dodge=3,
        resistance=2,
        exact=lambda: undefended(INCOMING, 2),
    ),
]


@pytest.fixture(params=EXCHANGES, ids=[e.id for e in EXCHANGES])
def exchange(request: pytest.FixtureRequest) -> Exchange:
    assert isinstance(request.param, Exchange)
    return request.param


def _dealt(enc: Encounter) -> int:
    return 99 - enc.health[enc.index("aria")]


def _engine_exact(exchange: Exchange) -> dict[int, Fraction]:
    """The exchange's damage distribution by walking every chance outcome of the engine."""
    start = exchange.begin(0)
    start.apply(parse_command("orc: attack aria with sword"))
    out: Counter[int] = Counter()
    for damage, p in start.chance_outcomes():
        after_damage = start.clone()
        after_damage.apply(damage)
        exchange.react(after_damage)
        for defence, q in after_damage.chance_outcomes():
            end = after_damage.clone()
            end.apply(defence)
            assert not end.pending
            out[_dealt(end)] += p * q  # type: ignore[assignment]
    return {k: Fraction(v) for k, v in out.items()}


def test_the_damage_roll_and_the_defence_roll_are_the_dice_cores_distributions(
    exchange: Exchange,
) -> None:
    """R38 and R40 in the engine's chance points: the damage roll is 2d8 halved up; the defence
    roll is the Block or Dodge Rating plus one d4 per assist (never below 1d4, R3)."""
    enc = exchange.begin(0)
    enc.apply(parse_command("orc: attack aria with sword"))
    assert dict(enc.chance_outcomes()) == {
        RollTotal(t): p for t, p in INCOMING.pmf_exact().items() if p
    }
    enc.apply(RollTotal(8))
    exchange.react(enc)
    mode = next((r for r in exchange.reactions if r in ("block", "dodge")), None)
    if mode is None:
        assert [t for t, _ in enc.chance_outcomes()] == [RollTotal(0)]
        return
    rating = exchange.block if mode == "block" else exchange.dodge
    pool = distribution(f"{max(1, rating + exchange.assists)}d4")
    assert dict(enc.chance_outcomes()) == {
        RollTotal(t): p for t, p in pool.pmf_exact().items() if p
    }


def test_the_engine_walked_exactly_equals_the_dice_core(exchange: Exchange) -> None:
    """Every chance outcome of the exchange walked through the engine gives exactly the
    distribution of :mod:`caltrop.dice.defence` (R40: Block, Dodge all or nothing, Take Cover
    doubling, assists, Resistance; R45 order)."""
    exact = {t: p for t, p in exchange.exact().pmf_exact().items() if p}
    assert _engine_exact(exchange) == exact
    assert sum(exact.values()) == 1


def test_simulated_exchanges_agree_with_the_exact_odds(exchange: Exchange) -> None:
    """Seeded exchanges played through the engine with ``RollDice()`` (R5: the seeded RNG):
    the mean damage and P(damage = 0) are within the 99.9% confidence interval of the exact
    values from the dice core."""
    exact = exchange.exact()
    mean = float(exact.mean_exact)
    sd = math.sqrt(float(exact.variance_exact))
    p_zero = float(exact.pmf_exact().get(0, Fraction(0)))
    dealt = []
    for seed in range(SAMPLES):
        enc = exchange.begin(seed)
        enc.apply(parse_command("orc: attack aria with sword"))
        enc.apply(RollDice())
        exchange.react(enc)
        enc.apply(RollDice())
        assert not enc.pending
        dealt.append(_dealt(enc))
    sample_mean = sum(dealt) / SAMPLES
    assert abs(sample_mean - mean) <= Z999 * sd / math.sqrt(SAMPLES), (sample_mean, mean)
    sample_zero = dealt.count(0) / SAMPLES
    half_width = Z999 * math.sqrt(max(p_zero * (1 - p_zero), 1e-12) / SAMPLES)
    assert abs(sample_zero - p_zero) <= half_width + 1e-12, (sample_zero, p_zero)
    assert max(dealt) <= exact.max
    assert min(dealt) >= exact.min


def test_dodge_versus_block_with_the_same_dice() -> None:
    """R40: Dodge stops everything exactly when Block would (dice + Resistance ≥ damage), and
    otherwise lets the full damage through where Block lets the difference through — so with the
    same dice, P(0) is equal and Dodge's mean damage is never lower; each incoming damage alike."""
    for incoming in [INCOMING, *(distribution(str(d)) for d in range(1, 9))]:
        block = blocked(incoming, 3, 1)
        dodge = dodged(incoming, 3, 1)
        assert dodge.pmf_exact().get(0, 0) == block.pmf_exact().get(0, 0)
        assert dodge.mean_exact >= block.mean_exact
