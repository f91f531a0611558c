"""A maintainer finds a rule's tests by its module (issue 24 item 6).

Every module of the rules packages (``core``, ``dice``, ``economy``, ``encounter``, ``table``)
has its tests listed in :data:`MIRROR`, an explicit table read by a person as well as by this
test: the first file is the one at the mirrored path when there is one
(``economy/points/movement.py`` → ``tests/economy/points/test_movement.py``), and every listed
file names the module it tests (its dotted name or its path), so a search for the module finds
them. A new module fails :func:`test_every_rules_module_has_its_tests_listed` until its line is
added here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parent.parent
SOURCE: Final = ROOT / "src" / "caltrop"
PACKAGES: Final = ("core", "dice", "economy", "encounter", "table")

#: module (path under src/caltrop) → the test files that test it, the mirrored one first.
MIRROR: Final[dict[str, tuple[str, ...]]] = {
    "core/codec.py": ("tests/content/test_serialize.py",),
    "core/commands.py": ("tests/encounter/test_decision_points.py", "tests/web/test_forms.py"),
    "core/ids.py": ("tests/cli/test_fuzz_ids.py", "tests/content/test_templates.py"),
    "core/model.py": ("tests/encounter/test_seed_examples.py",),
    "core/pool.py": ("tests/core/test_pool.py", "tests/core/test_pool_seed_examples.py"),
    "dice/ast.py": ("tests/dice/test_properties.py", "tests/dice/test_roll.py"),
    "dice/backends.py": ("tests/dice/test_exact_cost.py",),
    "dice/defence.py": ("tests/dice/test_defence.py",),
    "dice/distribution.py": ("tests/dice/test_distribution.py",),
    "dice/faces.py": ("tests/dice/test_hardening.py",),
    "dice/parse.py": ("tests/dice/test_parse.py",),
    "dice/render.py": ("tests/dice/test_roll.py",),
    "dice/roll.py": ("tests/dice/test_roll.py",),
    "dice/tables.py": ("tests/dice/test_tables.py",),
    "dice/vector.py": ("tests/dice/test_vector.py",),
    "economy/__init__.py": ("tests/economy/test_conformance.py",),
    "economy/actions.py": ("tests/economy/test_conformance.py",),
    "economy/base.py": ("tests/economy/test_conformance.py",),
    "economy/outcome.py": ("tests/economy/points/test_rolls.py",),
    "economy/pending.py": ("tests/economy/points/test_rolls.py",),
    "economy/pools.py": ("tests/economy/test_pools.py",),
    "economy/load/actions.py": (
        "tests/encounter/test_rules.py",
        "tests/encounter/test_add_cost.py",
    ),
    "economy/load/economy.py": ("tests/economy/load/test_economy.py",),
    "economy/load/state.py": ("tests/economy/load/test_state.py",),
    "economy/points/actions.py": ("tests/economy/points/test_stealth_grapple.py",),
    "economy/points/attacks.py": (
        "tests/economy/points/test_attacks.py",
        "tests/economy/points/test_attacks_aim.py",
        "tests/economy/points/test_attacks_weapons.py",
    ),
    "economy/points/common.py": ("tests/economy/points/test_economy.py",),
    "economy/points/defence.py": ("tests/economy/points/test_attacks.py",),
    "economy/points/economy.py": ("tests/economy/points/test_economy.py",),
    "economy/points/grapple.py": ("tests/economy/points/test_stealth_grapple.py",),
    "economy/points/misc.py": ("tests/economy/points/test_misc.py",),
    "economy/points/movement.py": (
        "tests/economy/points/test_movement.py",
        "tests/economy/points/test_movement_toward.py",
    ),
    "economy/points/rolls.py": ("tests/economy/points/test_rolls.py",),
    "economy/points/stages.py": ("tests/economy/points/test_rolls.py",),
    "economy/points/state.py": ("tests/economy/points/test_state.py",),
    "economy/points/stealth.py": ("tests/economy/points/test_stealth_grapple.py",),
    "economy/points/verbs.py": ("tests/economy/points/test_verbs.py",),
    "encounter/gm.py": ("tests/encounter/test_gm.py", "tests/encounter/test_gm_calls.py"),
    "encounter/legal.py": ("tests/encounter/test_decision_points.py",),
    "encounter/play_state.py": ("tests/encounter/test_play_state.py",),
    "encounter/state.py": ("tests/encounter/test_rules.py", "tests/encounter/test_undo.py"),
    "encounter/windows.py": ("tests/encounter/test_window_order.py",),
    "table/cost.py": ("tests/table/test_cost.py",),
    "table/events.py": ("tests/table/test_log.py",),
    "table/log.py": ("tests/table/test_log.py",),
    "table/movement.py": ("tests/table/test_movement_view.py",),
    "table/night.py": ("tests/table/test_night.py",),
    "table/odds.py": ("tests/table/test_odds.py", "tests/table/test_defence_odds.py"),
    "table/pool.py": ("tests/dice/test_tables.py",),
    "table/rights.py": ("tests/table/test_rights.py",),
    "table/view.py": ("tests/table/test_view.py", "tests/table/test_gm_options.py"),
    "table/visibility.py": ("tests/table/test_view.py",),
}

#: package faces (``__init__.py`` holding only imports and ``__all__``): nothing of their own to test.
FACES: Final = frozenset(
    f"{package}/__init__.py"
    for package in (
        "core",
        "dice",
        "encounter",
        "table",
        "economy/load",
        "economy/points",
    )
)


def _modules() -> set[str]:
    return {
        path.relative_to(SOURCE).as_posix()
        for package in PACKAGES
        for path in (SOURCE / package).rglob("*.py")
    } - FACES


def _names(module: str) -> tuple[str, ...]:
    """How a test file may name the module: its path, or its dotted name."""
    dotted = "caltrop." + module.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
    return module, dotted


def test_every_rules_module_has_its_tests_listed() -> None:
    missing = sorted(_modules() - MIRROR.keys())
    assert not missing, f"modules without their tests in MIRROR: {missing}"
    gone = sorted(MIRROR.keys() - _modules())
    assert not gone, f"MIRROR lists modules that are gone: {gone}"


def test_every_listed_test_file_exists_and_names_its_module() -> None:
    problems = []
    for module, tests in MIRROR.items():
        for test in tests:
            path = ROOT / test
            if not path.is_file():
                problems.append(f"{module}: {test} does not exist")
            elif not any(name in path.read_text() for name in _names(module)):
                problems.append(f"{module}: {test} names neither of {_names(module)}")
    assert not problems, "\n".join(problems)


def test_a_mirrored_test_file_is_listed_first_when_it_exists() -> None:
    """``economy/points/movement.py``'s tests start at ``tests/economy/points/test_movement.py``."""
    for module, tests in MIRROR.items():
        directory, _, name = module.rpartition("/")
        mirrored = f"tests/{directory}/test_{name}"
        if (ROOT / mirrored).is_file():
            assert tests[0] == mirrored, f"{module}: list {mirrored} first"
