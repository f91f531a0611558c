"""Write the golden logs of :mod:`tests.encounter.test_golden` again, after a deliberate change
to the engine: ``python -m tests.encounter.regen_golden`` (then review ``git diff``).

A command of its own, never run by the suite (issue 24 item 6: the golden-log test must not be
able to pass by regenerating what it compares against)."""

from __future__ import annotations

from tests.encounter.test_golden import GOLDEN, SCENARIOS, _play, _texts


def main() -> None:
    GOLDEN.mkdir(exist_ok=True)
    for scenario in SCENARIOS:
        log_text, state_text = _texts(_play(scenario))
        (GOLDEN / f"{scenario.name}.jsonl").write_text(log_text, encoding="utf-8")
        (GOLDEN / f"{scenario.name}.state.json").write_text(state_text, encoding="utf-8")
        print(f"wrote {scenario.name}.jsonl, {scenario.name}.state.json")


if __name__ == "__main__":
    main()
