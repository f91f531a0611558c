"""The simulator's inputs under hostile values (issue 10): an override must change something
that exists, every count is bounded before work starts, and a bad ``--dask`` fails in seconds.
Every refusal is one line on stderr with exit code 2, never a traceback or a MemoryError."""

from __future__ import annotations

import os
import socket

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import Result

from caltrop.content import load_encounter
from caltrop.core.model import EncounterDef
from caltrop.economy.points.state import STAT_DEFAULTS
from caltrop.sim.overrides import (
    MAX_SWEEP_VALUES,
    MAX_VALUE,
    OverrideError,
    apply_overrides,
    parse_values,
    parse_variant,
)
from tests.cli.helpers import assert_user_error
from tests.fuzzing import fuzz, within
from tests.sim.cli import run


@pytest.fixture(scope="module")
def ambush() -> EncounterDef:
    return load_encounter("goblin-ambush")


def _apply(definition: EncounterDef, text: str) -> EncounterDef:
    return apply_overrides(definition, parse_variant(text).overrides)


# -- overrides name what exists ------------------------------------------------------------------


def test_an_aspect_the_creature_lacks_is_refused_with_the_ones_it_has(
    ambush: EncounterDef,
) -> None:
    """``goblin.aspects.Nope=3`` used to add an Aspect no rule reads, and run as a variant."""
    goblin = next(c for c in ambush.participants if c.id == "goblin-1")
    with pytest.raises(OverrideError) as info:
        _apply(ambush, "goblin.aspects.Nope=3")
    message = str(info.value)
    assert "goblin-1 has no Aspect 'Nope'" in message
    for name in goblin.aspects:
        assert name in message


def test_a_wrong_case_aspect_is_refused_with_a_hint(ambush: EncounterDef) -> None:
    with pytest.raises(OverrideError, match="did you mean 'Finesse'"):
        _apply(ambush, "goblin.aspects.finesse=9")


def test_an_existing_aspect_is_changed(ambush: EncounterDef) -> None:
    changed = _apply(ambush, "goblin.aspects.Finesse=9")
    assert {c.id: c.aspects["Finesse"] for c in changed.participants}["goblin-1"] == 9


def test_a_defaulted_stat_may_be_set_and_an_unknown_one_may_not(ambush: EncounterDef) -> None:
    """The Action Point stat block has defaults (STAT_DEFAULTS) every creature has."""
    changed = _apply(ambush, "aria.stats.stamina=3")
    assert {c.id: c.stats for c in changed.participants}["aria"]["stamina"] == 3
    with pytest.raises(OverrideError, match="aria has no stat 'stamna'") as info:
        _apply(ambush, "aria.stats.stamna=3")
    assert all(name in str(info.value) for name in STAT_DEFAULTS)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("aria.health=٣", "expected a whole number"),  # int() reads Arabic-Indic digits
        ("aria.health=1_000", "expected a whole number"),  # and underscores
        ("aria.health=" + "9" * 5000, f"past ±{MAX_VALUE:,}"),  # past the 4,300-digit limit
        (f"aria.health={MAX_VALUE + 1}", f"past ±{MAX_VALUE:,}"),
        ("aria.name=\x1b[31mred", "printable"),
        ("\x1b[2J:load_reset=round", "printable"),
    ],
)
def test_bad_values_are_refused(ambush: EncounterDef, text: str, match: str) -> None:
    with pytest.raises(OverrideError, match=match) as info:
        _apply(ambush, text)
    assert len(str(info.value)) < 300  # a 5,000-digit value is not echoed whole


# -- sweep ranges ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("1..1000000000", "past"),  # a MemoryError before
        ("1..9" + "9" * 5000, "past"),
        (f"1..{MAX_SWEEP_VALUES + 1}", f"{MAX_SWEEP_VALUES + 1:,} values"),
        ("-500000..500000", "1,000,001 values"),
        (",".join(["1"] * (MAX_SWEEP_VALUES + 1)), "at most 1,000"),
    ],
)
def test_sweep_ranges_are_counted_before_they_are_built(text: str, match: str) -> None:
    with pytest.raises(OverrideError, match=match):
        within(0.5, lambda: parse_values(text))


def test_sweep_ranges_up_to_the_limit_are_built() -> None:
    assert len(parse_values(f"1..{MAX_SWEEP_VALUES}")) == MAX_SWEEP_VALUES
    assert parse_values("10..1..-4") == ["10", "6", "2"]


# -- fuzzed -------------------------------------------------------------------------------------

