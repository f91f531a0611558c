"""A content file's text and YAML, read without trusting either (issue 10).

Content is uploaded by anyone with a link to the table server, so reading refuses, with a
:class:`~caltrop.content.problems.ContentFileError` that names the file and the line:

* anything but a regular file (a FIFO would hang the reader, ``/dev/zero`` never ends), and a
  file over :data:`~caltrop.content.limits.MAX_FILE_BYTES` — from its size, before it is read;
* text that is not UTF-8, and a NUL byte or another character YAML does not allow;
* YAML nested deeper than :data:`~caltrop.content.limits.MAX_YAML_DEPTH` (the composer and the
  validators recurse), more than :data:`~caltrop.content.limits.MAX_YAML_VALUES` values counting
  what each alias repeats (a "billion laughs" file is a few lines), and an alias inside the very
  collection it names;
* an integer written with more than :data:`~caltrop.content.limits.MAX_INT_CHARS` characters
  (Python refuses to convert one past 4,300 digits, and no content number needs 40).

The limits are checked on the parser's events, which need no recursion and stop at the first
value past a limit, before a node tree is built. The C parser (libyaml) is used when PyYAML has
it, as it is about ten times faster; its syntax errors are worded again by the Python parser
when the file is small, since those name the character found.
"""

from __future__ import annotations

import math
import os
import re
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import yaml

from caltrop.content import limits
from caltrop.content.paths import KINDS as _KINDS
from caltrop.content.paths import MISSING, path_problem
from caltrop.content.problems import ContentFileError, Problem, node_line

#: Syntax errors of files up to this size are worded by the Python parser (see the docstring).
_REWORD_BYTES: Final = 256 * 1024


class _RefusedError(Exception):
    """A value past a limit, found while parsing or constructing: its line and what is wrong."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


#: The numbers content writes: decimal, as YAML 1.2's core schema and YAML 1.1 both read them.
_DECIMAL_INT: Final = re.compile(r"[-+]?(0|[1-9][0-9]*)")
_DECIMAL_FLOAT: Final = re.compile(r"[-+]?(\.[0-9]+|[0-9]+\.[0-9]*)([eE][-+]?[0-9]+)?")
#: The booleans YAML 1.2 reads as booleans (YAML 1.1 also reads yes/no/on/off, 1.2 text).
_BOOLEANS: Final = {"true": True, "True": True, "TRUE": True}
_BOOLEANS.update({"false": False, "False": False, "FALSE": False})


def _number_text(node: yaml.ScalarNode) -> str:
    """The scalar as written, refused past MAX_INT_CHARS before anything converts it (Python
    refuses an integer of 4,301 digits with a ValueError, and no content number needs 40)."""
    text = str(node.value)
    if len(text) > limits.MAX_INT_CHARS:
        raise _RefusedError(
            node_line(node),
            f"a number written with {len(text):,} characters; numbers in content have at most "
            f"{limits.MAX_INT_CHARS} (a content limit)",
        )
    return text


def _quirk(node: yaml.ScalarNode, what: str, write: str) -> _RefusedError:
    """A scalar YAML 1.1 (PyYAML) and YAML 1.2 read differently, or as a number no content
    writes (issue 21): refused rather than guessed, saying how to write it."""
    text = str(node.value)
    return _RefusedError(
        node_line(node),
        f"{text!r} is {what}; content numbers are plain decimals: write {write}, or put "
        f'"{text}" in quotes if it is text',
    )


def _int_quirk(text: str) -> tuple[str, str] | None:
    """What a YAML 1.1 integer that is not a plain decimal is, and how to write it."""
    digits = text.lstrip("+-")
    sign = "-" if text.startswith("-") else ""
    plain = digits.replace("_", "")
    if ":" in digits:
        return "a base-60 number in YAML 1.1 (1:20 is 80) and text in YAML 1.2", "its value"
    if "_" in digits:
        return "a number with '_' in it (YAML 1.1 reads 2_0 as 20)", f"{sign}{plain}"
    if plain[:2] in ("0x", "0X"):
        return "hexadecimal", str(int(text.replace("_", ""), 16))
    if plain[:2] in ("0b", "0B"):
        return "binary (a YAML 1.1 form)", f"{sign}{int(plain[2:], 2)}"
    if plain.startswith("0") and len(plain) > 1:
        return (
            "octal in YAML 1.1 and decimal in YAML 1.2 (a leading 0)",
            f"{sign}{plain.lstrip('0')}",
        )
    return None


def _strict_int(loader: Any, node: yaml.ScalarNode) -> int:
    """An integer as YAML 1.2's core schema reads it; 1.1-only forms are refused (issue 21)."""
    text = _number_text(node)
    if not _DECIMAL_INT.fullmatch(text):
        quirk = _int_quirk(text)
        if quirk is not None:
            raise _quirk(node, *quirk)
        raise _quirk(node, "not a decimal integer", "the number in decimal")
    return int(text)


