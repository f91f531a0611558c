"""One error catalogue (issue 24, item 4): every error Caltrop raises on purpose is a
:class:`~caltrop.errors.CaltropError` defined in :mod:`caltrop.errors` and listed in its
``__all__``; every ``raise`` in ``src/caltrop`` raises one, or a programming error listed here
with the reason no player, content file, log or option can cause it.

The ``raise`` statements are found in the source (``ast``), and each raised name is looked up
where the module sees it (its globals, else the builtins): a new ``raise ValueError(...)`` in a
module not listed, or a new error class defined outside the catalogue, fails here."""

from __future__ import annotations

import ast
import builtins
import collections.abc
import dataclasses
import importlib
import inspect
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest

import caltrop
import caltrop.errors
from caltrop.errors import CaltropError, ContentError, InvalidActionError

SRC = Path(caltrop.__file__).parent

#: alembic's scripts: run by alembic inside a migration, never imported as modules
SCRIPTS = ("caltrop.store.migrations",)

#: raised anywhere: ``raise AssertionError(x)`` is an ``assert`` that ``python -O`` keeps (a case
#: the types rule out), ``NotImplementedError`` an abstract method's body
ANYWHERE = {"AssertionError", "NotImplementedError"}

#: (module, exception) → why it is a programming error: a caller in code breaking the
#: function's contract, or a protocol that asks for that exception
PROGRAMMING_ERRORS: dict[tuple[str, str], str] = {
    ("caltrop.cli.fit", "ValueError"): "Fitted built with no layout (the CLI always has one)",
    ("caltrop.content.schema", "ValueError"): (
        "pydantic's validators: pydantic takes a ValueError as the field's problem, and the "
        "loader reports it as a ContentFileError with its file, line and field"
    ),
    ("caltrop.content.source", "FileNotFoundError"): (
        "an upload's read_text, as Path.read_text: read_source turns it into 'no such file'"
    ),
    ("caltrop.dice.ast", "ValueError"): "a Sum with no terms (the parser never builds one)",
    ("caltrop.dice.backends", "ValueError"): "a negative number of dice to sum",
    ("caltrop.dice.distribution", "ValueError"): "a scale factor or divisor below 1",
    ("caltrop.dice.distribution", "TypeError"): "a node of no dice type (the union is closed)",
    ("caltrop.dice.render", "TypeError"): "a node of no dice type (the union is closed)",
    ("caltrop.dice.roll", "TypeError"): (
        "roll() given both or neither of rng= and entered=; a node of no dice type"
    ),
    ("caltrop.dice.vector", "TypeError"): "a node of no dice type (the union is closed)",
    ("caltrop.errors", "ValueError"): "a ContentFileError built with no problem",
    ("caltrop.sim.fast.records", "ValueError"): (
        "to_records given a result played without details=True, or with other creatures"
    ),
    ("caltrop.sim.fast.reference", "TypeError"): "a node of no dice type (the union is closed)",
    ("caltrop.sim.stats", "ValueError"): (
        "a statistic's arguments outside its domain (n < 1, a confidence outside (0, 1), "
        "samples of different lengths): its callers pass counts they made"
    ),
    ("caltrop.store.migrations.env", "RuntimeError"): "alembic's env.py run outside migrate()",
    ("caltrop.sim", "AttributeError"): "PEP 562: a module's __getattr__ answers an unknown name so",
    ("caltrop.sim.fast.points_tactical.simulate", "RuntimeError"): (
        "the numbers table's fill loop broke its own invariant (a number asked for again once "
        "given, or no settling): a kernel bug, never an input's"
    ),
    ("caltrop.sim.fast.points_tactical.resume", "RuntimeError"): (
        "the same fill loop's invariant, for fights played on from a snapshot: a kernel bug"
    ),
    ("caltrop.sim.summary", "ValueError"): "a grid's runs not one per pair of values (its caller)",
    ("caltrop.table.log", "ValueError"): (
        "a log page of a size outside 1..MAX_PAGE (the routes bound it first, 422)"
    ),
    ("caltrop.store.lru", "ValueError"): "an LRU built with a bound below 1 (the server's is 500)",
    ("caltrop.web.ratelimit", "ValueError"): "a token bucket built with a negative rate",
    ("caltrop.web.errors", "TypeError"): "a refusal kind missing from STATUS (every kind is)",
    ("caltrop.web.text", "ValueError"): (
        "pydantic's validators: pydantic takes a ValueError as the field's problem, answered 422"
    ),
}

#: (module, raised expression) → why: not an exception class a name can be looked up to
NOT_NAMES: dict[tuple[str, str], str] = {
    ("caltrop.store.group_commit", "self.error"): (
        "the writer thread's error, raised again in the thread that waits for the commit"
    ),
}

#: exit statuses and interruptions, not errors: ``RunInterrupted`` is Ctrl-C carrying what had
#: finished (a KeyboardInterrupt, so that no ``except Exception`` swallows it)
EXITS = {"typer.exceptions.Exit", "caltrop.sim.results.RunInterrupted"}

