"""Issue 21, items 5 and 8: YAML that crashed a reader, and YAML 1.1's quirks.

* An integer of 4,301 digits reached Python's ``int()`` (ValueError) and YAML nested ~1,000
  deep reached a recursive composer (RecursionError) through ``caltrop validate --json``, which
  read the file again with a plain ``yaml.safe_load``. Every YAML parse now goes through the
  content reader (:func:`caltrop.content.yamlfile.parse_text`), whose limits are checked on
  the parser's events before any node is built — a static check below keeps it so.
* PyYAML reads YAML 1.1: ``0x14`` and ``2_0`` as 20, ``1:20`` as 80, ``017`` as 15, ``yes`` as
  true. Content is read as YAML 1.2's core schema reads numbers and booleans; the 1.1-only
  forms are refused with a message that says how to write them.

Each input goes through every reader of content: a file (``check_file``), an uploaded set of
files (the table server's ``load_encounter_files``), text (``load_encounter_text``) and the CLI's
``caltrop validate`` and ``validate --json``.
"""

from __future__ import annotations

import ast
import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from caltrop.cli import app
from caltrop.content import check_file, limits, load_encounter_files, load_encounter_text
from caltrop.errors import CaltropError
from tests.fuzzing import fuzz, within

SRC = Path(__file__).resolve().parents[2] / "src" / "caltrop"

CREATURE = "kind: creature\nid: troll\nname: Troll\nside: npc\naspects: {{Might: 2}}\nhealth: {}\n"


def _refused_everywhere(text: str, *fragments: str) -> None:
    """``text`` is refused in words by every reader of content, each within 10 s."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "x.yaml"
        path.write_text(text, encoding="utf-8")
        readers = [
            lambda: check_file(path),
            lambda: load_encounter_files({"x.yaml": text}),
            lambda: load_encounter_text(text, "x.yaml"),
        ]
        for read in readers:
            with pytest.raises(CaltropError) as info:
                within(10, read)
            for fragment in fragments:
                assert fragment in str(info.value), str(info.value)
        for args in (["validate", str(path)], ["validate", "--json", str(path)]):
            result = within(10, lambda a=args: CliRunner().invoke(app, a))
            assert result.exit_code == 1, (args, result.output[-2000:])
            assert result.exception is None or isinstance(result.exception, SystemExit)
            assert "Traceback" not in result.output
            if "--json" in args:
                (report,) = json.loads(result.stdout)["files"]
                assert report["problems"], report


# -- the causes ------------------------------------------------------------------------------------


def test_an_integer_of_4301_digits_is_refused_before_it_is_converted() -> None:
    _refused_everywhere(CREATURE.format("1" * 4301), "4,301 characters", "at most 40")


@pytest.mark.parametrize(
    "text",
    [
        "kind: creature\nhealth: " + "[" * 1000 + "]" * 1000 + "\n",
        "kind: creature\nhealth: " + "{a: " * 1000 + "1" + "}" * 1000 + "\n",
        "kind: creature\nhealth:\n" + "".join(" " * (i + 1) + "-\n" for i in range(1000)),
        "kind: creature\n" + "".join(" " * i + "a:\n" for i in range(1000)),
    ],
    ids=["flow-lists", "flow-maps", "block-lists", "block-maps"],
)
def test_yaml_nested_1000_deep_is_refused_before_it_is_built(text: str) -> None:
    _refused_everywhere(text, f"nested more than {limits.MAX_YAML_DEPTH} deep")


@pytest.mark.parametrize(
    ("scalar", "fragments"),
    [
        ("0x14", ["'0x14' is hexadecimal", "write 20"]),
        ("2_0", ["'2_0' is a number with '_'", "write 20"]),
        ("1:20", ["'1:20' is a base-60 number in YAML 1.1 (1:20 is 80)"]),
        ("017", ["octal in YAML 1.1 and decimal in YAML 1.2", "write 17"]),
        ("0b101", ["binary", "write 5"]),
        ("1_0.5", ["'_'"]),
        ("1:20.5", ["base-60"]),
        (".inf", ["not a finite number"]),
        ("-.inf", ["not a finite number"]),
        (".nan", ["not a finite number"]),
        ("yes", ["'yes' is true in YAML 1.1 and text in YAML 1.2", "write true"]),
        ("off", ["'off' is false in YAML 1.1", "write false"]),
        # and the other way: numbers in YAML 1.2 that YAML 1.1 (PyYAML) reads as text
        ("0o17", ["'0o17' is a number in YAML 1.2 and text in YAML 1.1", "write 15"]),
        ("1e3", ["'1e3' is a number in YAML 1.2 and text in YAML 1.1", "write 1000"]),
        ("1.0e3", ["'1.0e3' is a number in YAML 1.2", "write 1000"]),
        ("+.5", ["'+.5' is a number in YAML 1.2", "write 0.5"]),
        ("12e-2", ["'12e-2' is a number in YAML 1.2", "write 0.12"]),
    ],
)
def test_yaml_11_quirks_are_refused_saying_how_to_write_them(
    scalar: str, fragments: list[str]
) -> None:
    """YAML 1.1 read ``0x14``, ``2_0`` as 20 and ``1:20`` as 80 (issue 21); YAML 1.2 reads
    them otherwise or not as numbers: refused, not guessed."""
    _refused_everywhere(CREATURE.format(scalar), "x.yaml:6", *fragments)


@pytest.mark.parametrize(("scalar", "health"), [("20", 20), ("+20", 20), ('"20"', None)])
def test_plain_decimals_still_read(scalar: str, health: int | None) -> None:
    """The forms both YAML versions read alike are unchanged (a quoted number stays text,
    which the strict schema then refuses as a number)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "x.yaml"
        path.write_text(CREATURE.format(scalar), encoding="utf-8")
        if health is None:
            with pytest.raises(
                CaltropError, match=r"x.yaml:6: creature.health: expected an integer"
            ):
                check_file(path)
            return
        assert check_file(path).health == health  # type: ignore[union-attr]


