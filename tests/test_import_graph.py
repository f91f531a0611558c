"""The package has no import circles: no module imports another that imports it back.

Issue 9 ("Structure"): the generic state machine and each economy's actions "plug in through one
interface; no import circle inside ``encounter/``"; the guide asks the same of every module. The
graph is read statically (every ``import`` and ``from … import`` in ``src/caltrop``, including
those under ``TYPE_CHECKING`` and inside functions), so a circle hidden behind a lazy import
counts too, and so does one through a package (issue 24 item 6): importing a package runs its
``__init__``, so an import of the package stands for the modules that ``__init__`` imports
(``sim/runner.py`` → ``sim/fast/tactical/`` → ``sim/fast/tactical/simulate.py`` →
``sim/runner.py`` was such a circle, unseen while edges into packages were left out).
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _graph() -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in (SRC / "caltrop").rglob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*up, base] if base else up)
                # ``from pkg import sub`` imports the module pkg.sub; any other name, the package
                subs = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in modules]
                others = len(subs) < len(node.names)
                targets = subs + ([base] if others or not subs else [])
            for target in targets:
                if target in modules and target != name:
                    graph[name].add(target)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def _through_packages(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The graph between modules, an import of a package replaced by the modules its
    ``__init__`` imports (through nested packages too): what importing it runs."""
    packages = {name for name in graph if (SRC / Path(*name.split("."))).is_dir()}

    def run_by(targets: set[str], seen: set[str]) -> set[str]:
        out: set[str] = set()
        for target in targets:
            if target not in packages:
                out.add(target)
            elif target not in seen:
                seen.add(target)
                out |= run_by(graph[target], seen)
        return out

    return {
        name: run_by(targets, set()) - {name}
        for name, targets in graph.items()
        if name not in packages
    }


def test_the_graph_sees_real_imports() -> None:
    """Guard against a reader that finds nothing: known edges are in the graph."""
    graph = _graph()
    assert "caltrop.economy.load.actions" in graph["caltrop.encounter.state"] or any(
        t == "caltrop.economy.actions" for t in graph["caltrop.encounter.state"]
    )
    assert "caltrop.economy.base" in graph["caltrop.economy.points.actions"]


def test_no_two_modules_import_each_other() -> None:
    """No pair of modules imports each other, and no longer circle either, through packages
    or not."""
    assert _cycles(_through_packages(_graph())) == []


def test_a_circle_through_a_package_is_found() -> None:
    """The reader finds a circle that runs through a package's ``__init__`` (as the runner's
    did through ``sim/fast/tactical/``) and one of any length."""
    graph = {
        "caltrop.a": {"caltrop.sim.fast.tactical"},
        "caltrop.sim.fast.tactical": {"caltrop.b"},
        "caltrop.b": {"caltrop.c"},
        "caltrop.c": {"caltrop.a"},
        "caltrop.d": {"caltrop.a"},
    }
    assert _cycles(_through_packages(graph)) == [["caltrop.a", "caltrop.b", "caltrop.c"]]


def test_the_machine_knows_no_economys_actions() -> None:
    """Issue 9: "the generic state machine … knows no economy's actions": the modules in
    ``caltrop/encounter/`` import no economy's action module but the registry."""
    graph = _graph()
    machine = [name for name in graph if name.startswith("caltrop.encounter")]
    for name in machine:
        bad = {
            t
            for t in graph[name]
            if t in ("caltrop.economy.load.actions", "caltrop.economy.points.actions")
        }
        assert bad == set(), f"{name} imports {bad}"