#: errors outside the catalogue: none since the web's refusals became the catalogue's kinds
#: (issue 24 item 3: the service raises NoSeatError, ForbiddenError, …; web/errors.py maps each
#: to its HTTP status)
AWAITING_ITEM_3: set[str] = set()


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts).removesuffix(".__init__")


def _modules() -> Iterator[tuple[str, Path]]:
    for path in sorted(SRC.rglob("*.py")):
        name = _module_name(path)
        if not name.startswith(SCRIPTS):
            yield name, path


@dataclass(frozen=True)
class Raise:
    module: str
    line: int
    text: str  # the raised expression, or the called one: ``typer.Exit``, ``refuse``
    #: the exception class it raises, as the code there sees the name (its function's imports,
    #: nested functions and annotated parameters, then the module's globals, then the
    #: builtins); None when it is no name that can be looked up (``raise exc``, ``self.error``)
    raised: type[BaseException] | None


def _exception_of(value: object) -> type[BaseException] | None:
    """The exception class ``value`` gives: itself, or what a function or a ``Callable[...,
    X]`` returns (``raise refuse(line, why)``)."""
    if inspect.isclass(value) and issubclass(value, BaseException):
        return value
    if typing.get_origin(value) is collections.abc.Callable:
        return _exception_of(typing.get_args(value)[-1])
    if inspect.isfunction(value):
        return _exception_of(typing.get_type_hints(value).get("return"))
    return None


def _local(
    scopes: list[ast.FunctionDef | ast.AsyncFunctionDef], name: str, module: ModuleType
) -> object | None:
    """What ``name`` is bound to in the innermost of ``scopes`` that binds it, or None."""
    for scope in reversed(scopes):
        for node in ast.walk(scope):
            if isinstance(node, ast.ImportFrom) and node.module:
                for alias in node.names:
                    if (alias.asname or alias.name) == name:
                        return getattr(importlib.import_module(node.module), alias.name)
            if isinstance(node, ast.FunctionDef) and node.name == name and node.returns:
                return eval(ast.unparse(node.returns), vars(module))
        for arg in scope.args.args + scope.args.kwonlyargs:
            if arg.arg == name and arg.annotation is not None:
                return eval(ast.unparse(arg.annotation), vars(module))
    return None


def _raises(name: str, path: Path) -> Iterator[Raise]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    script = name.startswith(SCRIPTS)
    module = None if script else importlib.import_module(name)
    scope = vars(module) if module is not None else {}

    def visit(
        node: ast.AST, scopes: list[ast.FunctionDef | ast.AsyncFunctionDef]
    ) -> Iterator[Raise]:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            scopes = [*scopes, node]
        if isinstance(node, ast.Raise) and node.exc is not None:  # a bare raise re-raises
            target = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            text = ast.unparse(target)
            head, *rest = text.split(".")
            value: object = None
            if module is not None and head.isidentifier() and head != "self":
                value = _local(scopes, head, module)
            if value is None and head in scope:
                value = scope[head]
            if value is None and hasattr(builtins, head):
                value = getattr(builtins, head)
            for part in rest if value is not None else ():
                value = getattr(value, part, None)
            yield Raise(name, node.lineno, text, _exception_of(value))
        for child in ast.iter_child_nodes(node):
            yield from visit(child, scopes)

    yield from visit(tree, [])


def _every_raise() -> list[Raise]:
    """Every raise in ``src/caltrop``, alembic's scripts included (read, not imported)."""
    paths = sorted(SRC.rglob("*.py"))
    return [r for path in paths for r in _raises(_module_name(path), path)]


RAISES = _every_raise()


def _verdict(r: Raise) -> str | None:
    """Why ``r`` is allowed, or None."""
    raised = r.raised
    if raised is None:
        return NOT_NAMES.get((r.module, r.text))
    if issubclass(raised, CaltropError):
        return "a CaltropError"
    if f"{raised.__module__}.{raised.__qualname__}" in EXITS:
        return "an exit status"
    if raised.__name__ in ANYWHERE:
        return "unreachable or abstract"
    if raised.__name__.startswith("_") and raised.__module__ == r.module:
        return "a private signal caught in its module (checked below)"
    return PROGRAMMING_ERRORS.get((r.module, raised.__name__))


def test_the_scan_finds_the_raises_it_must_judge() -> None:
    """The scan sees the kinds of raise it judges (so a broken scan cannot pass by finding
    nothing): a named class, a called function, an exit, a built-in, a re-raised value."""
    texts = {(r.module, r.text) for r in RAISES}
    assert ("caltrop.encounter.state", "IllegalActionError") in texts
    assert ("caltrop.content.yamlfile", "refuse") in texts
    assert ("caltrop.cli.common", "typer.Exit") in texts
    assert ("caltrop.sim.stats", "ValueError") in texts
    assert ("caltrop.store.group_commit", "self.error") in texts
    assert len(RAISES) > 400


def test_every_raise_is_a_caltrop_error_or_a_listed_programming_error() -> None:
    bad = [f"{r.module}:{r.line}: raise {r.text}" for r in RAISES if _verdict(r) is None]
    assert bad == []


