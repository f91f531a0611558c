"""The examples in the docstrings run in the suite (issue 24 item 6): every module of
``src/caltrop`` whose docstrings hold a ``>>>`` example is run by :mod:`doctest`, so an example
that no longer holds fails here instead of misleading a reader."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

import caltrop

SRC = Path(caltrop.__file__).parent


def _name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts).removesuffix(".__init__")


WITH_EXAMPLES = sorted(
    _name(p) for p in SRC.rglob("*.py") if ">>> " in p.read_text(encoding="utf-8")
)


def test_the_examples_are_found() -> None:
    assert {"caltrop.dice", "caltrop.core", "caltrop.sim"} <= set(WITH_EXAMPLES)


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_the_examples_in_a_module_hold(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"{name} mentions '>>> ' but has no example doctest runs"
    assert result.failed == 0


def test_the_readme_library_examples_hold() -> None:
    """The README's "As a library" section is a doctest: its names are the packages' faces."""
    readme = SRC.parents[1] / "README.md"
    result = doctest.testfile(
        str(readme), module_relative=False, optionflags=doctest.ELLIPSIS, encoding="utf-8"
    )
    assert result.attempted >= 10
    assert result.failed == 0
