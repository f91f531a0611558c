"""The dice commands (``roll``, ``odds``, ``pool``, ``table``) under hostile arguments (issue 10):
every run ends with exit code 0, 1 or 2, within a time bound, and never prints a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner, Result

from caltrop.cli import app
from tests.cli.helpers import assert_user_error
from tests.fuzzing import fuzz, within


def _run(args: list[str]) -> Result:
    runner = CliRunner(env={"COLUMNS": "80", "NO_COLOR": "1"})
    return within(10.0, lambda: runner.invoke(app, args))


def _ends_cleanly(result: Result) -> None:
    assert result.exit_code in (0, 1, 2), (result.exit_code, result.output)
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )


_NOTATION = "0123456789dD()+-/ "
_expression = st.one_of(
    st.text(max_size=30),
    st.text(alphabet=_NOTATION, max_size=24),
    st.builds(lambda n: "9" * n, st.integers(1, 5000)),
    st.builds(lambda d: "(" * d + "1d4" + ")" * d, st.integers(0, 300)),
    st.builds(lambda n: "+".join(["1d4"] * n), st.integers(1, 400)),
)
_number = st.one_of(
    st.integers(-(10**12), 10**12).map(str),
    st.builds(lambda n: "9" * n, st.integers(1, 5000)),
    st.text(max_size=8),
)
_text = st.one_of(st.text(max_size=12), st.sampled_from(["", ",", "٣,1", "\x1b[31m", "\x00"]))


@st.composite
def _options(draw: st.DrawFn, names: list[str]) -> list[str]:
    args: list[str] = []
    for name in draw(st.lists(st.sampled_from(names), max_size=3, unique=True)):
        value = draw(_number if name.startswith(("--dc", "--evasion", "--min", "--max")) else _text)
        args += [name, value] if name not in ("--json", "--exact") else [name]
    return args


@fuzz(80)
@given(_expression, _options(["--dc", "--evasion", "--json", "--seed", "--dice"]))
def test_roll_ends_cleanly_on_any_arguments(expression: str, options: list[str]) -> None:
    _ends_cleanly(_run(["roll", expression, *options]))


@fuzz(80)
@given(_expression, _options(["--dc", "--evasion", "--json", "--exact"]))
def test_odds_ends_cleanly_on_any_arguments(expression: str, options: list[str]) -> None:
    _ends_cleanly(_run(["odds", expression, *options]))


@fuzz(80)
@given(
    _number,
    _options(["--load", "--cost", "--adv", "--dis", "--extra", "--fixed-pool", "--aspect-name"]),
)
def test_pool_ends_cleanly_on_any_arguments(aspect: str, options: list[str]) -> None:
    _ends_cleanly(_run(["pool", aspect, *options]))


@fuzz(40)
@given(_options(["--min-dc", "--max-dc", "--min-evasion", "--max-evasion", "--extra", "--json"]))
def test_table_ends_cleanly_on_any_arguments(options: list[str]) -> None:
    _ends_cleanly(_run(["table", "--max-pool", "6", *options]))


# -- the cases found by fuzzing -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["odds", "9" * 5000], "characters long"),
        (["odds", "9" * 400], "numbers in an expression are 0 to 1,000,000"),
        (["odds", "+".join(["1"] * 300)], "more than 100 terms"),
        (["odds", "(" * 165 + "1" + ")" * 165], "nested more than 16 deep"),
        (["roll", "2d4", "--dice", "٣,1"], "die 1 is '٣'"),
        (["roll", "2d4", "--dice", ","], "no faces given"),
        (["roll", "5", "--dice", ""], "no faces given"),
        (["pool", "5", "--aspect-name", "x\x1b[31m"], "printable characters"),
        (["pool", "5", "--adv", "torch\x00"], "printable characters"),
        (["table", "--max-dc", "1000000000"], "at most 1,000"),
        (["table", "--extra", "1000d4"], "at most 1000 per expression"),
    ],
)
def test_refused_with_one_line(args: list[str], fragment: str) -> None:
    result = _run(args)
    assert_user_error(result, fragment)
    assert result.stderr.count("\n") == 1 or "bad dice expression" in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["odds", "1d4", "--evasion", "9" * 4000],  # numpy raised OverflowError
        ["odds", "1d4", "--dc", "9" * 5000],  # past Python's 4,300-digit limit
        ["roll", "1d4", "--seed", "9" * 30],
        ["pool", "9" * 30, "--load", "-" + "9" * 30],  # str() of the pool failed past 4,300
        ["pool", "5", "--fixed-pool", "9" * 30],
    ],
)
def test_numbers_out_of_range_are_usage_errors(args: list[str]) -> None:
    result = _run(args)
    assert_user_error(result)
    assert "Invalid value" in result.stderr


def test_plot_to_a_directory_is_refused(tmp_path: Path) -> None:
    result = _run(["odds", "1d4", "--plot", str(tmp_path)])
    assert_user_error(result, "is a directory")


def test_plot_without_a_suffix_says_where_it_really_went(tmp_path: Path) -> None:
    """``table --plot DIR`` wrote ``DIR.png`` but said it saved to ``DIR``."""
    target = tmp_path / "chart"
    result = _run(["table", "--max-pool", "3", "--plot", str(target)])
    assert result.exit_code == 0, result.output
    written = tmp_path / "chart.png"
    assert written.is_file()
    assert not target.exists()
    assert f"plot saved to {written}" in result.stdout.replace("\n", "")