def test_every_listed_programming_error_is_still_raised() -> None:
    """An entry whose raise is gone (changed to a CaltropError, say) goes from the list, so the
    list says only what is true."""
    seen = set()
    for r in RAISES:
        seen.add((r.module, r.raised.__name__ if r.raised is not None else r.text))
    assert set(PROGRAMMING_ERRORS) - seen == set()
    assert set(NOT_NAMES) - seen == set()


def _error_classes() -> Iterator[type[BaseException]]:
    for name, _ in _modules():
        module = importlib.import_module(name)
        for value in vars(module).values():
            if (
                inspect.isclass(value)
                and issubclass(value, BaseException)
                and value.__module__ == name
            ):
                yield value


ERROR_CLASSES = sorted(set(_error_classes()), key=lambda c: f"{c.__module__}.{c.__qualname__}")


def test_every_error_class_is_defined_in_the_catalogue_and_listed() -> None:
    """Every public exception class defined in ``src/caltrop`` lives in ``caltrop.errors``, is
    a CaltropError and is in ``__all__`` (the two of the web layer wait for item 3)."""
    outside = []
    for cls in ERROR_CLASSES:
        where = f"{cls.__module__}.{cls.__qualname__}"
        if cls.__name__.startswith("_") or where in AWAITING_ITEM_3 or where in EXITS:
            continue
        listed = cls.__module__ == "caltrop.errors" and cls.__name__ in caltrop.errors.__all__
        if not listed or not issubclass(cls, CaltropError):
            outside.append(where)
    assert outside == []
    assert {f"{c.__module__}.{c.__qualname__}" for c in ERROR_CLASSES} >= AWAITING_ITEM_3


def test_the_catalogue_lists_only_its_own_errors() -> None:
    for name in caltrop.errors.__all__:
        value = getattr(caltrop.errors, name)
        assert value.__module__ == "caltrop.errors", name
        if inspect.isclass(value) and issubclass(value, BaseException):
            assert issubclass(value, CaltropError), name


@pytest.mark.parametrize(
    "cls",
    [c for c in ERROR_CLASSES if c.__name__.startswith("_")],
    ids=lambda c: f"{c.__module__}.{c.__name__}",
)
def test_a_private_exception_never_leaves_its_module(cls: type[BaseException]) -> None:
    """A private exception carries a refusal out of a third-party callback (yaml's and json's
    hooks) to its own module, which catches it and raises a CaltropError: so the module has an
    ``except`` naming it."""
    module = importlib.import_module(cls.__module__)
    tree = ast.parse(inspect.getsource(module))
    caught = {
        ast.unparse(n.type) for n in ast.walk(tree) if isinstance(n, ast.ExceptHandler) and n.type
    }
    assert any(cls.__name__ in text for text in caught)


def test_the_mismatch_errors_are_not_assertion_errors() -> None:
    """A kernel cross-check's finding is a CaltropError, not an AssertionError that a test's
    failed ``assert`` could be taken for (or ``except AssertionError`` would swallow)."""
    for cls in (caltrop.errors.ReplayMismatchError, caltrop.errors.TacticalMismatchError):
        assert not issubclass(cls, AssertionError)
        assert issubclass(cls, CaltropError)


def _refusals() -> Iterator[tuple[str, type[CaltropError], typing.Callable[[], object]]]:
    """The refusals that were bare ValueErrors (issue 24 item 4): each call and the catalogue's
    error it must raise."""
    from caltrop.content.templates import template_id
    from caltrop.core.pool import Advantage, check_gate, net_advantage
    from caltrop.economy import economy_for
    from caltrop.economy.actions import actions_for
    from tests.encounter.builders import skirmish

    definition = skirmish()
    barter = dataclasses.replace(definition.ruleset, economy="barter")  # type: ignore[arg-type]
    yield "no economy named 'barter'", ContentError, lambda: economy_for(barter)
    yield (
        "no actions for economy 'barter'",
        ContentError,
        lambda: actions_for(dataclasses.replace(definition, ruleset=barter)),
    )
    yield "'adv' or 'dis'", InvalidActionError, lambda: Advantage("fav", "x")  # type: ignore[arg-type]
    yield "one word", InvalidActionError, lambda: Advantage("adv", "two words")
    yield "'adv' or 'dis'", InvalidActionError, lambda: net_advantage([("fav", "x")])  # type: ignore[list-item]
    yield "Cost is 0 or more, not -1", ContentError, lambda: check_gate(3, 0, -1)
    twice = (*definition.participants, definition.participants[0])
    yield (
        "ids must be unique",
        ContentError,
        lambda: dataclasses.replace(definition, participants=twice),
    )
    yield "reserved word", ContentError, lambda: template_id("roll")


@pytest.mark.parametrize("case", list(_refusals()), ids=lambda case: case[0])
def test_the_refusals_that_were_bare_value_errors_are_in_the_catalogue(
    case: tuple[str, type[CaltropError], typing.Callable[[], object]],
) -> None:
    """Each is the catalogue's error (so ``except CaltropError`` catches it), and still a
    ValueError, as before (so a caller that caught that still does)."""
    match, error, call = case
    with pytest.raises(error, match=match) as caught:
        call()
    assert isinstance(caught.value, ValueError)
