"""The mutation test's list stays true (issue 24 item 7): ``scripts/mutation.py`` runs in CI
after the suite and takes minutes, so the suite checks its list at once: every mutant's text is
found exactly once where it is looked for (a refactoring that moves or rewrites a line fails
here, not as a silent "killed"), every mutant changes the code, cites a ruling that
docs/rules.md has, and names an area whose tests exist."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("caltrop_mutation", ROOT / "scripts/mutation.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


MUTATION = _script()


def test_there_are_about_fifty_mutants_over_the_four_areas() -> None:
    areas = {m.area for m in MUTATION.MUTANTS}
    #: "encounter": the reaction window's order, found in whichever module of encounter/ builds it
    assert areas == {
        "core/pool.py",
        "economy",
        "encounter",
        "encounter/state.py",
        "dice/distribution.py",
    }
    assert len(MUTATION.MUTANTS) >= 50
    assert MUTATION.THRESHOLD == 0.95


def test_every_mutant_is_found_once_and_changes_the_code() -> None:
    for mutant in MUTATION.MUTANTS:
        path = MUTATION.locate(MUTATION.SRC, mutant)  # SystemExit if not exactly once
        assert mutant.old != mutant.new
        assert path.read_text(encoding="utf-8").count(mutant.old) == 1


def test_no_two_mutants_are_the_same() -> None:
    pairs = [(m.area, m.old, m.new) for m in MUTATION.MUTANTS]
    assert len(set(pairs)) == len(pairs)


def test_every_mutant_cites_a_ruling_and_every_area_has_tests() -> None:
    headings = set(re.findall(r"^#{2,4} (R\d+) — ", (ROOT / "docs/rules.md").read_text(), re.M))
    for mutant in MUTATION.MUTANTS:
        assert mutant.why in headings, mutant
    for tests in MUTATION.TESTS.values():
        for test in tests:
            assert (ROOT / test).exists(), test