def _strict_float(loader: Any, node: yaml.ScalarNode) -> float:
    """A finite decimal number; YAML 1.1's base-60 and '_' forms, .inf and .nan are refused."""
    text = _number_text(node)
    if ":" in text:
        raise _quirk(node, "a base-60 number in YAML 1.1 and text in YAML 1.2", "its value")
    if "_" in text:
        raise _quirk(node, "a number with '_' in it (a YAML 1.1 form)", text.replace("_", ""))
    if not _DECIMAL_FLOAT.fullmatch(text):
        raise _quirk(node, "not a finite number (.inf and .nan are not content)", "a number")
    value = float(text)
    if not math.isfinite(value):
        raise _quirk(node, "too large a number", "a smaller number")
    return value


def _strict_bool(loader: Any, node: yaml.ScalarNode) -> bool:
    """true or false; YAML 1.1's yes/no/on/off (text in YAML 1.2) are refused (issue 21)."""
    text = str(node.value)
    if text in _BOOLEANS:
        return _BOOLEANS[text]
    truth = "true" if text.lower() in ("yes", "on", "y") else "false"
    raise _RefusedError(
        node_line(node),
        f"{text!r} is {truth} in YAML 1.1 and text in YAML 1.2: write {truth}, or put "
        f'"{text}" in quotes if it is text',
    )


#: Numbers YAML 1.2's core schema reads that YAML 1.1 (PyYAML) reads as text: ``0o17``, ``1e3``,
#: ``1.0e3``, ``+.5``. Resolved after PyYAML's own int and float, so only what those miss.
_YAML12_NUMBER: Final = re.compile(  # anchored: a resolver's pattern is matched, not searched
    r"^(?:[-+]?(0o[0-7]+|(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?|\.(inf|Inf|INF))"
    r"|\.(nan|NaN|NAN))$"
)
_YAML12_NUMBER_TAG: Final = "tag:caltrop,2026:yaml-1.2-number"


def _yaml12_number(loader: Any, node: yaml.ScalarNode) -> Any:
    """A scalar YAML 1.2 reads as a number and PyYAML (YAML 1.1) as text: refused, saying how
    to write it, as the 1.1-only forms are (issue 21: one reading, whichever YAML a designer's
    editor or other tools speak)."""
    text = _number_text(node)
    if "0o" in text:
        value: float = int(text.replace("0o", ""), 8)
    else:
        value = float(text)
    if not math.isfinite(value):
        raise _quirk(node, "not a finite number (.inf and .nan are not content)", "a number")
    plain = str(int(value)) if value == int(value) and abs(value) < 10**15 else repr(value)
    raise _quirk(node, "a number in YAML 1.2 and text in YAML 1.1", plain)


def _text(loader: Any, node: yaml.ScalarNode) -> str:
    """A YAML 1.1 timestamp (``2026-12-04``) is text, as YAML 1.2's core schema reads it."""
    return str(loader.construct_scalar(node))


def _strict(loader_type: type[Any]) -> None:
    """Numbers, booleans and timestamps read as YAML 1.2's core schema reads them, bounded
    (issue 21): what the two YAMLs read differently is refused, or read as 1.2 reads it."""
    loader_type.add_constructor("tag:yaml.org,2002:int", _strict_int)
    loader_type.add_constructor("tag:yaml.org,2002:float", _strict_float)
    loader_type.add_constructor("tag:yaml.org,2002:bool", _strict_bool)
    loader_type.add_constructor("tag:yaml.org,2002:timestamp", _text)
    loader_type.add_implicit_resolver(_YAML12_NUMBER_TAG, _YAML12_NUMBER, list("-+0123456789."))
    loader_type.add_constructor(_YAML12_NUMBER_TAG, _yaml12_number)


class _PythonLoader(yaml.SafeLoader):
    """PyYAML's safe loader, with numbers and booleans strict and bounded."""