def test_only_the_content_reader_parses_yaml() -> None:
    """By class: no module but :mod:`caltrop.content.yamlfile` calls a YAML parser or loader,
    so no reader can skip its bounds (``validate --json`` did, issue 21)."""
    parsers = {
        "load", "safe_load", "full_load", "unsafe_load", "load_all", "safe_load_all",
        "full_load_all", "unsafe_load_all", "compose", "compose_all", "parse", "scan",
        "Loader", "SafeLoader", "FullLoader", "UnsafeLoader", "CLoader", "CSafeLoader",
        "CFullLoader", "CUnsafeLoader", "BaseLoader", "CBaseLoader",
    }  # fmt: skip
    found = []
    for path in SRC.rglob("*.py"):
        if path.relative_to(SRC).as_posix() == "content/yamlfile.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "yaml"
                and node.attr in parsers
            ):
                found.append(f"{path.relative_to(SRC)}:{node.lineno}: yaml.{node.attr}")
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("yaml"):
                found.append(f"{path.relative_to(SRC)}:{node.lineno}: from {node.module}")
    assert found == []


# -- the classes, fuzzed -------------------------------------------------------------------------


@st.composite
def deep_yaml(draw: st.DrawFn) -> str:
    """YAML nested past the limit: block levels (lists and mappings), then flow levels (lists
    and mappings), closed or left open."""
    depth = draw(st.integers(limits.MAX_YAML_DEPTH + 1, 3000))
    block = draw(st.integers(0, min(depth, 300)))
    lines = ["kind: creature", "health:"]
    for i in range(block):
        lines.append(" " * (i + 1) + draw(st.sampled_from(["-", "k:"])))
    flow = [draw(st.sampled_from(["[", "{a: "])) for _ in range(depth - block)]
    closing = "".join("]" if f == "[" else "}" for f in reversed(flow))
    tail = "".join(flow) + ("1" + closing if draw(st.booleans()) else "")
    lines.append(" " * (block + 1) + tail)
    return "\n".join(lines) + "\n"


#: Scalars YAML 1.1 reads as numbers or booleans that YAML 1.2 reads otherwise, and numbers
#: past every bound.
QUIRKS = st.one_of(
    st.integers(0, 10**6).map(hex),
    st.integers(0, 10**6).map(bin),
    st.integers(1, 10**6).map(lambda n: f"0{n:o}"),
    st.integers(10, 10**6).map(lambda n: f"{str(n)[:1]}_{str(n)[1:]}"),
    st.tuples(st.integers(1, 99), st.integers(0, 59)).map(lambda t: f"{t[0]}:{t[1]:02d}"),
    st.sampled_from(["yes", "Yes", "YES", "no", "No", "on", "On", "OFF", ".inf", ".NaN"]),
    st.integers(0, 10**6).map(lambda n: f"0o{n:o}"),  # YAML 1.2 numbers PyYAML reads as text
    st.tuples(st.integers(1, 999), st.integers(-20, 20)).map(lambda t: f"{t[0]}e{t[1]}"),
    st.tuples(st.integers(0, 99), st.integers(0, 9)).map(lambda t: f"+.{t[0]}E+{t[1]}"),
    st.integers(41, 6000).map(lambda n: "9" * n),
    st.integers(41, 6000).map(lambda n: "0x" + "f" * n),
    st.integers(41, 6000).map(lambda n: "1" * n + ".5"),
)


@fuzz(15)
@given(text=deep_yaml())
def test_fuzz_deep_yaml_is_refused_by_every_reader(text: str) -> None:
    _refused_everywhere(text, "nested more than")


@fuzz(40)
@given(scalar=QUIRKS, key=st.sampled_from(["health", "evasion", "load_buffer", "x"]))
def test_fuzz_yaml_11_quirks_and_long_numbers_are_refused_by_every_reader(
    scalar: str, key: str
) -> None:
    text = CREATURE.format(20).replace("health: 20", f"health: 20\n{key}: {scalar}")
    if key == "health":
        text = CREATURE.format(scalar)
    _refused_everywhere(text, "x.yaml:")  # the file and its line, not the upload's "no encounter"


def test_a_yaml_11_timestamp_is_text_as_yaml_12_reads_it() -> None:
    """YAML 1.1 (PyYAML) read ``name: 2026-12-04`` as a date, which content then refused as
    "not text"; YAML 1.2 reads it as text, and so does the content reader (issue 21)."""
    text = CREATURE.format(20).replace("name: Troll", "name: 2026-12-04")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "x.yaml"
        path.write_text(text, encoding="utf-8")
        assert check_file(path).name == "2026-12-04"  # type: ignore[union-attr]