_keys = st.sampled_from(
    ["goblin", "goblin-1", "aria", "pc", "npc", "ruleset", "load_reset", "revision", "ogre"]
)
_fields = st.sampled_from(["aspects", "health", "stats", "actions", "name", "Finesse", "x", ""])
_values = st.one_of(
    st.text(max_size=10),
    st.integers(-(10**9), 10**9).map(str),
    st.builds(lambda n: "9" * n, st.integers(1, 5000)),
    st.sampled_from(["round", "legacy", "true", "1d8", "none", "٣"]),
)


@fuzz(150)
@given(st.lists(st.tuples(_keys, _fields, _fields, _values), min_size=1, max_size=3))
def test_any_variant_applies_or_is_refused_with_an_override_error(
    parts: list[tuple[str, str, str, str]],
) -> None:
    text = ",".join(".".join(p for p in (k, f, g) if p) + "=" + v for k, f, g, v in parts)
    refused = within(1.0, lambda: _refusal(text))
    if refused is not None:
        assert "\n" not in refused
        assert len(refused) < 1000


_AMBUSH = load_encounter("goblin-ambush")


def _refusal(text: str) -> str | None:
    """None if ``text`` parses and applies to Goblin Ambush, else the OverrideError's message
    (any other exception escapes and fails the fuzzer)."""
    try:
        parse_variant(text).apply(_AMBUSH)
    except OverrideError as exc:
        return str(exc)
    return None


@fuzz(200)
@given(
    st.one_of(
        st.text(max_size=30),
        st.from_regex(r"-?[0-9]{1,12}\.\.-?[0-9]{1,12}(\.\.-?[0-9]{1,4})?", fullmatch=True),
    )
)
def test_any_sweep_values_are_bounded_or_refused(text: str) -> None:
    try:
        values = within(0.5, lambda: parse_values(text))
    except OverrideError:
        return
    assert 1 <= len(values) <= MAX_SWEEP_VALUES


# -- the CLI options ------------------------------------------------------------------------------


def _one_line_refusal(result: Result, *fragments: str) -> None:
    assert_user_error(result, *fragments)
    assert result.stderr.strip().count("\n") == 0, result.stderr


def test_sim_refuses_an_unknown_aspect() -> None:
    result = run("sim", "goblin-ambush", "--variant", "goblin.aspects.Nope=3", "--n", "5")
    _one_line_refusal(result, "has no Aspect 'Nope'", "Finesse")


def test_sweep_refuses_an_unknown_aspect_before_naming_a_best_value() -> None:
    result = run("sweep", "goblin-ambush", "--param", "goblin.aspects.finesse=2..4", "--n", "5")
    _one_line_refusal(result, "did you mean 'Finesse'")
    assert "Best value" not in result.stdout


def test_sweep_refuses_a_billion_values_at_once() -> None:
    result = within(
        5.0, lambda: run("sweep", "orc-bridge", "--param", "bron.health=1..1000000000", "--n", "5")
    )
    _one_line_refusal(result, "past ±1,000,000")


@pytest.mark.parametrize("n", ["1000000000", "0", "9" * 5000])
def test_n_is_bounded(n: str) -> None:
    assert_user_error(run("sim", "orc-bridge", "--n", n), "Invalid value")


def test_a_run_is_bounded_in_encounters() -> None:
    result = run(
        "sweep", "orc-bridge", "--param", "bron.health=1..1000", "--n", "1000000", "--workers", "1"
    )
    _one_line_refusal(result, "encounters; at most 2,000,000")


def test_workers_are_bounded_by_the_cpus() -> None:
    """1000 workers spawned 121 processes and 5 GB."""
    cpus = os.cpu_count() or 1
    result = run("sim", "orc-bridge", "--workers", "1000", "--n", "5")
    _one_line_refusal(result, f"at most {cpus * 4} on this machine")