_strict(_PythonLoader)

_Loader: type[Any] = _PythonLoader
if getattr(yaml, "__with_libyaml__", False):

    class _CLoader(yaml.CSafeLoader):
        """libyaml's safe loader, with numbers and booleans strict and bounded."""

    _strict(_CLoader)
    _Loader = _CLoader


# -- reading the file ---------------------------------------------------------------------------


def read_file_text(path: Path, name: str) -> str:
    """The UTF-8 text of the regular file at ``path`` of at most ``MAX_FILE_BYTES``, opened so
    that nothing blocks. ``FileNotFoundError`` passes through (the caller says "no such file")."""

    def refuse(message: str) -> ContentFileError:
        return ContentFileError([Problem(name, 1, "", message)])

    try:
        info = os.stat(path)
    except FileNotFoundError:
        if os.path.islink(path):  # a link to nothing: say so, not "no such file"
            raise refuse(path_problem(path) or MISSING) from None
        raise
    except (OSError, ValueError) as exc:
        raise refuse(path_problem(path) or f"cannot read the file: {_reason(exc)}") from None
    _require_regular(info, refuse)
    _require_size(info.st_size, refuse)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise refuse(f"cannot read the file: {_reason(exc)}") from None
    with os.fdopen(fd, "rb") as handle:
        _require_regular(os.fstat(handle.fileno()), refuse)  # replaced since the stat
        data = handle.read(limits.MAX_FILE_BYTES + 1)
    _require_size(len(data), refuse)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ContentFileError(
            [
                Problem(
                    name,
                    line,
                    "",
                    f"not UTF-8 text (byte 0x{data[exc.start]:02x}); a content file is UTF-8 "
                    "YAML text",
                )
            ]
        ) from None


def _require_regular(info: os.stat_result, refuse: Callable[[str], ContentFileError]) -> None:
    for test, kind in _KINDS:
        if test(info.st_mode):
            raise refuse(f"is {kind}, not a content file")
    if not stat.S_ISREG(info.st_mode):
        raise refuse("is not a regular file")


def _require_size(size: int, refuse: Callable[[str], ContentFileError]) -> None:
    if size > limits.MAX_FILE_BYTES:
        raise refuse(
            f"the file is {size:,} bytes; a content file is at most {limits.MAX_FILE_BYTES:,} "
            "(a content limit)"
        )


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc)


# -- parsing ------------------------------------------------------------------------------------


def parse_text(text: str, name: str) -> tuple[yaml.Node, Any]:
    """Compose and construct one YAML document of ``text`` (the file ``name``), keeping the node
    tree. Raises :class:`ContentFileError` for a file past a limit (see the module docstring),
    a syntax error (with its line), an empty file, or a key given twice in one mapping."""

    def refuse(line: int, message: str) -> ContentFileError:
        return ContentFileError([Problem(name, line, "", message)])

    if len(text) > limits.MAX_FILE_BYTES or (
        len(text.encode("utf-8", "surrogatepass")) > limits.MAX_FILE_BYTES
    ):
        size = len(text.encode("utf-8", "surrogatepass"))
        raise refuse(
            1,
            f"the text is {size:,} bytes; a content file is at most {limits.MAX_FILE_BYTES:,} "
            "(a content limit)",
        )
    bad = yaml.reader.Reader.NON_PRINTABLE.search(text)
    if bad is not None:
        at = bad.start()
        line = text.count("\n", 0, at) + 1
        column = at - (text.rfind("\n", 0, at) + 1) + 1
        code = ord(bad.group())
        what = "a NUL byte" if code == 0 else f"the character U+{code:04X}"
        raise refuse(
            line,
            f"{what} at column {column} is not allowed in a YAML file (is it a text file? "
            'write a control character, if at all, as an escape inside "double quotes")',
        )
    try:
        _check_events(text, _Loader)
        loader = _Loader(text)
        try:
            node = loader.get_single_node()
            if node is None:
                raise refuse(1, "the file is empty; expected a mapping with 'kind:'")
            duplicates = _duplicate_keys(node)
            if duplicates:
                raise ContentFileError([Problem(name, *d) for d in duplicates])
            data = loader.construct_document(node)
        finally:
            loader.dispose()
    except _RefusedError as exc:
        raise refuse(exc.line, exc.message) from None
    except yaml.MarkedYAMLError as exc:
        if "nesting depth" in str(exc.problem):  # libyaml's own limit (1000), met first
            line = int(exc.problem_mark.line) + 1 if exc.problem_mark is not None else 1
            raise refuse(
                line, f"YAML nested more than {limits.MAX_YAML_DEPTH} deep (a content limit)"
            ) from None
        raise refuse(*_syntax_error(_reworded(exc, text))) from None
    except yaml.YAMLError as exc:
        raise refuse(1, f"YAML error: {' '.join(str(exc).split())}") from None
    return node, data


