"""Content errors that name the file, the line and the field, and say what was expected.

A YAML file is *composed* (``yaml.compose`` with the safe loader) so every node keeps the line it
starts on; a pydantic error location such as ``("aspects", "Finesse")`` is walked through those
nodes to find its line. List items are counted from 1 in field paths (``participants[3]`` is the
third participant), as a person reading the file counts them.
"""

from __future__ import annotations

import difflib
import types
import typing
from collections.abc import Iterable
from typing import Any, TypeAlias

import yaml
from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from caltrop.content.schema import UNION_TAGS
from caltrop.core.codec import describe
from caltrop.errors import ContentFileError as ContentFileError
from caltrop.errors import Problem as Problem

Loc: TypeAlias = tuple[str | int, ...]


def node_line(node: yaml.Node) -> int:
    return int(node.start_mark.line) + 1


def locate(root: yaml.Node | None, loc: Loc, prefix: str = "") -> tuple[int, str]:
    """The line and the dotted field path of ``loc`` (a pydantic-style location) in ``root``.

    The line is that of the deepest node found: the key of a mapping entry (so a missing field is
    reported on the line of the mapping that lacks it), or the item of a list.
    """
    node: yaml.Node | None = root
    line = node_line(root) if root is not None else 1
    path = prefix
    for part in loc:
        if isinstance(part, str) and part in UNION_TAGS:
            continue
        if isinstance(node, yaml.MappingNode):
            found: yaml.Node | None = None
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode) and key.value == str(part):
                    found = value
                    line = node_line(key)
            node = found
            path = _join(path, str(part))
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
            if 0 <= part < len(node.value):
                node = node.value[part]
                line = node_line(node)
            else:
                node = None
            path += f"[{part + 1}]"
        else:
            node = None
            path = path + f"[{part + 1}]" if isinstance(part, int) else _join(path, str(part))
    return line, path


def _join(path: str, part: str) -> str:
    if part == "[key]":
        return path
    return f"{path}.{part}" if path else part


def field_prefix(kind: str, loc: Loc) -> str:
    """``creature.aspects.Finesse`` for a creature file; ``actions[2].cost`` for a library."""
    first = next((p for p in loc if not (isinstance(p, str) and p in UNION_TAGS)), None)
    return "" if first in (kind, "kind") else kind


_TYPE_WORDS = {
    "int_type": "an integer",
    "int_parsing": "an integer",
    "int_from_float": "an integer",
    "string_type": "text",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "dict_type": "a mapping (name: value)",
    "list_type": "a list",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
    "dataclass_type": "a mapping",
}


def explain(error: ErrorDetails, allowed: Iterable[str] = ()) -> str:
    """What was expected, in words, for one pydantic error."""
    kind = error["type"]
    ctx: dict[str, Any] = dict(error.get("ctx") or {})
    value = error.get("input")
    if kind == "missing":
        return "required field is missing"
    if kind == "extra_forbidden":
        names = sorted(allowed)
        bad = str(error["loc"][-1]) if error["loc"] else ""
        close = difflib.get_close_matches(bad, names, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        return f"unknown field{hint}; expected one of: {', '.join(names)}"
    if kind in _TYPE_WORDS:
        if (
            kind.startswith("int")
            and isinstance(value, str)
            and value.strip().lstrip("-").isdigit()
        ):
            return f"expected an integer, got the text {value!r} (remove the quotes)"
        return f"expected {_TYPE_WORDS[kind]}, got {describe(value)}"
    if kind == "literal_error":
        return f"expected {ctx.get('expected', 'one of the listed values')}, got {describe(value)}"
    if kind in ("greater_than_equal", "greater_than", "less_than_equal", "less_than"):
        sign = {
            "greater_than_equal": "≥",
            "greater_than": ">",
            "less_than_equal": "≤",
            "less_than": "<",
        }[kind]
        bound = next(iter(ctx.values()), "?")
        return f"expected a number {sign} {bound}, got {describe(value)}"
    if kind == "too_long":
        n = ctx.get("max_length", 0)
        got = ctx.get("actual_length")
        shown = f", got {got:,}" if isinstance(got, int) else ""
        return f"expected at most {n:,} items (a content limit){shown}"
    if kind == "too_short":
        n = ctx.get("min_length", 1)
        return f"expected at least {n} item{'s' if n != 1 else ''}, got none"
    if kind == "value_error":
        return str(ctx.get("error", error["msg"]))
    if kind in ("action_entry", "weapon_entry", "participant_entry", "ruleset_entry"):
        return f"{error['msg']}, got {describe(value)}"
    return f"{error['msg'][:1].lower()}{error['msg'][1:]}, got {describe(value)}"


def allowed_fields(model: type[BaseModel], loc: Loc) -> list[str]:
    """The field names of the model that holds the last element of ``loc`` (for typos)."""
    current: Any = model
    for part in loc[:-1]:
        current = _step(current, part)
        if current is None:
            return []
    current = _unwrap(current)
    if isinstance(current, type) and issubclass(current, BaseModel):
        return list(current.model_fields)
    return []


def _unwrap(tp: Any) -> Any:
    while typing.get_origin(tp) is typing.Annotated:
        tp = typing.get_args(tp)[0]
    return tp


def _step(tp: Any, part: str | int) -> Any:
    tp = _unwrap(tp)
    origin = typing.get_origin(tp)
    if isinstance(part, str) and part in UNION_TAGS:
        if origin in (typing.Union, types.UnionType):
            for member in typing.get_args(tp):
                for meta in getattr(member, "__metadata__", ()):
                    if getattr(meta, "tag", None) == part:
                        return member
        return None
    if origin in (typing.Union, types.UnionType):
        members = [m for m in typing.get_args(tp) if m is not type(None)]
        if len(members) == 1:
            return _step(members[0], part)
        return None
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        field = tp.model_fields.get(str(part))
        return None if field is None else field.annotation
    if origin is list and isinstance(part, int):
        return typing.get_args(tp)[0]
    if origin is dict:
        return typing.get_args(tp)[1]
    return None


def validation_problems(
    exc: ValidationError, model: type[BaseModel], root: yaml.Node | None, file: str, kind: str
) -> list[Problem]:
    """One :class:`Problem` per pydantic error, located in the YAML node tree."""
    problems: list[Problem] = []
    for error in exc.errors(include_url=False):
        loc: Loc = tuple(error["loc"])
        allowed = allowed_fields(model, loc) if error["type"] == "extra_forbidden" else []
        line, field = locate(root, loc, field_prefix(kind, loc))
        problems.append(Problem(file, line, field, explain(error, allowed)))
    return sorted(problems, key=lambda p: p.line)