@pytest.fixture
def dead_port() -> int:
    """A local port nobody listens on (bound, then closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def test_dask_to_a_dead_address_fails_in_seconds(dead_port: int) -> None:
    address = f"tcp://127.0.0.1:{dead_port}"
    result = within(8.0, lambda: run("sim", "orc-bridge", "--dask", address, "--n", "5"))
    _one_line_refusal(result, f"--dask {address}: cannot reach a scheduler there")


@pytest.mark.parametrize(
    ("address", "fragment"),
    [
        ("nonsense", "tcp://HOST:PORT"),
        ("tcp://", "tcp://HOST:PORT"),
        ("tcp://host:notaport", "tcp://HOST:PORT"),
        ("tcp://host:99999", "tcp://HOST:PORT"),
        ("http://x:1", "the scheme is one of"),
        ("ucx://1.2.3.4:5", "the scheme is one of"),
        ("tcp://no-such-host.invalid:8786", "cannot reach"),
        ("inproc://1.2.3.4/1/1", "cannot connect to a Dask scheduler"),
    ],
)
def test_dask_to_a_malformed_address_fails_with_one_line(address: str, fragment: str) -> None:
    result = within(
        8.0,
        lambda: run(
            "sweep", "orc-bridge", "--param", "bron.health=5,6", "--n", "2", "--dask", address
        ),
    )
    _one_line_refusal(result, fragment)


_HUGE = "9" * 5000
#: Hostile values per option: refused ones, or small enough that a run stays short (a valid
#: ``--n 500000`` is a legitimate, long run, not a fuzzing target).
_option_values = {
    "--n": st.sampled_from(["0", "-1", "1000001", _HUGE, "x", "٣", "2"]),
    "--workers": st.sampled_from(["0", "1000", _HUGE, "x", "1"]),
    "--seed": st.one_of(st.integers(-5, 2**70).map(str), st.text(max_size=6)),
    "--dask": st.sampled_from(
        ["", "tcp://", "nonsense", "http://x:1", "tcp://127.0.0.1:1", "tcp://[::1:1", "\x00", _HUGE]
    ),
    "--max-states": st.sampled_from(["0", "1", "20", "2000001", _HUGE, "x"]),  # with --exact
    "--policies": st.sampled_from(["nope", "tactical,nope", ",", "none,tactical", "none"]),
    "--report": st.sampled_from(["/dev/null", "/proc/version", "/dev/null/sub"]),
    "--variant": st.one_of(
        st.text(max_size=16),
        st.sampled_from(
            ["goblin.aspects.Nope=3", "bron.aspects.might=2", "bron.health=" + _HUGE, "x:y=1"]
        ),
    ),
}


@st.composite
def _sim_options(draw: st.DrawFn) -> list[str]:
    names = draw(st.lists(st.sampled_from(sorted(_option_values)), max_size=2, unique=True))
    args = [a for name in names for a in (name, draw(_option_values[name]))]
    return [*args, "--exact"] if "--max-states" in names else args


@fuzz(25)
@given(_sim_options())
def test_sim_ends_cleanly_on_any_options(args: list[str]) -> None:
    """Any options: a run, or a refusal in words with exit 2 — every limit's code, the state
    cap of --exact included (issue 21: it exited 1)."""
    result = within(30.0, lambda: run("sim", "orc-bridge", "--n", "2", "--workers", "1", *args))
    assert result.exit_code in (0, 2), result.output
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )


# -- issue 21: a variant that says nothing, a tactic nobody registered ---------------------------


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("", "an empty variant"),
        ("   ", "an empty variant"),
        (",,,", "an empty item between commas"),
        ("load_reset=round,", "an empty item between commas"),
        ("NAME:", "an empty variant"),
        ("NAME:  ", "an empty variant"),
        (":load_reset=round", "a variant's name comes before ':'"),
    ],
)
def test_a_variant_that_says_nothing_is_refused_not_read_as_the_baseline(
    text: str, match: str
) -> None:
    """Issue 21: ``--variant ''``, ``',,,'`` and ``'NAME:'`` were the baseline, so a typo
    compared the encounter with itself; ``baseline`` and ``NAME:baseline`` still are."""
    with pytest.raises(OverrideError, match=match):
        parse_variant(text)
    assert parse_variant("baseline").overrides == ()
    assert parse_variant("b:baseline").name == "b"


@fuzz(150)
@given(st.text(alphabet=" ,:=", max_size=8))
def test_fuzz_punctuation_only_variants_are_refused(text: str) -> None:
    """The class: a variant of nothing but separators and spaces never parses as a variant."""
    with pytest.raises(OverrideError):
        parse_variant(text)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--policies", "nope"], ["nope"]),
        (["--policies", "tactical,nope"], ["nope"]),
        (["--policies", "tactical,"], ["an empty name between commas"]),
        (["--policies", "none,tactical"], ["none stands alone"]),
        (["--variant", ""], ["an empty variant"]),
        (["--variant", "NAME:"], ["an empty variant"]),
        (["--variant", "load_reset=round", "--variant", ",,,"], ["between commas"]),
    ],
)
def test_sim_refuses_an_unknown_policy_or_an_empty_variant_with_one_variant_too(
    args: list[str], words: list[str]
) -> None:
    """Issue 21: ``--policies nope`` was ignored with one variant; refused always, exit 2,
    before anything runs."""
    from typer.testing import CliRunner

    from caltrop.cli import app

    result = CliRunner().invoke(app, ["sim", "duel", "--n", "5", "--workers", "1", *args])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    for word in words:
        assert word in " ".join(result.output.split()), result.output


def test_the_ruleset_alone_is_refused_with_an_override_error() -> None:
    """Found by the variant fuzzer above: 'ruleset=0' named no option and raised IndexError."""
    from caltrop.errors import OverrideError

    with pytest.raises(OverrideError, match="name one of the ruleset's options"):
        parse_variant("ruleset=0").apply(_AMBUSH)