def _check_events(text: str, loader_type: type[Any]) -> None:
    """Refuse YAML past the depth and value limits, from the parser's events (no recursion)."""
    loader = loader_type(text)
    try:
        depth = 0
        values = 0
        sizes: dict[str, int] = {}
        open_collections: list[tuple[str | None, int]] = []
        while loader.check_event():
            event = loader.get_event()
            line = int(event.start_mark.line) + 1 if event.start_mark is not None else 1
            if isinstance(event, yaml.AliasEvent):
                anchor = str(event.anchor)
                if any(a == anchor for a, _ in open_collections):
                    raise _RefusedError(
                        line, f"the alias *{anchor} is inside the collection &{anchor} it repeats"
                    )
                values += sizes.get(anchor, 1)
            elif isinstance(event, yaml.ScalarEvent):
                values += 1
                if event.anchor is not None:
                    sizes[str(event.anchor)] = 1
            elif isinstance(event, yaml.CollectionStartEvent):
                values += 1
                depth += 1
                if depth > limits.MAX_YAML_DEPTH:
                    raise _RefusedError(
                        line,
                        f"YAML nested more than {limits.MAX_YAML_DEPTH} deep (a content limit)",
                    )
                anchor_name = None if event.anchor is None else str(event.anchor)
                open_collections.append((anchor_name, values))
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
                anchor_name, started = open_collections.pop()
                if anchor_name is not None:
                    sizes[anchor_name] = values - started + 1
            if values > limits.MAX_YAML_VALUES:
                raise _RefusedError(
                    line,
                    f"more than {limits.MAX_YAML_VALUES:,} values in one file, counting what "
                    "each alias repeats (a content limit)",
                )
    finally:
        loader.dispose()


def _reworded(exc: yaml.MarkedYAMLError, text: str) -> yaml.MarkedYAMLError:
    """The Python parser's wording of a syntax error the C parser found, for a small file."""
    if _Loader is _PythonLoader or len(text) > _REWORD_BYTES:
        return exc
    loader = _PythonLoader(text)
    try:
        loader.get_single_node()
    except yaml.MarkedYAMLError as python_error:
        return python_error
    except (yaml.YAMLError, RecursionError):
        return exc
    finally:
        loader.dispose()
    return exc


def _syntax_error(exc: yaml.MarkedYAMLError) -> tuple[int, str]:
    mark = exc.problem_mark or exc.context_mark
    line = int(mark.line) + 1 if mark is not None else 1
    what = exc.problem or "invalid YAML"
    context = ""
    if exc.context:
        started = exc.context_mark
        since = (
            f" that starts on line {int(started.line) + 1}"
            if started is not None and started.line != (mark.line if mark else None)
            else ""
        )
        context = f" ({exc.context}{since})"
    column = f" at column {int(mark.column) + 1}" if mark is not None else ""
    return line, " ".join(f"YAML syntax error{column}: {what}{context}".split())


def _duplicate_keys(root: yaml.Node) -> list[tuple[int, str, str]]:
    found: list[tuple[int, str, str]] = []
    seen_nodes: set[int] = set()

    def walk(node: yaml.Node, path: str) -> None:
        if id(node) in seen_nodes:
            return
        seen_nodes.add(id(node))
        if isinstance(node, yaml.MappingNode):
            first: dict[str, int] = {}
            for key, value in node.value:
                if not isinstance(key, yaml.ScalarNode) or key.tag == "tag:yaml.org,2002:merge":
                    continue
                child = f"{path}.{key.value}" if path else str(key.value)
                if key.value in first:
                    found.append(
                        (
                            node_line(key),
                            child,
                            f"duplicate key {key.value!r} (first given on line {first[key.value]})",
                        )
                    )
                else:
                    first[key.value] = node_line(key)
                walk(value, child)
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                walk(item, f"{path}[{i + 1}]")

    walk(root, "")
    return found
